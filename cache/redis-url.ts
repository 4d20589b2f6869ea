// REDIS_URL, parsed once for both the configuration check and the connection. `new URL()` cannot
// read the multi-host forms (`h:p,h:p` is not a valid authority), so this reads them itself:
//
//   redis://[user:pass@]host[:port][/db]                 one server          (rediss:// = TLS)
//   redis-cluster://[user:pass@]host:port,host:port      Redis Cluster seeds (rediss-cluster:// = TLS)
//   redis-sentinel://[user:pass@]host:port,host:port/mymaster[/db]
//                                                        Sentinel set-up     (rediss-sentinel:// = TLS)
//
// Credentials are percent-encoded; messages never repeat them.
import { kinds } from '../lib/settings.js';

export type RedisTopology = 'standalone' | 'cluster' | 'sentinel';

export interface RedisNode {
  host: string;
  port: number;
}

export interface RedisTarget {
  topology: RedisTopology;
  nodes: RedisNode[];
  tls: boolean;
  username?: string;
  password?: string;
  db: number;
  /** Sentinel master group name. */
  masterName?: string;
}

const SCHEMES: Record<string, { topology: RedisTopology; tls: boolean }> = {
  'redis:': { topology: 'standalone', tls: false },
  'rediss:': { topology: 'standalone', tls: true },
  'redis-cluster:': { topology: 'cluster', tls: false },
  'rediss-cluster:': { topology: 'cluster', tls: true },
  'redis-sentinel:': { topology: 'sentinel', tls: false },
  'rediss-sentinel:': { topology: 'sentinel', tls: true },
};

const REDIS_URL_SCHEMES = Object.keys(SCHEMES).map((s) => s.slice(0, -1));

const MAX_URL_LENGTH = 4096;
const MAX_NODES = 64;
const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const IPV6 = /^[0-9A-Fa-f:.]{2,45}$/;
const MASTER_NAME = /^[A-Za-z0-9._-]{1,128}$/;

class RedisUrlError extends Error {
  constructor(message: string) {
    super(`REDIS_URL ${message}`);
    this.name = 'RedisUrlError';
  }
}

function decode(part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new RedisUrlError(`has a badly percent-encoded ${what}`);
  }
}

function parseNode(spec: string, defaultPort: number): RedisNode {
  let host: string;
  let portText: string | undefined;
  const v6 = /^\[([^\]]*)\](?::(.*))?$/.exec(spec);
  if (v6) {
    host = v6[1]!;
    portText = v6[2];
    if (!IPV6.test(host) || !host.includes(':')) throw new RedisUrlError(`has an invalid IPv6 host "[${host.slice(0, 50)}]"`);
  } else {
    const at = spec.lastIndexOf(':');
    host = at < 0 ? spec : spec.slice(0, at);
    portText = at < 0 ? undefined : spec.slice(at + 1);
    if (!HOSTNAME.test(host)) throw new RedisUrlError(`has an invalid host "${host.slice(0, 100)}"`);
  }
  let port = defaultPort;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
      throw new RedisUrlError(`has an invalid port "${portText.slice(0, 20)}" (use 1-65535)`);
    }
    port = Number(portText);
  }
  return { host, port };
}

function parseDb(text: string | undefined): number {
  if (text === undefined || text === '') return 0;
  if (!/^\d{1,2}$/.test(text) || Number(text) > 15)
    throw new RedisUrlError(`has an invalid database number "${text.slice(0, 20)}" (use 0-15)`);
  return Number(text);
}

/** Parses REDIS_URL; throws RedisUrlError (message names REDIS_URL, never the password). */
export function parseRedisUrl(raw: string): RedisTarget {
  const { scheme, rest } = schemeOf(raw.trim());
  const { username, password, hostsAndPath } = credentialsOf(rest);
  const slash = hostsAndPath.indexOf('/');
  const authority = slash < 0 ? hostsAndPath : hostsAndPath.slice(0, slash);
  const path = slash < 0 ? [] : hostsAndPath.slice(slash + 1).split('/');
  const nodes = nodesOf(authority, scheme.topology === 'sentinel' ? 26379 : 6379);
  const target: RedisTarget = { topology: scheme.topology, nodes, tls: scheme.tls, username, password, db: 0 };
  applyPath(target, path);
  return target;
}

/** The URL's scheme (checked) and what follows `//`. */
function schemeOf(url: string): { scheme: (typeof SCHEMES)[string]; rest: string } {
  if (url.length > MAX_URL_LENGTH) throw new RedisUrlError(`is longer than ${MAX_URL_LENGTH} characters`);
  if (/[\s\x00-\x1f\x7f]/.test(url)) throw new RedisUrlError('contains whitespace or control characters');
  const m = /^([a-z-]+:)\/\/(.*)$/i.exec(url);
  if (!m) throw new RedisUrlError(`is not a URL (expected ${REDIS_URL_SCHEMES.map((s) => `${s}://`).join(', ')})`);
  const scheme = SCHEMES[m[1]!.toLowerCase()];
  if (!scheme) throw new RedisUrlError(`must use ${REDIS_URL_SCHEMES.join(', ')}, got "${m[1]!.slice(0, 30)}"`);
  if (/[?#]/.test(m[2]!)) throw new RedisUrlError('must not carry a query or fragment (?…, #…)');
  return { scheme, rest: m[2]! };
}

/** `user:password@`, `password@` (the common form for a password without a user) or none. */
function credentialsOf(rest: string): { username?: string; password?: string; hostsAndPath: string } {
  const at = rest.lastIndexOf('@');
  if (at < 0) return { hostsAndPath: rest };
  const userinfo = rest.slice(0, at);
  const colon = userinfo.indexOf(':');
  const user = decode(colon < 0 ? userinfo : userinfo.slice(0, colon), 'user name') || undefined;
  if (colon < 0) return { password: user, hostsAndPath: rest.slice(at + 1) };
  return { username: user, password: decode(userinfo.slice(colon + 1), 'password') || undefined, hostsAndPath: rest.slice(at + 1) };
}

function nodesOf(authority: string, defaultPort: number): RedisNode[] {
  if (authority === '') throw new RedisUrlError('names no host');
  const specs = authority.split(',');
  if (specs.length > MAX_NODES) throw new RedisUrlError(`names more than ${MAX_NODES} hosts`);
  if (specs.some((s) => s === '')) throw new RedisUrlError('has an empty host in its host list');
  return specs.map((s) => parseNode(s, defaultPort));
}

/** What the path means per topology: a database (standalone), nothing (cluster), /master[/db] (sentinel). */
function applyPath(target: RedisTarget, path: string[]): void {
  if (target.topology === 'standalone') {
    if (target.nodes.length > 1) throw new RedisUrlError(`names several hosts: use redis-cluster:// or redis-sentinel:// for those`);
    if (path.length > 1) throw new RedisUrlError('has a path other than a database number');
    target.db = parseDb(path[0]);
  } else if (target.topology === 'cluster') {
    if (path.some((p) => p !== '')) throw new RedisUrlError('(cluster) takes no path: a cluster has one database');
  } else {
    const name = path[0] ?? '';
    if (!MASTER_NAME.test(name))
      throw new RedisUrlError('(sentinel) must name the master group after the hosts: redis-sentinel://h:p,h:p/mymaster');
    if (path.length > 2) throw new RedisUrlError('(sentinel) has a path other than /masterName[/db]');
    target.masterName = name;
    target.db = parseDb(path[1]);
  }
}

/** Topology and hosts of a Redis URL without credentials, for messages and logs. */
export function describeRedisTarget(raw: string): string {
  try {
    const t = parseRedisUrl(raw);
    const hosts = t.nodes.map((n) => (n.host.includes(':') ? `[${n.host}]:${n.port}` : `${n.host}:${n.port}`)).join(',');
    const scheme = Object.entries(SCHEMES).find(([, s]) => s.topology === t.topology && s.tls === t.tls)![0];
    return `${scheme}//${hosts}${t.masterName ? `/${t.masterName}` : ''}`;
  } catch {
    return 'invalid URL';
  }
}

/** REDIS_URL as a setting: any form parseRedisUrl reads, kept as written (the connection parses it again). */
export const redisUrlKind = kinds.parsed(
  'redis://, rediss://, redis-sentinel://, redis-cluster:// URL',
  `a Redis URL (${REDIS_URL_SCHEMES.map((s) => `${s}://`).join(', ')})`,
  (raw) => (parseRedisUrl(raw), raw),
  describeRedisTarget,
);
