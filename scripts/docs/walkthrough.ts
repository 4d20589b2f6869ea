// Follows README.md, docs/partners.md and docs/adding-a-feed.md step by step, as a newcomer would,
// on a fresh copy of the repository: every ```sh and ```graphql block runs in order in one bash
// session (variables such as $KEY carry over), servers (`npm start`, `npm run upstream`) start in
// the background and are stopped the way a newcomer stops them, with one Ctrl-C to their process
// group, when a later step needs their port and at the end. Blocks the walkthrough cannot run say
// why in a marker (scripts/docs/markdown-blocks.ts). The ports of the guides (4000, 4001, ...) are
// moved with PORT_BASE to a free range, so the walkthrough runs beside anything else.
//
// A step fails when a command fails, when an answer carries GraphQL `errors` (unless its marker
// expects them), or when a server does not come up or does not stop cleanly on one Ctrl-C. At the
// end the playground allowance of 127.0.0.1 must still have calls left (the guides use it once each).
//
//   npx tsx scripts/docs/walkthrough.ts [--keep]      exit 0 when every step passed
//
// test/e2e/walkthrough.test.ts runs it in CI.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshCopy } from '../harness/fresh-copy.js';
import { fencedBlocks, runnableBlocks, type RunnableBlock } from './markdown-blocks.js';
import { WALKTHROUGH_PAGES } from './walkthrough-pages.js';
import { DEFAULT_PORTS, DEFAULT_PORT_BASE } from '../../lib/ports.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BLOCK_TIMEOUT_MS = 240_000;
const SERVER_START_TIMEOUT_MS = 240_000;
const SENTINEL = '__WALKTHROUGH_DONE__';

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * Port bases whose every port (the base to base + 5465) lies from 10000 to 19865: below Linux's
 * ephemeral range (32768-60999), whose ports the kernel hands to any process's outgoing connection
 * or `listen(0)`, and below the tests' free ports (scripts/harness/redis-server.ts freePort, 20000
 * and up), so a range found free stays free while the walkthrough runs beside the suite.
 */
const PORT_BASES = { first: 10_000, count: 45, step: 100 };

/** A PORT_BASE whose every port is free now (a taken one, EADDRINUSE, moves to another base). */
async function freePortBase(tried: ReadonlySet<number>): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(false));
      s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = PORT_BASES.first + PORT_BASES.step * Math.floor(Math.random() * PORT_BASES.count);
    if (tried.has(base)) continue;
    const ports = Object.values(DEFAULT_PORTS).map((p) => p - DEFAULT_PORT_BASE + base);
    if ((await Promise.all(ports.map(free))).every(Boolean)) return base;
  }
  throw new Error('no free range of ports found for PORT_BASE');
}

/** The guides' local addresses moved to PORT_BASE. */
function movePorts(text: string, base: number): string {
  const known = new Set<number>(Object.values(DEFAULT_PORTS));
  return text.replace(/\b(localhost|127\.0\.0\.1):(\d{4,5})\b/g, (all, host: string, port: string) =>
    known.has(Number(port)) ? `${host}:${Number(port) - DEFAULT_PORT_BASE + base}` : all,
  );
}

/** One bash session for every step, so that variables set by one block are there for the next. */
class Shell {
  private readonly proc: ChildProcess;
  private out = '';
  private err = '';
  private waiting: (() => void) | null = null;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.proc = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stdout!.on('data', (d: Buffer) => {
      this.out += d.toString();
      this.waiting?.();
    });
    this.proc.stderr!.on('data', (d: Buffer) => (this.err += d.toString()));
    this.proc.stdin!.write(`set -o pipefail\n__failed=''\ntrap '__failed="$BASH_COMMAND"' ERR\n`);
  }

  /** Runs a block (its stdin closed, so no command reads the next ones); the failed command, if any, and the output. */
  async run(text: string, timeoutMs: number): Promise<{ failed: string | null; stdout: string; stderr: string }> {
    this.out = '';
    this.err = '';
    this.proc.stdin!.write(`__failed=''\n{\n${text}\n} </dev/null\necho; echo "${SENTINEL} \${__failed}"\n`);
    const deadline = Date.now() + timeoutMs;
    while (!this.out.includes(`${SENTINEL} `) || !/__WALKTHROUGH_DONE__ .*\n/.test(this.out)) {
      if (Date.now() > deadline) throw new Error(`no end within ${timeoutMs / 1000} s`);
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 500);
      });
    }
    const at = this.out.lastIndexOf(SENTINEL);
    const failed = this.out
      .slice(at + SENTINEL.length + 1)
      .split('\n')[0]!
      .trim();
    return { failed: failed || null, stdout: this.out.slice(0, at).replace(/\n$/, ''), stderr: this.err };
  }

  close(): void {
    this.proc.stdin!.end('exit\n');
  }
}

interface Server {
  command: string;
  ports: number[];
  proc: ChildProcess;
  output: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The ports a server command of the guides binds, under PORT_BASE. */
function serverPorts(command: string, base: number): { ports: number[]; ready: string[] } {
  const at = (name: keyof typeof DEFAULT_PORTS) => DEFAULT_PORTS[name] - DEFAULT_PORT_BASE + base;
  // The reference upstream answers any path (404 included); a gateway's /healthz says 200 once it serves.
  if (/\bnpm run upstream\b/.test(command)) return { ports: [at('UPSTREAM_PORT')], ready: [`http://127.0.0.1:${at('UPSTREAM_PORT')}/`] };
  if (/\bnpm start\b/.test(command)) {
    const gateway = [at('PRODUCTION_PORT'), at('CERTIFICATION_PORT'), at('PLAYGROUND_PORT')];
    const ports = [...gateway, at('OPS_PORT'), at('PLAYGROUND_OPS_PORT')];
    return {
      ports: /\bUPSTREAM_URL=/.test(command) ? ports : [...ports, at('UPSTREAM_PORT')],
      ready: gateway.map((p) => `http://127.0.0.1:${p}/healthz`),
    };
  }
  throw new Error(`a background block must be \`npm start\` or \`npm run upstream\`, got: ${command}`);
}

async function answers(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) }).catch(() => null);
  return res !== null && (!url.endsWith('/healthz') || res.status === 200);
}

/** One Ctrl-C to the server's process group: it must drain once and exit 0. */
async function stopServer(server: Server): Promise<string | null> {
  process.kill(-server.proc.pid!, 'SIGINT');
  const timer = setTimeout(() => process.kill(-server.proc.pid!, 'SIGKILL'), 30_000);
  const { code, signal } = await server.exited;
  clearTimeout(timer);
  // The gateway drains and exits 0; the reference upstream (a plain server) may end by the signal itself.
  const gateway = /npm start/.test(server.command);
  if (code !== 0 && (gateway || signal !== 'SIGINT')) return `\`${server.command}\` ended with ${code ?? signal} after one Ctrl-C`;
  if (server.output.includes('second shutdown request'))
    return `\`${server.command}\`: one Ctrl-C was taken as two ("second shutdown request")`;
  if (gateway && !server.output.includes('shut down cleanly')) return `\`${server.command}\` did not say it shut down cleanly`;
  return null;
}

/**
 * Starts a server block in a process group of its own, after stopping (one Ctrl-C each) the servers
 * holding a port it needs, and waits until it answers. False when it did not come up.
 */
async function startServer(
  text: string,
  base: number,
  dir: string,
  env: NodeJS.ProcessEnv,
  servers: Server[],
  fail: (message: string, detail: string) => void,
): Promise<boolean> {
  const { ports, ready } = serverPorts(text, base);
  for (const s of servers.filter((x) => x.ports.some((p) => ports.includes(p)))) {
    log(`   stopping \`${s.command}\` with one Ctrl-C (it holds a port this one needs)`);
    const problem = await stopServer(s);
    if (problem) fail(problem, s.output.slice(-2000));
    servers.splice(servers.indexOf(s), 1);
  }
  const proc = spawn('bash', ['-c', text], { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const server: Server = {
    command: text,
    ports,
    proc,
    output: '',
    exited: new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal }))),
  };
  proc.stdout!.on('data', (d: Buffer) => (server.output += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (server.output += d.toString()));
  servers.push(server);
  const deadline = Date.now() + SERVER_START_TIMEOUT_MS;
  let up = false;
  while (!up && Date.now() < deadline && proc.exitCode === null) {
    up = (await Promise.all(ready.map(answers))).every(Boolean);
    if (!up) await new Promise((r) => setTimeout(r, 500));
  }
  if (!up && portTaken(server.output)) throw new PortTaken(text);
  if (!up) fail(`\`${text}\` did not come up`, server.output.slice(-3000));
  return up;
}

/** A server block's port was taken between the check and its bind: the walkthrough starts over on another base. */
class PortTaken extends Error {}

/** What a gateway or the reference upstream prints when a port it binds is taken. */
export const portTaken = (output: string): boolean => /\bEADDRINUSE\b|is already in use/.test(output);

const ATTEMPTS = 3;

export async function walkthrough(opts: { keep?: boolean } = {}): Promise<boolean> {
  const tried = new Set<number>();
  for (let attempt = 1; ; attempt++) {
    const base = await freePortBase(tried);
    tried.add(base);
    const result = await walkthroughAt(base, opts);
    if (result !== 'port taken') return result;
    if (attempt === ATTEMPTS) {
      log(`walkthrough: a port was taken (EADDRINUSE) on ${ATTEMPTS} port bases in a row`);
      return false;
    }
    log(`walkthrough: a port of PORT_BASE=${base} was taken while it ran (EADDRINUSE); starting over on another base`);
  }
}

async function walkthroughAt(base: number, opts: { keep?: boolean }): Promise<boolean | 'port taken'> {
  const copy = freshCopy(ROOT, 'epg-walkthrough-');
  log(`walkthrough: fresh copy ${copy.dir}, PORT_BASE=${base}`);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', PORT_BASE: String(base) };
  const shell = new Shell(copy.dir, env);
  const servers: Server[] = [];
  const problems: string[] = [];
  let steps = 0;
  let taken = false;
  const fail = (where: string, message: string, detail = '') => {
    problems.push(`${where}: ${message}`);
    log(`  FAIL ${message}${detail ? `\n${detail.replace(/^/gm, '    | ')}` : ''}`);
  };

  try {
    for (const page of WALKTHROUGH_PAGES) {
      log(`\n== ${page}`);
      for (const block of runnableBlocks(page, fs.readFileSync(path.join(copy.dir, page), 'utf8'))) {
        const where = `${page}:${block.line}`;
        const text = movePorts(block.text, base);
        const first = text.split('\n')[0]!.slice(0, 100);
        if (block.action === 'skip') {
          log(`-- ${where} skipped (${block.reason}): ${first}`);
          continue;
        }
        steps++;
        const started = Date.now();
        if (block.action === 'background') {
          log(`-- ${where} server: ${text}`);
          if (!(await startServer(text, base, copy.dir, env, servers, (message, detail) => fail(where, message, detail)))) break;
          log(`   up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
          continue;
        }
        const command = block.lang === 'graphql' ? graphqlCommand(block, base) : text;
        log(`-- ${where} ${block.lang}: ${first}${text.includes('\n') ? ' …' : ''}`);
        const r = await shell.run(command, BLOCK_TIMEOUT_MS);
        const shown = [r.stdout, r.stderr].filter(Boolean).join('\n').slice(-3000);
        if (r.failed) fail(where, `command failed: ${r.failed}`, shown);
        else if (!block.errorsExpected && /"errors"\s*:\s*\[/.test(r.stdout)) fail(where, 'an answer carries GraphQL errors', shown);
        else {
          log(`   ok in ${((Date.now() - started) / 1000).toFixed(1)} s${r.stdout ? `: ${r.stdout.split('\n')[0]!.slice(0, 120)}` : ''}`);
          const table = feedsTableMismatch(r.stdout, fs.readFileSync(path.join(copy.dir, page), 'utf8'), block.line);
          if (table) fail(where, table, r.stdout);
        }
      }
    }

    log('\n== the playground allowance after the walkthrough');
    const allowance = await shell.run('npm run --silent allowance -- show --ip 127.0.0.1 --json', 60_000);
    const left = allowance.failed ? null : (JSON.parse(allowance.stdout.trim().split('\n').pop()!) as { remaining: number; used: number });
    if (!left) fail('allowance', 'npm run allowance -- show failed', allowance.stderr);
    else if (left.remaining < 1) fail('allowance', `the guides spent the whole playground allowance (${left.used} calls)`);
    else log(`   ${left.used} playground calls spent, ${left.remaining} left`);
  } catch (err) {
    if (err instanceof PortTaken) taken = true;
    problems.push(`walkthrough: ${err instanceof PortTaken ? `a port was taken starting \`${err.message}\`` : (err as Error).message}`);
    log(`FAIL ${(err as Error).message}`);
  } finally {
    shell.close();
    for (const s of servers) {
      log(`-- stopping \`${s.command}\` with one Ctrl-C`);
      const problem = await stopServer(s).catch((err: unknown) => String(err));
      if (problem) fail('stop', problem, s.output.slice(-2000));
    }
    if (!opts.keep) copy.remove();
  }
  if (taken) return 'port taken';
  log(`\nwalkthrough: ${steps} steps, ${problems.length ? `${problems.length} failed:\n  ${problems.join('\n  ')}` : 'all passed'}`);
  return problems.length === 0;
}

/**
 * When a command printed the feeds:check table, the table the page shows after it must agree on
 * everything but the latencies (and the URL of the reference upstream it started): feeds, kinds,
 * statuses, record, rejection and warning counts. Null when they agree or nothing is to compare.
 */
function feedsTableMismatch(stdout: string, markdown: string, after: number): string | null {
  const header = /^FEED\s+KIND\s+STATUS/m;
  if (!header.test(stdout)) return null;
  const shown = fencedBlocks(markdown).find((b) => b.line > after && b.lang === '' && header.test(b.text));
  if (!shown) return null;
  const rows = (text: string) =>
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !header.test(l))
      .map((l) =>
        /^\d+ feeds?:/.test(l)
          ? l.split(';')[0]!
          : l
              .split(/\s+/)
              .filter((_, i) => i !== 3 && i !== 4) // LATENCY: "57 ms"
              .join(' '),
      );
  const want = rows(shown.text);
  const got = rows(stdout.slice(stdout.search(header)));
  return JSON.stringify(want) === JSON.stringify(got)
    ? null
    : `the feeds:check table shown at line ${shown.line} differs from the real one:\n  shown ${want.join(' | ')}\n  real  ${got.join(' | ')}`;
}

/** A ```graphql block of a guide, sent to certification with the key the guide issued in its first step. */
function graphqlCommand(block: RunnableBlock, base: number): string {
  const body = JSON.stringify({ query: block.text });
  const url = `http://127.0.0.1:${DEFAULT_PORTS.CERTIFICATION_PORT - DEFAULT_PORT_BASE + base}/graphql`;
  return `curl -sS ${url} -H 'content-type: application/json' -H "x-api-key: $KEY" --data-binary @- <<'__GRAPHQL__'\n${body}\n__GRAPHQL__`;
}

const isMain =
  process.argv[1] &&
  path.resolve(process.argv[1]).replace(/\.[cm]?[jt]s$/, '') === fileURLToPath(import.meta.url).replace(/\.[cm]?[jt]s$/, '');
if (isMain) process.exitCode = (await walkthrough({ keep: process.argv.includes('--keep') })) ? 0 : 1;
