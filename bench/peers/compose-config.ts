// Bench-only: the Mesh v1 compose config of the `peers` scenario (bench/run/scenarios/peers.ts):
// every source of .meshrc.yaml, as the stock `mesh` scenario serves them (bench/mesh-start/config.ts:
// the same handlers, contract files and reference upstream, none of our transforms, resolvers or
// public schema), handed to the omnigraph loaders, for Hive Gateway to serve as a supergraph.
//
// The loaders take the v0 handler blocks as they are (endpoint, operations, queryParams for JSON
// Schema; source and endpoint for OpenAPI). A query parameter filled from the gateway's request
// context (`{context.feedKeys.Eia}`: EIA's key) is left out: Hive has no such context, and the
// reference upstream needs no key.
import { type MeshComposeCLIConfig } from '@graphql-mesh/compose-cli';
import { type JSONSchemaLoaderOptions, loadJSONSchemaSubgraph } from '@omnigraph/json-schema';
import { loadOpenAPISubgraph } from '@omnigraph/openapi';
import { type StockSource, stockSources } from '../mesh-start/config.js';

function withoutContextParams(params: unknown): Record<string, string> | undefined {
  if (!params || typeof params !== 'object') return undefined;
  const kept = Object.entries(params as Record<string, unknown>).filter(
    (e): e is [string, string] => typeof e[1] === 'string' && !e[1].includes('{context.'),
  );
  return kept.length ? Object.fromEntries(kept) : undefined;
}

function subgraphOf(source: StockSource): MeshComposeCLIConfig['subgraphs'][number] {
  const [kind, ...others] = Object.keys(source.handler);
  if (others.length) throw new Error(`source ${source.name}: one handler expected, got ${Object.keys(source.handler).join(', ')}`);
  const h = source.handler[kind!]!;
  if (kind === 'openapi') {
    return { sourceHandler: loadOpenAPISubgraph(source.name, { source: String(h.source), endpoint: String(h.endpoint) }) };
  }
  if (kind === 'jsonSchema') {
    const queryParams = withoutContextParams(h.queryParams);
    return {
      sourceHandler: loadJSONSchemaSubgraph(source.name, {
        endpoint: String(h.endpoint),
        operations: h.operations as JSONSchemaLoaderOptions['operations'],
        ...(queryParams ? { queryParams } : {}),
      }),
    };
  }
  throw new Error(`source ${source.name}: no omnigraph loader for the ${kind} handler`);
}

/** The compose config: one subgraph per source of `projectRoot`'s .meshrc.yaml, over `upstreamUrl`. */
export function peerComposeConfig(projectRoot: string, upstreamUrl: string): MeshComposeCLIConfig {
  return { subgraphs: stockSources(projectRoot, upstreamUrl).map(subgraphOf) };
}
