// Where a recorded operation touches personal data, from its types, never from what was sent: the
// operation is parsed and walked with TypeInfo against the public schema (fragments, inline
// fragments, aliases, variables and directives as graphql-js resolves them), and `@personalData`
// on the schema (resolvers/schema-policy.ts) is the only list of what is personal. The answer is
// then masked by schema coordinate (Type.field) as the operation's selections type it. Deny by
// default: an operation that does not parse, a value at a position the schema does not type (an
// unknown argument or directive, a field of an unknown type), a field the schema does not know in a
// record whose answer has data, and an answer key no selection explains all count as personal.
import {
  Kind,
  SchemaMetaFieldDef,
  TypeInfo,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  getNamedType,
  isAbstractType,
  isLeafType,
  isObjectType,
  parse,
  print,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { schemaPolicy, type SchemaPolicy } from '../../resolvers/schema-policy.js';

export const MASK = '••••';
/** A recorded operation passed the gateway's own limits; this only bounds the console's parse of a damaged one. */
const MAX_TOKENS = 50_000;
/** Values shorter than this are not searched for in error messages (a state code, "TX", says nothing). */
const MIN_SCRUB = 3;

interface OperationPrivacy {
  /** The operation touches personal data, or could not be parsed or typed: a viewer sees no raw answer or variables. */
  personal: boolean;
  /**
   * A field the schema does not know is selected (an invalid operation): personal when its answer
   * has data, which such a field could have put there (see answerHasData).
   */
  untypedFields: boolean;
  /** The operation printed with every value at a personal or untyped position masked (null: not parseable). */
  maskedQuery: string | null;
  /** Masks an answer by schema coordinate; error messages lose the personal values sent and answered. */
  maskBody(body: string, variables: Record<string, unknown> | null): string;
}

/** Strings and numbers of a value masked; the keys (response names chosen by the client) and its shape stay. */
export function maskLeaves(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(maskLeaves);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskLeaves(x)]));
  return typeof v === 'string' || typeof v === 'number' ? MASK : v;
}

function stringLeaves(v: unknown, out: Set<string>): void {
  if (typeof v === 'string' || typeof v === 'number') {
    if (String(v).length >= MIN_SCRUB) out.add(String(v));
  } else if (Array.isArray(v)) for (const x of v) stringLeaves(x, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) stringLeaves(x, out);
}

/** A literal masked wherever it sits; variable references stay (their values are never shown to a viewer). */
function maskLiteral(v: ValueNode): ValueNode {
  if (v.kind === Kind.VARIABLE) return v;
  if (v.kind === Kind.LIST) return { ...v, values: v.values.map(maskLiteral) };
  if (v.kind === Kind.OBJECT) return { ...v, fields: v.fields.map((f) => ({ ...f, value: maskLiteral(f.value) })) };
  return { kind: Kind.STRING, value: MASK };
}

function literalStrings(v: ValueNode, out: Set<string>): void {
  if (v.kind === Kind.STRING || v.kind === Kind.INT || v.kind === Kind.FLOAT) {
    if (v.value.length >= MIN_SCRUB) out.add(v.value);
  } else if (v.kind === Kind.LIST) for (const x of v.values) literalStrings(x, out);
  else if (v.kind === Kind.OBJECT) for (const f of v.fields) literalStrings(f.value, out);
}

function variableNames(v: ValueNode, out: Set<string>): void {
  if (v.kind === Kind.VARIABLE) out.add(v.name.value);
  else if (v.kind === Kind.LIST) for (const x of v.values) variableNames(x, out);
  else if (v.kind === Kind.OBJECT) for (const f of v.fields) variableNames(f.value, out);
}

/** Everything is personal: nothing about the operation could be typed. */
const UNTYPED: OperationPrivacy = {
  personal: true,
  untypedFields: true,
  maskedQuery: null,
  maskBody(body, variables) {
    const scrub = new Set<string>();
    stringLeaves(variables, scrub);
    try {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return MASK;
      stringLeaves(parsed.data, scrub);
      return rebuilt(parsed, maskLeaves(parsed.data), scrub);
    } catch {
      return MASK;
    }
  },
};

/** The answer in its own key order: `data` as masked, the rest (errors, extensions) scrubbed. */
function rebuilt(parsed: Record<string, unknown>, data: unknown, scrub: Set<string>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(parsed).map(([k, x]) => [k, k === 'data' ? data : scrubbed(x, scrub)])));
}

/** Strings of a value with every scrub value replaced by the mask (error messages quoting an address). */
function scrubbed<T>(v: T, scrub: Set<string>): T {
  if (typeof v === 'string') {
    let s: string = v;
    for (const x of scrub) if (s.includes(x)) s = s.replaceAll(x, MASK);
    return s as T;
  }
  if (Array.isArray(v)) return v.map((x) => scrubbed(x, scrub)) as T;
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrubbed(x, scrub)])) as T;
  return v;
}

/** The personal-data positions of a recorded operation (`operationName` picks one of several). */
export function operationPrivacy(
  query: string | null,
  operationName: string | null,
  policy: SchemaPolicy = schemaPolicy,
): OperationPrivacy {
  if (query === null) return UNTYPED;
  let doc: DocumentNode;
  try {
    doc = parse(query, { noLocation: true, maxTokens: MAX_TOKENS });
  } catch {
    return UNTYPED;
  }
  const { schema } = policy;
  const typeInfo = new TypeInfo(schema);
  let personal = false;
  let untypedFields = false;
  const maskedArgs = new Set<ArgumentNode>();
  const sentVariables = new Set<string>();
  const sentLiterals = new Set<string>();
  visit(
    doc,
    visitWithTypeInfo(typeInfo, {
      OperationDefinition(node) {
        // A read-only API: anything but a query is not typed here.
        if (node.operation !== 'query') personal = true;
      },
      FragmentDefinition() {
        if (!typeInfo.getType()) personal = true;
      },
      InlineFragment() {
        if (!typeInfo.getType()) personal = true;
      },
      Field() {
        const def = typeInfo.getFieldDef();
        const parent = typeInfo.getParentType();
        if (!def || !parent) untypedFields = true;
        else if (policy.isPersonalField(parent.name, def.name)) personal = true;
      },
      Directive() {
        if (!typeInfo.getDirective()) personal = true;
      },
      Argument(node) {
        const arg = typeInfo.getArgument();
        const directive = typeInfo.getDirective();
        const field = typeInfo.getFieldDef();
        const parent = typeInfo.getParentType();
        const personalArg =
          !arg || (!directive && (!field || !parent || policy.personalData.args.has(`${parent.name}.${field.name}.${arg.name}`)));
        if (!personalArg) return;
        personal = true;
        maskedArgs.add(node);
        variableNames(node.value, sentVariables);
        literalStrings(node.value, sentLiterals);
      },
    }),
  );
  const masked = visit(doc, {
    Argument: (node) => (maskedArgs.has(node) ? { ...node, value: maskLiteral(node.value) } : undefined),
    // A default stands for a value that was not sent: masked when its variable sits at a personal position.
    VariableDefinition: (node) =>
      node.defaultValue && sentVariables.has(node.variable.name.value)
        ? (literalStrings(node.defaultValue, sentLiterals), { ...node, defaultValue: maskLiteral(node.defaultValue) })
        : undefined,
  });
  const operation = pickOperation(doc, operationName);
  const fragments = new Map(
    doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  return {
    personal,
    untypedFields,
    maskedQuery: print(masked),
    maskBody(body, variables) {
      if (!operation) return UNTYPED.maskBody(body, variables);
      const scrub = new Set(sentLiterals);
      for (const name of sentVariables) stringLeaves(variables?.[name], scrub);
      try {
        const parsed = JSON.parse(body) as Record<string, unknown>;
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return MASK;
        const root = schema.getQueryType();
        const data = parsed.data;
        const shown =
          data === undefined || data === null || !root
            ? data
            : maskObject(data, [operation.selectionSet], root, { schema, policy, fragments, answered: scrub });
        return rebuilt(parsed, shown, scrub);
      } catch {
        return MASK;
      }
    },
  };
}

/** Whether an answer may hold values: anything but JSON whose `data` is absent or null. */
export function answerHasData(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { data?: unknown } | null;
    return !parsed || typeof parsed !== 'object' || (parsed.data !== undefined && parsed.data !== null);
  } catch {
    return true;
  }
}

function pickOperation(doc: DocumentNode, name: string | null): OperationDefinitionNode | null {
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (name) return ops.find((o) => o.name?.value === name) ?? null;
  return ops.length === 1 ? ops[0]! : null;
}

interface Walk {
  schema: SchemaPolicy['schema'];
  policy: SchemaPolicy;
  fragments: Map<string, FragmentDefinitionNode>;
  /** Personal values met in the answer: masked in error messages too. */
  answered: Set<string>;
}

/** The fields each response key of `sets` names for an object of `type` (graphql-js's CollectFields, all branches kept). */
function collect(
  type: GraphQLObjectType,
  sets: readonly SelectionSetNode[],
  w: Walk,
  out = new Map<string, FieldNode[]>(),
  seen = new Set<string>(),
) {
  const applies = (condition: string | undefined) => {
    if (!condition) return true;
    const t = w.schema.getType(condition);
    return t === type || (!!t && isAbstractType(t) && w.schema.isSubType(t, type));
  };
  for (const set of sets)
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) {
        const key = sel.alias?.value ?? sel.name.value;
        out.set(key, [...(out.get(key) ?? []), sel]);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        if (applies(sel.typeCondition?.name.value)) collect(type, [sel.selectionSet], w, out, seen);
      } else if (!seen.has(sel.name.value)) {
        seen.add(sel.name.value);
        const frag = w.fragments.get(sel.name.value);
        if (frag && applies(frag.typeCondition.name.value)) collect(type, [frag.selectionSet], w, out, seen);
      }
    }
  return out;
}

function fieldDef(type: GraphQLObjectType, name: string, w: Walk): GraphQLField<unknown, unknown> | undefined {
  if (name === '__typename') return TypeNameMetaFieldDef;
  if (type === w.schema.getQueryType() && name === '__schema') return SchemaMetaFieldDef;
  if (type === w.schema.getQueryType() && name === '__type') return TypeMetaFieldDef;
  return type.getFields()[name];
}

/** A masked subtree: its values are personal, and searched for in error messages. */
function personalValue(v: unknown, w: Walk): unknown {
  stringLeaves(v, w.answered);
  return maskLeaves(v);
}

function maskValue(v: unknown, sets: readonly SelectionSetNode[], type: GraphQLOutputType, w: Walk): unknown {
  if (v === null || v === undefined) return v;
  if (Array.isArray(v)) return v.map((x) => maskValue(x, sets, type, w));
  const named = getNamedType(type);
  if (isLeafType(named)) return typeof v === 'object' ? personalValue(v, w) : v;
  // An abstract type would need the answer's own __typename: never guessed (the public schema has none).
  if (!isObjectType(named) || typeof v !== 'object') return personalValue(v, w);
  return maskObject(v, sets, named, w);
}

function maskObject(v: unknown, sets: readonly SelectionSetNode[], type: GraphQLObjectType, w: Walk): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return personalValue(v, w);
  const fields = collect(type, sets, w);
  const out: Record<string, unknown> = {};
  for (const [key, x] of Object.entries(v)) {
    const nodes = fields.get(key);
    const name = nodes?.[0]?.name.value;
    const def = name !== undefined && nodes!.every((n) => n.name.value === name) ? fieldDef(type, name, w) : undefined;
    if (!def || w.policy.isPersonalField(type.name, def.name)) out[key] = personalValue(x, w);
    else
      out[key] = maskValue(
        x,
        nodes!.flatMap((n) => (n.selectionSet ? [n.selectionSet] : [])),
        def.type,
        w,
      );
  }
  return out;
}
