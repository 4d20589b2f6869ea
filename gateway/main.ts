// `npm start`: the reference upstream and all three environments on local ports.
import { startGateway } from './app.js';
import { ConfigError } from './config.js';
import { MeshStartupError } from './mesh.js';

try {
  const gateway = await startGateway();
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    gateway.logger.info({ signal }, 'shutting down');
    await gateway.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
} catch (err) {
  if (err instanceof ConfigError || err instanceof MeshStartupError) {
    console.error(`gateway: ${err.message}`);
  } else {
    console.error(`gateway: could not start: ${(err as Error)?.message ?? err}`);
  }
  process.exit(1);
}
