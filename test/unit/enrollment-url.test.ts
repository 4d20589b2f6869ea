import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PLAN_ID_NAMESPACE, enrollmentUrl, planUuid, uuidV5 } from '../../domain/enrollment-url.js';

const V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('enrollmentUrl', () => {
  it('sets the fixed and given params', () => {
    const u = new URL(
      enrollmentUrl({
        baseUrl: 'https://enroll.example.com/start',
        planId: 'p-1',
        zipCode: '75001',
        partnerCode: 'ACME',
        utmSource: 'acme',
      }),
    );
    expect(u.origin + u.pathname).toBe('https://enroll.example.com/start');
    expect(Object.fromEntries(u.searchParams)).toEqual({
      utm_source: 'acme',
      utm_medium: 'api',
      utm_campaign: 'headless_enrollment',
      flow: 'RESIDENTIAL_PARTNER',
      plan_id: 'p-1',
      zip_code: '75001',
      ref: 'ACME',
    });
  });

  it('uses defaults for missing partner code and utm source', () => {
    for (const missing of [undefined, null, '', '  ']) {
      const u = new URL(
        enrollmentUrl({ baseUrl: 'https://e.example/x', planId: 'p', zipCode: '75001', partnerCode: missing, utmSource: missing }),
      );
      expect(u.searchParams.get('ref')).toBe('PARTNER_CODE');
      expect(u.searchParams.get('utm_source')).toBe('partner_api');
    }
  });

  it('keeps other base params, overrides ours, encodes hostile values', () => {
    const s = enrollmentUrl({
      baseUrl: 'https://e.example/x?lang=es&flow=OTHER#top',
      planId: 'a&b=c d',
      zipCode: '75001',
      partnerCode: '<x>',
    });
    const u = new URL(s);
    expect(u.searchParams.get('lang')).toBe('es');
    expect(u.searchParams.getAll('flow')).toEqual(['RESIDENTIAL_PARTNER']);
    expect(u.searchParams.get('plan_id')).toBe('a&b=c d');
    expect(u.searchParams.get('ref')).toBe('<x>');
    expect(u.hash).toBe('#top');
    expect(s).not.toContain('<');
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.string({ unit: 'grapheme', minLength: 1 }).filter((s) => s.trim() !== ''),
        (planId, ref) => {
          const v = new URL(enrollmentUrl({ baseUrl: 'https://e.example/', planId, zipCode: '75001', partnerCode: ref }));
          expect(v.searchParams.get('plan_id')).toBe(planId); // any text round-trips
          expect(v.searchParams.get('ref')).toBe(ref.trim());
          expect(v.searchParams.get('flow')).toBe('RESIDENTIAL_PARTNER');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('requires an https base without credentials', () => {
    const args = { planId: 'p', zipCode: '75001' };
    expect(() => enrollmentUrl({ ...args, baseUrl: 'http://e.example/' })).toThrow(TypeError);
    expect(() => enrollmentUrl({ ...args, baseUrl: 'javascript:alert(1)' })).toThrow(TypeError);
    expect(() => enrollmentUrl({ ...args, baseUrl: 'not a url' })).toThrow(TypeError);
    expect(() => enrollmentUrl({ ...args, baseUrl: 'https://u:p@e.example/' })).toThrow(TypeError);
    expect(() => enrollmentUrl({ ...args, baseUrl: 'HTTPS://E.EXAMPLE/' })).not.toThrow();
  });
});

describe('planUuid', () => {
  it('implements RFC 4122 v5 (Python uuid5 vector)', () => {
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'python.org')).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });

  it('is stable across calls and environments (pinned values)', () => {
    expect(PLAN_ID_NAMESPACE).toBe('b60cc0ec-9935-457f-bf7e-9608ce53160b');
    // Computed independently with Python: uuid.uuid5(UUID(PLAN_ID_NAMESPACE), 'voltify:VOL-ONCOR-R-0001')
    expect(planUuid('voltify', 'VOL-ONCOR-R-0001')).toBe('0a164241-1dfe-5372-85e5-1458f7e686de');
    expect(planUuid('brightgrid', 'bg-7f3a')).toBe('1a136039-ce43-54fe-bc75-e251d4a647fb');
    expect(planUuid('voltify', 'VOL-ONCOR-R-0001')).toBe(planUuid('voltify', 'VOL-ONCOR-R-0001'));
  });

  it('is a valid v5 UUID and distinguishes feeds', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,12}$/), fc.string({ minLength: 1 }), (feed, id) => {
        const a = planUuid(feed, id);
        expect(a).toMatch(V5);
        expect(planUuid(feed, id)).toBe(a);
        expect(planUuid(`${feed}x`, id)).not.toBe(a);
      }),
      { numRuns: 500 },
    );
    expect(() => planUuid('a:b', 'c')).toThrow(TypeError);
    expect(() => planUuid('', 'c')).toThrow(TypeError);
    expect(() => planUuid('voltify', '')).toThrow(TypeError);
  });
});
