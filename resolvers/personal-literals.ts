// Where an operation writes personal data into its own text: a literal given to a `@personalData`
// argument (schema/public.graphql), or the default value of a variable passed to one. Such a
// document is not stored as a persisted query (server/plugins/persisted-queries.ts): the store
// keeps documents in clear and without expiry, whereas variables are never stored there.
import { Kind, TypeInfo, visit, visitWithTypeInfo, type DocumentNode } from 'graphql';
import { schemaPolicy, type SchemaPolicy } from './schema-policy.js';

/** Schema coordinates (`Query.utilityAccounts.address`) given personal data in the document's text; [] when none. */
export function personalLiterals(document: DocumentNode, policy: SchemaPolicy = schemaPolicy): string[] {
  const typeInfo = new TypeInfo(policy.schema);
  const found = new Set<string>();
  /** Variables passed to a personal argument, with the coordinate they reach. */
  const passed = new Map<string, string>();
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Argument(node) {
        const parent = typeInfo.getParentType();
        const field = typeInfo.getFieldDef();
        if (!parent || !field) return;
        const coordinate = `${parent.name}.${field.name}.${node.name.value}`;
        if (!policy.personalData.args.has(coordinate)) return;
        if (node.value.kind === Kind.VARIABLE) passed.set(node.value.name.value, coordinate);
        else found.add(coordinate);
      },
    }),
  );
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const v of d.variableDefinitions ?? []) {
      const coordinate = passed.get(v.variable.name.value);
      if (coordinate && v.defaultValue) found.add(coordinate);
    }
  }
  return [...found];
}
