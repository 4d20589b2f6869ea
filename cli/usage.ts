// What the operator CLIs share: a usage error (exit code 2 with the usage text) and their output.
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
