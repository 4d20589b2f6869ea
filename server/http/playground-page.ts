// The playground's GraphiQL page. Its renderer inlines all of GraphiQL (~9 MB of script, ~30 MB of
// heap once imported), so the bundled gateway never imports it: `node scripts/build.mjs` renders the
// page once into dist/playground.html and the listener streams that file. Only a run from source
// (tsx: tests, `npm run start:dev`) renders it in-process, once, into a temporary file.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export const PLAYGROUND_FILE_NAME = 'playground.html';

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
export const PLAYGROUND_QUERIES_DIR = path.join('examples', 'partners', 'queries');

export function playgroundTabs(root = projectRoot()): { query: string; variables?: string }[] {
  const dir = path.join(root, PLAYGROUND_QUERIES_DIR);
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.graphql')).sort().map((f) => {
    const vars = path.join(dir, f.replace(/\.graphql$/, '.variables.json'));
    const tab: { query: string; variables?: string } = { query: fs.readFileSync(path.join(dir, f), 'utf8') };
    if (fs.existsSync(vars)) tab.variables = fs.readFileSync(vars, 'utf8');
    return tab;
  });
}

/** The nearest folder above this module with a package.json (from source and from dist/ alike). */
function projectRoot(): string {
  let d = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(d, 'package.json')) && path.dirname(d) !== d) d = path.dirname(d);
  return d;
}

export async function renderPlaygroundPage(): Promise<string> {
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  const tabs = playgroundTabs();
  if (tabs[0]) tabs[0].query = ALLOWANCE_NOTE + tabs[0].query;
  return renderGraphiQL({ endpoint: '/graphql', title: 'Energy plan data playground', defaultQuery: DEFAULT_QUERY, defaultTabs: tabs.length ? tabs : undefined, headerEditorEnabled: false } as never);
}

export interface PageFile {
  path: string;
  size: number;
}

let page: Promise<PageFile> | null = null;

/** The page as a file: the prebuilt one beside the bundle, else rendered now into the temp dir. */
export function playgroundPageFile(): Promise<PageFile> {
  page ??= locate().catch((err) => {
    page = null;
    throw err;
  });
  return page;
}

async function locate(): Promise<PageFile> {
  const prebuilt = path.join(path.dirname(fileURLToPath(import.meta.url)), PLAYGROUND_FILE_NAME);
  try {
    return { path: prebuilt, size: (await fsp.stat(prebuilt)).size };
  } catch {
    // Running from source: no build output beside this module.
  }
  const html = await renderPlaygroundPage();
  const file = path.join(os.tmpdir(), `epg-playground-${createHash('sha256').update(html).digest('hex').slice(0, 16)}.html`);
  if (!fs.existsSync(file)) {
    const tmp = `${file}.${process.pid}.tmp`;
    await fsp.writeFile(tmp, html);
    await fsp.rename(tmp, file);
  }
  return { path: file, size: Buffer.byteLength(html) };
}
