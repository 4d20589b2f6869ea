// A rerun's result on its record's page: the verdict, what changed (plans by id, prices in bold),
// the changed lines of the two answers with a few lines of context, and the full side-by-side one
// click away.
import { diffLines } from 'diff';
import type { ResponseDiff, ValueChange } from '../replay-diff.js';
import type { RerunResult } from './record-view.js';
import { Html, html, when } from './html.js';
import { recordHref } from './record-choice.js';

/** A JSON answer indented as the record page shows it; other text as it is. */
function prettyText(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Lines of unchanged text kept around each change. */
const CONTEXT_LINES = 3;

/** Money, rate and tier paths are what support looks for first in a diff. */
const PRICE = /usd|rate|price|tier|bill|charge|credit|cents/i;

function change(c: ValueChange): Html {
  const show = (v: unknown) => (v === undefined ? '∅' : JSON.stringify(v));
  return html`<li class="${PRICE.test(c.path) ? 'price' : ''}">
    <span class="mono">${c.path}</span>: ${
      c.kind === 'changed'
        ? html`<del>${show(c.old)}</del> → <ins>${show(c.new)}</ins>`
        : c.kind === 'added'
          ? html`added <ins>${show(c.new)}</ins>`
          : html`removed <del>${show(c.old)}</del>`
    }</li>`;
}

/** The listed changes, one item each: the count shown above is the number of these. */
function changeItems(diff: ResponseDiff): Html[] {
  return [
    ...diff.lists.flatMap((l) => [
      ...l.added.map((a) => html`<li>${l.path}: added <strong>${a.title ?? a.id}</strong></li>`),
      ...l.removed.map((a) => html`<li>${l.path}: removed <strong>${a.title ?? a.id}</strong></li>`),
      ...l.changed.map((c) => html`<li>${l.path} <strong>${c.title ?? c.id}</strong><ul>${c.changes.map(change)}</ul></li>`),
      ...(l.orderChanged ? [html`<li>${l.path}: order changed</li>`] : []),
    ]),
    ...diff.changes.map(change),
  ];
}

type Row = { kind: 'same' | 'chg'; old?: string; new?: string };

/** Line rows of the two texts: unchanged lines once, changed ones paired old/new. */
function rowsOf(oldText: string, newText: string): Row[] {
  const rows: Row[] = [];
  const parts = diffLines(oldText, newText);
  const lines = (s: string) => s.replace(/\n$/, '').split('\n');
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (!p.added && !p.removed) {
      for (const l of lines(p.value)) rows.push({ kind: 'same', old: l, new: l });
      continue;
    }
    const removed = p.removed ? lines(p.value) : [];
    const next = parts[i + 1];
    const added = p.added ? lines(p.value) : next?.added ? lines(next.value) : [];
    if (p.removed && next?.added) i++;
    for (let j = 0; j < Math.max(removed.length, added.length); j++) rows.push({ kind: 'chg', old: removed[j], new: added[j] });
  }
  return rows;
}

function rowHtml(r: Row): Html {
  if (r.kind === 'same') return html`<tr><td>${r.old}</td><td>${r.new}</td></tr>`;
  return html`<tr class="chg"><td class="${r.old !== undefined ? 'old' : ''}">${r.old ?? ''}</td>
    <td class="${r.new !== undefined ? 'new' : ''}">${r.new ?? ''}</td></tr>`;
}

/** Only the changed rows and CONTEXT_LINES around each, gaps marked with the lines they skip. */
function contextRows(rows: Row[], context = CONTEXT_LINES): Html[] {
  const keep = new Array<boolean>(rows.length).fill(false);
  rows.forEach((r, i) => {
    if (r.kind !== 'chg') return;
    for (let j = Math.max(0, i - context); j <= Math.min(rows.length - 1, i + context); j++) keep[j] = true;
  });
  const out: Html[] = [];
  for (let i = 0; i < rows.length;) {
    if (keep[i]) {
      out.push(rowHtml(rows[i]!));
      i++;
      continue;
    }
    let j = i;
    while (j < rows.length && !keep[j]) j++;
    out.push(html`<tr class="gap"><td colspan="2">… ${j - i} unchanged line${j - i === 1 ? '' : 's'} …</td></tr>`);
    i = j;
  }
  return out;
}

/** The last rerun of a record, on the record's own page: the verdict, what changed, the changed lines. */
export function diffSection(rerun: RerunResult): Html {
  const { ran: record, answer, diff } = rerun;
  const items = changeItems(diff);
  const rows = rowsOf(prettyText(record.responseBody), prettyText(answer.body));
  const head = html`<thead><tr><th>Recorded answer</th><th>Rerun now</th></tr></thead>`;
  const statusChange = diff.status.old !== diff.status.new ? ` · status ${diff.status.old} → ${diff.status.new}` : '';
  return html`<section id="rerun" aria-labelledby="rerun-h"><h2 id="rerun-h">Rerun against today's feeds</h2>
  ${
    rerun.personal
      ? html`<p class="notice">Personal data shown in clear for the reason you gave. This rerun was written to the audit log.</p>`
      : ''
  }
  <p class="mono">Recorded ${when(record.time)} (status ${record.status})
    · rerun ${when(rerun.at)} as <a href="${recordHref({ ...record, id: answer.requestId, time: undefined })}">${answer.requestId}</a>
    (status ${answer.status})</p>
  ${
    diff.identical
      ? html`<p class="ok" id="verdict" role="status"><strong>identical</strong>: today's feeds give the same answer.</p>`
      : html`<div class="error" id="verdict" role="status">
        <strong>different</strong>: ${items.length} change${items.length === 1 ? '' : 's'}${statusChange}</div>
      ${items.length ? html`<h3>What changed</h3><ul class="changes" id="changes">${items}</ul>` : ''}`
  }
  ${
    diff.identical
      ? ''
      : html`<h3>Changed lines</h3><div class="scroll"><table class="diff" id="context-diff">${head}<tbody>${contextRows(rows)}</tbody>
    </table></div>`
  }
  <details id="full-diff"><summary>Full side by side (${rows.length} lines)</summary><div class="scroll">
    <table class="diff" id="side-by-side">${head}<tbody>${rows.map(rowHtml)}</tbody></table></div></details></section>`;
}
