// Partner records for certification onboarding: code, name, contact and the test IPs
// (addresses or CIDR ranges) enabled for the certification checkout flow, each with who enabled it
// and when. Stored beside the keys file (PARTNERS_FILE, default partners.json next to KEYS_FILE),
// plain JSON (IPs are not secrets), written under the same lock and atomic rename as the keys, and
// polled by every gateway so a change reaches every instance within a second.
//
// Calling the API needs no allow-listing (spec §5.5): this list is only for the checkout flow,
// which asks the admin endpoint whether an IP is enabled for a partner.
import fsp from 'node:fs/promises';
import path from 'node:path';
import { IpRangeError, findRange, parseIpRange, rangesOverlap, type IpRange } from '../domain/ip-ranges.js';
import { normalizePartnerCode } from './key-store.js';
import { StoreFileError, ensureDir, sameStamp, statStamp, withLock, writeAtomic, type FileStamp } from './locked-file.js';
import { parseQuotas, type KeyedEnvironment, type PartnerQuotas, type QuotaSetting } from './partner-quota.js';

export interface TestIp {
  cidr: string;
  addedBy: string;
  /** ISO 8601. */
  addedAt: string;
}

export interface PartnerRecord {
  code: string;
  name: string;
  contact: string;
  testIps: TestIp[];
  /** Request quotas by keyed environment (partner-quota.ts); absent ones are the defaults. */
  quotas?: PartnerQuotas;
  updatedBy: string;
  updatedAt: string;
}

export class PartnerError extends StoreFileError {
  constructor(message: string) {
    super(message);
    this.name = 'PartnerError';
  }
}

/** At most this many entries per partner: a lab, not a network. */
const MAX_TEST_IPS = 64;
const MAX_NAME = 100;
const MAX_CONTACT = 200;

function text(field: string, value: unknown, max: number): string {
  if (typeof value !== 'string' || !value.trim()) throw new PartnerError(`${field} is required`);
  const v = value.trim();
  if (v.length > max) throw new PartnerError(`${field} is at most ${max} characters`);
  if (/[\u0000-\u001f\u007f<>]/.test(v)) throw new PartnerError(`${field} must not contain control characters or < >`);
  return v;
}

function partnerCode(value: unknown): string {
  if (typeof value !== 'string') throw new PartnerError('partner code is required');
  try {
    return normalizePartnerCode(value);
  } catch (err) {
    throw new PartnerError((err as Error).message);
  }
}

function range(value: unknown): IpRange {
  try {
    return parseIpRange(value);
  } catch (err) {
    if (err instanceof IpRangeError) throw new PartnerError(err.message);
    throw err;
  }
}

function parsePartner(raw: unknown, i: number): PartnerRecord {
  const r = (raw ?? {}) as Record<string, unknown>;
  const where = `partners file record ${i}`;
  try {
    const testIps = Array.isArray(r.testIps) ? r.testIps : null;
    if (!testIps) throw new PartnerError('invalid or missing "testIps"');
    const ranges: IpRange[] = [];
    const ips = testIps.map((t) => {
      const e = (t ?? {}) as Record<string, unknown>;
      const parsed = range(e.cidr);
      if (ranges.some((o) => rangesOverlap(o, parsed))) throw new PartnerError(`test IP ${parsed.cidr} overlaps another entry`);
      ranges.push(parsed);
      return { cidr: parsed.cidr, addedBy: text('addedBy', e.addedBy, MAX_NAME), addedAt: text('addedAt', e.addedAt, 40) };
    });
    const quotas = parseQuotas(r.quotas);
    return {
      code: partnerCode(r.code),
      name: text('name', r.name, MAX_NAME),
      contact: text('contact', r.contact, MAX_CONTACT),
      testIps: ips,
      ...(quotas && Object.keys(quotas).length ? { quotas } : {}),
      updatedBy: text('updatedBy', r.updatedBy, MAX_NAME),
      updatedAt: text('updatedAt', r.updatedAt, 40),
    };
  } catch (err) {
    throw new PartnerError(`${where}: ${(err as Error).message}`);
  }
}

function parsePartnersFile(source: string): PartnerRecord[] {
  let data: unknown;
  try {
    data = JSON.parse(source);
  } catch (err) {
    throw new PartnerError(`partners file is not valid JSON: ${(err as Error).message}`);
  }
  const obj = data as { version?: unknown; partners?: unknown } | null;
  if (!obj || typeof obj !== 'object' || obj.version !== 1 || !Array.isArray(obj.partners)) {
    throw new PartnerError('partners file must be { "version": 1, "partners": [...] }');
  }
  const partners = obj.partners.map(parsePartner);
  const codes = new Set<string>();
  for (const p of partners) {
    if (codes.has(p.code)) throw new PartnerError(`partners file: duplicate partner ${p.code}`);
    codes.add(p.code);
  }
  return partners;
}

export async function readPartnersFile(file: string): Promise<PartnerRecord[]> {
  let source: string;
  try {
    source = await fsp.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new PartnerError(`cannot read partners file ${file}: ${(err as Error).message}`);
  }
  return parsePartnersFile(source);
}

async function updatePartners<T>(file: string, change: (partners: PartnerRecord[]) => T): Promise<T> {
  await ensureDir(file);
  return withLock(file, async () => {
    const partners = await readPartnersFile(file);
    const result = change(partners);
    await writeAtomic(file, `${JSON.stringify({ version: 1, partners }, null, 2)}\n`);
    return result;
  });
}

function find(partners: PartnerRecord[], code: string): PartnerRecord {
  const p = partners.find((x) => x.code === code);
  if (!p) throw new PartnerError(`no partner ${code}; add it first (name and contact)`);
  return p;
}

export interface Actor {
  /** Who made the change: a support user's handle, "admin-token" or "cli:<os user>". */
  actor: string;
  now?: Date;
}

/** Creates a partner record or updates its name and contact. */
export async function savePartner(
  file: string,
  input: { code: unknown; name: unknown; contact: unknown },
  by: Actor,
): Promise<PartnerRecord> {
  const code = partnerCode(input.code);
  const name = text('name', input.name, MAX_NAME);
  const contact = text('contact', input.contact, MAX_CONTACT);
  const at = (by.now ?? new Date()).toISOString();
  return updatePartners(file, (partners) => {
    let p = partners.find((x) => x.code === code);
    if (!p) {
      p = { code, name, contact, testIps: [], updatedBy: by.actor, updatedAt: at };
      partners.push(p);
    } else Object.assign(p, { name, contact, updatedBy: by.actor, updatedAt: at });
    return { ...p };
  });
}

/** Enables a test IP or range for a partner; refuses malformed, enormous and overlapping entries. */
export async function addTestIp(file: string, code: unknown, cidr: unknown, by: Actor): Promise<TestIp> {
  const c = partnerCode(code);
  const r = range(cidr);
  const at = (by.now ?? new Date()).toISOString();
  return updatePartners(file, (partners) => {
    const p = find(partners, c);
    const clash = p.testIps.find((t) => rangesOverlap(parseIpRange(t.cidr), r));
    if (clash)
      throw new PartnerError(
        clash.cidr === r.cidr
          ? `${r.cidr} is already enabled for ${c} (by ${clash.addedBy} at ${clash.addedAt}); nothing to do`
          : `${r.cidr} overlaps ${clash.cidr}, already enabled for ${c} by ${clash.addedBy}; remove that entry first`,
      );
    if (p.testIps.length >= MAX_TEST_IPS) throw new PartnerError(`${c} already has ${MAX_TEST_IPS} test IPs; remove some first`);
    const entry = { cidr: r.cidr, addedBy: by.actor, addedAt: at };
    p.testIps.push(entry);
    Object.assign(p, { updatedBy: by.actor, updatedAt: at });
    return entry;
  });
}

/** Disables a test IP or range (given as enabled, in any spelling of the same range). */
export async function removeTestIp(file: string, code: unknown, cidr: unknown, by: Actor): Promise<TestIp> {
  const c = partnerCode(code);
  const r = range(cidr);
  return updatePartners(file, (partners) => {
    const p = find(partners, c);
    const i = p.testIps.findIndex((t) => t.cidr === r.cidr);
    if (i < 0) throw new PartnerError(`${r.cidr} is not enabled for ${c}`);
    const [removed] = p.testIps.splice(i, 1);
    Object.assign(p, { updatedBy: by.actor, updatedAt: (by.now ?? new Date()).toISOString() });
    return removed!;
  });
}

/** Sets a partner's quota for one environment (null: back to the default). Validate with parseQuota first. */
export async function setQuota(
  file: string,
  code: unknown,
  environment: KeyedEnvironment,
  quota: QuotaSetting | null,
  by: Actor,
): Promise<PartnerRecord> {
  const c = partnerCode(code);
  return updatePartners(file, (partners) => {
    const p = find(partners, c);
    const quotas = { ...p.quotas };
    if (quota) quotas[environment] = quota;
    else delete quotas[environment];
    if (Object.keys(quotas).length) p.quotas = quotas;
    else delete p.quotas;
    Object.assign(p, { updatedBy: by.actor, updatedAt: (by.now ?? new Date()).toISOString() });
    return { ...p };
  });
}

export interface CheckAnswer {
  partner: string;
  ip: string;
  enabled: boolean;
  /** The entry that enabled it. */
  match: TestIp | null;
}

interface Loaded {
  record: PartnerRecord;
  ranges: { range: IpRange; entry: TestIp }[];
}

/** The in-memory copy the checkout endpoint answers from, reloaded when the file changes. */
export class PartnerStore {
  private byCode = new Map<string, Loaded>();
  private stamp: FileStamp | null = null;
  private timer: NodeJS.Timeout | null = null;
  private loaded = false;
  lastError: string | null = null;

  private constructor(
    readonly file: string,
    private readonly onError: (message: string) => void,
  ) {}

  static async open(file: string, opts: { reloadMs?: number; onError?: (message: string) => void } = {}): Promise<PartnerStore> {
    const store = new PartnerStore(path.resolve(file), opts.onError ?? (() => {}));
    await store.reload();
    if (store.lastError) throw new PartnerError(`PARTNERS_FILE ${store.file}: ${store.lastError}`);
    store.timer = setInterval(() => void store.reload(), Math.max(20, opts.reloadMs ?? 250));
    store.timer.unref();
    return store;
  }

  /** Re-reads the file when its stamp changed; a bad file keeps the last good partners. */
  async reload(): Promise<void> {
    const stamp = await statStamp(this.file).catch(() => this.stamp);
    if (this.loaded && sameStamp(stamp, this.stamp)) return;
    this.loaded = true;
    this.stamp = stamp;
    try {
      const partners = await readPartnersFile(this.file);
      this.byCode = new Map(
        partners.map((record) => [
          record.code,
          { record, ranges: record.testIps.map((entry) => ({ range: parseIpRange(entry.cidr), entry })) },
        ]),
      );
      this.lastError = null;
    } catch (err) {
      const message = (err as Error).message;
      if (message !== this.lastError) this.onError(message);
      this.lastError = message;
    }
  }

  list(): PartnerRecord[] {
    return [...this.byCode.values()].map((l) => l.record).sort((a, b) => a.code.localeCompare(b.code));
  }

  get(code: string): PartnerRecord | null {
    return this.byCode.get(code)?.record ?? null;
  }

  /** Whether an address is enabled for a partner; throws PartnerError on a malformed code or IP. */
  check(code: unknown, ip: unknown): CheckAnswer {
    const c = partnerCode(code);
    if (typeof ip !== 'string' || !ip.trim()) throw new PartnerError('ip is required');
    // One address is asked about here: the range examples of the allow-list form do not apply.
    let r: IpRange;
    try {
      r = range(ip.trim());
    } catch {
      throw new PartnerError(`ip must be one IPv4 or IPv6 address, such as 203.0.113.7 or 2001:db8::7`);
    }
    if (r.prefix !== (r.family === 4 ? 32 : 128)) throw new PartnerError('ip must be a single address, not a range');
    const loaded = this.byCode.get(c);
    const hit = loaded
      ? findRange(
          loaded.ranges.map((x) => x.range),
          r.cidr,
        )
      : null;
    const match = hit ? loaded!.ranges.find((x) => x.range === hit)!.entry : null;
    return { partner: c, ip: r.cidr, enabled: !!match, match };
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
