// HTML building blocks of the support console: escaping, the page frame and a collapsible JSON
// view. Pages are rendered on the server; the only script is /console/assets/console.js (copy
// buttons, session check), allowed by a CSP without inline code.
import type { Session } from './session.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and quoted attributes. */
function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A trusted fragment of markup, so templates can tell it from text. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Tagged template: interpolated values are escaped unless they are Html (or arrays of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

function render(v: unknown): string {
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return esc(v);
}

const NAV = [
  { href: '/console/search', label: 'Search' },
  { href: '/console/partners', label: 'Partners' },
  { href: '/console/allowance', label: 'Allowance' },
  { href: '/console/audit', label: 'Audit log' },
];

export function page(title: string, body: Html, session: Session | null, active = ''): string {
  const nav = session
    ? html`<nav aria-label="Main"><ul>${NAV.map(
        (n) => html`<li><a href="${n.href}"${new Html(n.href === active ? ' aria-current="page"' : '')}>${n.label}</a>
      </li>`,
      )}</ul>
      <form method="post" action="/console/sign-out" class="signout"><input type="hidden" name="_csrf" value="${session.csrf}">
        <span class="who">Signed in as <strong>${session.user}</strong></span> <button type="submit">Sign out</button></form></nav>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · Support console</title>
<link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/console/assets/console.css">
  <script src="/console/assets/console.js" defer></script></head>
<body${session ? ' data-session="1"' : ''}><a class="skip" href="#main">Skip to content</a>
<header><span class="brand">Energy Plan Gateway · Support</span>${render(nav)}</header>
<main id="main" tabindex="-1"><h1>${esc(title)}</h1>
${body.value}
</main></body></html>`;
}

/** A pretty-printed, collapsible view of a JSON value (objects and arrays are <details>). */
export function jsonTree(value: unknown, key: string | null = null, depth = 0): Html {
  const label = key === null ? '' : html`<span class="k">${JSON.stringify(key)}</span>: `;
  if (Array.isArray(value) || (value && typeof value === 'object')) {
    const entries: [string | null, unknown][] = Array.isArray(value) ? value.map((v) => [null, v]) : Object.entries(value as object);
    const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) return html`<div class="j">${label}${open}${close}</div>`;
    const summary = Array.isArray(value)
      ? `${entries.length} item${entries.length === 1 ? '' : 's'}`
      : `${entries.length} field${entries.length === 1 ? '' : 's'}`;
    return html`<details class="j" ${new Html(depth < 4 ? 'open' : '')}><summary>${label}${open} <span class="n">${summary}</span>
      </summary>${entries.map(([k, v]) => jsonTree(v, k, depth + 1))}<div>${close}</div></details>`;
  }
  const cls = typeof value === 'string' ? 's' : typeof value === 'number' ? 'num' : 'lit';
  return html`<div class="j">${label}<span class="${cls}">${JSON.stringify(value)}</span></div>`;
}

/** A <select> with the current value selected. */
export function select(name: string, label: string, options: [string, string][], current: string): Html {
  const opts = options.map(([v, text]) => html`<option value="${v}"${new Html(v === current ? ' selected' : '')}>${text}</option>`);
  return html`<label>${label} <select name="${name}">${opts}</select></label>`;
}

export function csrfField(session: Session): Html {
  return html`<input type="hidden" name="_csrf" value="${session.csrf}">`;
}

export function copyButton(targetId: string, label: string): Html {
  return html`<button type="button" class="copy" data-copy="${targetId}">${label}</button>`;
}

/** The visible reason next to a disabled control (referenced by its aria-describedby). */
export function disabledNote(id: string, why: string): Html {
  return html`<p class="why-disabled" id="${id}">${why}</p>`;
}

/** The console's one time format: UTC, ISO-like, 24-hour ("2026-03-01 14:05:09Z"); text that is no time is shown as is. */
export function when(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '–';
  const t = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(t)) return String(value);
  return new Date(t).toISOString().slice(0, 19).replace('T', ' ') + 'Z';
}

/** A partner code as a link to its page (every partner with a record or keys has one). */
export function partnerLink(code: string | null | undefined): Html {
  return code ? html`<a href="/console/partners/${encodeURIComponent(code)}">${code}</a>` : html`–`;
}
