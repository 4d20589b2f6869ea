// The playground's GraphiQL page. Its renderer inlines all of GraphiQL: megabytes of script and
// style, more of heap once imported (docs/benchmark.md, "Memory and start-up"). So the bundled
// gateway never imports it: `node scripts/build.mjs` renders the page once and splits it into
// dist/playground/. Only a run from source (tsx: tests, `npm run start:dev`) renders it
// in-process, once, into a temporary directory.
//
// The split keeps a returning browser's page load to a few KB: the page itself is a little HTML
// (ETag, revalidated: 304 when unchanged) and everything large is an asset whose name carries its
// content hash, served `Cache-Control: public, max-age=31536000, immutable`. Each file is stored
// precompressed (brotli and gzip) and sent as the client's Accept-Encoding allows. The page runs
// no inline script, so its Content-Security-Policy allows scripts from this origin only.
//
// The page shows the calls left: a small script reads X-RateLimit-Remaining from every answer the
// page's fetches receive (GraphiQL's schema fetch on load, then each query) and displays it.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage } from 'node:http';
import type { Reply } from './plugin.js';
import { PROJECT_ROOT } from '../../lib/project-root.js';

/** Where the built page lives beside the bundle (dist/playground/). */
export const PLAYGROUND_DIR_NAME = 'playground';
/** URL prefix of the page's assets, on the playground listener. */
export const ASSET_PREFIX = '/playground/assets/';

const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // GraphiQL's editor starts its language workers from blob: URLs.
  "worker-src 'self' blob:",
  // The editor and React set style attributes at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const IMMUTABLE = 'public, max-age=31536000, immutable';

const ALLOWANCE_NOTE = '# 10 free calls per client IP; schema browsing and introspection are free.\n';
const DEFAULT_QUERY = `${ALLOWANCE_NOTE}query Plans {
  residentialPlans(zipCode: "75001", monthlyUsage: 1000) {
    title
    price
    term
    rateType
    supplier { name }
    rates { usageKwh allInRateUsdPerKwh avgMonthlyBillUsd }
    headlessEnrollmentUrl
  }
}
`;

/** The partner query collection the playground opens with, one tab each (keyed-only/ left out). */
const PLAYGROUND_QUERIES_DIR = path.join('examples', 'partners', 'queries');

function playgroundTabs(root = PROJECT_ROOT): { query: string; variables?: string }[] {
  const dir = path.join(root, PLAYGROUND_QUERIES_DIR);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((f) => {
      const vars = path.join(dir, f.replace(/\.graphql$/, '.variables.json'));
      const tab: { query: string; variables?: string } = { query: fs.readFileSync(path.join(dir, f), 'utf8') };
      if (fs.existsSync(vars)) tab.variables = fs.readFileSync(vars, 'utf8');
      return tab;
    });
}

// Wraps fetch before GraphiQL loads, so every answer's allowance header updates the count shown.
const CALLS_LEFT_SCRIPT = `(() => {
  const show = (res) => {
    const left = res.headers.get('x-ratelimit-remaining');
    const el = document.getElementById('epg-calls-left');
    if (left === null || !el) return;
    const limit = res.headers.get('x-ratelimit-limit');
    el.dataset.remaining = left;
    el.textContent = 'Free calls left: ' + left + (limit ? ' of ' + limit : '');
  };
  const original = window.fetch.bind(window);
  window.fetch = async (...args) => {
    const res = await original(...args);
    try { show(res); } catch {}
    return res;
  };
})();
`;

const CALLS_LEFT_STYLE = `#epg-calls-left { position: fixed; right: 12px; bottom: 8px; z-index: 1000; padding: 4px 10px;
  font: 13px/1.4 system-ui, sans-serif; color: #fff; background: rgba(30, 41, 59, .85); border-radius: 4px; }
`;

export async function renderPlaygroundPage(): Promise<string> {
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  const tabs = playgroundTabs();
  if (tabs[0]) tabs[0].query = ALLOWANCE_NOTE + tabs[0].query;
  return renderGraphiQL({
    endpoint: '/graphql',
    title: 'Energy plan data playground',
    ...(tabs[0] ? { defaultTabs: tabs, query: tabs[0].query, variables: tabs[0].variables } : { defaultQuery: DEFAULT_QUERY }),
    headerEditorEnabled: false,
  } as never);
}

interface Asset {
  name: string;
  type: string;
  content: Buffer;
}

const hashOf = (b: Buffer | string) => createHash('sha256').update(b).digest('hex').slice(0, 16);

function asset(stem: string, ext: string, type: string, content: Buffer): Asset {
  return { name: `${stem}.${hashOf(content)}.${ext}`, type, content };
}

/** Moves the rendered page's inline script, style and icon into hashed assets; returns the small page. */
function splitPlaygroundPage(html: string): { page: string; assets: Asset[] } {
  const assets: Asset[] = [];
  const take = (re: RegExp, make: (body: string) => Asset, tag: (url: string) => string) => {
    html = html.replace(re, (_m, body: string) => {
      const a = make(body);
      assets.push(a);
      return tag(`${ASSET_PREFIX}${a.name}`);
    });
  };
  take(
    /<style>([\s\S]*?)<\/style>/g,
    (b) => asset('graphiql', 'css', 'text/css; charset=utf-8', Buffer.from(b)),
    (u) => `<link rel="stylesheet" href="${u}" />`,
  );
  take(
    /<link rel="icon" href="data:image\/x-icon;base64,([^"]*)" \/>/,
    (b) => asset('favicon', 'ico', 'image/x-icon', Buffer.from(b, 'base64')),
    (u) => `<link rel="icon" href="${u}" />`,
  );
  take(
    /<script>([\s\S]*?)<\/script>/g,
    (b) => asset('graphiql', 'js', 'text/javascript; charset=utf-8', Buffer.from(b)),
    (u) => `<script src="${u}"></script>`,
  );
  const calls = asset('calls-left', 'js', 'text/javascript; charset=utf-8', Buffer.from(CALLS_LEFT_SCRIPT));
  const style = asset('calls-left', 'css', 'text/css; charset=utf-8', Buffer.from(CALLS_LEFT_STYLE));
  assets.push(calls, style);
  // Ours first: fetch is wrapped before GraphiQL's first request.
  html = html
    .replace(
      '</head>',
      `<link rel="stylesheet" href="${ASSET_PREFIX}${style.name}" />\n<script src="${ASSET_PREFIX}${calls.name}"></script>\n</head>`,
    )
    .replace(
      '<div id="root"></div>',
      '<div id="epg-calls-left" role="status" aria-live="polite">Free calls left: …</div>\n<div id="root"></div>',
    );
  return { page: html.replace(/\n\s+/g, '\n').trim(), assets };
}

/** One servable file, stored as is and precompressed. */
interface StoredFile {
  type: string;
  etag: string;
  /** Bytes per encoding ('identity', 'br', 'gzip'). */
  sizes: Record<Encoding, number>;
}

type Encoding = 'identity' | 'br' | 'gzip';

interface Manifest {
  page: string;
  files: Record<string, StoredFile>;
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Renders, splits and writes the page into `dir` (manifest.json last, so a reader sees all or nothing). */
export async function writePlaygroundDir(dir: string, html: string, brotliQuality = 11): Promise<void> {
  const { page, assets } = splitPlaygroundPage(html);
  const all: Asset[] = [{ name: 'page.html', type: 'text/html; charset=utf-8', content: Buffer.from(page) }, ...assets];
  await fsp.mkdir(dir, { recursive: true });
  const files: Record<string, StoredFile> = {};
  for (const a of all) {
    const [br, gz] = await Promise.all([
      brotli(a.content, {
        params: { [zlib.constants.BROTLI_PARAM_QUALITY]: brotliQuality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: a.content.length },
      }),
      gzip(a.content, { level: 9 }),
    ]);
    await Promise.all([
      fsp.writeFile(path.join(dir, a.name), a.content),
      fsp.writeFile(path.join(dir, `${a.name}.br`), br),
      fsp.writeFile(path.join(dir, `${a.name}.gz`), gz),
    ]);
    files[a.name] = { type: a.type, etag: `"${hashOf(a.content)}"`, sizes: { identity: a.content.length, br: br.length, gzip: gz.length } };
  }
  const manifest: Manifest = { page: 'page.html', files };
  await fsp.writeFile(path.join(dir, 'manifest.json.tmp'), JSON.stringify(manifest));
  await fsp.rename(path.join(dir, 'manifest.json.tmp'), path.join(dir, 'manifest.json'));
}

interface Located {
  dir: string;
  manifest: Manifest;
}

let located: Promise<Located> | null = null;

/** The page's directory: the prebuilt one beside the bundle, else rendered now into the temp dir. */
function locate(): Promise<Located> {
  located ??= (async () => {
    const prebuilt = path.join(path.dirname(fileURLToPath(import.meta.url)), PLAYGROUND_DIR_NAME);
    const read = async (dir: string): Promise<Located> => ({
      dir,
      manifest: JSON.parse(await fsp.readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest,
    });
    try {
      return await read(prebuilt);
    } catch {
      // Running from source: no build output beside this module.
    }
    const html = await renderPlaygroundPage();
    const dir = path.join(os.tmpdir(), `epg-playground-${hashOf(html + CALLS_LEFT_SCRIPT + CALLS_LEFT_STYLE)}`);
    if (!fs.existsSync(path.join(dir, 'manifest.json'))) {
      // A fast brotli level: this runs at the first page load of a source run.
      const tmp = `${dir}.${process.pid}.tmp`;
      await writePlaygroundDir(tmp, html, 5);
      await fsp.rm(dir, { recursive: true, force: true });
      await fsp.rename(tmp, dir).catch(async (err: NodeJS.ErrnoException) => {
        // Another process won the race: use its copy.
        await fsp.rm(tmp, { recursive: true, force: true });
        if (!fs.existsSync(path.join(dir, 'manifest.json'))) throw err;
      });
    }
    return read(dir);
  })().catch((err) => {
    located = null;
    throw err;
  });
  return located;
}

/** The best encoding the client accepts (q=0 refuses one). */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const ok = (e: string) => (accepted.get(e) ?? accepted.get('*') ?? 0) > 0;
  return ok('br') ? 'br' : ok('gzip') ? 'gzip' : 'identity';
}

function etagMatches(header: string | string[] | undefined, etag: string): boolean {
  if (typeof header !== 'string') return false;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag || t.trim() === '*');
}

function fileReply(req: IncomingMessage, dir: string, name: string, file: StoredFile, headers: Record<string, string>): Reply {
  const common = { vary: 'accept-encoding', etag: file.etag, ...headers };
  if (etagMatches(req.headers['if-none-match'], file.etag)) return { status: 304, headers: { ...common, 'content-type': '' }, body: '' };
  const encoding = chooseEncoding(req.headers['accept-encoding'] as string | undefined);
  const suffix = encoding === 'br' ? '.br' : encoding === 'gzip' ? '.gz' : '';
  return {
    status: 200,
    headers: { ...common, 'content-type': file.type, ...(encoding === 'identity' ? {} : { 'content-encoding': encoding }) },
    body: '',
    file: { path: path.join(dir, `${name}${suffix}`), size: file.sizes[encoding] },
  };
}

/** GET /graphql from a browser: the small page, revalidated by ETag. */
export async function playgroundPageReply(req: IncomingMessage): Promise<Reply> {
  const { dir, manifest } = await locate();
  const file = manifest.files[manifest.page]!;
  return fileReply(req, dir, manifest.page, file, { 'cache-control': 'no-cache', 'content-security-policy': PAGE_CSP });
}

/** GET /playground/assets/<name>: an immutable asset, or null when there is no such asset. */
export async function playgroundAssetReply(req: IncomingMessage, pathname: string): Promise<Reply | null> {
  const name = pathname.slice(ASSET_PREFIX.length);
  const { dir, manifest } = await locate();
  const file = Object.hasOwn(manifest.files, name) && name !== manifest.page ? manifest.files[name] : undefined;
  if (!file) return null;
  return fileReply(req, dir, name, file, { 'cache-control': IMMUTABLE, 'cross-origin-resource-policy': 'same-origin' });
}
