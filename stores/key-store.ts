// API keys for the keyed environments (production, certification).
//
// The keys file (KEYS_FILE, default <DATA_DIR>/keys.json) holds one record per issued key: id,
// partner code, environment, creation and revocation times, and a hash of the key. The key itself
// is shown once, by `npm run keys -- issue`, and never stored.
//
// Hash: plain SHA-256 of the whole key string. A key is 32 bytes from the OS CSPRNG (256 bits of
// entropy), so neither guessing nor precomputed tables are feasible against the hash and a slow
// password hash (bcrypt, scrypt) would only add CPU cost to every request; an HMAC with a pepper
// would add a second secret to manage without making a 256-bit preimage any harder. (Passwords,
// which are low-entropy, would need a slow hash; these keys are not passwords.)
//
// Verification: the presented value is checked against the key grammar first, then hashed; the hash
// is looked up in a Map (O(1), no loop over keys). The lookup compares hashes, not keys: what it
// could leak by timing is a prefix of SHA-256(presented), which tells an attacker nothing about any
// stored key. Keys that verified are remembered with their hash (at most VERIFIED_MEMO of them, in
// memory only), so a partner's every request does not hash again: SHA-256 through OpenSSL 3 is a
// real part of a cached answer's cost (docs/benchmark.md, "The cache hit"). Revocation still
// applies at once: the memo gives the hash, and the record (revoked or not, after any reload) is
// looked up by it on every request.
//
// Reload: a running gateway polls the file (stat: mtime, size, inode) every `reloadMs` and reloads
// on change, so issued and revoked keys take effect within a second without a restart; with Redis,
// `npm run keys` also announces each change to every instance (cache/instance-registry.ts),
// which re-reads the file at once and answers whether it shows the change (applyChange). Writes
// are atomic (temp file + rename), so a reader sees either the old or the new file. A file that
// cannot be read or parsed on reload keeps the last good set of keys and logs an error: the gateway
// neither crashes nor opens up.
//
// Writes (the CLI) are serialized with a lock file (<file>.lock, O_EXCL) and re-read the file
// under the lock, so two concurrent `keys issue` runs both keep their key.
import { hash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { StoreFileError, ensureDir, sameStamp, statStamp, withLock, writeAtomic, type FileStamp } from './locked-file.js';

// `support` keys are personal tokens of support staff for the admin console: hashed and
// hot-reloaded like partner keys, never accepted by a GraphQL listener (wrong environment).
export type KeyEnvironment = 'production' | 'certification' | 'support';
const KEY_ENVIRONMENTS: readonly KeyEnvironment[] = ['production', 'certification', 'support'];

// What a support token may do in the console: `viewer` searches and reads masked records,
// `unmask` also opens personal data (with a reason) and reruns such records, `partners` edits
// partner records and test IPs. A support token issued before roles existed is a viewer.
export type SupportRole = 'viewer' | 'unmask' | 'partners';
const SUPPORT_ROLES: readonly SupportRole[] = ['viewer', 'unmask', 'partners'];

export interface KeyRecord {
  id: string;
  /** SHA-256 of the whole key string, lower-case hex. */
  keyHash: string;
  partnerCode: string;
  environment: KeyEnvironment;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601, or null while the key is valid. */
  revokedAt: string | null;
  /** Support tokens only: what the holder may do in the console (absent: viewer). */
  roles?: SupportRole[];
}

interface KeysFile {
  version: 1;
  keys: KeyRecord[];
}

export type VerifyFailure = 'missing' | 'malformed' | 'unknown' | 'revoked' | 'wrong_environment';
export type VerifyResult =
  | { ok: true; partnerCode: string; keyId: string; roles?: SupportRole[] }
  /** `partnerCode`: the holder of a known key refused for being revoked or of another environment. */
  | {
      ok: false;
      reason: VerifyFailure;
      partnerCode?: string;
      /** A known key refused (revoked, other environment): its id (never the key) and its own environment. */
      keyId?: string;
      keyEnvironment?: KeyEnvironment;
      revoked?: boolean;
    };

/** The minimum a logger must offer (pino's Logger fits). */
export interface KeyStoreLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const ENV_PREFIX: Record<KeyEnvironment, string> = { production: 'live', certification: 'cert', support: 'supp' };
/** 32 random bytes in base64url without padding are exactly 43 characters. */
const KEY_SECRET_CHARS = 43;
/** The whole key: `epk_live_`, `epk_cert_` or `epk_supp_` and 43 characters of [A-Za-z0-9_-]. */
const KEY_PATTERN = /^epk_(?:live|cert|supp)_[A-Za-z0-9_-]{43}$/;
export const KEY_LENGTH = 'epk_live_'.length + KEY_SECRET_CHARS;
const PARTNER_CODE_PATTERN = /^[A-Z0-9][A-Z0-9_-]{1,31}$/;
const ID_PATTERN = /^key_[a-f0-9]{16}$/;
const HASH_PATTERN = /^[a-f0-9]{64}$/;

export class KeyStoreError extends StoreFileError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KeyStoreError';
  }
}

export function generateKey(environment: KeyEnvironment): string {
  return `epk_${ENV_PREFIX[environment]}_${randomBytes(32).toString('base64url')}`;
}

export function hashKey(key: string): string {
  // One-shot hash: no Hash object per request (it runs on every keyed request).
  return hash('sha256', key, 'hex');
}

function newKeyId(): string {
  return `key_${randomBytes(8).toString('hex')}`;
}

export function isWellFormedKey(value: string): boolean {
  return value.length === KEY_LENGTH && KEY_PATTERN.test(value);
}

/** Upper-cases and checks a partner code; throws KeyStoreError with a usable message. */
export function normalizePartnerCode(input: string): string {
  const code = input.trim().toUpperCase();
  if (!PARTNER_CODE_PATTERN.test(code)) {
    throw new KeyStoreError(
      `partner code "${input}" is invalid: use 2-32 characters A-Z, 0-9, "_" or "-", starting with a letter or digit`,
    );
  }
  return code;
}

export function isKeyEnvironment(value: unknown): value is KeyEnvironment {
  return (KEY_ENVIRONMENTS as readonly unknown[]).includes(value);
}

function isSupportRole(value: unknown): value is SupportRole {
  return (SUPPORT_ROLES as readonly unknown[]).includes(value);
}

/** Parses `viewer,unmask` (the keys CLI's --role); throws KeyStoreError naming the roles. */
export function parseSupportRoles(input: string): SupportRole[] {
  const roles = [
    ...new Set(
      input
        .split(',')
        .map((r) => r.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  const bad = roles.filter((r) => !isSupportRole(r));
  if (!roles.length || bad.length)
    throw new KeyStoreError(
      `--role must be one or more of ${SUPPORT_ROLES.join(', ')} (comma-separated)${bad.length ? `, got "${bad.join(', ')}"` : ''}`,
    );
  return roles as SupportRole[];
}

/** Parses and checks the whole file; any defect makes the whole file invalid (never a partial set). */
function parseKeysFile(text: string): KeysFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new KeyStoreError(`keys file is not valid JSON: ${(err as Error).message}`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new KeyStoreError('keys file must be a JSON object { "version": 1, "keys": [...] }');
  const obj = data as Record<string, unknown>;
  if (obj.version !== 1) throw new KeyStoreError(`keys file has unsupported version ${JSON.stringify(obj.version)} (expected 1)`);
  if (!Array.isArray(obj.keys)) throw new KeyStoreError('keys file has no "keys" array');
  const ids = new Set<string>();
  const keys = obj.keys.map((raw, i): KeyRecord => {
    const r = (raw ?? {}) as Record<string, unknown>;
    const bad = (field: string) => new KeyStoreError(`keys file record ${i}: invalid or missing "${field}"`);
    if (typeof r.id !== 'string' || !ID_PATTERN.test(r.id)) throw bad('id');
    if (ids.has(r.id)) throw new KeyStoreError(`keys file record ${i}: duplicate id ${r.id}`);
    ids.add(r.id);
    if (typeof r.keyHash !== 'string' || !HASH_PATTERN.test(r.keyHash)) throw bad('keyHash');
    if (typeof r.partnerCode !== 'string' || !PARTNER_CODE_PATTERN.test(r.partnerCode)) throw bad('partnerCode');
    if (!isKeyEnvironment(r.environment)) throw bad('environment');
    if (typeof r.createdAt !== 'string' || Number.isNaN(Date.parse(r.createdAt))) throw bad('createdAt');
    if (r.revokedAt !== null && (typeof r.revokedAt !== 'string' || Number.isNaN(Date.parse(r.revokedAt)))) throw bad('revokedAt');
    if (r.roles !== undefined && (!Array.isArray(r.roles) || !r.roles.length || !r.roles.every(isSupportRole))) throw bad('roles');
    return {
      id: r.id,
      keyHash: r.keyHash,
      partnerCode: r.partnerCode,
      environment: r.environment,
      createdAt: r.createdAt,
      revokedAt: r.revokedAt as string | null,
      ...(r.roles ? { roles: [...(r.roles as SupportRole[])] } : {}),
    };
  });
  return { version: 1, keys };
}

function serializeKeysFile(data: KeysFile): string {
  return `${JSON.stringify({ version: 1, keys: data.keys }, null, 2)}\n`;
}

/** Reads the keys file; a missing file is an empty set. */
export async function readKeysFile(file: string): Promise<KeysFile> {
  let text: string;
  try {
    text = await fsp.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, keys: [] };
    throw new KeyStoreError(`cannot read keys file ${file}: ${(err as Error).message}`, { cause: err });
  }
  return parseKeysFile(text);
}

/** Creates an empty keys file (0600, in a 0700 directory) unless one exists. Never overwrites. */
async function ensureKeysFile(file: string): Promise<void> {
  await ensureDir(file);
  if (fs.existsSync(file)) return;
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fsp.writeFile(tmp, serializeKeysFile({ version: 1, keys: [] }), { mode: 0o600, flag: 'wx' });
  try {
    // link() fails with EEXIST when another process created the file meanwhile: theirs wins.
    await fsp.link(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await fsp.rm(tmp, { force: true });
  }
}

/**
 * Read-modify-write of the keys file under the lock. `change` gets the current records and returns
 * the new ones (or throws). A file that does not parse is never overwritten.
 */
async function updateKeysFile<T>(file: string, change: (keys: KeyRecord[]) => { keys: KeyRecord[]; result: T }): Promise<T> {
  await ensureDir(file);
  return withLock(file, async () => {
    const current = await readKeysFile(file);
    const { keys, result } = change(current.keys.map((k) => ({ ...k })));
    await writeAtomic(file, serializeKeysFile({ version: 1, keys }));
    return result;
  });
}

interface IssuedKey {
  key: string;
  record: KeyRecord;
}

export async function issueKey(
  file: string,
  opts: { environment: KeyEnvironment; partnerCode: string; now?: Date; roles?: SupportRole[] },
): Promise<IssuedKey> {
  if (!isKeyEnvironment(opts.environment)) throw new KeyStoreError(`unknown environment "${String(opts.environment)}"`);
  if (opts.roles && opts.environment !== 'support') throw new KeyStoreError('roles are for support tokens only (--env support)');
  if (opts.roles && (!opts.roles.length || !opts.roles.every(isSupportRole)))
    throw new KeyStoreError(`roles are ${SUPPORT_ROLES.join(', ')}`);
  const partnerCode = normalizePartnerCode(opts.partnerCode);
  const key = generateKey(opts.environment);
  return updateKeysFile(file, (keys) => {
    let id = newKeyId();
    while (keys.some((k) => k.id === id)) id = newKeyId();
    const record: KeyRecord = {
      id,
      keyHash: hashKey(key),
      partnerCode,
      environment: opts.environment,
      createdAt: (opts.now ?? new Date()).toISOString(),
      revokedAt: null,
      ...(opts.environment === 'support' ? { roles: [...new Set<SupportRole>(opts.roles ?? ['viewer'])] } : {}),
    };
    return { keys: [...keys, record], result: { key, record } };
  });
}

export type RevokeSelector = { id: string } | { partnerCode: string; environment: KeyEnvironment };

/** Revokes by id, or every active key of a partner in one environment. Returns the records it revoked now. */
export async function revokeKeys(
  file: string,
  selector: RevokeSelector,
  now = new Date(),
): Promise<{ revoked: KeyRecord[]; alreadyRevoked: KeyRecord[] }> {
  const partnerCode = 'partnerCode' in selector ? normalizePartnerCode(selector.partnerCode) : null;
  return updateKeysFile(file, (keys) => {
    const matches = keys.filter((k) =>
      'id' in selector ? k.id === selector.id : k.partnerCode === partnerCode && k.environment === selector.environment,
    );
    if (matches.length === 0) {
      throw new KeyStoreError(
        'id' in selector ? `no key with id ${selector.id}` : `partner ${partnerCode} has no key in ${selector.environment}`,
      );
    }
    const revoked: KeyRecord[] = [];
    const alreadyRevoked: KeyRecord[] = [];
    for (const k of matches) {
      if (k.revokedAt) alreadyRevoked.push(k);
      else {
        k.revokedAt = now.toISOString();
        revoked.push(k);
      }
    }
    return { keys, result: { revoked, alreadyRevoked } };
  });
}

/** What `npm run keys` changed, as announced to running instances: each key and its new state. */
export type KeyState = 'active' | 'revoked';
export interface KeyChange {
  keys: { id: string; state: KeyState }[];
}

const KEY_ID = /^key_[0-9a-f]{16}$/;
const MAX_CHANGED_KEYS = 10_000;

/** A key change read from a message of another process; null when it is not one. */
export function parseKeyChange(message: Record<string, unknown>): KeyChange | null {
  const keys = message.keys;
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_CHANGED_KEYS) return null;
  const out: KeyChange['keys'] = [];
  for (const k of keys as unknown[]) {
    const { id, state } = (k ?? {}) as { id?: unknown; state?: unknown };
    if (typeof id !== 'string' || !KEY_ID.test(id) || (state !== 'active' && state !== 'revoked')) return null;
    out.push({ id, state });
  }
  return { keys: out };
}

interface KeyStoreOptions {
  reloadMs?: number;
  logger?: KeyStoreLogger;
  /** Create an empty keys file if it does not exist (default true). */
  create?: boolean;
}

/** Presented keys remembered with their hash; cleared when full (a partner has a few keys). */
const VERIFIED_MEMO = 1024;
/** The most often an unknown key makes the store look at its file (verifyFresh). */
const UNKNOWN_KEY_RECHECK_MS = 100;

export class KeyStore {
  private byHash = new Map<string, KeyRecord>();
  private verifiedHashes = new Map<string, string>();
  private stamp: FileStamp | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reloading: Promise<void> | null = null;
  private lastError: string | null = null;
  private loadedAt = 0;
  private lastRecheck = 0;
  private rechecking: Promise<void> | null = null;

  private constructor(
    readonly file: string,
    private readonly logger: KeyStoreLogger | null,
  ) {}

  /** Loads the file (creating an empty one if missing) and polls it for changes. A bad file at start is an error. */
  static async open(file: string, opts: KeyStoreOptions = {}): Promise<KeyStore> {
    const store = new KeyStore(path.resolve(file), opts.logger ?? null);
    if (opts.create !== false) await ensureKeysFile(store.file);
    const stamp = await store.statFile();
    let data: KeysFile;
    try {
      data = await readKeysFile(store.file);
    } catch (err) {
      throw new KeyStoreError(`KEYS_FILE ${store.file}: ${(err as Error).message}`, { cause: err });
    }
    store.install(data, stamp);
    if (stamp) {
      const mode = (await fsp.stat(store.file)).mode & 0o777;
      if (mode & 0o077)
        store.logger?.warn({ file: store.file, mode: mode.toString(8) }, 'keys file is readable by other users; chmod 600 it');
    }
    const reloadMs = Math.max(50, opts.reloadMs ?? 1000);
    store.timer = setInterval(() => void store.poll(), reloadMs);
    store.timer.unref();
    return store;
  }

  /** Checks one presented `x-api-key` value for one environment. */
  verify(environment: KeyEnvironment, presented: string | string[] | undefined): VerifyResult {
    if (presented === undefined) return { ok: false, reason: 'missing' };
    if (Array.isArray(presented)) {
      // Node gives an array only for repeated headers (headersDistinct): more than one key is malformed.
      if (presented.length === 0) return { ok: false, reason: 'missing' };
      if (presented.length > 1) return { ok: false, reason: 'malformed' };
      presented = presented[0]!;
    }
    if (typeof presented !== 'string') return { ok: false, reason: 'malformed' };
    const remembered = this.verifiedHashes.get(presented);
    if (remembered === undefined && !isWellFormedKey(presented)) return { ok: false, reason: 'malformed' };
    const hash = remembered ?? hashKey(presented);
    const record = this.byHash.get(hash);
    if (!record) return { ok: false, reason: 'unknown' };
    if (remembered === undefined) {
      if (this.verifiedHashes.size >= VERIFIED_MEMO) this.verifiedHashes.clear();
      this.verifiedHashes.set(presented, hash);
    }
    const known = { partnerCode: record.partnerCode, keyId: record.id, keyEnvironment: record.environment, revoked: !!record.revokedAt };
    if (record.revokedAt) return { ok: false, reason: 'revoked', ...known };
    if (record.environment !== environment) return { ok: false, reason: 'wrong_environment', ...known };
    if (record.environment === 'support')
      return { ok: true, partnerCode: record.partnerCode, keyId: record.id, roles: record.roles ?? ['viewer'] };
    return { ok: true, partnerCode: record.partnerCode, keyId: record.id };
  }

  /**
   * verify(), and for a well-formed key it does not know, one look at the keys file first: a key
   * issued a moment ago (a newcomer pasting it at once) works before the next poll. The look is a
   * stat, at most one every UNKNOWN_KEY_RECHECK_MS whatever the traffic of unknown keys, and a
   * reload only when the file changed.
   */
  async verifyFresh(environment: KeyEnvironment, presented: string | string[] | undefined): Promise<VerifyResult> {
    const result = this.verify(environment, presented);
    if (result.ok || result.reason !== 'unknown') return result;
    const now = Date.now();
    if (now - this.lastRecheck < UNKNOWN_KEY_RECHECK_MS) {
      if (!this.rechecking) return result;
    } else {
      this.lastRecheck = now;
      this.rechecking ??= this.poll().finally(() => (this.rechecking = null));
    }
    await this.rechecking;
    return this.verify(environment, presented);
  }

  /** Whether a key id exists and is not revoked (the console re-checks its sessions with it). */
  isActive(id: string): boolean {
    return this.keyState(id) === 'active';
  }

  /** The keys of a partner (any environment), without hashes: the console's partner page. */
  keysOf(partnerCode: string): Omit<KeyRecord, 'keyHash'>[] {
    const out: Omit<KeyRecord, 'keyHash'>[] = [];
    for (const r of this.byHash.values()) {
      if (r.partnerCode !== partnerCode) continue;
      const shown: Omit<KeyRecord, 'keyHash'> & { keyHash?: string } = { ...r };
      delete shown.keyHash;
      out.push(shown);
    }
    return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Every partner holding a partner key (support tokens aside), sorted: the console lists them with or without a partner record. */
  partnerCodes(): string[] {
    const codes = new Set<string>();
    for (const r of this.byHash.values()) if (r.environment !== 'support') codes.add(r.partnerCode);
    return [...codes].sort();
  }

  /** Whether the loaded file holds key `id`, and whether it is revoked. */
  keyState(id: string): KeyState | 'unknown' {
    for (const r of this.byHash.values()) if (r.id === id) return r.revokedAt ? 'revoked' : 'active';
    return 'unknown';
  }

  /**
   * A key change announced by `npm run keys` (through Redis): re-reads the file now and says
   * whether it shows the change (each key in the announced state). It reads once more when not,
   * in case a poll had read the file just before it was written. False: this instance's keys file
   * does not have the change (it is not the file the command wrote).
   */
  async applyChange(change: KeyChange): Promise<boolean> {
    const shows = () => change.keys.every((k) => this.keyState(k.id) === k.state);
    await this.reload();
    if (shows()) return true;
    await this.reload();
    return shows();
  }

  /** Active keys per environment and the state of the file, for health output. */
  status(): { file: string; activeKeys: Record<KeyEnvironment, number>; loadedAt: string | null; lastError: string | null } {
    const activeKeys: Record<KeyEnvironment, number> = { production: 0, certification: 0, support: 0 };
    for (const r of this.byHash.values()) if (!r.revokedAt) activeKeys[r.environment]++;
    return {
      file: this.file,
      activeKeys,
      loadedAt: this.loadedAt ? new Date(this.loadedAt).toISOString() : null,
      lastError: this.lastError,
    };
  }

  /** Re-reads the file now (also used by the poller when the file changed). */
  async reload(): Promise<void> {
    if (this.reloading) return this.reloading;
    this.reloading = (async () => {
      const stamp = await this.statFile().catch(() => this.stamp);
      try {
        // A missing file is an error here (not an empty set): keep the last good keys.
        if (!stamp) throw new KeyStoreError('keys file is missing');
        let text: string;
        try {
          text = await fsp.readFile(this.file, 'utf8');
        } catch (err) {
          throw new KeyStoreError(`cannot read keys file: ${(err as Error).message}`);
        }
        const data = parseKeysFile(text);
        const before = this.byHash.size;
        this.install(data, stamp);
        if (this.lastError) this.logger?.info({ file: this.file }, 'keys file readable again');
        this.lastError = null;
        this.logger?.info({ file: this.file, keys: this.byHash.size, before }, 'keys reloaded');
      } catch (err) {
        // Remember the stamp so a broken file is reported once, not at every poll.
        this.stamp = stamp;
        const message = (err as Error).message;
        if (message !== this.lastError)
          this.logger?.error({ file: this.file, error: message }, 'keys file could not be reloaded; keeping the last good keys');
        this.lastError = message;
      }
    })().finally(() => {
      this.reloading = null;
    });
    return this.reloading;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async poll(): Promise<void> {
    const stamp = await this.statFile().catch(() => null);
    const prev = this.stamp;
    if (!sameStamp(stamp, prev)) await this.reload();
  }

  private install(data: KeysFile, stamp: FileStamp | null): void {
    const map = new Map<string, KeyRecord>();
    for (const r of data.keys) map.set(r.keyHash, Object.freeze({ ...r }));
    this.byHash = map;
    this.stamp = stamp;
    this.loadedAt = Date.now();
  }

  private statFile(): Promise<FileStamp | null> {
    return statStamp(this.file);
  }
}
