// The console's only static assets, served by the gateway itself (no CDN): one stylesheet and one
// small script (copy buttons; a session check that returns to the sign-in page once the session
// ended, e.g. its token was revoked). Kept as strings so the bundled build carries them.
import { createHash } from 'node:crypto';

const CSS = `
:root { --fg:#1b1f24; --muted:#57606a; --line:#d0d7de; --bg:#fff; --soft:#f6f8fa; --accent:#0b57d0;
  --bad:#b42318; --good:#1a7f37; --addbg:#e6ffec; --delbg:#ffebe9; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg); background:var(--bg); }
.skip { position:absolute; left:-999px; } .skip:focus { left:8px; top:8px; background:#fff; padding:6px; z-index:9; }
header { display:flex; align-items:center; gap:24px; padding:8px 20px; border-bottom:1px solid var(--line); background:var(--soft); flex-wrap:wrap; }
.brand { font-weight:600; }
nav { display:flex; align-items:center; gap:24px; flex:1; flex-wrap:wrap; }
nav ul { display:flex; gap:16px; list-style:none; margin:0; padding:0; }
nav a[aria-current] { font-weight:600; text-decoration:underline; }
.signout { margin-left:auto; display:flex; gap:8px; align-items:center; }
main { padding:12px 20px 40px; max-width:1400px; }
h1 { font-size:22px; margin:8px 0 12px; } h2 { font-size:17px; margin:20px 0 8px; }
a { color:var(--accent); }
:focus-visible { outline:3px solid var(--accent); outline-offset:2px; }
form.filters, details.more-filters > div.filters { display:flex; flex-wrap:wrap; gap:10px 16px; align-items:flex-end; margin-bottom:12px; }
label { display:inline-flex; flex-direction:column; font-size:13px; color:var(--muted); gap:2px; }
input, select, textarea, button { font:inherit; padding:4px 8px; border:1px solid var(--line); border-radius:6px; background:#fff; color:var(--fg); }
button { cursor:pointer; background:var(--soft); } button.primary { background:var(--accent); color:#fff; border-color:var(--accent); }
table { border-collapse:collapse; width:100%; font-size:14px; }
th, td { text-align:left; padding:5px 8px; border-bottom:1px solid var(--line); vertical-align:top; }
th { background:var(--soft); position:sticky; top:0; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
.mono, pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size:13px; }
pre { background:var(--soft); border:1px solid var(--line); border-radius:6px; padding:10px; overflow:auto; max-height:480px;
  white-space:pre-wrap; word-break:break-all; }
.pager { display:flex; gap:16px; margin-top:10px; }
.notice { padding:8px 12px; border-radius:6px; background:#fff8c5; border:1px solid #d4a72c; margin:8px 0; }
.error { padding:8px 12px; border-radius:6px; background:var(--delbg); border:1px solid var(--bad); margin:8px 0; }
.ok { padding:8px 12px; border-radius:6px; background:var(--addbg); border:1px solid var(--good); margin:8px 0; }
.grid2 { display:grid; grid-template-columns: 1fr 1fr; gap:16px; }
dl.meta { display:grid; grid-template-columns:max-content 1fr; gap:2px 16px; margin:0 0 12px; } dl.meta dt { color:var(--muted); }
details.j { margin-left:0; } details.j details.j, details.j > div.j { margin-left:18px; }
.j .k { color:#0550ae; } .j .s { color:#0a3069; } .j .num { color:#953800; } .j .lit { color:#8250df; } .j .n { color:var(--muted); font-size:12px; }
.tree { background:var(--soft); border:1px solid var(--line); border-radius:6px; padding:10px; max-height:480px; overflow:auto;
  font-family: ui-monospace, Menlo, Consolas, monospace; font-size:13px; }
.timeline li { margin:2px 0; } .bar { display:inline-block; height:10px; background:var(--accent); border-radius:3px; vertical-align:middle; margin-right:6px; }
progress.failed { accent-color:var(--bad); } progress.failed::-webkit-progress-value { background:var(--bad); }
progress.failed::-moz-progress-bar { background:var(--bad); } .timeline li.failed strong { color:var(--bad); }
details.more-filters { flex:1 1 100%; } details.more-filters > summary { cursor:pointer; color:var(--accent); margin:4px 0; }
.badge.rerun { color:#8250df; border-color:#8250df; }
.badge { display:inline-block; padding:0 6px; border-radius:10px; font-size:12px; border:1px solid var(--line); }
.badge.bad { color:var(--bad); border-color:var(--bad); } .badge.good { color:var(--good); border-color:var(--good); }
table.diff td { font-family: ui-monospace, Menlo, Consolas, monospace; font-size:12.5px; white-space:pre-wrap; word-break:break-all;
  width:50%; padding:0 6px; border:none; }
table.diff tr.chg td.old, table.diff td.del { background:var(--delbg); } table.diff tr.chg td.new, table.diff td.add { background:var(--addbg); }
.changes li.price { font-weight:600; }
.actions { display:flex; gap:10px; flex-wrap:wrap; margin:8px 0; align-items:flex-end; }
button:disabled, button[disabled] { cursor:not-allowed; background:#eaeef2; color:#8c959f; border-color:#d0d7de; border-style:dashed; }
.why-disabled { color:var(--muted); font-size:13px; margin:4px 0; }
.why-disabled::before { content:"Disabled: "; font-weight:600; }
ul.counts { display:flex; flex-wrap:wrap; gap:8px 16px; list-style:none; padding:0; margin:6px 0; }
ul.counts a[aria-current] { font-weight:600; }
.scroll { overflow-x:auto; max-width:100%; }
tr:target td { background:#fff8c5; }
.n { color:var(--muted); } form .n { font-size:13px; }
.hints { display:flex; flex-wrap:wrap; gap:2px 12px; flex:1 1 100%; }
td[data-label="Time (UTC)"] { white-space:nowrap; }
section#rerun { border:1px solid var(--line); border-radius:6px; padding:0 12px 8px; margin:8px 0 16px; }
section#rerun h2 { margin-top:10px; } h3 { font-size:15px; margin:14px 0 6px; }
table.diff tr.gap td { color:var(--muted); background:var(--soft); text-align:center; font-style:italic; }
.charts { display:grid; grid-template-columns:repeat(auto-fill, minmax(340px, 1fr)); gap:16px; }
figure.chart svg { display:block; }
figure.chart { margin:0; border:1px solid var(--line); border-radius:6px; padding:8px; } figure.chart figcaption { font-weight:600; }
@media (max-width: 700px) {
  header, main { padding-left:10px; padding-right:10px; }
  form.filters label, form.filters input, form.filters select { width:100%; }
  form.filters label { flex:1 1 100%; }
  table.cards thead { display:none; }
  table.cards, table.cards tbody, table.cards tr, table.cards td { display:block; width:100%; }
  table.cards tr { border:1px solid var(--line); border-radius:6px; margin:0 0 8px; padding:4px 0; }
  table.cards td { border:none; padding:2px 8px; text-align:left; }
  table.cards td::before { content:attr(data-label) ": "; color:var(--muted); font:12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  td[data-label="Time (UTC)"] { white-space:normal; }
  form.filters label.half { flex:1 1 calc(50% - 8px); width:auto; min-width:0; }
  table.cards td a { word-break:break-all; }
  table.diff td { width:auto; }
  dl.meta { grid-template-columns:1fr; } dl.meta dd { margin:0 0 4px; word-break:break-all; }
  pre { max-width:100%; }
  .mono, td, dd, h1, h2, p, li { overflow-wrap:anywhere; }
  ol.timeline { padding-left:18px; } ol.timeline progress { width:60px; }
}
`;

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">
<rect width="16" height="16" rx="3" fill="#0b57d0"/><path d="M9 2 4 9h3l-1 5 5-7H8z" fill="#fff"/></svg>`;

const JS = `
(function () {
  document.addEventListener('click', function (e) {
    var b = e.target.closest && e.target.closest('button[data-copy]');
    if (!b) return;
    var el = document.getElementById(b.getAttribute('data-copy'));
    if (!el) return;
    var text = el.textContent;
    var done = function () { var t = b.textContent; b.textContent = 'Copied'; setTimeout(function () { b.textContent = t; }, 1500); };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, function () {});
    else {
      var r = document.createRange(); r.selectNodeContents(el); var s = getSelection(); s.removeAllRanges(); s.addRange(r);
      try { document.execCommand('copy'); done(); } catch (_) {}
    }
  });
  if (document.body && document.body.getAttribute('data-session')) {
    setInterval(function () {
      fetch('/console/session', { credentials: 'same-origin', cache: 'no-store' }).then(function (r) {
        if (r.status === 401) location.href = '/console/sign-in?ended=1&next=' + encodeURIComponent(location.pathname + location.search);
      }, function () {});
    }, 2000);
  }
})();
`;

interface Asset {
  body: string;
  type: string;
  etag: string;
}

const asset = (body: string, type: string): Asset => ({
  body,
  type,
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`,
});

export const ASSETS: Record<string, Asset> = {
  '/console/assets/console.css': asset(CSS, 'text/css; charset=utf-8'),
  '/console/assets/console.js': asset(JS, 'text/javascript; charset=utf-8'),
  '/console/assets/favicon.svg': asset(FAVICON, 'image/svg+xml'),
};
