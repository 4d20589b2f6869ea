// The console's HTTP plumbing: page headers (a strict CSP), answers, redirects, bounded form
// bodies, the Origin check, and the context the route modules share (auditing, CSRF and roles).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SupportRole } from '../../stores/key-store.js';
import type { Session } from './session.js';
import type { KeyStore } from '../../stores/key-store.js';
import type { PartnerStore } from '../../stores/partners.js';
import type { ReplayRecord, ReplayStore } from '../../stores/replay-store.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { TrustProxy } from '../../server/http/client-ip.js';
import type { RerunAnswer } from '../rerun.js';
import type { Unmasker } from './masking.js';
import type { AllowanceAdmin } from '../allowance-admin.js';
import type { QuotaSetting } from '../../stores/partner-quota.js';

export interface ConsoleOptions {
  keys: Pick<KeyStore, 'verify' | 'isActive'> & Partial<Pick<KeyStore, 'keysOf' | 'partnerCodes'>>;
  replay: ReplayStore | null;
  audit: AuditLog;
  partners: PartnerStore;
  partnersFile: string;
  rerun(record: ReplayRecord): Promise<RerunAnswer>;
  unmasker: Unmasker;
  sessionTtlMs: number;
  trustProxy: TrustProxy;
  now?: () => number;
  /** The playground allowance (read and given back from /console/allowance); absent: the page says so. */
  allowance?: AllowanceAdmin | null;
  /** TRACE_URL_TEMPLATE: the record page links a traced request's trace id through it. */
  traceUrlTemplate?: string | null;
  /** PARTNER_QUOTA_DEFAULT: the quota of a partner whose record sets none (absent: the built-in default). */
  quotaDefault?: QuotaSetting;
}

export interface SupportConsole {
  handle(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void>;
}

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CSP,
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // same-origin, not no-referrer: with no-referrer browsers send "Origin: null" on form posts.
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
};
const MAX_FORM_BYTES = 16 * 1024;
export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...PAGE_HEADERS, 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}

export function redirect(res: ServerResponse, to: string, headers: Record<string, string> = {}): void {
  res.writeHead(303, { location: to, 'cache-control': 'no-store', 'content-length': '0', ...headers });
  res.end();
}

/** Reads an application/x-www-form-urlencoded body of at most 16 KiB. */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new HttpError(415, 'Forms must be sent as application/x-www-form-urlencoded.');
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_FORM_BYTES) throw new HttpError(413, 'The form is too large.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) throw new HttpError(413, 'The form is too large.');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** A browser's Origin, when sent, must be this host: a second line of defence next to the token. */
export function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

export function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, 'Malformed address.');
  }
}

export function text(v: string | null, max = 64): string {
  return (v ?? '').trim().slice(0, max);
}

/** A ticket id or short reason, required before personal data is opened. */
const REASON = /^[\p{L}\p{N} #._:/-]{3,80}$/u;

/** What the console's route modules share. */
export interface ConsoleContext {
  opts: ConsoleOptions;
  now: () => number;
  from(req: IncomingMessage): string;
  audit(
    req: IncomingMessage,
    s: Session | null,
    action: string,
    target: string | null,
    details?: Record<string, unknown>,
  ): Promise<unknown>;
  /** The form of a POST after its CSRF token (and Origin) checked out. */
  checkedForm(req: IncomingMessage, expected: string | null): Promise<URLSearchParams>;
  /** Refuses (403, audited) an action the session's token has no role for. */
  requireRole(req: IncomingMessage, s: Session, role: SupportRole, action: string, target: string | null): Promise<void>;
}

export function reasonOf(form: URLSearchParams): string {
  const reason = (form.get('reason') ?? '').trim();
  if (!REASON.test(reason)) throw new HttpError(400, 'Give a reason (the ticket id, 3 to 80 letters, digits, spaces or # . _ : / -).');
  return reason;
}
