// The gateway's whole config, composed from the concerns that declare their settings beside their
// code: the serving process's (server/config.ts) and the admin endpoint's and support console's
// (support/admin-settings.ts). Checked once at start-up: every problem, each naming its variable, in
// one ConfigError.
import { ConfigError } from '../lib/env-reader.js';
import { readSettingsOrDefaults } from '../lib/settings.js';
import { readServerConfig } from '../server/config.js';
import { adminConfig } from '../support/admin-settings.js';

export { ConfigError };

/** Every setting, read by the concerns that declare them; throws a ConfigError listing every problem. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()) {
  const problems: string[] = [];
  const server = readServerConfig(env, cwd, problems);
  const config = { ...server, ...readSettingsOrDefaults(adminConfig(server), env, problems) };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

export type GatewayConfig = ReturnType<typeof loadConfig>;
