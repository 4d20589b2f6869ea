// Feed values of the public enums (Ownership, AccountIdType, MeterType, AccountStatus, PremiseType).
// The feed mapping (.meshrc.yaml `map:`) turns each feed's vocabulary into ours; a value the schema
// does not know yet (a feed started sending a new one) becomes the enum's OTHER instead of failing
// the whole answer. Such values are counted per enum (gateway_unknown_enum_values_total) and
// reported to a listener (a throttled log line: server/wiring/observability.ts).
import { getNamedType, isEnumType, type GraphQLFieldResolver } from 'graphql';

const CATCH_ALL = 'OTHER';

/** Process-wide counts by enum type name; the label set is bounded by the schema's enums. */
export const unknownEnumStats = new Map<string, number>();

type UnknownEnumListener = (typeName: string, value: string) => void;
let listener: UnknownEnumListener | null = null;

/** Sets the one listener (the gateway's logger); returns a function that removes it. */
export function onUnknownEnumValue(fn: UnknownEnumListener): () => void {
  listener = fn;
  return () => {
    if (listener === fn) listener = null;
  };
}

/**
 * Field resolver for an enum field whose value comes from a feed: a value of the field's enum
 * passes, null stays null (nullable fields), anything else answers OTHER and is reported.
 * The enum's values are read from the schema, so adding a value there is the only change needed.
 */
export function feedEnum(key: string): GraphQLFieldResolver<Record<string, unknown>, unknown> {
  return (parent, _args, _ctx, info) => {
    const raw = parent[key];
    if (raw === null || raw === undefined) return raw;
    const type = getNamedType(info.returnType);
    if (!isEnumType(type) || type.getValue(String(raw))) return raw;
    unknownEnumStats.set(type.name, (unknownEnumStats.get(type.name) ?? 0) + 1);
    listener?.(type.name, String(raw).slice(0, 64));
    return CATCH_ALL;
  };
}
