// `npm run feeds:check` as a deploy pipeline runs it: a child process judged by its exit status and output.
import path from 'node:path';
import { spawn } from 'node:child_process';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with the environment cleared of upstream URLs and MESH_DIR, plus `env`. */
export function feedsCheck(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.endsWith('_URL') && k !== 'MESH_DIR'));
  return new Promise((resolve, reject) => {
    // What `npm run feeds:check` runs (tsx cli/feeds-check.ts), minus npm's start-up.
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/feeds-check.ts', ...args], {
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
