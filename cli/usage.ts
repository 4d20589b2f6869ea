// What the operator CLIs share: a usage error (exit code 2 with the usage text), their output, and
// whether a CLI module is the process's entry (`tsx cli/keys.ts`) rather than imported by a test.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export class UsageError extends Error {}

/** A usage error of ours, or one from node:util parseArgs (unknown flag, missing value...). */
export function isUsageError(err: unknown): err is Error {
  return err instanceof UsageError || (err as { code?: string } | null)?.code?.startsWith?.('ERR_PARSE_ARGS') === true;
}

export interface Io {
  /** A line of output. */
  out(line: string): void;
  /** A line of diagnostics. */
  err(line: string): void;
}

/** The terminal: a line to stdout or stderr. */
export const terminalIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** True when the module at `moduleUrl` (its import.meta.url) is the script node was started with. */
export function isEntryModule(moduleUrl: string): boolean {
  const stem = (file: string) => file.replace(/\.[cm]?[jt]s$/, '');
  return !!process.argv[1] && stem(path.resolve(process.argv[1])) === stem(fileURLToPath(moduleUrl));
}
