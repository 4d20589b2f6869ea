// The mapping block's validator compiled ahead of time. `npm start`'s build (scripts/build.mjs)
// replaces this module in the bundle with ajv's standalone code for BLOCK_SCHEMA, so a start does
// not spend ~140 ms compiling it; everywhere else (tests, CLIs under tsx) it is null and
// block-schema.ts compiles the schema at load.
export const precompiledBlockValidator: unknown = null;
