// The response cache's in-process level holds what its budget says: measured on the V8 heap with
// small answers (where the per-entry overhead dominates) and with large ones, whichever way the
// answer was last used (stored as text; served, so its bytes are kept too).
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { loadCacheSettings } from '../../cache/cache-config.js';
import { bodyBytes, ResponseCache } from '../../cache/response-cache.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
};
const BUDGET = 4 * 1024 * 1024;

function cache(): ResponseCache {
  const s = loadCacheSettings({}, '/nonexistent-dir-for-tests', []);
  return new ResponseCache({ settings: { ...s, lruBytes: BUDGET }, redis: null, schemaIds: { keyed: 'k1', playground: 'p1' } });
}

describe('response cache cost', () => {
  for (const [name, size, served] of [
    ['small answers, stored', 120, false],
    ['small answers, served', 120, true],
    ['16 KB answers, served', 16 * 1024, true],
  ] as const)
    it(`holds at most 1.25x its budget of ${name}`, () => {
      const c = cache();
      const before = heap();
      for (let i = 0; i < 40_000; i++) {
        const key = c.keyFor(
          {
            environment: 'production',
            variant: 'keyed',
            normalized: '{ utilities(zipCode: $zip) { id } }',
            operationName: null,
            variables: { zip: String(10000 + i) },
          },
          ['utilities'],
        );
        const body = `{"data":{"utilities":[{"id":"U${i}"${' '.repeat(Math.max(0, size - 40))}}]}}`;
        c.set(key, body, 3_600_000, ['utilities']);
        if (served) bodyBytes(c.getLocal(key)!.entry);
      }
      const grown = heap() - before;
      expect(c.lruBytes).toBeLessThanOrEqual(BUDGET);
      expect(grown, `held ${grown} bytes for a budget of ${BUDGET}`).toBeLessThanOrEqual(1.25 * BUDGET);
    });
});
