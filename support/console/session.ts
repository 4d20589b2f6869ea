// Console sessions: signing in with a personal support token opens a session held in this
// process's memory (a random id in an HttpOnly, SameSite=Strict cookie, Secure on TLS, with an
// expiry) that carries its own CSRF token. Every request re-checks that the support token is still
// active, so revoking it (`npm run keys -- revoke`) signs the user out as soon as the keys file is
// reloaded (about a second).
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { SupportRole } from '../../stores/key-store.js';

export interface Session {
  id: string;
  /** The support user's handle (the partner field of the support token). */
  user: string;
  keyId: string;
  /** What the support token allows (viewer, unmask, partners). */
  roles: readonly SupportRole[];
  csrf: string;
  expiresAt: number;
}

export const SESSION_COOKIE = 'epc_session';
/** Before sign-in: a double-submit token for the sign-in form (login CSRF). */
export const PRE_COOKIE = 'epc_pre';
const MAX_SESSIONS = 10_000;

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export function sameSecret(a: string | undefined | null, b: string | undefined | null): boolean {
  if (typeof a !== 'string' || typeof b !== 'string' || !a || !b) return false;
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

export function readCookie(req: IncomingMessage, name: string): string | null {
  const header = req.headers.cookie;
  if (!header || header.length > 8192) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const v = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{16,64}$/.test(v) ? v : null;
    }
  }
  return null;
}

/** Secure when the admin listener itself speaks TLS or the operator's proxy says it did. */
function isTls(req: IncomingMessage): boolean {
  return (req.socket as { encrypted?: boolean }).encrypted === true || req.headers['x-forwarded-proto'] === 'https';
}

export function cookie(req: IncomingMessage, name: string, value: string, maxAgeS: number): string {
  return `${name}=${value}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${isTls(req) ? '; Secure' : ''}`;
}

export class SessionStore {
  private sessions = new Map<string, Session>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
    private readonly isActive: (keyId: string) => boolean,
  ) {}

  open(user: string, keyId: string, roles: readonly SupportRole[] = ['viewer']): Session {
    if (this.sessions.size >= MAX_SESSIONS) this.sweep();
    const s: Session = { id: randomToken(), user, keyId, roles, csrf: randomToken(), expiresAt: this.now() + this.ttlMs };
    this.sessions.set(s.id, s);
    return s;
  }

  /** The live session of a request, or null (expired, signed out, or its token revoked). */
  get(id: string | null): Session | null {
    if (!id) return null;
    const s = this.sessions.get(id);
    if (!s) return null;
    if (s.expiresAt <= this.now() || !this.isActive(s.keyId)) {
      this.sessions.delete(id);
      return null;
    }
    return s;
  }

  close(id: string): void {
    this.sessions.delete(id);
  }

  private sweep(): void {
    for (const [id, s] of this.sessions) if (s.expiresAt <= this.now() || !this.isActive(s.keyId)) this.sessions.delete(id);
    // Still full: drop the oldest (Map keeps insertion order).
    while (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
  }
}

/** Whether a session's token carries `role`. */
export function can(s: Session | null, role: SupportRole): boolean {
  return !!s && s.roles.includes(role);
}
