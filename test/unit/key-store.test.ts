import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  KeyStore,
  KeyStoreError,
  KEY_LENGTH,
  generateKey,
  hashKey,
  isWellFormedKey,
  issueKey,
  normalizePartnerCode,
  readKeysFile,
  revokeKeys,
} from '../../stores/key-store.js';
import { runKeysCli } from '../../cli/keys.js';
import { eventually } from '../../scripts/harness/eventually.js';
import { bundled } from '../support/bundles.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

function memoryLogger() {
  const lines: { level: string; obj: object; msg?: string }[] = [];
  const at = (level: string) => (obj: object, msg?: string) => void lines.push({ level, obj, msg });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

/** Polls until `cond` holds: when the store's next reload happens is the poller's business. */
const until = (cond: () => boolean) => eventually(async () => cond(), 10_000, 20);

let dir: string;
let file: string;
const stores: KeyStore[] = [];
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keys-'));
  file = path.join(dir, 'secrets', 'keys.json');
});
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
async function open(opts: Parameters<typeof KeyStore.open>[1] = {}) {
  const s = await KeyStore.open(file, { reloadMs: 50, ...opts });
  stores.push(s);
  return s;
}

describe('key format', () => {
  it('is epk_live_/epk_cert_ and 43 base64url characters of 32 random bytes', () => {
    const live = generateKey('production');
    const cert = generateKey('certification');
    expect(live).toMatch(/^epk_live_[A-Za-z0-9_-]{43}$/);
    expect(cert).toMatch(/^epk_cert_[A-Za-z0-9_-]{43}$/);
    expect(live.length).toBe(KEY_LENGTH);
    expect(Buffer.from(live.slice(9), 'base64url')).toHaveLength(32);
    expect(generateKey('production')).not.toBe(live);
    expect(isWellFormedKey(live)).toBe(true);
    expect(hashKey(live)).toMatch(/^[a-f0-9]{64}$/);
  });
  it('partner codes are upper-cased and checked', () => {
    expect(normalizePartnerCode('acme')).toBe('ACME');
    expect(normalizePartnerCode(' Acme_2-x ')).toBe('ACME_2-X');
    for (const bad of ['', 'A', '-AB', 'A B', 'ÄCME', 'A'.repeat(33), 'AC;ME', 'AC\nME']) {
      expect(() => normalizePartnerCode(bad), bad).toThrow(KeyStoreError);
    }
  });
});

describe('KeyStore', () => {
  it('creates the file 0600 in a 0700 directory and stores only hashes', async () => {
    const store = await open();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const { key, record } = await issueKey(file, { environment: 'production', partnerCode: 'acme' });
    const text = fs.readFileSync(file, 'utf8');
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(9));
    expect(text).toContain(hashKey(key));
    expect(record).toMatchObject({ partnerCode: 'ACME', environment: 'production', revokedAt: null });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    await store.reload();
    expect(store.verify('production', key)).toEqual({ ok: true, partnerCode: 'ACME', keyId: record.id });
  });

  it('refuses every malformed, unknown, revoked or wrong-environment key with its reason', async () => {
    const { key: live } = await issueKey(file, { environment: 'production', partnerCode: 'ACME' });
    const { key: cert } = await issueKey(file, { environment: 'certification', partnerCode: 'ACME' });
    const { key: old, record: oldRec } = await issueKey(file, { environment: 'production', partnerCode: 'BETA' });
    await revokeKeys(file, { id: oldRec.id });
    const store = await open();
    expect(store.verify('production', live).ok).toBe(true);
    expect(store.verify('certification', cert).ok).toBe(true);
    const reason = (env: 'production' | 'certification', v: string | string[] | undefined) => {
      const r = store.verify(env, v);
      return r.ok ? 'ok' : r.reason;
    };
    expect(reason('production', undefined)).toBe('missing');
    expect(reason('production', [])).toBe('missing');
    expect(reason('production', '')).toBe('malformed');
    expect(reason('production', ' ')).toBe('malformed');
    expect(reason('production', `${live} `)).toBe('malformed');
    expect(reason('production', ` ${live}`)).toBe('malformed');
    expect(reason('production', `${live.slice(0, 20)} ${live.slice(21)}`)).toBe('malformed');
    expect(reason('production', `${live.slice(0, 20)}\t${live.slice(21)}`)).toBe('malformed');
    expect(reason('production', `${live.slice(0, 20)}+${live.slice(21)}`)).toBe('malformed');
    expect(reason('production', `${live.slice(0, 20)}=${live.slice(21)}`)).toBe('malformed');
    expect(reason('production', `${live.slice(0, 20)}é${live.slice(21)}`)).toBe('malformed');
    expect(reason('production', `${live.slice(0, 20)}\u0000${live.slice(21)}`)).toBe('malformed');
    expect(reason('production', live.slice(0, -1))).toBe('malformed');
    expect(reason('production', `${live}A`)).toBe('malformed');
    expect(reason('production', live.toUpperCase())).toBe('malformed');
    expect(reason('production', `${live}, ${live}`)).toBe('malformed');
    expect(reason('production', [live, live])).toBe('malformed');
    expect(reason('production', [live])).toBe('ok');
    expect(reason('production', 'x'.repeat(100_000))).toBe('malformed');
    expect(reason('production', generateKey('production'))).toBe('unknown');
    // One character changed: well-formed, unknown.
    const flipped = live.slice(0, -1) + (live.endsWith('A') ? 'B' : 'A');
    expect(reason('production', flipped)).toBe('unknown');
    expect(reason('production', old)).toBe('revoked');
    expect(reason('production', cert)).toBe('wrong_environment');
    expect(reason('certification', live)).toBe('wrong_environment');
  });

  it('picks up issued and revoked keys while running (polling, atomic rename)', async () => {
    const store = await open();
    // Issued after the store opened: only a reload can make it known, whenever that happens.
    const { key, record } = await issueKey(file, { environment: 'certification', partnerCode: 'ACME' });
    await until(() => store.verify('certification', key).ok);
    await revokeKeys(file, { partnerCode: 'acme', environment: 'certification' });
    await until(() => !store.verify('certification', key).ok);
    expect(store.verify('certification', key)).toMatchObject({ ok: false, reason: 'revoked' });
    expect((await readKeysFile(file)).keys.find((k) => k.id === record.id)?.revokedAt).toBeTruthy();
  });

  it('a key used right after it was issued works, before the next poll (verifyFresh looks at the file)', async () => {
    const store = await open({ reloadMs: 60_000 });
    const { key } = await issueKey(file, { environment: 'certification', partnerCode: 'ACME' });
    expect(store.verify('certification', key)).toEqual({ ok: false, reason: 'unknown' });
    expect(await store.verifyFresh('certification', key)).toMatchObject({ ok: true, partnerCode: 'ACME' });
    // An unknown key stays unknown, and a flood of them looks at the file at most every 100 ms.
    const stranger = generateKey('certification');
    const results = await Promise.all(Array.from({ length: 50 }, () => store.verifyFresh('certification', stranger)));
    expect(new Set(results.map((r) => JSON.stringify(r)))).toEqual(new Set([JSON.stringify({ ok: false, reason: 'unknown' })]));
  });

  it('keeps the last good keys when the file turns corrupt or disappears, and logs it', async () => {
    const logger = memoryLogger();
    const { key } = await issueKey(file, { environment: 'production', partnerCode: 'ACME' });
    const store = await open({ logger });
    expect(store.verify('production', key).ok).toBe(true);
    const good = fs.readFileSync(file, 'utf8');
    for (const bad of [
      '{ "version": 1, "keys": [ {',
      '',
      'null',
      '[]',
      '{"version":2,"keys":[]}',
      good.replace(/"keyHash": "[a-f0-9]+"/, '"keyHash": "zz"'),
    ]) {
      fs.writeFileSync(file, bad);
      await store.reload();
      expect(store.verify('production', key).ok, bad).toBe(true);
      expect(store.status().lastError).toBeTruthy();
    }
    expect(logger.lines.some((l) => l.level === 'error')).toBe(true);
    // The key never reaches a log line.
    expect(JSON.stringify(logger.lines)).not.toContain(key);
    fs.rmSync(file);
    await store.reload();
    expect(store.verify('production', key).ok).toBe(true);
    // A fixed file is picked up again.
    fs.writeFileSync(file, good.replace(/"revokedAt": null/, `"revokedAt": "${new Date().toISOString()}"`));
    await until(() => !store.verify('production', key).ok);
    expect(store.status().lastError).toBeNull();
  });

  it('refuses to start on a corrupt file, and the CLI never overwrites one', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{not json');
    await expect(KeyStore.open(file)).rejects.toThrow(KeyStoreError);
    await expect(issueKey(file, { environment: 'production', partnerCode: 'ACME' })).rejects.toThrow(/not valid JSON/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{not json');
  });

  it('serializes concurrent writers: no issued key is lost', async () => {
    const issued = await Promise.all(
      Array.from({ length: 25 }, (_, i) => issueKey(file, { environment: i % 2 ? 'production' : 'certification', partnerCode: `P${i}X` })),
    );
    const { keys } = await readKeysFile(file);
    expect(keys).toHaveLength(25);
    expect(new Set(keys.map((k) => k.keyHash))).toEqual(new Set(issued.map((i) => hashKey(i.key))));
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(['keys.json']);
  });

  it('takes over a stale lock left by a crashed writer', async () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(`${file}.lock`, '999999');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(`${file}.lock`, old, old);
    await issueKey(file, { environment: 'production', partnerCode: 'ACME' });
    expect((await readKeysFile(file)).keys).toHaveLength(1);
  });

  it('revoke errors on unknown ids and reports already revoked ones', async () => {
    const { record } = await issueKey(file, { environment: 'production', partnerCode: 'ACME' });
    await expect(revokeKeys(file, { id: 'key_0000000000000000' })).rejects.toThrow(/no key with id/);
    await expect(revokeKeys(file, { partnerCode: 'NOPE', environment: 'production' })).rejects.toThrow(/no key/);
    expect((await revokeKeys(file, { id: record.id })).revoked).toHaveLength(1);
    expect(await revokeKeys(file, { id: record.id })).toMatchObject({ revoked: [], alreadyRevoked: [{ id: record.id }] });
  });
});

describe('keys CLI', () => {
  function run(args: string[], env: NodeJS.ProcessEnv = {}) {
    const out: string[] = [];
    const err: string[] = [];
    return runKeysCli(args, { KEYS_FILE: file, ...env }, { out: (l) => out.push(l), err: (l) => err.push(l) }).then((code) => ({
      code,
      out,
      err,
    }));
  }

  it('issues, lists without secrets, and revokes', async () => {
    const issued = await run(['issue', '--env', 'production', '--partner', 'acme']);
    expect(issued.code).toBe(0);
    expect(issued.out).toHaveLength(1);
    const key = issued.out.at(-1)!;
    expect(isWellFormedKey(key)).toBe(true);
    expect(issued.err.join('\n')).toContain('ACME');
    expect(issued.err.join('\n')).not.toContain(key);

    const list = await run(['list']);
    expect(list.code).toBe(0);
    expect(list.out.join('\n')).toMatch(/ACME\s+production/);
    const json = await run(['list', '--json', '--env', 'production']);
    const rows = JSON.parse(json.out.join('\n'));
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]).sort()).toEqual(['createdAt', 'environment', 'id', 'partnerCode', 'revokedAt']);
    const everything = list.out.join('\n') + json.out.join('\n');
    expect(everything).not.toContain(key);
    expect(everything).not.toContain(hashKey(key));

    expect((await run(['revoke', rows[0].id])).code).toBe(0);
    expect(JSON.parse((await run(['list', '--json'])).out.join('\n'))[0].revokedAt).toBeTruthy();
    expect(JSON.parse((await run(['list', '--json', '--active'])).out.join('\n'))).toEqual([]);
  });

  it('honours DATA_DIR when KEYS_FILE is unset', async () => {
    const r = await runKeysCli(
      ['issue', '--env', 'certification', '--partner', 'ACME'],
      { DATA_DIR: dir },
      { out: () => {}, err: () => {} },
    );
    expect(r).toBe(0);
    expect((await readKeysFile(path.join(dir, 'keys.json'))).keys).toHaveLength(1);
  });

  it('exits non-zero with a clear message on bad input', async () => {
    const cases: [string[], number, RegExp][] = [
      [[], 2, /missing command/],
      [['frobnicate'], 2, /unknown command "frobnicate"/],
      [['issue', '--partner', 'ACME'], 2, /--env is required/],
      [['issue', '--env', 'staging', '--partner', 'ACME'], 2, /production or certification/],
      [['issue', '--env', 'production'], 2, /--partner/],
      [['issue', '--env', 'production', '--partner', 'a b'], 2, /partner code/],
      [['issue', '--env', 'production', '--partner', 'ACME', '--json'], 2, /does not take --json/],
      [['issue', '--bogus'], 2, /Unknown option/],
      [['issue', '--env'], 2, /argument missing|--env/],
      [['revoke'], 2, /key id/],
      [['revoke', 'a', 'b'], 2, /one key id/],
      [['revoke', 'key_0000000000000000'], 1, /no key with id/],
      [['list', 'extra'], 2, /unexpected argument/],
    ];
    for (const [args, code, message] of cases) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(code);
      expect(r.err.join('\n'), args.join(' ')).toMatch(message);
    }
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.out.join('\n')).toMatch(/issue --env/);
  });

  it('as separate processes: parallel issues keep every key, and the key is the last stdout line', async () => {
    const spawnIssue = (partner: string) =>
      new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, [bundled('keys'), 'issue', '--env', 'production', '--partner', partner], {
          cwd: ROOT,
          env: { ...process.env, KEYS_FILE: file },
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        let stdout = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.on('close', (code) => resolve({ code, stdout }));
      });
    const results = await Promise.all(['AAA', 'BBB', 'CCC', 'DDD'].map(spawnIssue));
    for (const r of results) {
      expect(r.code).toBe(0);
      expect(isWellFormedKey(r.stdout.trimEnd().split('\n').at(-1)!)).toBe(true);
    }
    const store = await open();
    for (const r of results) expect(store.verify('production', r.stdout.trim().split('\n').at(-1)).ok).toBe(true);
    expect((await readKeysFile(file)).keys.map((k) => k.partnerCode).sort()).toEqual(['AAA', 'BBB', 'CCC', 'DDD']);
  });
});
