// The public schema's fields resolved by our resolvers (resolvers/index.ts) and nothing else.
//
// Mesh's stitching merger gives every field we wrote no resolver for stitching's
// `defaultMergedResolver`, and wraps every field returning an object type in a function that walks
// its result for type merges (and copies every list it returns). Neither does anything here: no
// public type merges with another (mesh/gateway-mesh.ts, `dropUnmergeableTypes`) and our resolvers return
// plain objects, never a merged source's proxies. They cost a call and, under graphql-jit, a resolve
// info object per value of every answer: a field without a resolver is read inline by the compiled
// query instead. Fields whose record holds a function (computed only when selected) have resolvers
// of their own in resolvers/index.ts, so no field left without one reads a function.
import { isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';

type FieldResolvers = Record<string, GraphQLFieldResolver<unknown, unknown> | { resolve?: GraphQLFieldResolver<unknown, unknown> }>;
export type ResolverMap = Record<string, unknown>;

/**
 * Sets each object field's resolver of `schema` to ours, or none. The caller vouches that the
 * schema's object types are those our SDL declares, resolved by `resolvers` alone (the only
 * additional resolvers, no root transform wrapping the schema, no type shared with a source).
 */
export function resolveAsWritten(schema: GraphQLSchema, resolvers: ResolverMap): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const own = resolvers[type.name] as FieldResolvers | undefined;
    for (const field of Object.values(type.getFields())) {
      const resolver = own?.[field.name];
      field.resolve = typeof resolver === 'function' ? resolver : resolver?.resolve;
    }
  }
}

/**
 * Whether every object type of `schema` is ours alone: declared by no source (a type a source also
 * declares has fields stitching proxies to it) and not left on stitching's merged-type list.
 */
export function ownTypesOnly(
  schema: GraphQLSchema,
  sourceSchemas: GraphQLSchema[],
  mergedTypes: Record<string, unknown> | undefined,
): boolean {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    if (mergedTypes?.[type.name]) return false;
    if (type !== schema.getQueryType() && sourceSchemas.some((s) => s.getType(type.name))) return false;
  }
  return true;
}
