import { describe, expect, it } from 'vitest';
import { diffResponses, formatDiff } from '../../support/replay-diff.js';

const plan = (id: string, price: number, title = `Plan ${id}`, rate = 0.15) => ({
  id,
  title,
  price,
  rates: [
    { usageKwh: 500, allInRateUsdPerKwh: rate + 0.02, avgMonthlyBillUsd: 85 },
    { usageKwh: 1000, allInRateUsdPerKwh: rate, avgMonthlyBillUsd: 150 },
  ],
});

describe('replay diff', () => {
  it('identical bodies (whitespace and key order aside) are identical', () => {
    const body = JSON.stringify({ data: { residentialPlans: [plan('a', 0.1)] } });
    const same = JSON.stringify({ data: { residentialPlans: [{ ...plan('a', 0.1) }] } }, null, 2);
    const d = diffResponses(body, same, { oldStatus: 200, newStatus: 200 });
    expect(d.identical).toBe(true);
    expect(formatDiff(d)).toMatch(/identical/);
  });

  it('plans by id: added, removed, price and rate changes, order', () => {
    const old = { data: { residentialPlans: [plan('a', 0.1), plan('b', 0.12), plan('c', 0.13)] } };
    const now = { data: { residentialPlans: [plan('c', 0.13), plan('b', 0.11, 'Plan b', 0.14), plan('d', 0.09)] } };
    const d = diffResponses(JSON.stringify(old), JSON.stringify(now), { oldStatus: 200, newStatus: 200 });
    expect(d.identical).toBe(false);
    expect(d.lists).toHaveLength(1);
    const l = d.lists[0]!;
    expect(l.path).toBe('data.residentialPlans');
    expect(l.added).toEqual([{ id: 'd', title: 'Plan d' }]);
    expect(l.removed).toEqual([{ id: 'a', title: 'Plan a' }]);
    expect(l.changed).toHaveLength(1);
    expect(l.changed[0]!.id).toBe('b');
    expect(l.changed[0]!.changes).toContainEqual({ path: 'price', kind: 'changed', old: 0.12, new: 0.11 });
    expect(l.changed[0]!.changes).toContainEqual({
      path: 'rates[usageKwh=1000].allInRateUsdPerKwh',
      kind: 'changed',
      old: 0.15,
      new: 0.14,
    });
    expect(l.orderChanged).toBe(true);
    const text = formatDiff(d);
    expect(text).toContain('data.residentialPlans (by id): 1 added, 1 removed, 1 changed, order changed');
    expect(text).toContain('+ d "Plan d"');
    expect(text).toContain('- a "Plan a"');
    expect(text).toContain('~ price: 0.12 -> 0.11');
  });

  it('other fields by JSON path; errors appearing; status change', () => {
    const old = { data: { energyInfoByState: { state: 'TX', averageResidentialRateUsdPerKwh: 0.15 } } };
    const now = {
      errors: [{ message: 'Feed down', extensions: { code: 'UPSTREAM_UNAVAILABLE' } }],
      data: { energyInfoByState: { state: 'TX', averageResidentialRateUsdPerKwh: 0.16 } },
    };
    const d = diffResponses(JSON.stringify(old), JSON.stringify(now), { oldStatus: 200, newStatus: 502 });
    expect(d.changes).toContainEqual({
      path: 'data.energyInfoByState.averageResidentialRateUsdPerKwh',
      kind: 'changed',
      old: 0.15,
      new: 0.16,
    });
    expect(d.changes.find((c) => c.path === 'errors')).toMatchObject({ kind: 'added' });
    expect(formatDiff(d)).toContain('status: 200 -> 502');
  });

  it('request ids quoted in bodies are not differences', () => {
    const msg = (id: string) =>
      JSON.stringify({
        errors: [
          { message: `Internal error. Quote request id ${id} to support.`, extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: id } },
        ],
        data: null,
      });
    const d = diffResponses(msg('req-aaaaaaaa'), msg('rerun.bbbbbbbb'), {
      oldRequestId: 'req-aaaaaaaa',
      newRequestId: 'rerun.bbbbbbbb',
      oldStatus: 200,
      newStatus: 200,
    });
    expect(d.identical).toBe(true);
  });

  it('a list emptied or filled is all removed / all added', () => {
    const d = diffResponses(JSON.stringify({ data: { p: [plan('a', 1)] } }), JSON.stringify({ data: { p: [] } }));
    expect(d.lists[0]).toMatchObject({ removed: [{ id: 'a' }], added: [] });
  });
});
