// Partner records: the file the console and CLI edit, and the in-memory copy that answers the
// checkout (hot reload, last good copy kept on a broken file, concurrent writers).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PartnerError, PartnerStore, addTestIp, readPartnersFile, removeTestIp, savePartner } from '../../stores/partners.js';
import { issueKey, KeyStore } from '../../stores/key-store.js';
import { runKeysCli } from '../../cli/keys.js';
import { eventually } from '../../scripts/harness/eventually.js';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-partners-'));
  dirs.push(d);
  return path.join(d, 'partners.json');
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
const by = { actor: 'cli:test' };

describe('partner records', () => {
  it('saves partners and test IPs with who and when, refusing bad input clearly', async () => {
    const file = tmp();
    await savePartner(file, { code: 'acme', name: 'Acme', contact: 'qa@acme.example' }, { ...by, now: new Date('2026-01-02T03:04:05Z') });
    const entry = await addTestIp(file, 'ACME', '2001:DB8::7', { actor: 'support:BOB', now: new Date('2026-01-02T03:04:06Z') });
    expect(entry).toEqual({ cidr: '2001:db8::7', addedBy: 'support:BOB', addedAt: '2026-01-02T03:04:06.000Z' });
    await expect(addTestIp(file, 'ACME', '2001:db8::/64', by)).rejects.toThrow(/overlaps 2001:db8::7/);
    await expect(addTestIp(file, 'NOPE', '1.2.3.4', by)).rejects.toThrow(/no partner NOPE/);
    await expect(addTestIp(file, 'ACME', '1.2.3.4/8', by)).rejects.toThrow(PartnerError);
    await expect(removeTestIp(file, 'ACME', '1.2.3.4', by)).rejects.toThrow(/not enabled/);
    await expect(savePartner(file, { code: 'A', name: 'x', contact: 'y' }, by)).rejects.toThrow(/partner code/);
    await expect(savePartner(file, { code: 'ACME', name: 'a\u0000b', contact: 'y' }, by)).rejects.toThrow(/control characters/);
    await expect(savePartner(file, { code: 'ACME', name: 'n'.repeat(101), contact: 'y' }, by)).rejects.toThrow(/at most 100/);
    expect((await removeTestIp(file, 'acme', '2001:0db8::0007', by)).cidr).toBe('2001:db8::7');
    expect((await readPartnersFile(file))[0]!.testIps).toEqual([]);
  });

  it('keeps every entry of concurrent writers', async () => {
    const file = tmp();
    await savePartner(file, { code: 'ACME', name: 'Acme', contact: 'c' }, by);
    await Promise.all(Array.from({ length: 12 }, (_, i) => addTestIp(file, 'ACME', `192.0.2.${i + 1}`, by)));
    expect((await readPartnersFile(file))[0]!.testIps).toHaveLength(12);
  });

  it('reloads changes, and keeps the last good copy when the file breaks', async () => {
    const file = tmp();
    await savePartner(file, { code: 'ACME', name: 'Acme', contact: 'c' }, by);
    const errors: string[] = [];
    const store = await PartnerStore.open(file, { reloadMs: 20, onError: (m) => errors.push(m) });
    try {
      expect(store.check('ACME', '192.0.2.1').enabled).toBe(false);
      await addTestIp(file, 'ACME', '192.0.2.0/24', by);
      await eventually(async () => store.check('acme', '192.0.2.200').enabled);
      fs.writeFileSync(file, '{ not json');
      await eventually(async () => errors.length > 0);
      expect(store.check('ACME', '192.0.2.200').enabled).toBe(true);
      expect(() => store.check('ACME', 'nonsense')).toThrow(/ip must be one IPv4 or IPv6 address, such as 203.0.113.7/);
      expect(() => store.check('ACME', '192.0.2.0/24')).toThrow(/single address/);
      expect(() => store.check('', '192.0.2.1')).toThrow(PartnerError);
    } finally {
      store.close();
    }
    await expect(PartnerStore.open(file)).rejects.toThrow(/not valid JSON/);
  });
});

describe('support tokens', () => {
  it('are issued by `keys issue --env support`, hashed, and valid only as support tokens', async () => {
    const keysFile = path.join(path.dirname(tmp()), 'keys.json');
    const out: string[] = [];
    const err: string[] = [];
    expect(
      await runKeysCli(
        ['issue', '--env', 'support', '--partner', 'jsmith', '--file', keysFile],
        {},
        { out: (l) => out.push(l), err: (l) => err.push(l) },
      ),
    ).toBe(0);
    const key = out.at(-1)!;
    expect(key).toMatch(/^epk_supp_[A-Za-z0-9_-]{43}$/);
    expect(err.join('\n')).toMatch(/support user JSMITH/);
    expect(fs.readFileSync(keysFile, 'utf8')).not.toContain(key);
    const store = await KeyStore.open(keysFile);
    try {
      expect(store.verify('support', key)).toMatchObject({ ok: true, partnerCode: 'JSMITH' });
      expect(store.verify('production', key)).toMatchObject({ ok: false, reason: 'wrong_environment' });
      const partner = (await issueKey(keysFile, { environment: 'production', partnerCode: 'ACME' })).key;
      await store.reload();
      expect(store.verify('support', partner)).toMatchObject({ ok: false, reason: 'wrong_environment', partnerCode: 'ACME' });
      expect(store.status().activeKeys).toEqual({ production: 1, certification: 0, support: 1 });
    } finally {
      store.close();
    }
    expect(await runKeysCli(['issue', '--env', 'support', '--file', keysFile], {}, { out: () => {}, err: (l) => err.push(l) })).toBe(2);
    expect(err.join('\n')).toMatch(/--partner PERSON/);
  });
});
