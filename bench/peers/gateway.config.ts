// Bench-only: Hive Gateway's config in the `peers` scenario (bench/run/scenarios/peers.ts), read by
// `hive-gateway supergraph <composed file> -c bench/peers/gateway.config.ts`. Response caching in
// the gateway's memory (its default cache), one entry for every client (no session), as our
// response cache keys a keyed answer by environment only; PEERS_RESPONSE_CACHE=off: none (the
// uncached rows). No GraphiQL or landing page.
//
// A plain object, not typed by @graphql-hive/gateway's defineConfig: its types augment graphql's
// GraphQLResolveInfo with members graphql 16 does not have, which would fail the project's typecheck.
export const gatewayConfig = {
  ...(process.env.PEERS_RESPONSE_CACHE === 'off' ? {} : { responseCaching: { session: () => null } }),
  graphiql: false,
  landingPage: false,
};
