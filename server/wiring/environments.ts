// The three environments' admission rules: API keys on production and certification, the one-time
// playground allowance on the playground. Runs first in the plugin chain (see wiring/index.ts).
import type { AllowanceStore } from '../../cache/allowance.js';
import { createAllowanceStore } from '../../cache/allowance.js';
import { KeyStore } from '../../stores/key-store.js';
import type { HttpPlugin } from '../http/plugin.js';
import { apiKeyPlugin } from '../plugins/api-key.js';
import { allowancePlugin } from '../plugins/playground-allowance.js';
import type { CapabilitySetup } from './types.js';
import { serveKeyChanges } from './key-changes.js';

export const environmentsCapability: CapabilitySetup = async ({ config, logger, redis, bus }) => {
  const keyed = config.environments.some((e) => e !== 'playground');
  const keys = keyed ? await KeyStore.open(config.keysFile, { logger, reloadMs: 1000 }) : null;
  if (keys) {
    logger.info({ keysFile: keys.file, activeKeys: keys.status().activeKeys }, 'api keys loaded');
    serveKeyChanges(bus, keys);
  }
  let allowance: AllowanceStore | null = null;
  if (config.environments.includes('playground')) {
    try {
      allowance = await createAllowanceStore({
        redis,
        dataDir: config.dataDir,
        limit: config.playgroundAllowance,
        freeRate: config.playgroundFreeRate,
      });
    } catch (err) {
      keys?.close();
      throw err;
    }
    logger.info({ mode: allowance.health().mode, limit: config.playgroundAllowance }, 'playground allowance store');
  }
  const allowancePlugins: HttpPlugin[] = allowance
    ? [allowancePlugin({ store: allowance, limit: config.playgroundAllowance, logger })]
    : [];

  return {
    name: 'environments',
    plugins(environment) {
      if (environment === 'playground') return allowancePlugins;
      return keys ? [apiKeyPlugin({ environment, keys, logger })] : [];
    },
    health() {
      const details: Record<string, unknown> = {};
      let ok = true;
      if (allowance) {
        const h = allowance.health();
        details.allowance = { store: h.mode, ok: h.ok, ...(h.degraded ? { degraded: h.degraded } : {}) };
        ok &&= h.ok;
      }
      if (keys) {
        // A keys file that stopped parsing is reported but does not mark the process unready:
        // it keeps serving the last good keys. Health is public: no counts, paths or messages.
        details.keys = keys.status().lastError ? 'last reload failed (serving the last good keys; see logs)' : 'ok';
      }
      return { ok, details };
    },
    async close() {
      keys?.close();
      await allowance?.close();
    },
  };
};
