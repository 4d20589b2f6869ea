// Deny by default in the console's typed masking: what cannot be parsed or typed against the
// public schema counts as personal, and a value at a position the schema does not type is masked.
import { describe, expect, it } from 'vitest';
import { maskRecord, maskTokens } from '../../support/console/masking.js';
import { MASK, operationPrivacy } from '../../support/console/operation-privacy.js';
import { testRecord } from '../support/replay-records.js';

describe('operation privacy, deny by default', () => {
  it('text that does not parse is personal, and its answer data all masked', () => {
    const p = operationPrivacy('{ utilities(zipCode: "75001" ', null);
    expect(p.personal).toBe(true);
    expect(JSON.parse(p.maskBody('{"data":{"utilities":[{"id":"ONCOR"}]}}', null))).toEqual({ data: { utilities: [{ id: MASK }] } });
  });

  it('a value passed where the schema names nothing (unknown argument, unknown directive) is personal and masked', () => {
    for (const q of [
      '{ utilities(zipCode: "75001", street: "901 Bagby St") { id } }',
      '{ utilities(zipCode: "75001") @note(text: "901 Bagby St") { id } }',
      '{ nope(where: "901 Bagby St") }',
    ]) {
      const p = operationPrivacy(q, null);
      expect(p.personal).toBe(true);
      expect(p.maskedQuery).not.toContain('901 Bagby St');
      if (q.includes('75001')) expect(p.maskedQuery).toContain('75001');
    }
  });

  it('an unknown field is personal when the answer has data it could have put there, not for a refused one', () => {
    const invalid = testRecord({
      query: '{ residentialPlans(zipCode: "75001") { nope } }',
      responseBody: '{"errors":[{"message":"Cannot query field \\"nope\\" on type \\"Plan\\"."}]}',
    });
    expect(maskRecord(invalid).personal).toBe(false);
    const answered = { ...invalid, responseBody: '{"data":{"residentialPlans":[{"nope":"901 Bagby St"}]}}' };
    const m = maskRecord(answered);
    expect(m.personal).toBe(true);
    expect(m.record.responseBody).not.toContain('901 Bagby St');
  });

  it('an answer key no selection explains is masked; the operation a record names is the one typed', () => {
    const q =
      'query A { utilities(zipCode: "75001") { id } } query B { utilityAccounts(address: "1 Main St", zipCode: "75001") { accountId } }';
    const body = '{"data":{"utilities":[{"id":"ONCOR","extra":"10443720004563214"}]}}';
    expect(operationPrivacy(q, 'A').maskBody(body, null)).toBe('{"data":{"utilities":[{"id":"ONCOR","extra":"••••"}]}}');
    // A name that is none of the document's: nothing is typed, everything masked.
    expect(operationPrivacy(q, '<unknown>').maskBody(body, null)).not.toContain('ONCOR');
  });

  it('error messages lose the personal values sent and answered; variables at personal positions are scrubbed too', () => {
    const p = operationPrivacy('query Q($a: String!) { utilityAccounts(address: $a, zipCode: "77002") { accountId } }', 'Q');
    const body =
      '{"errors":[{"message":"no account at 901 Bagby St near 10443720004563214"}],"data":{"utilityAccounts":[{"accountId":"10443720004563214"}]}}';
    const out = p.maskBody(body, { a: '901 Bagby St' });
    expect(out).not.toContain('901 Bagby St');
    expect(out).not.toContain('10443720004563214');
    expect(Object.keys(JSON.parse(out))).toEqual(['errors', 'data']);
  });

  it('the kept start of a refused request is masked token by token, a cut-off string dropped', () => {
    expect(maskTokens('{ utilityAccounts(address: "901 Bagby St", zip')).toBe(`{ utilityAccounts ( address : "${MASK}" zip`);
    expect(maskTokens('{ utilityAccounts(address: "901 Bag')).not.toContain('901');
    expect(maskTokens('# 901 Bagby St\n{ utilities }')).not.toContain('901');
  });
});
