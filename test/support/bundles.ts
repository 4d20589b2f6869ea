// The programs tests run as child processes, run as built: the gateway, admin process, keys command and
// reference upstream from dist/ (what `npm start` and the container image run), the other commands
// from bundles of their own. test/global-setup.ts builds both before any test file, and reuses them
// while their inputs are unchanged. A child run through tsx instead compiles thousands of modules on
// every start, and the suite starts many child processes.
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** Commands the tests run, bundled by the global setup (dist/ has only what the image needs). */
export const TEST_CLIS = ['feeds-check', 'check-config', 'cache', 'replay'] as const;

/** Outside dist/ (which the container image copies); inside node_modules so their imports of the external packages resolve. */
export const TEST_CLI_DIR = path.join(ROOT, 'node_modules/.cache/test-clis');

/** The file to run with `node` for a program of dist/ (`gateway`, `keys`, `upstream`) or a bundled command. */
export function bundled(name: 'gateway' | 'keys' | 'upstream' | (typeof TEST_CLIS)[number]): string {
  return (TEST_CLIS as readonly string[]).includes(name) ? path.join(TEST_CLI_DIR, `${name}.mjs`) : path.join(ROOT, 'dist', `${name}.mjs`);
}
