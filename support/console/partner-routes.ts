// The partner routes of the console: the list, one partner's page (keys, test IPs, an audited
// address check, a week of activity), and changes, which need the partners role. Every change
// answers with a redirect (a reload never repeats it) and keeps a refused entry in its field.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  addTestIp,
  removeTestIp,
  savePartner,
  setQuota,
  PartnerError,
  type CheckAnswer,
  type PartnerRecord,
} from '../../stores/partners.js';
import { QuotaError, keyedEnvironment, parseQuota, type QuotaSetting } from '../../stores/partner-quota.js';
import { keyOnlyPartner, partnerPage, partnersPage, type Flash, type PartnerView } from './partner-pages.js';
import { partnerActivity, windowStart } from './partner-activity.js';
import type { Session } from './session.js';
import { HttpError, decode, redirect, send, text, type ConsoleContext } from './console-http.js';

/** A partner page's week of activity reads at most this many of its records... */
const ACTIVITY_LIMIT = 5000;
/** ...and at most this many chunks of the store (see ReplayStore.search). */
const ACTIVITY_UNITS = 64;

type PartnersHandler = (req: IncomingMessage, res: ServerResponse, s: Session, rest: string[], url: URL) => Promise<void>;

export function partnerRoutes(ctx: ConsoleContext): PartnersHandler {
  const { opts, now, audit, checkedForm, requireRole } = ctx;

  /** One partner's page: record, keys (with last use), test IPs, a week of activity. */
  async function showPartner(
    res: ServerResponse,
    s: Session,
    code: string,
    status: number,
    extra: Partial<Pick<PartnerView, 'flash' | 'cidr' | 'check' | 'quotaForm'>>,
  ): Promise<void> {
    const keys = opts.keys.keysOf?.(code).filter((k) => k.environment !== 'support') ?? [];
    // A partner with keys but no record yet (keys issued from the CLI only) has a page too.
    const partner = opts.partners.get(code) ?? (keys.length ? keyOnlyPartner(code) : undefined);
    if (!partner) throw new HttpError(404, `No partner ${code}: no partner record and no keys.`);
    let activity = null;
    if (opts.replay) {
      const slice = await opts.replay.search(
        // Support reruns run as the partner but are not its traffic.
        { partner: code, since: windowStart(now()), limit: ACTIVITY_LIMIT, reruns: 'exclude' },
        { maxUnits: ACTIVITY_UNITS, summary: true },
      );
      activity = partnerActivity(slice.records, now(), slice.next !== null);
    }
    const quotaDefault = opts.quotaDefault;
    return send(res, status, partnerPage(s, { partner, keys, activity, quotaDefault, ...extra, flash: extra.flash ?? {} }));
  }

  /** Messages after a partner change, by a fixed code (a link cannot make the page say anything else). */
  function doneFlash(q: URLSearchParams): Flash {
    const cidr = text(q.get('cidr'), 64);
    switch (q.get('done')) {
      case 'saved':
        return { ok: 'Saved.' };
      case 'ip-enabled':
        return { ok: `${cidr} enabled for the certification checkout.` };
      case 'ip-removed':
        return { ok: `${cidr} removed.` };
      case 'quota':
        return { ok: 'Quota saved; every gateway applies it within a second.' };
      default:
        return {};
    }
  }

  /** The partner records and, after them, every partner that has keys but no record. */
  function allPartners(): PartnerRecord[] {
    const records = opts.partners.list();
    const known = new Set(records.map((p) => p.code));
    const keyOnly = (opts.keys.partnerCodes?.() ?? []).filter((c) => !known.has(c)).map(keyOnlyPartner);
    return [...records, ...keyOnly];
  }

  async function partners(req: IncomingMessage, res: ServerResponse, s: Session, rest: string[], url: URL): Promise<void> {
    if (rest.length === 0) return partnerList(req, res, s);
    const code = decode(rest[0]!).toUpperCase();
    const op = rest.slice(1).join('/');
    if (req.method === 'GET' && (op === '' || op === 'ips' || op === 'ips/remove' || op === 'quota')) {
      // A reload after a change lands on the partner page, never on a 404.
      if (op !== '') return redirect(res, `/console/partners/${encodeURIComponent(code)}`);
      return partnerView(req, res, s, code, url);
    }
    if (req.method === 'POST' && op === 'quota') return changeQuota(req, res, s, code);
    if (req.method !== 'POST' || (op !== 'ips' && op !== 'ips/remove')) throw new HttpError(404, 'No such page.');
    return changeTestIp(req, res, s, code, op === 'ips');
  }

  /** GET: the list; POST: a partner saved (created or updated). */
  async function partnerList(req: IncomingMessage, res: ServerResponse, s: Session): Promise<void> {
    if (req.method === 'GET') return send(res, 200, partnersPage(s, allPartners(), {}));
    if (req.method !== 'POST') throw new HttpError(405, 'Method not allowed.');
    const form = await checkedForm(req, s.csrf);
    await requireRole(req, s, 'partners', 'partner.save', text(form.get('code'), 32).toUpperCase() || null);
    try {
      const p = await savePartner(
        opts.partnersFile,
        { code: form.get('code'), name: form.get('name'), contact: form.get('contact') },
        { actor: `support:${s.user}` },
      );
      await audit(req, s, 'partner.save', p.code, { name: p.name, contact: p.contact });
      // This instance answers from the new file at once; the others within their poll (250 ms).
      await opts.partners.reload();
      return redirect(res, `/console/partners/${encodeURIComponent(p.code)}?done=saved`);
    } catch (err) {
      if (!(err instanceof PartnerError)) throw err;
      const typed = Object.fromEntries(['code', 'name', 'contact'].map((k) => [k, form.get(k) ?? '']));
      return send(res, 400, partnersPage(s, allPartners(), { error: err.message }, typed));
    }
  }

  /** A partner's page, with the answer of an IP check (audited) when one was asked. */
  async function partnerView(req: IncomingMessage, res: ServerResponse, s: Session, code: string, url: URL): Promise<void> {
    const ip = url.searchParams.get('check');
    if (ip === null) return showPartner(res, s, code, 200, { flash: doneFlash(url.searchParams) });
    let answer: CheckAnswer | undefined;
    let error: string | undefined;
    try {
      answer = opts.partners.check(code, ip);
    } catch (err) {
      if (!(err instanceof PartnerError)) throw err;
      error = err.message;
    }
    await audit(req, s, 'partner.ip.check', code, { ip: text(ip, 64), enabled: answer?.enabled ?? null });
    return showPartner(res, s, code, error ? 400 : 200, { check: { ip: text(ip, 64), answer, error } });
  }

  /** A certification test IP enabled or removed. */
  async function changeTestIp(req: IncomingMessage, res: ServerResponse, s: Session, code: string, enable: boolean): Promise<void> {
    const form = await checkedForm(req, s.csrf);
    await requireRole(req, s, 'partners', enable ? 'partner.ip.enable' : 'partner.ip.disable', code);
    const cidr = form.get('cidr') ?? '';
    const actor = { actor: `support:${s.user}` };
    try {
      const entry = enable
        ? await addTestIp(opts.partnersFile, code, cidr, actor)
        : await removeTestIp(opts.partnersFile, code, cidr, actor);
      await audit(req, s, enable ? 'partner.ip.enable' : 'partner.ip.disable', code, { cidr: entry.cidr });
      await opts.partners.reload();
      const done = new URLSearchParams({ done: enable ? 'ip-enabled' : 'ip-removed', cidr: entry.cidr });
      return redirect(res, `/console/partners/${encodeURIComponent(code)}?${done}`);
    } catch (err) {
      if (!(err instanceof PartnerError)) throw err;
      // The entry stays in the field, to correct rather than retype.
      return showPartner(res, s, code, 400, { flash: { error: err.message }, cidr: enable ? text(cidr, 64) : undefined });
    }
  }

  /** A partner's quota in one environment set, made unlimited or put back to the default. */
  async function changeQuota(req: IncomingMessage, res: ServerResponse, s: Session, code: string): Promise<void> {
    const form = await checkedForm(req, s.csrf);
    await requireRole(req, s, 'partners', 'partner.quota', code);
    const typed = Object.fromEntries(['env', 'mode', 'rate', 'burst'].map((k) => [k, text(form.get(k), 20)]));
    try {
      const environment = keyedEnvironment(form.get('env'));
      const mode = form.get('mode');
      let quota: QuotaSetting | null;
      if (mode === 'default') quota = null;
      else if (mode === 'unlimited') quota = 'unlimited';
      else if (mode === 'rate') quota = parseQuota({ requestsPerSecond: form.get('rate') ?? '', burst: form.get('burst') ?? '' });
      else throw new QuotaError('choose a quota: requests a second and burst, unlimited, or the default');
      await setQuota(opts.partnersFile, code, environment, quota, { actor: `support:${s.user}` });
      await audit(req, s, 'partner.quota', code, { environment, quota: quota ?? 'default' });
      await opts.partners.reload();
      return redirect(res, `/console/partners/${encodeURIComponent(code)}?done=quota`);
    } catch (err) {
      if (!(err instanceof PartnerError) && !(err instanceof QuotaError)) throw err;
      return showPartner(res, s, code, 400, { flash: { error: err.message }, quotaForm: typed });
    }
  }

  return partners;
}
