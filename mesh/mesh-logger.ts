// Mesh's own logger (named by `logger:` in .meshrc.yaml): its info chatter is dropped, warnings
// and errors go to our structured log.
import { createLogger } from '../lib/logger.js';

// Read when Mesh loads this module; the gateway's settings check (server/config.ts) names a bad value.
const pino = createLogger(process.env.MESH_LOG_LEVEL?.trim() || 'warn').child({ component: 'mesh' });
const text = (args: unknown[]) =>
  args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : JSON.stringify(a))).join(' ');

function make(name: string): Record<string, unknown> {
  const logger: Record<string, unknown> = {
    name,
    log: () => {},
    debug: () => {},
    info: () => {},
    warn: (...args: unknown[]) => pino.warn({ meshComponent: name }, text(args)),
    error: (...args: unknown[]) => pino.error({ meshComponent: name }, text(args)),
    child: (sub: unknown) => named(`${name}/${typeof sub === 'string' ? sub : Object.values(sub as object).join('/')}`),
  };
  return logger;
}

// Mesh's REST transport asks for a child logger on every feed call (named after the operation):
// the few names there are get one logger each, kept.
const children = new Map<string, Record<string, unknown>>();
const CHILDREN_MAX = 256;

function named(name: string): Record<string, unknown> {
  let logger = children.get(name);
  if (!logger) {
    if (children.size >= CHILDREN_MAX) children.clear();
    children.set(name, (logger = make(name)));
  }
  return logger;
}

export default make('mesh');
