// GraphQL Code Generator config for the typed partner client: result and variable types of (the
// committed keyed snapshot, i.e. what production and certification serve) and a TypedDocumentNode
// per query of queries/. Regenerate: npx graphql-codegen --config examples/partners/codegen.ts
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  overwrite: true,
  schema: 'schema/snapshots/keyed.graphql',
  documents: ['examples/partners/queries/**/*.graphql'],
  generates: {
    'examples/partners/generated/graphql.ts': {
      plugins: ['typescript-operations', 'typed-document-node'],
      config: {
        // LocalDate travels as a "YYYY-MM-DD" string; enums as string unions (no runtime enum objects).
        scalars: { LocalDate: 'string' },
        enumsAsTypes: true,
        avoidOptionals: { field: true, inputValue: false, object: false, defaultValue: false },
        useTypeImports: true,
      },
    },
  },
};

export default config;
