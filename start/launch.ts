// `npm start`'s composition: the reference upstream (a fixture serving each feed's own shape) beside
// the gateway, when the configuration asks for it (START_REFERENCE_UPSTREAM, on unless UPSTREAM_URL
// is set). Kept apart from the gateway's assembly (app.ts), which never imports the fixture.
import { loadConfig, type GatewayConfig } from './config.js';
import { startGateway, type GatewayHandle, type StartOptions } from './app.js';
import { startReferenceUpstream } from '../sources/reference-upstream/server.js';
import { explainListenError } from '../lib/ports.js';

/** The reference upstream, with its ZIP database loaded before it serves the gateway in this process. */
async function startUpstream(port: number): Promise<{ url: string; close(): Promise<void> }> {
  return startReferenceUpstream({ port, host: '127.0.0.1', loadZipDatabase: true }).catch((err: unknown) => {
    throw explainListenError(err, 'UPSTREAM_PORT', '127.0.0.1', port);
  });
}

/** The reference upstream when the configuration asks for it, else null (a cluster primary starts it once for its workers). */
export async function startConfiguredUpstream(config: GatewayConfig): Promise<{ url: string; close(): Promise<void> } | null> {
  return config.upstream.start ? startUpstream(config.upstream.port) : null;
}

export async function launchGateway(opts: StartOptions = {}): Promise<GatewayHandle> {
  const config = opts.config ?? loadConfig(opts.env ?? process.env);
  if (!config.upstream.start || opts.upstreamUrl) return startGateway({ ...opts, config });
  const upstream = await startUpstream(config.upstream.port);
  try {
    const gateway = await startGateway({ ...opts, config, upstreamUrl: upstream.url });
    gateway.logger.info({ url: upstream.url }, 'reference upstream started');
    const close = gateway.close.bind(gateway);
    gateway.close = async () => {
      await close();
      await upstream.close();
    };
    return gateway;
  } catch (err) {
    await upstream.close();
    throw err;
  }
}
