// Mesh transform `./transforms/feed-mapping.ts`, set on each feed source in .meshrc.yaml. It leaves
// the source's schema as it is: at start-up it compiles the source's mapping block and checks it
// against the schema the handler generated (operation, arguments, every mapped path and leaf type),
// so a wrong mapping fails the start with a FeedConfigError naming the feed and the key, instead
// of failing requests later. The resolvers get the same bindings through bindingsFromConfig():
// a block is compiled once (compiledMapping keeps it per config object), whoever asks first.
import type { GraphQLSchema } from 'graphql';
import { compiledMapping, mappingBlocks, validateAgainstSchema } from './mapping/index.js';

/** The options Mesh constructs a transform with (the subset we use). */
export interface FeedMappingTransformOptions {
  apiName: string;
  config: unknown;
  baseDir?: string;
  cache?: unknown;
  pubsub?: unknown;
  importFn?: unknown;
  logger?: unknown;
}

export default class FeedMappingTransform {
  /** Schema-only: Mesh applies transformSchema to the source's schema, no request/result wrapping. */
  readonly noWrap = true;
  readonly apiName: string;
  readonly config: unknown;

  constructor(options: FeedMappingTransformOptions) {
    this.apiName = options.apiName;
    this.config = options.config;
  }

  transformSchema(schema: GraphQLSchema): GraphQLSchema {
    // A source may carry several blocks, one per operation (see mapping/index.ts: bindingsFromConfig).
    for (const block of mappingBlocks(this.config)) validateAgainstSchema(compiledMapping(this.apiName, block), schema);
    return schema;
  }
}
