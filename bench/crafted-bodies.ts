// The isolation scenario's crafted bodies (bench/run.ts, test/e2e/crafted-bodies.test.ts): ~64 KB of
// query text repeating a prefix of a pattern the gateway once applied to client text, so that a
// pattern with backtracking would retry from every repetition. Each prefix stands for one:
// - `zip`, `zipCode: ` the replay facets' ZIP argument search;
// - `query ` the replay record's operation-name search (`query|mutation|subscription` then a name);
// - `"\\` the console's string-literal masking of a record's text;
// - `a/` and `//` trailing-run patterns (`/+$`) over paths and URLs;
// - `{a(` and `# ` nesting and comments, which only the bounded parser meets.
export const CRAFTED_PREFIXES = ['zip', 'zipCode: ', 'query ', '"\\', 'a/', '//', '{a(', '# '] as const;

/** `prefix` repeated to at least `bytes` characters (a partial last repetition is dropped). */
export function craftedQuery(prefix: string, bytes: number): string {
  return prefix.repeat(Math.ceil(bytes / prefix.length));
}

/**
 * Request body `n`: the prefixes in turn, as much text as fits `bytes` of JSON (a prefix JSON
 * escapes takes more room there), with `operationName` set so the name search runs too.
 */
export function craftedBody(n: number, bytes = 64 * 1024, prefix: string = CRAFTED_PREFIXES[n % CRAFTED_PREFIXES.length]!): string {
  const escaped = JSON.stringify(prefix).length - 2;
  const query = craftedQuery(prefix, Math.floor(((bytes - 96) * prefix.length) / escaped) - prefix.length);
  return JSON.stringify({ query, operationName: 'zip', variables: { zipCode: '75001' } });
}
