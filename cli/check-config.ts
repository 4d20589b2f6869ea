// `npm run config:check`: validates every setting (environment variables, cache.config.yaml,
// .meshrc.yaml and its feed mappings) without starting anything, and prints the effective
// configuration with secrets left out. Exit 0 when the gateway would start, 1 otherwise.
import { ConfigError, loadConfig } from '../start/config.js';
import { shownFeedUrls } from '../server/config.js';
import { loadGatewayMesh, MeshStartupError } from '../mesh/gateway-mesh.js';
import { publicApi } from '../resolvers/public-api.js';
import { createUpstreamFetch, redactUrl } from '../sources/upstream/fetch.js';
import { isSetting } from './settings-registry.js';
import { describeRedisTarget } from '../cache/redis-url.js';

/** Prefixes only the gateway's settings use: a variable with one that the table lacks is likely a typo. */
const OWN_PREFIXES = /^(KEYED|PLAYGROUND|REPLAY|CACHE|UPSTREAM|STALE_IF_ERROR|CONSOLE|AUDIT|TLS)_/;

/** Variables that look like settings of ours but are declared by no concern (cli/settings-registry.ts). */
export function unknownSettings(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env)
    .filter((n) => OWN_PREFIXES.test(n) && !isSetting(n))
    .sort();
}

async function main(): Promise<number> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
  const fetchFn = createUpstreamFetch();
  try {
    const mesh = await loadGatewayMesh({ dir: config.meshDir, fetchFn, api: publicApi });
    const effective = {
      environments: config.environments,
      host: config.host,
      opsHost: config.opsHost,
      adminHost: config.admin.host,
      ports: {
        production: config.ports.production,
        certification: config.ports.certification,
        playground: config.ports.playground,
        admin: config.admin.port,
        ops: config.ports.ops,
        opsVariable: config.ports.opsVariable,
      },
      upstream: config.upstream,
      meshDir: config.meshDir,
      // Topology and hosts without credentials (new URL() cannot read the cluster and sentinel host lists).
      redis: config.redisUrl ? describeRedisTarget(config.redisUrl) : 'embedded store',
      dataDir: config.dataDir,
      keysFile: config.keysFile,
      trustProxy: config.trustProxy && { hops: config.trustProxy.hops, ranges: config.trustProxy.ranges, header: config.trustProxy.header },
      enrollmentBaseUrl: config.enrollmentBaseUrl,
      certificationEnrollmentBaseUrl: config.certificationEnrollmentBaseUrl,
      fillPartnerRef: config.fillPartnerRef,
      playgroundAllowance: config.playgroundAllowance,
      limits: config.limits,
      adminToken: config.admin.token ? 'set' : 'not set (admin port off)',
      console: {
        partnersFile: config.partnersFile,
        auditRetentionMs: config.console.auditRetentionMs,
        sessionTtlMs: config.console.sessionTtlMs,
        checkoutToken: config.console.checkoutToken ? 'set' : 'not set (checkout uses the admin token)',
      },
      tracing: config.tracing.endpoint
        ? {
            endpoint: redactUrl(config.tracing.endpoint),
            serviceName: config.tracing.serviceName,
            sampler: config.tracing.sampler,
            ratio: config.tracing.samplerRatio,
            resourceAttributes: config.tracing.resourceAttributes,
            incomingParent: config.tracing.incomingParent,
            traceUrlTemplate: config.tracing.urlTemplate,
          }
        : 'off (no OTEL_EXPORTER_OTLP_ENDPOINT)',
      replayPersonalData: config.cacheReplay.replay.piiKey ? 'sealed with REPLAY_PII_KEY' : 'not stored (REPLAY_PII_KEY not set)',
      feeds: mesh.feeds.all.map((f) => {
        const pages = f.pagination ? `, ${f.pagination.style} pages up to ${f.pagination.maxPages}` : '';
        return `${f.source} (${f.kind}, ${f.operation}, called per ${f.scope === 'utility' ? 'utility' : 'request'}, timeout ${f.timeoutMs} ms${pages})`;
      }),
      // Where each feed is called from each environment: <SOURCE>_URL, CERTIFICATION_<SOURCE>_URL, UPSTREAM_URL.
      feedUrls: Object.fromEntries(
        config.environments.map((e) => [
          e,
          shownFeedUrls(
            e,
            mesh.feeds.all.map((f) => f.source),
            process.env,
            config.upstream.url,
          ),
        ]),
      ),
    };
    console.log(JSON.stringify(effective, null, 2));
    for (const name of unknownSettings(process.env))
      console.error(`warning: ${name} is not a setting of the gateway (a typo?); see docs/operations.md`);
    console.error('configuration ok');
    mesh.close();
    return 0;
  } catch (err) {
    if (err instanceof MeshStartupError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  } finally {
    await fetchFn.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`config:check failed: ${(err as Error)?.message ?? err}`);
    process.exit(1);
  },
);
