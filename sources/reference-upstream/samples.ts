// One sample payload per feed, fetched from a live server so samples always match the data.
// Regenerate with: npx tsx sources/reference-upstream/samples.ts

import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { startReferenceUpstream } from './server.js';

/** feed -> request path that produces its sample. */
export const SAMPLE_REQUESTS: Record<string, string> = {
  territories: '/territories/v1/zip/75001',
  voltify: '/voltify/api/v2/offers?zip=75001&class=residential',
  brightgrid: '/brightgrid/v1/plans/75001',
  eia: '/eia/v1/states/TX',
  'eia-monthly-sales': '/eia/v1/states/TX/residential-sales/monthly',
  premises: '/premises/v1/search?zip=75201&address=1500%20MARILLA%20ST',
  gridwise: '/gridwise/feed/75001',
};

export const samplePath = (feed: string) => fileURLToPath(new URL(`../${feed}/sample.json`, import.meta.url));

async function writeSamples(): Promise<void> {
  const upstream = await startReferenceUpstream();
  try {
    for (const [feed, path] of Object.entries(SAMPLE_REQUESTS)) {
      const res = await fetch(upstream.url + path);
      if (res.status !== 200) throw new Error(`${path} -> ${res.status}`);
      await writeFile(samplePath(feed), `${JSON.stringify(await res.json(), null, 2)}\n`);
    }
  } finally {
    await upstream.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await writeSamples();
