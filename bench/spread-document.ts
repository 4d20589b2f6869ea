// The isolation scenario's hostile document (bench/run.ts, bench/playground-flood.ts): ~1,000
// tokens of fragment spreads, introspection only (free in the playground), distinct per n so that
// no parse cache can answer it.
export const spreadDocument = (n: number): string =>
  JSON.stringify({ query: `{ ${'...A '.repeat(480)} } fragment A on Query { __typename } #${n}` });
