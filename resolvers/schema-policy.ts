// The gateway's rules about each public field, read from the directives on schema/public.graphql
// once at start-up: which root fields are public and which need a key, how long answers are
// cached, what is never cached, how many upstream calls a root field may cause, and what is
// personal data (never logged or cached, protected in replay records). Nothing else lists fields;
// the directives are stripped from the schema partners are served.
import fs from 'node:fs';
import path from 'node:path';
import {
  buildSchema,
  getDirectiveValues,
  getNamedType,
  isObjectType,
  type GraphQLDirective,
  type GraphQLField,
  type GraphQLSchema,
} from 'graphql';
import { PROJECT_ROOT } from '../lib/project-root.js';

/** A TTL as written: a duration ("15m", "24h", "0"), or local expiry times (the cache.config.yaml syntax). */
export type TtlSpec = string | { untilLocalTime: string[]; timeZones?: string[]; max?: string };

export interface SchemaPolicy {
  /** Root fields of the SDL's Query type, in SDL order: the public API. */
  rootFields: ReadonlySet<string>;
  /** Root fields served with an issued key only (`@keyedOnly`). */
  keyedOnly: ReadonlySet<string>;
  /** Root fields of the playground schema: the public ones without `@keyedOnly`. */
  playgroundFields: ReadonlySet<string>;
  /** `@cacheTtl` per root field, as written (cache/cache-config.ts parses it). */
  cacheTtl: ReadonlyMap<string, TtlSpec>;
  /** Root fields never cached whatever the cache config says: they take or return personal data. */
  neverCached: ReadonlySet<string>;
  /** Root fields an operator may purge from the cache (cacheable ones). */
  cacheableFields: readonly string[];
  personalData: {
    /** "Query.utilityAccounts.address": arguments whose values are personal data. */
    args: ReadonlySet<string>;
    /** "UtilityAccount.accountId": fields whose values are personal data. */
    fields: ReadonlySet<string>;
  };
  /** Directive names used only by the gateway (stripped from the served schema). */
  gatewayDirectives: ReadonlySet<string>;
  /** The schema the policy was read from (its directives included), for type-aware walks of operations. */
  schema: GraphQLSchema;
  /** Names of the personal-data arguments of a root field (e.g. address for utilityAccounts). */
  personalArgsOf(field: string): string[];
  /** True when root field `field` (e.g. utilityAccounts) takes argument `arg` as personal data. */
  isPersonalArg(field: string, arg: string): boolean;
  /** True when `type.field` (e.g. UtilityAccount.accountId) holds personal data. */
  isPersonalField(type: string, field: string): boolean;
  /** True when any of these root fields takes or returns personal data. */
  selectsPersonalData(rootFields: readonly string[]): boolean;
  /** Upstream calls one selection of a root field may cause (introspection fields: none). */
  fanOutOf(field: string, supplierFeeds: number): number;
}

export class SchemaPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaPolicyError';
  }
}

const GATEWAY_DIRECTIVES = ['cacheTtl', 'keyedOnly', 'upstreamFanOut', 'personalData'] as const;

/** Derives the policy from the SDL text (pure; `where` names the file in error messages). */
export function policyFromSdl(sdl: string, where = 'schema/public.graphql'): SchemaPolicy {
  let schema: GraphQLSchema;
  try {
    schema = buildSchema(sdl);
  } catch (err) {
    throw new SchemaPolicyError(`${where}: ${(err as Error).message}`);
  }
  const directive = (name: (typeof GATEWAY_DIRECTIVES)[number]): GraphQLDirective => {
    const d = schema.getDirective(name);
    if (!d) throw new SchemaPolicyError(`${where}: the gateway directive @${name} is not defined`);
    return d;
  };
  const [cacheTtlDirective, keyedOnlyDirective, fanOutDirective, personalDirective] = GATEWAY_DIRECTIVES.map(directive) as [
    GraphQLDirective,
    GraphQLDirective,
    GraphQLDirective,
    GraphQLDirective,
  ];
  const has = (d: GraphQLDirective, node: { astNode?: Parameters<typeof getDirectiveValues>[1] | null }) =>
    node.astNode ? getDirectiveValues(d, node.astNode) !== undefined : false;

  const query = schema.getQueryType();
  if (!query) throw new SchemaPolicyError(`${where}: no Query type`);
  const roots = Object.values(query.getFields());

  const personalArgs = new Set<string>();
  const personalFields = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (has(personalDirective, field)) personalFields.add(`${type.name}.${field.name}`);
      for (const arg of field.args) if (has(personalDirective, arg)) personalArgs.add(`${type.name}.${field.name}.${arg.name}`);
    }
  }

  // A root field is personal when an argument is, or when its answer can reach a personal field.
  const reachesPersonal = (field: GraphQLField<unknown, unknown>, seen = new Set<string>()): boolean => {
    const type = getNamedType(field.type);
    if (!isObjectType(type) || seen.has(type.name)) return false;
    seen.add(type.name);
    return Object.values(type.getFields()).some((f) => personalFields.has(`${type.name}.${f.name}`) || reachesPersonal(f, seen));
  };
  const neverCached = new Set(
    roots.filter((f) => f.args.some((a) => personalArgs.has(`Query.${f.name}.${a.name}`)) || reachesPersonal(f)).map((f) => f.name),
  );

  const cacheTtl = new Map<string, TtlSpec>();
  const fanOut = new Map<string, { calls: number; perSupplierFeed: boolean }>();
  for (const field of roots) {
    const ttl = field.astNode ? getDirectiveValues(cacheTtlDirective, field.astNode) : undefined;
    if (ttl) {
      if (neverCached.has(field.name))
        throw new SchemaPolicyError(`${where}: Query.${field.name} carries personal data and cannot have @cacheTtl`);
      cacheTtl.set(field.name, ttlSpec(field.name, ttl, where));
    }
    const f = field.astNode ? getDirectiveValues(fanOutDirective, field.astNode) : undefined;
    if (f) {
      if (!Number.isInteger(f.calls) || (f.calls as number) < 0)
        throw new SchemaPolicyError(`${where}: Query.${field.name} @upstreamFanOut(calls:) must be 0 or more`);
      fanOut.set(field.name, { calls: f.calls as number, perSupplierFeed: f.perSupplierFeed === true });
    }
  }

  const rootFields = new Set(roots.map((f) => f.name));
  const keyedOnly = new Set(roots.filter((f) => has(keyedOnlyDirective, f)).map((f) => f.name));
  return {
    rootFields,
    keyedOnly,
    playgroundFields: new Set([...rootFields].filter((f) => !keyedOnly.has(f))),
    cacheTtl,
    neverCached,
    cacheableFields: [...rootFields].filter((f) => !neverCached.has(f)),
    personalData: { args: personalArgs, fields: personalFields },
    gatewayDirectives: new Set(GATEWAY_DIRECTIVES),
    schema,
    personalArgsOf: (field) =>
      [...personalArgs].filter((a) => a.startsWith(`Query.${field}.`)).map((a) => a.slice(`Query.${field}.`.length)),
    isPersonalArg: (field, arg) => personalArgs.has(`Query.${field}.${arg}`),
    isPersonalField: (type, field) => personalFields.has(`${type}.${field}`),
    selectsPersonalData: (fields) => fields.some((f) => neverCached.has(f)),
    fanOutOf(field, supplierFeeds) {
      if (field.startsWith('__')) return 0;
      const rule = fanOut.get(field);
      if (!rule) return 1;
      return rule.calls + (rule.perSupplierFeed ? supplierFeeds : 0);
    },
  };
}

function ttlSpec(field: string, values: Record<string, unknown>, where: string): TtlSpec {
  const { ttl, untilLocalTime, timeZones, max } = values as { ttl?: string; untilLocalTime?: string[]; timeZones?: string[]; max?: string };
  if ((ttl === undefined) === (untilLocalTime === undefined)) {
    throw new SchemaPolicyError(`${where}: Query.${field} @cacheTtl needs either ttl or untilLocalTime`);
  }
  if (ttl !== undefined) return ttl;
  return { untilLocalTime: untilLocalTime!, ...(timeZones ? { timeZones } : {}), ...(max !== undefined ? { max } : {}) };
}

/** The policy of the gateway's public schema, read once when this module loads (start-up). */
export const SCHEMA_FILE = path.join(PROJECT_ROOT, 'schema', 'public.graphql');
export const schemaPolicy: SchemaPolicy = policyFromSdl(fs.readFileSync(SCHEMA_FILE, 'utf8'));
