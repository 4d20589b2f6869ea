// The record routes of the console: a record page (personal data opened in the server and
// masked by type), showing personal data to the unmask role, and reruns (a record touching
// personal data only for the unmask role, with a reason, running its sealed operation as sent).
// A record is named by its id and, since a client chooses its id, its environment, partner and
// time (record-choice.ts); a link naming several asks which. An action (unmask, rerun) answers
// with a redirect to the record's own page (Post/Redirect/Get), which shows its result from what
// the session remembers of that record (record-view.ts), the ticket typed for it included.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ReplayRecord } from '../../stores/replay-store.js';
import { diffResponses } from '../replay-diff.js';
import { documentOf, replayFacets, rootFieldsOf } from '../../stores/replay-facets.js';
import type { RerunAnswer } from '../rerun.js';
import { maskRecord } from './masking.js';
import { choicePage, recordHref, recordsMatching, recordTarget, selectorOf } from './record-choice.js';
import { recordPage } from './pages.js';
import type { Session } from './session.js';
import { HttpError, REQUEST_ID, reasonOf, redirect, send, type ConsoleContext } from './console-http.js';
import { recordView, rememberView } from './record-view.js';

type RecordHandler = (req: IncomingMessage, res: ServerResponse, s: Session, id: string, action: string) => Promise<void>;

export function recordRoutes(ctx: ConsoleContext): RecordHandler {
  const { opts, now, from, audit, checkedForm, requireRole } = ctx;

  /** The records the link names: one, or several to choose from (never a guess). */
  async function loadRecords(req: IncomingMessage, id: string): Promise<ReplayRecord[]> {
    if (!REQUEST_ID.test(id)) throw new HttpError(400, 'That is not a request id.');
    if (!opts.replay) throw new HttpError(503, 'The replay log is disabled on this gateway.');
    const selector = selectorOf(new URL(req.url ?? '/', 'http://console.invalid').searchParams);
    const records = recordsMatching(await opts.replay.getAll(id), selector);
    if (records.length === 0) throw new HttpError(404, `No record with request id ${id} (records are kept for a limited time).`);
    return records;
  }

  /** The one record an action is done to: a link naming several is refused. */
  async function loadRecord(req: IncomingMessage, id: string): Promise<ReplayRecord> {
    const records = await loadRecords(req, id);
    if (records.length > 1)
      throw new HttpError(409, `${records.length} records carry the request id ${id}: open the record page and choose one first.`);
    return records[0]!;
  }

  /** What a page shows of a record: personal data opened in the server, then masked unless `clear`. */
  function view(r: ReplayRecord, clear: boolean) {
    const opened = opts.unmasker.open(r);
    const m = maskRecord(opened.record);
    // Sealed: the gateway's key opens it. Stored in clear but personal by type: it is all there.
    const canOpen = r.personalData ? !opened.problem : m.personal;
    const responseBytes = Buffer.byteLength(opened.record.responseBody);
    const traceUrlTemplate = opts.traceUrlTemplate ?? null;
    const personal = m.personal;
    if (clear && canOpen)
      return { record: opened.record, masked: false, canOpen, unmasked: true, personal, responseBytes, traceUrlTemplate };
    return { record: m.record, masked: m.masked, canOpen, unmasked: false, personal, responseBytes, traceUrlTemplate };
  }

  /** The ticket of an action: the one typed (validated), else the one typed earlier for this record. */
  function ticketOf(s: Session, r: ReplayRecord, form: URLSearchParams): string {
    if ((form.get('reason') ?? '').trim() === '') {
      const remembered = recordView(s, r, now())?.ticket;
      if (remembered) return remembered;
    }
    return reasonOf(form);
  }

  async function rerun(req: IncomingMessage, res: ServerResponse, s: Session, r: ReplayRecord, form: URLSearchParams): Promise<void> {
    if (!r.query)
      throw new HttpError(
        409,
        'This request was not executed (refused or invalid), so its operation was not kept: there is nothing to rerun.',
      );
    let toRun = r;
    let reason: string | null = null;
    const personal = maskRecord(opts.unmasker.open(r).record).personal;
    if (personal) {
      // The stored operation is sealed: it is opened here and run as sent, never the mask text.
      await requireRole(req, s, 'unmask', 'record.rerun', recordTarget(r));
      reason = ticketOf(s, r, form);
      const opened = opts.unmasker.open(r);
      if (opened.problem) throw new HttpError(409, `This record cannot be rerun: ${opened.problem}.`);
      toRun = opened.record;
    }
    const started = now();
    const answer = await opts.rerun(toRun);
    const diff = diffResponses(toRun.responseBody, answer.body, {
      oldStatus: r.status,
      newStatus: answer.status,
      oldRequestId: r.id,
      newRequestId: answer.requestId,
    });
    recordRerun(req, s, toRun, answer, now() - started, personal);
    await audit(req, s, 'record.rerun', recordTarget(r), {
      identical: diff.identical,
      rerunRequestId: answer.requestId,
      ...(reason ? { reason, personalData: true } : {}),
    });
    rememberView(s, r, now(), { rerun: { ran: toRun, answer, diff, at: started, personal }, ...(reason ? { ticket: reason } : {}) });
    return redirect(res, recordHref(r));
  }

  /** The rerun's own record, so its request id can be searched (sealed like any personal record). */
  function recordRerun(
    req: IncomingMessage,
    s: Session,
    ran: ReplayRecord,
    answer: RerunAnswer,
    durationMs: number,
    personal: boolean,
  ): void {
    if (!opts.replay) return;
    const rec: ReplayRecord = {
      id: answer.requestId,
      time: new Date(now() - durationMs).toISOString(),
      environment: ran.environment,
      partnerCode: ran.partnerCode,
      clientIp: from(req),
      operationName: ran.operationName,
      query: ran.query,
      variables: ran.variables,
      status: answer.status,
      responseBody: answer.body,
      responseHeaders: { 'x-request-id': answer.requestId },
      fromCache: false,
      cache: null,
      upstreamCalls: [],
      durationMs,
      notes: { rerunOf: ran.id, by: `support:${s.user}` },
    };
    const document = documentOf(ran.query);
    rec.facets = replayFacets({ body: answer.body, rootFields: rootFieldsOf(document), document, variables: ran.variables });
    if (personal) opts.unmasker.seal(rec);
    opts.replay.enqueue(rec);
  }

  async function record(req: IncomingMessage, res: ServerResponse, s: Session, id: string, action: string): Promise<void> {
    if (action === '' && req.method === 'GET') {
      const records = await loadRecords(req, id);
      if (records.length > 1) return send(res, 300, choicePage(s, id, records));
      const r = records[0]!;
      const remembered = recordView(s, r, now());
      const v = view(r, remembered?.unmasked === true);
      // Personal data shown again (opened, or a rerun run in clear) is audited with its ticket.
      const clear = v.unmasked || remembered?.rerun?.personal === true;
      const details = clear ? { personalData: true, reason: remembered?.ticket } : v.masked ? { masked: true } : undefined;
      await audit(req, s, 'record.view', recordTarget(r), details);
      return send(res, 200, recordPage(s, { ...v, ticket: remembered?.ticket, rerun: remembered?.rerun }));
    }
    if (req.method !== 'POST') throw new HttpError(405, 'Use the buttons of the record page.');
    const form = await checkedForm(req, s.csrf);
    const r = await loadRecord(req, id);
    if (action === 'unmask') {
      await requireRole(req, s, 'unmask', 'record.unmask', recordTarget(r));
      const reason = ticketOf(s, r, form);
      const v = view(r, true);
      if (!v.unmasked) {
        await audit(req, s, 'record.unmask.refused', recordTarget(r), {
          reason,
          problem: opts.unmasker.open(r).problem ?? 'no personal data',
        });
        return send(res, 409, recordPage(s, { ...v, message: 'This record has no personal data this gateway can open.' }));
      }
      await audit(req, s, 'record.unmask', recordTarget(r), { reason });
      rememberView(s, r, now(), { unmasked: true, ticket: reason });
      return redirect(res, recordHref(r));
    }
    if (action === 'rerun') return rerun(req, res, s, r, form);
    throw new HttpError(404, 'No such page.');
  }

  return record;
}
