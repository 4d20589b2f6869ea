// A feed payload completed where it lies. Calling a feed through its source schema (mesh/gateway-mesh.ts:
// sourceCall) made graphql-jit copy every selected value of the parsed JSON into a new object tree
// (a sixth of an uncached request's garbage) only for the mapping to read it once. For the usual
// payload that copy is the JSON itself, projected onto the selection: the same values, enum values
// by their GraphQL names, absent fields as null, `__typename` where selected. This walk checks the
// parsed payload against the selection without allocating and, when everything conforms, patches
// those few differences into it. Anything else (a value a serializer refuses, a null in a non-null
// field, a union member other than the selected one) answers `false`, and the caller completes the
// payload through graphql-jit as before, so its errors and nulls stay exactly what they were.
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
  Kind,
  type GraphQLField,
  type GraphQLLeafType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLUnionType,
  type SelectionSetNode,
} from 'graphql';

type Shape =
  | { kind: 'leaf'; type: GraphQLLeafType; plain: ((v: unknown) => boolean) | null }
  | { kind: 'list'; of: Node }
  | { kind: 'object'; object: ObjectShape }
  | { kind: 'union'; type: GraphQLUnionType; members: ReadonlyMap<string, ObjectShape> };

interface Node {
  nullable: boolean;
  shape: Shape;
}

interface ObjectShape {
  name: string;
  /** The selected fields, by name, and what each holds (indexed loops: no iterator per object). */
  names: readonly string[];
  nodes: readonly Node[];
  typename: boolean;
}

/** Changes the completion would have made, three entries each: `target[key] = value`. Flat: no array per change. */
type Patches = unknown[];
const scratch: Patches = [];

/**
 * Completes `payload` in place for `field`'s selection; true when it now equals what graphql-jit
 * would have returned for the field (with no errors), false (payload untouched) otherwise.
 */
type PayloadCompletion = (payload: unknown, context: unknown, info: GraphQLResolveInfo) => boolean;

/**
 * The in-place completion of `selection` on `field`, or null when the selection needs what only an
 * executor does: a field resolver other than reading the property, `isTypeOf`, interfaces, aliases,
 * arguments, directives or fragment spreads below the root field.
 */
export function payloadCompletion(field: GraphQLField<unknown, unknown>, selection: SelectionSetNode): PayloadCompletion | null {
  const root = nodeOf(field.type, selection);
  if (!root) return null;
  return (payload, context, info) => {
    // A resolver's Error is a field error; graphql-jit reports it.
    if (payload === null || payload === undefined || payload instanceof Error) return false;
    // One list for every walk (a walk runs to its end without yielding), emptied after use.
    const patches = scratch;
    try {
      if (!conforms(payload, root, context, info, patches)) return false;
      for (let i = 0; i < patches.length; i += 3)
        (patches[i] as Record<string | number, unknown>)[patches[i + 1] as string] = patches[i + 2];
      return true;
    } finally {
      patches.length = 0;
    }
  };
}

function nodeOf(type: GraphQLOutputType, selection: SelectionSetNode | undefined): Node | null {
  const nullable = !isNonNullType(type);
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    const of = nodeOf(inner.ofType, selection);
    return of && { nullable, shape: { kind: 'list', of } };
  }
  if (isScalarType(inner) || isEnumType(inner))
    return selection ? null : { nullable, shape: { kind: 'leaf', type: inner, plain: plainCheck(inner) } };
  if (!selection) return null;
  if (isObjectType(inner)) {
    const object = objectShape(inner, selection);
    return object && { nullable, shape: { kind: 'object', object } };
  }
  if (isUnionType(inner)) {
    // `{ __typename ... on Member { ... } }`: the only abstract selection a mapping makes (resultType).
    const members = new Map<string, ObjectShape>();
    for (const s of selection.selections) {
      if (s.kind === Kind.FIELD && s.name.value === '__typename' && !s.alias && !s.directives?.length) continue;
      if (s.kind !== Kind.INLINE_FRAGMENT || s.directives?.length || !s.typeCondition) return null;
      const member = inner.getTypes().find((t) => t.name === s.typeCondition!.name.value);
      if (!member || members.has(member.name)) return null;
      const shape = objectShape(member, s.selectionSet, selection);
      if (!shape) return null;
      members.set(member.name, shape);
    }
    return { nullable, shape: { kind: 'union', type: inner, members } };
  }
  return null;
}

/** `outer`: the union's own selection, whose `__typename` applies to the member too. */
function objectShape(type: GraphQLObjectType, selection: SelectionSetNode, outer?: SelectionSetNode): ObjectShape | null {
  if (type.isTypeOf) return null;
  const defs = type.getFields();
  const names: string[] = [];
  const nodes: Node[] = [];
  let typename = !!outer?.selections.some((s) => s.kind === Kind.FIELD && s.name.value === '__typename');
  for (const s of selection.selections) {
    if (s.kind !== Kind.FIELD || s.alias || s.arguments?.length || s.directives?.length) return null;
    const name = s.name.value;
    if (name === '__typename') {
      typename = true;
      continue;
    }
    const def = defs[name];
    if (!def || def.resolve || names.includes(name)) return null;
    const node = nodeOf(def.type, s.selectionSet);
    if (!node) return null;
    names.push(name);
    nodes.push(node);
  }
  return { name: type.name, names, nodes, typename };
}

function conforms(value: unknown, node: Node, context: unknown, info: GraphQLResolveInfo, patches: Patches): boolean {
  // The caller handles null and undefined (its patch makes an absent value null).
  const shape = node.shape;
  switch (shape.kind) {
    case 'leaf':
      return false; // leaves are checked by their container, which may have to replace them
    case 'list': {
      if (!Array.isArray(value)) return false;
      const of = shape.of;
      for (let i = 0; i < value.length; i++) if (!slot(value, i, value[i], of, context, info, patches)) return false;
      return true;
    }
    case 'object':
      return objectConforms(value, shape.object, patches, context, info);
    case 'union': {
      if (typeof value !== 'object' || Array.isArray(value)) return false;
      const name = shape.type.resolveType?.(value, context, info, shape.type);
      const member = typeof name === 'string' ? shape.members.get(name) : undefined;
      return member ? objectConforms(value, member, patches, context, info) : false;
    }
  }
}

function objectConforms(value: unknown, shape: ObjectShape, patches: Patches, context: unknown, info: GraphQLResolveInfo): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const obj = value as Record<string, unknown>;
  const { names, nodes } = shape;
  for (let i = 0; i < names.length; i++) if (!slot(obj, names[i]!, obj[names[i]!], nodes[i]!, context, info, patches)) return false;
  if (shape.typename && obj.__typename !== shape.name) patches.push(obj, '__typename', shape.name);
  return true;
}

/** One value in its container: null where allowed (absent made null), a leaf as its serializer gives it. */
function slot(
  container: Record<string, unknown> | unknown[],
  key: string | number,
  v: unknown,
  node: Node,
  context: unknown,
  info: GraphQLResolveInfo,
  patches: Patches,
): boolean {
  if (v === null || v === undefined) {
    if (!node.nullable) return false;
    if (v === undefined) patches.push(container, key, null);
    return true;
  }
  const shape = node.shape;
  if (shape.kind !== 'leaf') {
    // A function (an inherited property) would be called by an executor; an Error becomes a field error.
    if (typeof v === 'function' || v instanceof Error) return false;
    return conforms(v, node, context, info, patches);
  }
  if (shape.plain?.(v)) return true;
  if (typeof v === 'function' || v instanceof Error) return false;
  let out: unknown;
  try {
    out = shape.type.serialize(v);
  } catch {
    return false;
  }
  if (out === null || out === undefined || out !== out) return false;
  if (out !== v) patches.push(container, key, out);
  return true;
}

const INT_MAX = 2147483647;
const INT_MIN = -2147483648;

/**
 * For the specified scalars, the values their serializer returns unchanged (graphql-js's own rules:
 * a string as String or ID, a 32-bit whole number as Int, a finite number as Float, a boolean as
 * Boolean), told without calling it: most of a payload's leaves. Anything else goes to the serializer.
 */
function plainCheck(type: GraphQLLeafType): ((v: unknown) => boolean) | null {
  if (type === GraphQLString || type === GraphQLID) return (v) => typeof v === 'string';
  if (type === GraphQLInt) return (v) => typeof v === 'number' && Number.isInteger(v) && v <= INT_MAX && v >= INT_MIN;
  if (type === GraphQLFloat) return (v) => typeof v === 'number' && Number.isFinite(v);
  if (type === GraphQLBoolean) return (v) => typeof v === 'boolean';
  return null;
}

/** `schema` with `field` of Query resolving to what `payloadOf(context)` holds: completion only, no call. */
export function completionSchema(schema: GraphQLSchema, field: string, payloadOf: (context: unknown) => unknown): GraphQLSchema {
  const config = schema.toConfig();
  const query = schema.getQueryType()!;
  const queryConfig = query.toConfig();
  const replaced = new GraphQLObjectType({
    ...queryConfig,
    fields: { ...queryConfig.fields, [field]: { ...queryConfig.fields[field]!, resolve: (_root, _args, context) => payloadOf(context) } },
  });
  return new GraphQLSchema({ ...config, query: replaced, types: config.types.filter((t) => t !== query) });
}
