// How `npm start` runs the bundled gateway of a checkout, read from its package.json, so the
// benchmark and the answer comparison start it the same way.
import fs from 'node:fs';
import path from 'node:path';

/**
 * The runtime settings `npm start` gives the bundled gateway (package.json "start": glibc malloc
 * arenas and V8's young generation, both for RSS), read from there so the bench runs it the same way.
 */
export function startRuntime(root: string, overrides: NodeJS.ProcessEnv = process.env): { env: Record<string, string>; args: string[] } {
  const script =
    (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start ?? '';
  const m = /exec env ((?:\w+=\S+ )*)node ((?:--\S+ )*)dist\/gateway\.mjs/.exec(script);
  if (!m) throw new Error(`bench: cannot read the node invocation from package.json "start": ${script}`);
  const env = Object.fromEntries(
    m[1]!
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((kv) => {
        const [k, v] = kv.split('=', 2) as [string, string];
        // ${NAME:-default} in the script: the default, unless `overrides` (this process's environment) sets NAME.
        const d = /^\$\{(\w+):-(.*)\}$/.exec(v);
        return [k, d ? (overrides[d[1]!] ?? d[2]!) : v];
      }),
  );
  return { env, args: m[2]!.trim().split(/\s+/).filter(Boolean) };
}
