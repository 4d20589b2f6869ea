// The ZIP database package (`zipcodes`, parsed when it loads) is imported on first use, not at
// start-up: neither the gateway's resolvers nor the reference upstream and its territories feed load
// it until a lookup needs it; the first coverage and municipal-town lookups then work, and a failed
// import is a clear error that the next lookup retries.
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ReferenceUpstream } from '../../sources/reference-upstream/server.js';

const require = createRequire(import.meta.url);
const ZIPCODES = require.resolve('zipcodes');
/** Whether this process has loaded the package (Node's module cache: one file of its own). */
const loaded = () => ZIPCODES in require.cache;

let upstream: ReferenceUpstream | undefined;
afterAll(async () => {
  await upstream?.close();
});

const territories = async (zip: string) => {
  const r = await fetch(`${upstream!.url}/territories/v1/zip/${zip}`);
  expect(r.status).toBe(200);
  return ((await r.json()) as { utilities: { utilityId: string }[] }).utilities.map((u) => u.utilityId);
};

describe('the ZIP database, imported on first use', () => {
  it('is not loaded by starting the resolvers or the reference upstream, nor by answers that do not need it', async () => {
    expect(loaded()).toBe(false);
    await import('../../resolvers/index.js');
    const { startReferenceUpstream } = await import('../../sources/reference-upstream/server.js');
    upstream = await startReferenceUpstream({ port: 0 });
    // A five-digit override and a prefix no utility serves are answered from the tables alone.
    expect(await territories('12901')).toEqual(['PLATTSBURGH_MLD']);
    expect(await territories('59001')).toEqual([]);
    const { coverageStatus } = await import('../../resolvers/coverage.js');
    expect(await coverageStatus('75001', [{ market: 'DEREGULATED' } as never])).toBe('RETAIL_CHOICE');
    expect(loaded()).toBe(false);
  });

  it('the first coverage and municipal-town lookups load it once and answer', async () => {
    const { coverageStatus } = await import('../../resolvers/coverage.js');
    const [notAZip, notCovered] = await Promise.all([coverageStatus('00000', []), coverageStatus('59001', [])]);
    expect([notAZip, notCovered]).toEqual(['NOT_A_ZIP', 'NOT_COVERED']);
    expect(loaded()).toBe(true);
    // Garland's ZIPs are Garland Power & Light, not the Oncor prefix around them.
    expect(await territories('75040')).toEqual(['GARLAND_PL']);
    expect(await territories('75001')).toEqual(['ONCOR']);
  });

  it('a failed import is an error naming the package, and the next lookup tries again', async () => {
    vi.resetModules();
    vi.doMock('zipcodes', () => {
      throw new Error('disk on fire');
    });
    const lib = await import('../../lib/zip-database.js');
    const failed = await lib.zipPlace('75040').catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(lib.ZipDatabaseError);
    expect((failed as Error).message).toMatch(/^the ZIP code database \(package zipcodes\) could not be loaded: /);
    vi.doUnmock('zipcodes');
    expect(await lib.zipPlace('75040')).toEqual({ city: 'GARLAND', state: 'TX' });
    expect(await lib.zipPlace('00000')).toBeUndefined();
  });
});
