// A production start (`npm start` sets NODE_ENV=production) calls each offers feed once with its
// sample ZIP and refuses to start (exit 78) on a unit mistake across feeds, naming the feed, the
// field, the likely unit and the YAML line: feeds:check's check, so a feed that check fails is never
// served. A feed whose block says `unitCheck: serve-anyway` is logged and served.
import path from 'node:path';
import type { GatewayMesh } from '../mesh/gateway-mesh.js';
import type { Logger } from '../lib/logger.js';
import { describeMistake, feedUnitMistakes, sampleOffers } from '../mesh/unit-check.js';

class FeedUnitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedUnitError';
  }
}

export async function refuseUnitMistakes(opts: {
  mesh: GatewayMesh;
  meshDir: string;
  feedUrls: Record<string, string>;
  feedKeys: Record<string, string>;
  logger: Logger;
}): Promise<void> {
  const { mesh, logger } = opts;
  if (mesh.feeds.byKind('offers').length === 0) return;
  const ctx = { ...mesh.meshContext, feedUrls: opts.feedUrls, feedKeys: opts.feedKeys };
  const mistakes = feedUnitMistakes(mesh.feeds, await sampleOffers(mesh.feeds, ctx), path.join(opts.meshDir, '.meshrc.yaml'));
  for (const m of mistakes.filter((x) => x.serveAnyway))
    logger.warn({ feed: m.feed, field: m.field }, `${describeMistake(m)} (unitCheck: serve-anyway: served)`);
  const refused = mistakes.filter((m) => !m.serveAnyway);
  if (refused.length === 0) return;
  throw new FeedUnitError(
    `refusing to serve a feed with a unit mistake (npm run feeds:check names it; set unitCheck: serve-anyway on the feed to serve it anyway):\n` +
      refused.map((m) => `  ${describeMistake(m)}`).join('\n'),
  );
}
