// The parsed-document cache holds what its budget says, whatever arrives: measured on the V8 heap
// with 20,000 distinct documents, unknown-field errors (each error object with its stack) and
// small valid queries stay within 1.25x the budget (error entries were counted at a third of it).
import fs from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { buildSchema } from 'graphql';
import { createPreparer } from '../../server/graphql/prepare.js';
import { DEFAULT_LIMITS } from '../../server/graphql/limits.js';

const schema = buildSchema(fs.readFileSync(new URL('../../schema/public.graphql', import.meta.url), 'utf8'));
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const BUDGET = 4 * 1024 * 1024;

describe('parsed-document cache cost', () => {
  for (const [name, make] of [
    ['unknown fields', (i: number) => `{ nope${i} }`],
    ['small valid queries', (i: number) => `{ utilities(zipCode: "75001") { id } n${i}: __typename }`],
  ] as const)
    it(`holds at most 1.25x its budget of ${name}`, () => {
      const prepare = createPreparer(schema, { ...DEFAULT_LIMITS.keyed, documentCacheBytes: BUDGET }, 2);
      prepare(make(-1), null);
      const before = heap();
      for (let i = 0; i < 20_000; i++) prepare(make(i), null);
      const grown = heap() - before;
      expect(prepare.cachedBytes()).toBeLessThanOrEqual(BUDGET);
      expect(grown).toBeLessThanOrEqual(1.25 * BUDGET);
    });
});
