// The machinery of the settings table (lib/settings-table.ts): what kinds of value a setting takes,
// each a zod schema over the raw environment string with a sentence of what it accepts, and the
// reader that turns an environment into typed values, collecting every problem (each naming its
// variable) instead of stopping at the first.
import os from 'node:os';
import { z } from 'zod';

/** "256MiB", "64mb", "1gib", "1000"; bare numbers are bytes. */
function parseBytes(value: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?$/i.exec(value.trim());
  if (!m) return null;
  const unit = (m[2] ?? 'b').toLowerCase();
  const mult = unit === 'b' ? 1 : unit.startsWith('k') ? 1024 : unit.startsWith('m') ? 1024 ** 2 : 1024 ** 3;
  return Math.floor(Number(m[1]) * mult);
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "15m", "24h", "7d", "500ms", a bare number of seconds (also as a number); null when not a duration. */
export function parseDuration(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : null;
  if (typeof value !== 'string') return null;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i.exec(value.trim());
  if (!m) return null;
  return Math.round(Number(m[1]) * DURATION_UNITS[(m[2] ?? 's').toLowerCase()]!);
}

/** A kind of value: how to read it from its raw text, how to name it in the docs, what to say when it is wrong. */
export interface Kind<T> {
  /** The docs' "type" column, e.g. `integer 1–100`. */
  type: string;
  /** Completes "NAME must be …, got "raw"". */
  accepts: string;
  schema: z.ZodType<T>;
  /** How a value is written in the docs (a default). */
  show(value: T): string;
  /** A secret: a wrong value is never echoed in the problem. */
  secret?: boolean;
  /** The problem with a wrong raw value, when it says more than "must be <accepts>". */
  problem?(name: string, raw: string): string;
}

const text = z.string().trim().min(1);
const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];
const mib = (n: number) =>
  n >= 1024 ** 2 && n % 1024 ** 2 === 0 ? `${n / 1024 ** 2} MiB` : n >= 1024 && n % 1024 === 0 ? `${n / 1024} KiB` : String(n);
const showMs = (ms: number) =>
  ms % 86_400_000 === 0 && ms > 0
    ? `${ms / 86_400_000}d`
    : ms % 3_600_000 === 0 && ms > 0
      ? `${ms / 3_600_000}h`
      : ms % 60_000 === 0 && ms > 0
        ? `${ms / 60_000}m`
        : `${ms / 1000}s`;

export const kinds = {
  int(min: number, max: number): Kind<number> {
    return {
      type: `integer ${min}–${max}`,
      accepts: `an integer from ${min} to ${max}`,
      schema: text
        .regex(/^-?\d+$/)
        .transform(Number)
        .pipe(z.number().int().min(min).max(max)),
      show: String,
    };
  },
  /** A number of processes from 1 to max, or `auto`: the cores this process may use. */
  processes(max: number): Kind<number> {
    return {
      type: `1–${max} or auto`,
      accepts: `a number of processes 1-${max} or "auto"`,
      schema: text.pipe(
        z.union([
          z.literal('auto').transform(() => os.availableParallelism()),
          z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(1).max(max)),
        ]),
      ),
      show: String,
    };
  },
  port(): Kind<number> {
    return {
      type: 'port 0–65535',
      accepts: 'a port number 0-65535',
      schema: text.regex(/^\d+$/).transform(Number).pipe(z.number().max(65535)),
      show: String,
    };
  },
  bool(): Kind<boolean> {
    return {
      type: 'on/off',
      accepts: 'true or false',
      schema: text.transform((s) => s.toLowerCase()).pipe(z.enum([...TRUE, ...FALSE]).transform((s) => TRUE.includes(s))),
      show: (v) => (v ? 'on' : 'off'),
    };
  },
  oneOf<const T extends string>(values: readonly T[]): Kind<T> {
    return {
      type: values.join(' \\| '),
      accepts: `one of ${values.join(', ')}`,
      schema: text.pipe(z.enum(values as [T, ...T[]])),
      show: String,
    };
  },
  bytes(min: number, max = 4 * 1024 ** 4): Kind<number> {
    return {
      type: `size ≥ ${mib(min)}`,
      accepts: `a size of at least ${min} bytes (e.g. 64MiB)`,
      schema: text
        .transform((s, ctx) => parseBytes(s) ?? (ctx.addIssue({ code: 'custom', message: 'size' }), z.NEVER))
        .pipe(z.number().min(min).max(max)),
      show: mib,
    };
  },
  /** A duration such as 30m, 12h or 7d; a bare number is seconds. */
  duration(minMs: number, maxMs = 3650 * 86_400_000): Kind<number> {
    return {
      type: `duration ${showMs(minMs)}–${showMs(maxMs)}`,
      accepts: `a duration like 30m, 12h or 7d from ${showMs(minMs)} to ${showMs(maxMs)}`,
      schema: text
        .transform((s, ctx) => parseDuration(s) ?? (ctx.addIssue({ code: 'custom', message: 'duration' }), z.NEVER))
        .pipe(z.number().min(minMs).max(maxMs)),
      show: showMs,
    };
  },
  url(protocols: readonly string[]): Kind<string> {
    return {
      type: `${protocols.map((p) => p.replace(':', '')).join('/')} URL`,
      accepts: `a valid ${protocols.join(' or ')} URL`,
      schema: text.refine((s) => {
        try {
          return protocols.includes(new URL(s).protocol);
        } catch {
          return false;
        }
      }),
      show: String,
      problem(name, raw) {
        try {
          return `${name} must use ${protocols.join(' or ')}, got "${new URL(raw.trim()).protocol}"`;
        } catch {
          return `${name} is not a valid URL: "${raw}"`;
        }
      },
    };
  },
  /** A request quota: `unlimited`, or `RATE/BURST` (requests a second, and at once after a quiet spell). */
  quota(maxRate: number, maxBurst: number): Kind<'unlimited' | { requestsPerSecond: number; burst: number }> {
    return {
      type: `\`unlimited\` or RATE/BURST (1–${maxRate} / 1–${maxBurst})`,
      accepts: `"unlimited" or RATE/BURST with RATE 1–${maxRate} and BURST 1–${maxBurst} (e.g. 50/200)`,
      schema: text
        .regex(/^(?:unlimited|\d{1,6}\/\d{1,7})$/)
        .transform((v) => {
          if (v === 'unlimited') return 'unlimited' as const;
          const [rate, burst] = v.split('/').map(Number) as [number, number];
          return { requestsPerSecond: rate, burst };
        })
        .refine(
          (q) => q === 'unlimited' || (q.requestsPerSecond >= 1 && q.requestsPerSecond <= maxRate && q.burst >= 1 && q.burst <= maxBurst),
        ),
      show: (q) => (q === 'unlimited' ? 'unlimited' : `${q.requestsPerSecond}/${q.burst}`),
    };
  },
  text(): Kind<string> {
    return { type: 'text', accepts: 'a non-empty text', schema: text, show: String };
  },
  /** A secret of at least `min` characters; shown in the docs as "secret". */
  secret(min: number): Kind<string> {
    return {
      type: `secret, ${min}+ characters`,
      accepts: `at least ${min} characters`,
      schema: text.pipe(z.string().min(min)),
      show: () => 'unset',
      secret: true,
    };
  },
  /** A 32-byte key, as 64 hex digits or base64 (`openssl rand -base64 32`); never echoed. */
  key32(): Kind<Buffer> {
    return {
      type: '32 bytes, hex or base64',
      accepts: '32 bytes: 64 hex digits or base64 (openssl rand -base64 32)',
      schema: text.transform((s, ctx) => {
        const key = /^[0-9a-f]{64}$/i.test(s) ? Buffer.from(s, 'hex') : /^[A-Za-z0-9+/]{43}=?$/.test(s) ? Buffer.from(s, 'base64') : null;
        if (key?.length === 32) return key;
        ctx.addIssue({ code: 'custom', message: 'key' });
        return z.NEVER;
      }),
      show: () => 'unset',
      secret: true,
    };
  },
  /** A file or folder, resolved against the working directory. */
  path(): Kind<string> {
    return { type: 'path', accepts: 'a path', schema: text, show: String };
  },
  /** A comma-separated list of non-empty items. */
  list(): Kind<string[]> {
    return {
      type: 'comma-separated list',
      accepts: 'a comma-separated list',
      schema: text.transform((s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      ),
      show: (v) => v.join(','),
    };
  },
};

/** Which process reads a setting (the docs' "read by" column). */
export type Reader = 'gateway' | 'playground process' | 'admin process' | 'npm start' | 'CLI' | 'reference upstream';

export interface Setting<T, D extends T | null = T | null> {
  kind: Kind<T>;
  /** The value when unset: a value, null (off / not set), or computed from settings declared before it. */
  default: D | { text: string; from: (values: Record<string, unknown>) => D };
  description: string;
  readBy: Reader[];
  /** Set by the gateway for a process of its own, not by an operator (documented as such). */
  internal?: boolean;
}

export function setting<T, D extends T | null>(
  kind: Kind<T>,
  dflt: Setting<T, D>['default'],
  description: string,
  readBy: Reader[] = ['gateway'],
  extra: { internal?: boolean } = {},
): Setting<T, D> {
  return { kind, default: dflt, description, readBy, ...extra };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a table holds settings of every value type
export type AnySetting = Setting<any, any>;

/** The typed values of a table: a setting with a non-null default is never null. */
export type Values<S extends Record<string, AnySetting>> = {
  [K in keyof S]: S[K] extends Setting<infer T, infer D> ? (null extends D ? T | null : T) : never;
};

const isComputed = <D>(d: unknown): d is { text: string; from: (v: Record<string, unknown>) => D } =>
  typeof d === 'object' && d !== null && 'from' in d && typeof (d as { from: unknown }).from === 'function';

/**
 * Reads every setting of `table` from `env` in table order (a computed default sees those before
 * it). A bad value is a problem naming the variable and what it accepts; its default is used so
 * every other problem is found in the same pass.
 */
export function readSettings<S extends Record<string, AnySetting>>(table: S, env: NodeJS.ProcessEnv, problems: string[]): Values<S> {
  const values: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(table) as [string, Setting<unknown>][]) {
    const raw = env[name];
    const fallback = isComputed(s.default) ? s.default.from(values) : s.default;
    if (raw === undefined || raw.trim() === '') {
      values[name] = fallback;
      continue;
    }
    const parsed = s.kind.schema.safeParse(raw);
    if (parsed.success) values[name] = parsed.data;
    else {
      problems.push(
        s.kind.problem?.(name, raw) ??
          (s.kind.secret ? `${name} must be ${s.kind.accepts}` : `${name} must be ${s.kind.accepts}, got "${raw}"`),
      );
      values[name] = fallback;
    }
  }
  return values as Values<S>;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The docs' table of a settings table: one row a setting, in table order. */
export function settingsMarkdown(table: Record<string, AnySetting>): string {
  const rows = Object.entries(table as Record<string, Setting<unknown>>).map(([name, s]) => {
    const d = isComputed(s.default) ? s.default.text : s.default === null ? 'unset' : s.kind.show(s.default);
    const by = s.internal ? `${s.readBy.join(', ')} (set by the gateway itself)` : s.readBy.join(', ');
    return `| \`${name}\` | ${cell(s.kind.type)} | ${cell(d)} | ${by} | ${cell(s.description)} |`;
  });
  return ['| Variable | Takes | Default | Read by | Meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}
