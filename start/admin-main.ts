// The admin process's entry (support/admin-process.ts): started by the serving process, bundled
// apart (dist/admin.mjs) so that it loads no Mesh and no GraphQL execution, only what the admin
// listener needs.
import { loadConfig } from './config.js';
import { createLogger } from '../lib/logger.js';
import { applyChildPriority } from '../server/child-process.js';
import { runAdminProcess } from '../support/admin-process.js';
import { exitOnStartError, handleShutdown } from '../server/process-lifecycle.js';

try {
  applyChildPriority(process.env.ADMIN_CHILD_NICE);
  const settings = loadConfig(process.env);
  const logger = createLogger(settings.logLevel, { process: 'admin' });
  const admin = await runAdminProcess(settings, logger);
  handleShutdown(logger, settings.shutdownGraceMs, { interrupt: false }, () => admin.close());
} catch (err) {
  exitOnStartError(err);
}
