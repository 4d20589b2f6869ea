// Issuing and revoking keys from the shell is audited (key.issue, key.revoke by cli:<os user>,
// the key id as target, never the key).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runKeysCli } from '../../cli/keys.js';
import { runAuditCli } from '../../cli/audit.js';
import type { AuditEntry } from '../../support/audit/audit-log.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'keys-audit-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function run(cli: typeof runKeysCli, args: string[]): Promise<string[]> {
  const out: string[] = [];
  const code = await cli(args, { DATA_DIR: dir }, { out: (l) => out.push(l), err: () => {} });
  expect(code).toBe(0);
  return out;
}

describe('key changes in the audit trail', () => {
  it('records issue and revoke with the key id', async () => {
    const [key] = (await run(runKeysCli, ['issue', '--env', 'production', '--partner', 'ACME'])).slice(-1);
    const [listed] = JSON.parse((await run(runKeysCli, ['list', '--json'])).join('\n')) as Array<{ id: string }>;
    await run(runKeysCli, ['revoke', listed!.id]);
    const entries = (await run(runAuditCli, ['list', '--action', 'key', '--json'])).map((l) => JSON.parse(l) as AuditEntry);
    expect(entries.map((e) => [e.action, e.target, e.actor])).toEqual([
      ['key.revoke', listed!.id, `cli:${os.userInfo().username}`],
      ['key.issue', listed!.id, `cli:${os.userInfo().username}`],
    ]);
    expect(entries[1]!.details).toEqual({ partner: 'ACME', environment: 'production' });
    expect(JSON.stringify(entries)).not.toContain(key);
  });
});
