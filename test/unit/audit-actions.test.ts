// Audit action names are a documented, closed list: every action the code writes is in it and in
// docs/support.md, a filter names an action (and the actions under it), and an unknown one is a
// clear error rather than an empty page.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS, AuditFilterError, actionsFor } from '../../support/audit/audit-log.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .flatMap((f) => (f.endsWith('.ts') ? [path.join(ROOT, dir, f)] : []));
}

describe('audit actions', () => {
  it('lists every action the console and the commands write, and docs/support.md documents each', () => {
    const written = new Set<string>();
    for (const file of [...sources('server'), ...sources('stores'), ...sources('support'), ...sources('cli')]) {
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:audit\((?:req, (?:s|null), )?|auditKeyChange\(config, |action: )'([a-z]+(?:[.-][a-z]+)*)'/g))
        written.add(m[1]!);
      for (const m of text.matchAll(/\? '([a-z]+\.[a-z.]+)' : '([a-z]+\.[a-z.]+)'/g)) written.add(m[1]!).add(m[2]!);
    }
    expect([...written].filter((a) => !AUDIT_ACTIONS[a])).toEqual([]);
    expect(written.size).toBeGreaterThan(10);
    const docs = fs.readFileSync(path.join(ROOT, 'docs/support.md'), 'utf8');
    expect(Object.keys(AUDIT_ACTIONS).filter((a) => !docs.includes(`\`${a}\``))).toEqual([]);
  });

  it('selects an action with the ones under it, and refuses an unknown one by name', () => {
    expect(actionsFor('record.unmask')).toEqual(['record.unmask', 'record.unmask.refused']);
    expect(actionsFor('key')).toEqual(['key.issue', 'key.revoke']);
    expect(actionsFor('sign-in')).toEqual(['sign-in', 'sign-in.refused', 'sign-in.limited']);
    expect(actionsFor(undefined)).toBeNull();
    expect(() => actionsFor('record.unmasked')).toThrow(AuditFilterError);
    expect(() => actionsFor('rec')).toThrow(/unknown audit action "rec"; use one of sign-in, /);
  });
});
