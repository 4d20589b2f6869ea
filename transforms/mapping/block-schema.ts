// The shape of a `feed-mapping` block, and what each key means, as a JSON Schema (draft-07): keys,
// which are required, types, ranges, enums and one variant per kind (chosen by `kind`). It is built
// from the tables it describes (kinds.ts: canonical keys per kind; units.ts; types.ts: inputs and
// call scopes), so it cannot drift from them. To give it to an editor:
//   npx tsx -e "import('./transforms/mapping/block-schema.ts').then((m) => console.log(JSON.stringify(m.BLOCK_SCHEMA, null, 2)))"
//
// ajv compiles it once, at module load (a noticeable part of a start), or `npm start`'s build
// compiles it ahead of time (block-validator.ts). blockShapeProblems() says ajv's errors in the words of the
// other mapping errors (key path in the block, what was expected, what was found), reading:
//   title        of a value: what is expected          "expected an integer 1..600000, got number -5"
//                of an enum: what it names             'unknown unit "usd_per_gwh" (known: usd, ...)'
//                of a mapping: what it is              "required for kind offers"
//   description  of a key: what it holds               "required: the source's Query field to call"
//                of a not/anyOf: the rule it states    "const excludes path and default"
import { Ajv, type ErrorObject, type Options, type SchemaObject, type ValidateFunction } from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { precompiledBlockValidator } from './block-validator.js';
import { CALL_SCOPES, FEED_INPUT_KEYS, type CallScope, type FeedInputKey, type FeedKind } from './types.js';
import { AUTOMATIC_KEYS, KINDS, KIND_NAMES, type FieldDef, type FieldTable } from './kinds.js';
import { UNIT_NAMES, type UnitName } from './units.js';
import { describeType, GRAPHQL_NAME } from './paths.js';

export const DEFAULT_TIMEOUT_MS = 2000;
export const DEFAULT_MAX_ITEMS = 10_000;
export const DEFAULT_MAX_PAGES = 10;
export const DEFAULT_UTILITY_CACHE_SECONDS = 60;

/** A block that passed the schema. */
export interface MappingBlock {
  kind: FeedKind;
  operation: string;
  scope?: CallScope;
  timeoutMs?: number;
  maxItems?: number;
  cacheSeconds?: number;
  sampleZip?: string;
  sampleState?: string;
  unitCheck?: 'refuse' | 'serve-anyway';
  args?: Record<string, ArgSpec> | null;
  resultType?: string;
  items?: string;
  pagination?: {
    maxPages?: number;
    cursor?: { arg: string; next: string };
    page?: { arg: string; first?: number; sizeArg?: string; size: number };
  } | null;
  fields: FieldSpecs;
}
export type PaginationSpec = NonNullable<MappingBlock['pagination']>;
export type ValueMap = Record<string, string | number | boolean | null>;
export type ArgSpec = FeedInputKey | { from: FeedInputKey; map?: ValueMap } | { const: string | number | boolean };
export type FieldSpecs = Record<string, FieldSpec>;
export type FieldSpec =
  | string
  | {
      path?: string;
      unit?: UnitSpec;
      map?: ValueMap;
      default?: unknown;
      const?: unknown;
      asText?: boolean;
      items?: string;
      fields?: FieldSpecs;
    };
/** A unit: named once for the feed, or read per record (`{ path: termUnit, map: { MONTH: months, YEAR: years } }`). */
export type UnitSpec = UnitName | { path: string; map: Record<string, UnitName> };

// ----------------------------------------------------------------------------------------- the schema

const MAX_NAME_LENGTH = 200;
/** At most this many feed values in one map, or arguments in `args`. */
const MAX_ENTRIES = 1000;

const mapping = (properties: Record<string, SchemaObject>, more: SchemaObject = {}): SchemaObject => ({
  type: 'object',
  properties,
  additionalProperties: false,
  ...more,
});
const int = (min: number, max: number, description: string, dflt?: number): SchemaObject => ({
  type: 'integer',
  minimum: min,
  maximum: max,
  title: `an integer ${min}..${max}`,
  description,
  ...(dflt !== undefined ? { default: dflt } : {}),
});
const graphQLName = (title: string, description: string): SchemaObject => ({
  type: 'string',
  pattern: GRAPHQL_NAME.source,
  maxLength: MAX_NAME_LENGTH,
  title,
  description,
});
const argName = (description: string) => graphQLName('the name of a feed argument', description);
const path = (description: string): SchemaObject => ({ type: 'string', title: 'a path', description });
const forbidden = (rule: string): SchemaObject => ({ not: {}, description: rule });
/** `const` instead of the keys `others`; without const, `needed` is required (a string spec is a path). */
const constOr = (others: string[], needed: string, neededText: string): SchemaObject => ({
  if: { type: 'object', required: ['const'] },
  then: { description: `const excludes ${others.join(' and ')}`, not: { anyOf: others.map((k) => ({ required: [k] })) } },
  else: { required: [needed], description: neededText },
});

const SCALAR_TYPES = ['string', 'number', 'boolean'];
const SCALAR: SchemaObject = { type: SCALAR_TYPES, title: 'a string, number or boolean' };
const SCALAR_OR_NULL: SchemaObject = { type: [...SCALAR_TYPES, 'null'], title: 'a string, number, boolean or null' };
const VALUE_MAP: SchemaObject = {
  type: 'object',
  title: 'feed value -> our value',
  description:
    'keys: the values as the GraphQL result has them (JSON "fixed-rate" arrives as fixed_rate); values not in the map pass unchanged; a value ' +
    'mapped to null rejects the record (unless the field is nullable)',
  maxProperties: MAX_ENTRIES,
  additionalProperties: SCALAR_OR_NULL,
};
const INPUT: SchemaObject = { enum: [...FEED_INPUT_KEYS], title: 'input' };

const ARG: SchemaObject = {
  ...mapping({ from: INPUT, map: { $ref: '#/definitions/valueMap' }, const: SCALAR }),
  type: ['string', 'object'],
  title: 'an input name, { from, map } or { const }',
  allOf: [{ if: { type: 'string' }, then: INPUT }, constOr(['from', 'map'], 'from', 'the input the argument takes (or set const instead)')],
};

const PAGINATION: SchemaObject = {
  ...mapping({
    cursor: mapping(
      {
        arg: argName('the feed argument carrying the cursor; the first page is asked without it'),
        next: path('the path of the next cursor in a page (e.g. paging.next); absent, null or empty ends'),
      },
      { required: ['arg', 'next'] },
    ),
    page: mapping(
      {
        arg: argName('the feed argument carrying the page number'),
        first: int(0, 1_000_000, 'the number of the first page', 1),
        sizeArg: argName('the feed argument carrying the page size'),
        size: int(1, 100_000, 'the number of records a full page has; a page with fewer is the last'),
      },
      { required: ['arg', 'size'] },
    ),
    maxPages: int(1, 1000, 'most pages followed in one call (within timeoutMs); the rest are left out with a warning', DEFAULT_MAX_PAGES),
  }),
  type: ['object', 'null'],
  title: '{ cursor: { arg, next } } or { page: { arg, size } }',
  description: 'a feed answering in pages: { cursor: { arg, next } } or { page: { arg, first, sizeArg, size } }, and maxPages',
  if: { type: 'object' },
  then: {
    description: 'set exactly one of cursor or page',
    anyOf: [{ required: ['cursor'] }, { required: ['page'] }],
    not: { required: ['cursor', 'page'] },
  },
};

const SPEC_PATH = path(
  'where the value is: relative to the record (or the enclosing element), $request.<input> (an input always given) or $page.<path> (outside the record list)',
);
const VALUE_KEYS: Record<string, SchemaObject> = {
  path: SPEC_PATH,
  map: { $ref: '#/definitions/valueMap' },
  default: { ...SCALAR_OR_NULL, description: 'used when the path is absent or null; goes through map and unit as the feed would send it' },
  const: { ...SCALAR_OR_NULL, description: 'a fixed value instead of a path; goes through map and unit as the feed would send it' },
  asText: {
    type: 'boolean',
    description: 'the feed sends this number as decimal text ("15.27"; EIA\'s API v2 does): read a plain decimal string exactly',
  },
};
const UNIT_NAME: SchemaObject = {
  enum: [...UNIT_NAMES],
  title: 'unit',
  description: "the feed's unit; money and prices must state one (docs/adding-a-feed.md#units)",
};
// A name, or an object naming where each record gives its unit. Anything but an object is checked
// as a name, so a wrong one is still "unknown unit" with the known ones listed.
const UNIT: SchemaObject = {
  title: 'unit',
  description: UNIT_NAME.description,
  if: { not: { type: 'object' } },
  then: UNIT_NAME,
  else: {
    type: 'object',
    title: 'a unit read per record',
    description: "where each record names its unit, and the feed's values -> unit names (docs/adding-a-feed.md#a-unit-given-per-record)",
    properties: {
      path: { type: 'string', minLength: 1, description: 'the field holding the unit: relative to the record, or $page.<path>' },
      map: { type: 'object', minProperties: 1, additionalProperties: UNIT_NAME, description: 'feed value -> unit name' },
    },
    required: ['path', 'map'],
    additionalProperties: false,
  },
};
const valueSpec = (unit: boolean): SchemaObject => ({
  ...mapping(unit ? { path: SPEC_PATH, unit: UNIT, ...VALUE_KEYS } : VALUE_KEYS),
  type: ['string', 'object'],
  title: `a path or { path, ${unit ? 'unit, ' : ''}map, default, const }`,
  ...constOr(['path', 'default'], 'path', 'where the value is (or set const instead)'),
});

/** Field specs many canonical keys share, each compiled once. */
const DEFINITIONS: Record<string, SchemaObject> = {
  valueMap: VALUE_MAP,
  value: valueSpec(false),
  quantity: valueSpec(true),
  textList: {
    ...mapping({
      path: path('where the list of text is'),
      default: { type: ['array', 'null'], title: 'a list of text', description: 'used when the path is absent or null' },
      const: { type: 'array', title: 'a list of text', description: 'a fixed list instead of a path' },
    }),
    type: ['string', 'object'],
    title: 'a path or { path, default, const }',
    ...constOr(['path', 'default'], 'path', 'where the list is (or set const instead)'),
  },
};

/** The field specs of a canonical table (a kind's record, or a nested object / list entry). */
function tableSchema(kind: FeedKind, table: FieldTable, description: string, automatic: Record<string, string> = {}): SchemaObject {
  const properties: Record<string, SchemaObject> = {};
  for (const [name, def] of Object.entries(table)) properties[name] = specSchema(kind, name, def);
  for (const [name, why] of Object.entries(automatic)) properties[name] = forbidden(`not configurable: ${why}`);
  const required = Object.entries(table)
    .filter(([, d]) => d.required)
    .map(([n]) => n);
  return mapping(properties, { title: `kind ${kind}`, description, required });
}

function specSchema(kind: FeedKind, name: string, def: FieldDef): SchemaObject {
  const vt = def.value;
  const keys = 'fields' in vt ? Object.keys(vt.fields).join(', ') : '';
  switch (vt.type) {
    case 'string':
    case 'enum':
    case 'int':
      return { $ref: '#/definitions/value' };
    case 'quantity':
      return { $ref: '#/definitions/quantity' };
    case 'stringList':
      return { $ref: '#/definitions/textList' };
    case 'object':
      return mapping(
        {
          path: path('where the object is; absent or null: null for a nullable object (without path: the enclosing record itself)'),
          fields: tableSchema(kind, vt.fields, `the keys of ${name}: ${keys}`),
          ...(vt.nullable ? { const: { type: 'null', title: 'null', description: `no ${name}` } } : {}),
        },
        {
          title: `{ path, fields }${vt.nullable ? ' or { const: null }' : ''}`,
          ...(vt.nullable ? constOr(['path', 'fields'], 'fields', `the keys of ${name}: ${keys}`) : { required: ['fields'] }),
        },
      );
    case 'list':
      return mapping(
        {
          items: path(`where the list of ${name} entries is (absent or null: none); each is mapped with fields`),
          path: path('where the one entry is (without items and path: the enclosing record itself)'),
          fields: tableSchema(kind, vt.fields, `the keys of each ${name} entry: ${keys}`),
          const: vt.minLength
            ? forbidden(`${name} needs at least ${vt.minLength} ${vt.minLength === 1 ? 'entry' : 'entries'}, so const: [] does not apply`)
            : { type: 'array', maxItems: 0, title: 'an empty list ([])', description: `no ${name}` },
        },
        {
          title: `{ items, fields } or { path, fields }${vt.minLength ? '' : ' or { const: [] }'}`,
          allOf: [
            {
              if: { type: 'object' },
              then: {
                description: 'items and path exclude each other (items: a list; path + fields: one entry)',
                not: { required: ['items', 'path'] },
              },
            },
            constOr(['items', 'path', 'fields'], 'fields', `the keys of each ${name} entry: ${keys}`),
          ],
        },
      );
  }
}

/** The per-kind part of a block: its canonical keys and the call scopes it supports. */
function kindVariant(kind: FeedKind): SchemaObject {
  const supported = Object.keys(KINDS[kind].scopes);
  const unsupported = CALL_SCOPES.filter((s) => !supported.includes(s));
  const scope = {
    not: { enum: unsupported },
    description: `${kind} feeds are called per ${supported.join(', ')} only, not per ${unsupported.join(' or ')}`,
  };
  return {
    properties: {
      kind: { const: kind },
      ...(unsupported.length ? { scope } : {}),
      fields: tableSchema(kind, KINDS[kind].fields, `canonical key -> field spec of the ${kind} record`, AUTOMATIC_KEYS[kind]),
    },
  };
}

const inputsOf = (kind: FeedKind) =>
  Object.entries(KINDS[kind].scopes).map(
    ([scope, i]) => `${kind}/${scope}: ${[...i.always, ...i.sometimes.map((s) => `${s} (sometimes)`)].join(', ')}`,
  );

export const BLOCK_SCHEMA: SchemaObject = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  description: 'The feed-mapping block of a source in .meshrc.yaml (docs/adding-a-feed.md#how-to-map-fields)',
  ...mapping({
    kind: { enum: KIND_NAMES, title: 'kind', description: `what the feed's records are: ${KIND_NAMES.join(', ')}` },
    operation: graphQLName('a GraphQL field name', "the source's Query field to call"),
    scope: {
      enum: [...CALL_SCOPES],
      description:
        `request (default): called once per partner request; utility (offers only): once per choice territory serving the ZIP, ` +
        `with its utility id. Inputs given: ${KIND_NAMES.flatMap(inputsOf).join('; ')}`,
    },
    timeoutMs: int(1, 600_000, 'per-call budget in milliseconds, retries and pages included', DEFAULT_TIMEOUT_MS),
    maxItems: int(1, 1_000_000, 'most records mapped from one payload; the rest are reported rejected', DEFAULT_MAX_ITEMS),
    cacheSeconds: int(
      0,
      86_400,
      "scope: utility only: seconds one utility's answer is reused for the other ZIPs of its territory (0: not kept)",
      DEFAULT_UTILITY_CACHE_SECONDS,
    ),
    sampleZip: {
      type: 'string',
      pattern: '^[0-9]{5}$',
      title: 'a 5-digit ZIP code',
      description: 'the ZIP code feeds:check calls the feed with',
    },
    sampleState: {
      type: 'string',
      pattern: '^[A-Z]{2}$',
      title: 'a two-letter state code',
      description: 'the state feeds:check calls the feed with',
    },
    unitCheck: {
      enum: ['refuse', 'serve-anyway'],
      description:
        "refuse (default): feeds:check fails and a production start is refused when the feed's values are off from the other " +
        "feeds' of a territory by a unit (unit-consensus.ts); serve-anyway: reported, and served",
    },
    args: {
      type: ['object', 'null'],
      title: 'a mapping of feed argument -> input',
      description:
        'feed argument -> our input: an input name, { from, map } or { const }; an argument whose input is not given is left out',
      maxProperties: MAX_ENTRIES,
      // GraphQL reserves names starting with "__".
      propertyNames: {
        pattern: `^(?!__)${GRAPHQL_NAME.source.slice(1)}`,
        maxLength: MAX_NAME_LENGTH,
        title: 'a GraphQL argument name (not starting with __)',
      },
      additionalProperties: ARG,
    },
    resultType: graphQLName(
      'a GraphQL type name',
      'the member of a union result (e.g. an OpenAPI operation with error responses) that carries the records',
    ),
    items: path("where the record list is ('.' = the payload is the list); without items the payload is one record"),
    pagination: PAGINATION,
    fields: { description: 'canonical key -> field spec (docs/feeds.md#canonical-fields-per-feed-kind)' },
  }),
  required: ['kind', 'operation', 'fields'],
  allOf: [
    {
      if: { required: ['scope'], properties: { scope: { const: 'utility' } } },
      else: { properties: { cacheSeconds: forbidden('applies to utility-scoped feeds only (scope: utility)') } },
    },
    {
      if: { required: ['pagination'], properties: { pagination: { type: 'object' } } },
      then: { required: ['items'], description: 'a paginated feed needs items: the record list of each page' },
    },
  ],
  discriminator: { propertyName: 'kind' },
  oneOf: KIND_NAMES.map(kindVariant),
  definitions: DEFINITIONS,
};

export const BLOCK_AJV_OPTIONS: Options = {
  allErrors: true,
  verbose: true,
  discriminator: true,
  allowUnionTypes: true,
  inlineRefs: false,
  code: { optimize: false },
};

const validateBlock =
  (precompiledBlockValidator as ValidateFunction<MappingBlock> | null) ?? new Ajv(BLOCK_AJV_OPTIONS).compile<MappingBlock>(BLOCK_SCHEMA);

/** The validator as standalone ES module code (its default export), for the build to compile ahead of time. */
export function blockValidatorSource(): string {
  const ajv = new Ajv({ ...BLOCK_AJV_OPTIONS, code: { ...BLOCK_AJV_OPTIONS.code, source: true, esm: true } });
  // A CommonJS module whose default export is also its `default` property: either way, the function.
  type StandaloneCode = typeof standaloneModule.default;
  const standaloneCode = standaloneModule.default ?? (standaloneModule as unknown as StandaloneCode);
  return standaloneCode(ajv, ajv.compile(BLOCK_SCHEMA));
}

// --------------------------------------------------------------------------------------- the messages

interface ShapeProblem {
  key: string;
  detail: string;
}

/** The top-level keys in the order problems are reported (unknown keys first). */
const KEY_ORDER = Object.keys(BLOCK_SCHEMA.properties as object);

/** What is wrong with the block's shape, in key order (empty: the block is a MappingBlock). */
export function blockShapeProblems(block: unknown): ShapeProblem[] {
  if (validateBlock(block)) return [];
  const seen = new Set<string>();
  const out: ShapeProblem[] = [];
  for (const e of validateBlock.errors ?? []) {
    const p = problemOf(e);
    if (!p || seen.has(`${p.key}\n${p.detail}`)) continue;
    seen.add(`${p.key}\n${p.detail}`);
    out.push(p);
  }
  const rank = (key: string) => KEY_ORDER.indexOf(key.split('.')[0]!);
  return out.sort((a, b) => rank(a.key) - rank(b.key));
}

/** One ajv error in our words; null for the errors another one already says better. */
function problemOf(e: ErrorObject): ShapeProblem | null {
  // `if` and the discriminator repeat what the branch or `kind` says; the alternatives of an anyOf
  // are summed up by the anyOf's own error; a property name's error comes with its own.
  if (e.keyword === 'if' || e.keyword === 'discriminator' || e.keyword === 'propertyNames' || e.schemaPath.includes('/anyOf/')) return null;
  const at = e.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const key = (...more: string[]) => [...at, ...more].join('.') || '(config)';
  const schema = e.parentSchema as SchemaObject;
  switch (e.keyword) {
    case 'required':
      return { key: key(e.params.missingProperty), detail: requiredText(schema, e.params.missingProperty) };
    case 'additionalProperties':
      return { key: key(e.params.additionalProperty), detail: `unknown key (known: ${knownKeys(schema)})` };
    case 'enum': {
      const known = (e.params.allowedValues as unknown[]).join(', ');
      if (typeof e.data === 'string' && schema.title)
        return { key: key(), detail: `unknown ${schema.title} ${JSON.stringify(e.data)} (known: ${known})` };
      return { key: key(), detail: `expected one of ${known}, got ${describeType(e.data)}` };
    }
    case 'not':
    case 'anyOf':
      return { key: key(), detail: schema.description ?? 'not allowed here' };
    case 'maxLength':
      return {
        key: e.propertyName !== undefined ? key(e.propertyName) : key(),
        detail: `expected at most ${e.params.limit} characters, got ${String(e.data).length}`,
      };
    case 'maxProperties':
      return { key: key(), detail: `expected at most ${e.params.limit} entries, got ${Object.keys(e.data as object).length}` };
    default:
      return {
        key: e.propertyName !== undefined ? key(e.propertyName) : key(),
        detail: `expected ${expected(schema)}, got ${describeType(e.data)}`,
      };
  }
}

function requiredText(schema: SchemaObject, missing: string): string {
  const what = schema.properties?.[missing]?.description as string | undefined;
  if (what) return `required: ${what}`;
  if (schema.title) return `required for ${schema.title}`;
  return schema.description ? `required: ${schema.description}` : 'required';
}

/** The keys a mapping may have (not those named only to refuse them). */
function knownKeys(schema: SchemaObject): string {
  const props = (schema.properties ?? {}) as Record<string, SchemaObject>;
  return Object.keys(props)
    .filter((k) => !(props[k]!.not && Object.keys(props[k]!.not).length === 0))
    .join(', ');
}

const TYPE_NAMES: Record<string, string> = {
  string: 'text',
  number: 'a number',
  integer: 'an integer',
  boolean: 'a boolean',
  null: 'null',
  array: 'a list',
  object: 'a mapping',
};

function expected(schema: SchemaObject): string {
  if (schema.type === 'object') return `a mapping${schema.title ? ` (${schema.title})` : ''}`;
  if (schema.title) return schema.title;
  return (
    ([] as string[])
      .concat(schema.type ?? [])
      .map((t) => TYPE_NAMES[t] ?? t)
      .join(' or ') || 'something else'
  );
}
