// `npm run feeds:check` as a deploy pipeline runs it: a child process judged by its exit status and output.
import { spawn } from 'node:child_process';
import { bundled, ROOT } from './bundles.js';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with the environment cleared of upstream URLs and MESH_DIR, plus `env`. */
export function feedsCheck(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.endsWith('_URL') && k !== 'MESH_DIR'));
  return new Promise((resolve, reject) => {
    // What `npm run feeds:check` runs (cli/feeds-check.ts), bundled, minus npm's start-up.
    const child = spawn(process.execPath, [bundled('feeds-check'), ...args], {
      cwd: ROOT,
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
