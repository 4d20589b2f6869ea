// What the support console's search filters on, derived once when a replay record is written
// (so a search never parses answers): the answer's GraphQL error count and `extensions.code`s,
// the operation's root fields and the ZIP codes it was sent. Client text is read only as a parsed
// document (the prepared one, or a parse bounded in tokens), never searched with a pattern. The outcome (ok, graphql-errors,
// refused, server-errors) follows from these and the HTTP status.
import { Kind, parse, visit, type ArgumentNode, type DocumentNode, type ObjectFieldNode } from 'graphql';

export interface ReplayFacets {
  /** GraphQL errors in the answer. */
  errors: number;
  /** Distinct `extensions.code` values of those errors (at most 8). */
  codes: string[];
  rootFields: string[];
  /** ZIP codes sent, as arguments or variables (at most 8). */
  zips: string[];
}

/** Answers larger than this are scanned for codes instead of parsed. */
const PARSE_LIMIT = 256 * 1024;
const MAX_VALUES = 8;
const CODE = /^[A-Z][A-Z0-9_]{0,63}$/;
const ZIP = /^\d{5}$/;

/** GraphQL errors and their codes in an answer body. */
export function answerErrors(body: string): { errors: number; codes: string[] } {
  if (!body.includes('"errors"')) return { errors: 0, codes: [] };
  const codes = new Set<string>();
  if (body.length <= PARSE_LIMIT) {
    try {
      const errors = (JSON.parse(body) as { errors?: unknown }).errors;
      if (!Array.isArray(errors)) return { errors: 0, codes: [] };
      for (const e of errors) {
        const code = (e as { extensions?: { code?: unknown } } | null)?.extensions?.code;
        if (typeof code === 'string' && CODE.test(code) && codes.size < MAX_VALUES) codes.add(code);
      }
      return { errors: errors.length, codes: [...codes] };
    } catch {
      return { errors: 0, codes: [] };
    }
  }
  for (const m of body.matchAll(/"code":"([A-Z][A-Z0-9_]{0,63})"/g)) if (codes.size < MAX_VALUES) codes.add(m[1]!);
  return { errors: Math.max(1, codes.size), codes: [...codes] };
}

/**
 * The document a record's facets are read from when the request was not prepared (refused before
 * parsing, or invalid): its text parsed up to a bounded number of tokens, so the work stays linear
 * in a bounded prefix of whatever the client sent. Null when that prefix does not parse.
 */
export const FACET_MAX_TOKENS = 2000;
export function documentOf(query: string | null | undefined): DocumentNode | null {
  if (!query) return null;
  try {
    return parse(query, { noLocation: true, maxTokens: FACET_MAX_TOKENS });
  } catch {
    return null;
  }
}

/**
 * ZIP codes in the operation's arguments and input fields (string literals, read from the parsed
 * document: client text is never searched with a pattern) and in variables whose name mentions zip.
 */
export function zipsOf(document: DocumentNode | null | undefined, variables: Record<string, unknown> | null | undefined): string[] {
  const zips = new Set<string>();
  const add = (v: unknown) => {
    if (typeof v === 'string' && v.length === 5 && ZIP.test(v) && zips.size < MAX_VALUES) zips.add(v);
  };
  const literal = (node: ArgumentNode | ObjectFieldNode) => {
    if (node.value.kind === Kind.STRING && /zip/i.test(node.name.value)) add(node.value.value);
  };
  if (document) visit(document, { Argument: literal, ObjectField: literal });
  if (variables && typeof variables === 'object') for (const [k, v] of Object.entries(variables)) if (/zip/i.test(k)) add(v);
  return [...zips];
}

/** Root field names of an operation text (parsed within the bound above), or [] when it does not parse. */
export function rootFieldsOf(query: string | DocumentNode | null | undefined): string[] {
  const document = typeof query === 'string' ? documentOf(query) : query;
  if (!document) return [];
  return document.definitions.flatMap((d) =>
    d.kind === Kind.OPERATION_DEFINITION ? d.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : [])) : [],
  );
}

interface FacetInputs {
  body: string;
  rootFields: readonly string[] | undefined;
  /** The parsed operation (the prepared one, or `documentOf` the text): never the raw text. */
  document: DocumentNode | null | undefined;
  variables: Record<string, unknown> | null | undefined;
}

/**
 * The facets of recent cached answers. A hit repeats its entry's body string and, for a repeated
 * request text, the same prepared document (the preparer's cache) and frozen variables objects
 * (http/request-body.ts): its facets are found by identity instead of searching the answer and
 * walking the document again (docs/benchmark.md, "The cache hit"). Bounded in entries and body size; facets are
 * never written to.
 */
const recent = new Map<string, { inputs: FacetInputs; facets: ReplayFacets }>();
const RECENT_MAX = 64;
const RECENT_BODY_MAX = 64 * 1024;

/** `cached`: the body is a response cache entry's, worth remembering. */
export function replayFacets(opts: FacetInputs, cached = false): ReplayFacets {
  const seen = cached ? recent.get(opts.body) : undefined;
  if (
    seen &&
    seen.inputs.rootFields === opts.rootFields &&
    seen.inputs.document === opts.document &&
    seen.inputs.variables === opts.variables
  )
    return seen.facets;
  const { errors, codes } = answerErrors(opts.body);
  const facets = {
    errors,
    codes,
    rootFields: [...new Set(opts.rootFields ?? [])].slice(0, 32),
    zips: zipsOf(opts.document, opts.variables),
  };
  if (cached && opts.body.length <= RECENT_BODY_MAX) {
    if (recent.size >= RECENT_MAX) recent.clear();
    recent.set(opts.body, { inputs: opts, facets });
  }
  return facets;
}
