// Query limits for every environment: graphql-armor's rules for depth, aliases and cost, plus two
// of ours that armor lacks: root fields per operation and upstream fan-out (what each root field
// costs is its `@upstreamFanOut` in schema/public.graphql).
import { GraphQLError, Kind, type ASTVisitor, type ValidationContext, type SelectionSetNode, type FragmentDefinitionNode } from 'graphql';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { schemaPolicy } from '../../resolvers/schema-policy.js';
import type { z } from 'zod';
import { kinds as k, settingsSchema } from '../../lib/settings.js';
import { byListener, perListener } from '../http/listener-settings.js';

const MiB = 1024 * 1024;

/** The limits of the keyed listeners (KEYED_*) and of the playground's (PLAYGROUND_*). */
export const queryLimitSettings = settingsSchema(
  byListener({
    maxDepth: perListener('MAX_DEPTH', k.int(2, 50), 8, 6, 'query depth limit'),
    maxAliases: perListener('MAX_ALIASES', k.int(0, 500), 15, 5, 'aliases per query'),
    maxRootFields: perListener('MAX_ROOT_FIELDS', k.int(1, 100), 6, 3, 'root fields per query, counted through fragments and @skip'),
    maxTokens: perListener('MAX_TOKENS', k.int(50, 100_000), 2000, 1000, 'tokens per query document'),
    /** Bytes of query text (comments included, which maxTokens does not count), checked before parsing. */
    maxQueryBytes: perListener('MAX_QUERY_BYTES', k.int(256, 10 * MiB), 32 * 1024, 8 * 1024, 'bytes per query document'),
    /** Bytes the parsed-document cache may hold (an estimate from tokens and text; see prepare.ts). */
    documentCacheBytes: perListener(
      'DOCUMENT_CACHE_BYTES',
      k.int(0, 1024 * MiB),
      32 * MiB,
      8 * MiB,
      'parsed documents kept per listener (estimated bytes; 0 = none)',
    ),
    maxCost: perListener('MAX_COST', k.int(10, 10_000_000), 20_000, 5000, 'query cost limit (fields times list sizes)'),
    /** Upper bound of upstream calls one operation may cause. */
    maxFanOut: perListener('MAX_FAN_OUT', k.int(1, 1000), 24, 8, 'upstream calls one query may cause'),
  }),
);

export type QueryLimits = z.output<typeof queryLimitSettings>['keyed'];

export function rootFieldNames(
  selectionSet: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  seen = new Set<string>(),
): string[] {
  const out: string[] = [];
  for (const sel of selectionSet.selections) {
    if (sel.kind === Kind.FIELD) out.push(sel.name.value);
    else if (sel.kind === Kind.INLINE_FRAGMENT) out.push(...rootFieldNames(sel.selectionSet, fragments, seen));
    else if (sel.kind === Kind.FRAGMENT_SPREAD && !seen.has(sel.name.value)) {
      seen.add(sel.name.value);
      const frag = fragments[sel.name.value];
      if (frag) out.push(...rootFieldNames(frag.selectionSet, fragments, seen));
    }
  }
  return out;
}

function rootFieldsRule(limits: QueryLimits, supplierFeeds: number) {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(node) {
      const fragments = Object.fromEntries(
        context
          .getDocument()
          .definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
          .map((d) => [d.name.value, d]),
      );
      const fields = rootFieldNames(node.selectionSet, fragments).filter((f) => !f.startsWith('__'));
      if (fields.length > limits.maxRootFields) {
        context.reportError(
          new GraphQLError(`Query has ${fields.length} root fields; at most ${limits.maxRootFields} are allowed per operation.`, {
            nodes: [node],
            extensions: { code: 'QUERY_TOO_COMPLEX' },
          }),
        );
        return;
      }
      const fanOut = fields.reduce((sum, f) => sum + schemaPolicy.fanOutOf(f, supplierFeeds), 0);
      if (fanOut > limits.maxFanOut) {
        context.reportError(
          new GraphQLError(`Query would make ${fanOut} upstream calls; at most ${limits.maxFanOut} are allowed per operation.`, {
            nodes: [node],
            extensions: { code: 'QUERY_TOO_COMPLEX' },
          }),
        );
      }
    },
  });
}

export function limitRules(limits: QueryLimits, supplierFeeds: number) {
  const armor = { propagateOnRejection: true } as const;
  return [
    maxDepthRule({ n: limits.maxDepth, ignoreIntrospection: true, flattenFragments: true, ...armor }),
    maxAliasesRule({ n: limits.maxAliases, ...armor }),
    costLimitRule({ maxCost: limits.maxCost, ignoreIntrospection: true, ...armor }),
    rootFieldsRule(limits, supplierFeeds),
  ];
}

/** The defaults of both kinds of listener. */
export const DEFAULT_LIMITS: Record<'keyed' | 'playground', QueryLimits> = queryLimitSettings.parse({});
