// Query limits for every environment: graphql-armor's rules for depth, aliases and cost, plus two
// of ours that armor lacks: root fields per operation and upstream fan-out (what each root field
// costs is its `@upstreamFanOut` in schema/public.graphql).
import { GraphQLError, Kind, type ASTVisitor, type ValidationContext, type SelectionSetNode, type FragmentDefinitionNode } from 'graphql';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { schemaPolicy } from '../../resolvers/schema-policy.js';
import { SETTING_DEFAULTS, type SettingValues } from '../../lib/settings-table.js';

export interface QueryLimits {
  maxDepth: number;
  maxAliases: number;
  maxRootFields: number;
  maxTokens: number;
  /** Bytes of query text (comments included, which maxTokens does not count), checked before parsing. */
  maxQueryBytes: number;
  /** Bytes the parsed-document cache may hold (an estimate from tokens and text; see prepare.ts). */
  documentCacheBytes: number;
  maxCost: number;
  /** Upper bound of upstream calls one operation may cause. */
  maxFanOut: number;
}

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

/** A listener kind's limits from the settings table: KEYED_MAX_* or PLAYGROUND_MAX_* (lib/settings-table.ts). */
export function queryLimits(s: SettingValues, kind: 'KEYED' | 'PLAYGROUND'): QueryLimits {
  return {
    maxDepth: s[`${kind}_MAX_DEPTH`],
    maxAliases: s[`${kind}_MAX_ALIASES`],
    maxRootFields: s[`${kind}_MAX_ROOT_FIELDS`],
    maxTokens: s[`${kind}_MAX_TOKENS`],
    maxQueryBytes: s[`${kind}_MAX_QUERY_BYTES`],
    documentCacheBytes: s[`${kind}_DOCUMENT_CACHE_BYTES`],
    maxCost: s[`${kind}_MAX_COST`],
    maxFanOut: s[`${kind}_MAX_FAN_OUT`],
  };
}

/** The table's defaults of both kinds of listener. */
export const DEFAULT_LIMITS: Record<'keyed' | 'playground', QueryLimits> = {
  keyed: queryLimits(SETTING_DEFAULTS, 'KEYED'),
  playground: queryLimits(SETTING_DEFAULTS, 'PLAYGROUND'),
};
