// The machinery of settings, knowing no concern: what kinds of value a setting takes (each a zod
// schema over the raw environment string, with a sentence of what it accepts), and settingsSchema,
// which turns a concern's declaration (its config's shape, each leaf a variable) into one zod object
// that parses the environment and outputs that config. Every bad value is reported at once, each
// naming its variable; the concerns declare their settings beside their code.
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
  /**
   * A value read by a parser of its own, which throws an Error completing "NAME …" (or naming the
   * variable itself) when the value is wrong.
   */
  parsed<T>(type: string, accepts: string, parse: (raw: string) => T, show: (value: T) => string = String): Kind<T> {
    const message = (raw: string) => {
      try {
        parse(raw.trim());
        return null;
      } catch (err) {
        return (err as Error).message;
      }
    };
    return {
      type,
      accepts,
      schema: text.transform((s, ctx) => {
        try {
          return parse(s);
        } catch {
          ctx.addIssue({ code: 'custom', message: type });
          return z.NEVER;
        }
      }),
      show,
      problem(name, raw) {
        const m = message(raw) ?? accepts;
        return m.startsWith(name) ? m : `${name} ${m}`;
      },
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

/** A default computed from settings declared before it in the same schema (by variable name). */
export interface Computed<D> {
  /** How the docs' "default" column says it. */
  text: string;
  from: (values: Record<string, unknown>) => D;
}

/** One environment variable: a leaf of a concern's settings, at the place of the config it fills. */
export interface Setting<T, D extends T | null = T | null> {
  name: string;
  kind: Kind<T>;
  /** The value when unset: a value, null (off / not set), or computed from settings declared before it. */
  default: D | Computed<D>;
  description: string;
  readBy: Reader[];
  /** Set by the gateway for a process of its own, not by an operator (documented as such). */
  internal?: boolean;
  /** Declaration order: a schema (and the docs) lists its settings in the order they were declared. */
  order: number;
}

let declared = 0;

export function setting<T, D extends T | null>(
  name: string,
  kind: Kind<T>,
  dflt: D | Computed<D>,
  description: string,
  readBy: Reader[] = ['gateway'],
  extra: { internal?: boolean } = {},
): Setting<T, D> {
  return { name, kind, default: dflt, description, readBy, ...extra, order: declared++ };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a schema holds settings of every value type
export type AnySetting = Setting<any, any>;

/** A concern's declaration: its config's shape, each leaf the setting that fills it. */
interface SettingsShape {
  readonly [field: string]: AnySetting | SettingsShape;
}

/** The config a shape outputs: a setting with a non-null default is never null. */
type ConfigOf<S extends SettingsShape> = {
  -readonly [K in keyof S]: S[K] extends Setting<infer T, infer D>
    ? null extends D
      ? T | null
      : T
    : S[K] extends SettingsShape
      ? ConfigOf<S[K]>
      : never;
};

const isComputed = <D>(d: unknown): d is Computed<D> =>
  typeof d === 'object' && d !== null && 'from' in d && typeof (d as { from: unknown }).from === 'function';
const isSetting = (x: AnySetting | SettingsShape): x is AnySetting => typeof x.order === 'number' && 'kind' in x;

/** The problem of a wrong raw value: names the variable and what it accepts; a secret is never echoed. */
function problemOf(s: AnySetting, raw: string): string {
  return (
    s.kind.problem?.(s.name, raw) ??
    (s.kind.secret ? `${s.name} must be ${s.kind.accepts}` : `${s.name} must be ${s.kind.accepts}, got "${raw}"`)
  );
}

const UNSET: unique symbol = Symbol('unset');

/** One variable: blank is unset (its default, or UNSET for a computed one); a wrong value is an issue naming it. */
function variableSchema(s: AnySetting) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): unknown => {
      if (raw === undefined || raw.trim() === '') return isComputed(s.default) ? UNSET : s.default;
      const parsed = s.kind.schema.safeParse(raw);
      if (parsed.success) return parsed.data;
      ctx.addIssue({ code: 'custom', message: problemOf(s, raw), input: raw });
      return z.NEVER;
    });
}

/** The settings of a shape, in declaration order. */
function leavesOf(shape: SettingsShape): AnySetting[] {
  return Object.values(shape)
    .flatMap((v) => (isSetting(v) ? [v] : leavesOf(v)))
    .sort((a, b) => a.order - b.order);
}

function nest(shape: SettingsShape, values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(shape).map(([field, v]) => [field, isSetting(v) ? values[v.name] : nest(v, values)]));
}

/** Which settings a schema made by settingsSchema reads (for the docs and the registry of every setting). */
const declarations = new WeakMap<z.core.$ZodType, readonly AnySetting[]>();

/**
 * A concern's settings as one zod object: it parses an environment (variables by name, a blank one
 * unset) and outputs the config in the shape declared, its type inferred (`z.output`). A wrong value
 * is an issue whose message names the variable; a computed default sees the values declared before it.
 */
export function settingsSchema<const S extends SettingsShape>(shape: S) {
  const leaves = leavesOf(shape);
  const twice = leaves.filter((s, i) => leaves.findIndex((t) => t.name === s.name) !== i);
  if (twice.length) throw new Error(`settings declared twice: ${twice.map((s) => s.name).join(', ')}`);
  const variables = z.object(Object.fromEntries(leaves.map((s) => [s.name, variableSchema(s)])));
  // The variables' object, not the pipe: a schema built on this one (`.transform`, `.check`) keeps it.
  declarations.set(variables, leaves);
  return variables.transform((read) => {
    const values: Record<string, unknown> = {};
    for (const s of leaves) {
      const v = read[s.name];
      values[s.name] = v === UNSET ? (s.default as Computed<unknown>).from(values) : v;
    }
    return nest(shape, values) as ConfigOf<S>;
  });
}

/** The settings a schema reads, in declaration order: the schema made by settingsSchema, or one built on it (`.transform`, `.check`). */
export function settingsOf(schema: z.ZodType): readonly AnySetting[] {
  let s: z.core.$ZodType | undefined = schema;
  while (s && !declarations.has(s)) s = s._zod.def.type === 'pipe' ? (s as z.core.$ZodPipe)._zod.def.in : undefined;
  if (!s) throw new Error('not a schema made by settingsSchema');
  return declarations.get(s)!;
}

const messages = (issues: readonly z.core.$ZodIssue[]) =>
  issues.map((i) => (i.code === 'custom' ? i.message : `${i.path.join('.')}: ${i.message}`));

/**
 * Reads a concern's settings from an environment, adding every problem (each naming its variable)
 * to `problems`. A wrong value is read as its default, so the checks across settings still run and
 * every problem is found in one pass; null when those checks fail too.
 */
export function readSettings<T>(schema: z.ZodType<T>, env: NodeJS.ProcessEnv, problems: string[]): T | null {
  const first = schema.safeParse(env);
  if (first.success) return first.data;
  problems.push(...messages(first.error.issues));
  const wrong = new Set(first.error.issues.map((i) => i.path[0]));
  if (wrong.has(undefined)) return null;
  const second = schema.safeParse(Object.fromEntries(Object.entries(env).filter(([name]) => !wrong.has(name))));
  if (second.success) return second.data;
  problems.push(...messages(second.error.issues));
  return null;
}

/** readSettings, or the schema's defaults when a check across its settings failed (the problems say so). */
export function readSettingsOrDefaults<T>(schema: z.ZodType<T>, env: NodeJS.ProcessEnv, problems: string[]): T {
  return readSettings(schema, env, problems) ?? schema.parse({});
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The docs' table of settings: one row a setting, in the order given. */
export function settingsMarkdown(settings: readonly AnySetting[]): string {
  const rows = settings.map((s) => {
    const d = isComputed(s.default) ? s.default.text : s.default === null ? 'unset' : s.kind.show(s.default);
    const by = s.internal ? `${s.readBy.join(', ')} (set by the gateway itself)` : s.readBy.join(', ');
    return `| \`${s.name}\` | ${cell(s.kind.type)} | ${cell(d)} | ${by} | ${cell(s.description)} |`;
  });
  return ['| Variable | Takes | Default | Read by | Meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}
