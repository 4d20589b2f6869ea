import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import {
  digestQuery,
  maskUrl,
  recordJson,
  sealPersonalData,
  unsealPersonalData,
  type SealableRecord,
} from '../../stores/replay-privacy.js';
import { parsePiiKey } from '../../stores/replay-settings.js';

const personal = (): SealableRecord => ({
  query: 'query A($address: String!) { utilityAccounts(address: $address, zipCode: "75201") { accountId } }',
  variables: { address: '1500 Marilla St' },
  responseBody: '{"data":{"utilityAccounts":[{"accountId":"10443720000000001"}]}}',
  upstreamCalls: [{ url: 'http://127.0.0.1:4010/premises/v1/search?zip=75201&address=1500%20MARILLA%20ST' }],
});

describe('sealing personal data', () => {
  it('round-trips with the key; masks without it; nothing personal left in clear', () => {
    const key = randomBytes(32);
    const original = personal();
    const r = personal();
    sealPersonalData(r, key);
    const text = JSON.stringify(r);
    expect(text).not.toMatch(/marilla|10443720000000001|address=/i);
    expect(r.upstreamCalls[0]!.url).toBe('http://127.0.0.1:4010/premises/v1/search?[personal data]');
    expect(unsealPersonalData(r, key).record).toMatchObject({ ...original, personalData: { unsealed: true } });
    expect(unsealPersonalData(r, null).problem).toMatch(/REPLAY_PII_KEY/);
    expect(unsealPersonalData(r, randomBytes(32)).problem).toMatch(/another key/);
  });

  it('refuses a tampered ciphertext (GCM tag) instead of returning garbage', () => {
    const key = randomBytes(32);
    const r = personal();
    sealPersonalData(r, key);
    const data = Buffer.from(r.personalData!.sealed!.data, 'base64');
    data[0] = data[0]! ^ 1;
    r.personalData!.sealed!.data = data.toString('base64');
    const out = unsealPersonalData(r, key);
    expect(out.problem).toMatch(/could not be unsealed/);
    expect(JSON.stringify(out.record)).not.toMatch(/marilla/i);
  });

  it('without a key nothing personal is stored', () => {
    const r = personal();
    sealPersonalData(r, null);
    expect(r.personalData).toEqual({ sealed: null });
    expect(JSON.stringify(r)).not.toMatch(/marilla|10443720000000001/i);
    expect(unsealPersonalData(r, randomBytes(32)).problem).toMatch(/not stored/);
  });

  it('seals variables nested past the stack as a marker, keeping the record', () => {
    let deep: unknown = 0;
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const key = randomBytes(32);
    const r = { ...personal(), variables: { address: '1500 Marilla St', unused: deep } };
    sealPersonalData(r, key);
    const open = unsealPersonalData(r, key).record;
    expect(open.variables).toEqual({ $unrecorded: expect.any(String) });
    expect(open.responseBody).toContain('utilityAccounts');
  });
});

describe('record text', () => {
  it('a digest is bounded whatever the input', () => {
    const d = digestQuery(`{ __typename }\n#${'x'.repeat(100_000)}`);
    expect(d.head.length).toBe(200);
    expect(d.bytes).toBe(100_016);
    expect(d.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(digestQuery('').bytes).toBe(0);
  });

  it('recordJson never throws on hostile variables', () => {
    let deep: unknown = 0;
    for (let i = 0; i < 20_000; i++) deep = { a: deep };
    const hostile = { id: 'x', variables: { deep } };
    const plain = { id: 'x', variables: { a: 1 } };
    expect(JSON.parse(recordJson(hostile))).toEqual({ id: 'x', variables: { $unrecorded: expect.any(String) } });
    expect(JSON.parse(recordJson(plain))).toEqual(plain);
  });

  it('maskUrl cuts at ? or #', () => {
    expect(maskUrl('http://h/p?address=x')).toBe('http://h/p?[personal data]');
    expect(maskUrl('http://h/p#frag')).toBe('http://h/p?[personal data]');
    expect(maskUrl('http://h/p')).toBe('http://h/p');
  });
});

describe('REPLAY_PII_KEY', () => {
  it('accepts 32 bytes as hex or base64, refuses the rest with a message', () => {
    const key = randomBytes(32);
    for (const ok of [key.toString('hex'), key.toString('base64'), ` ${key.toString('hex')}\n`]) {
      const problems: string[] = [];
      expect(parsePiiKey(ok, problems)).toEqual(key);
      expect(problems).toEqual([]);
    }
    for (const bad of [
      'short',
      randomBytes(16).toString('hex'),
      randomBytes(33).toString('base64'),
      'z'.repeat(64),
      '\u0000'.repeat(64),
      'x'.repeat(100_000),
    ]) {
      const problems: string[] = [];
      expect(parsePiiKey(bad, problems)).toBeNull();
      expect(problems).toEqual(['REPLAY_PII_KEY must be 32 bytes: 64 hex digits or base64 (openssl rand -base64 32)']);
    }
    expect(parsePiiKey(undefined, [])).toBeNull();
    expect(parsePiiKey('  ', [])).toBeNull();
  });
});
