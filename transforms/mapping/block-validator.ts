// The mapping block's validator compiled ahead of time. `npm start`'s build (scripts/build.mjs)
// replaces this module in the bundle with ajv's standalone code for BLOCK_SCHEMA, so a start does
// not compile it (docs/benchmark.md, "Memory and start-up"); everywhere else (tests, CLIs under tsx) it is null and
// block-schema.ts compiles the schema at load.
export const precompiledBlockValidator: unknown = null;
