// Typed readers of environment variables that collect every problem (naming the variable) instead
// of throwing at the first, so a bad deployment learns all it must fix at once.
export function envReader(env: NodeJS.ProcessEnv, problems: string[]) {
  const present = (name: string) => env[name] !== undefined && env[name]!.trim() !== '';
  return {
    int(name: string, fallback: number, min: number, max: number): number {
      if (!present(name)) return fallback;
      const raw = env[name]!;
      const n = Number(raw);
      if (!/^\s*-?\d+\s*$/.test(raw) || !Number.isInteger(n) || n < min || n > max) {
        problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
        return fallback;
      }
      return n;
    },
    bool(name: string, fallback: boolean): boolean {
      if (!present(name)) return fallback;
      const raw = env[name]!.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
      if (['0', 'false', 'no', 'off'].includes(raw)) return false;
      problems.push(`${name} must be true or false, got "${env[name]}"`);
      return fallback;
    },
    /** One of `values` (as written, trimmed). */
    oneOf<T extends string>(name: string, fallback: T, values: readonly T[]): T {
      if (!present(name)) return fallback;
      const raw = env[name]!.trim();
      if ((values as readonly string[]).includes(raw)) return raw as T;
      problems.push(`${name} must be one of ${values.join(', ')}, got "${env[name]}"`);
      return fallback;
    },
    /** A value parsed by `parse` (null = invalid), at least `min`. */
    parsed(name: string, fallback: number, min: number, parse: (raw: string) => number | null, what: string): number {
      if (!present(name)) return fallback;
      const raw = env[name]!;
      const n = parse(raw);
      if (n === null || n < min) {
        problems.push(`${name} must be ${what}, got "${raw}"`);
        return fallback;
      }
      return n;
    },
  };
}

/** Every problem of a configuration at once, each naming its variable or key. */
export class ConfigError extends Error {
  constructor(public problems: string[]) {
    super(`configuration error:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}
