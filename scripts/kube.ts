// `npm run kube:up` / `npm run kube:down`: the local Kubernetes overlay (deploy/kubernetes/overlays/local)
// rendered with `kubectl kustomize` and played with podman (scripts/kube-podman.ts says what is
// translated). kube:up returns once the playground answers /healthz and production /readyz on
// 127.0.0.1:4402 and :4400 and the edge sends to every replica (its stats on :4404); kube:down removes every pod, secret, volume and the network it made.
// Needs the images of `npm run image`, podman (with runc) and kubectl.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { edgePending, networkArg, parseObjects, podmanPlan, type PodmanPlan } from './kube-podman.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OVERLAY = path.join(ROOT, 'deploy/kubernetes/overlays/local');
const NETWORK = 'energy-plan-gateway-local';
const IMAGES = [
  'localhost/energy-plan-gateway:local',
  'localhost/energy-plan-gateway-redis:local',
  'localhost/energy-plan-gateway-edge:local',
];
const WAIT_FOR = ['http://127.0.0.1:4402/healthz', 'http://127.0.0.1:4400/readyz'];
const EDGE_STATS = 'http://127.0.0.1:4404/stats;csv';
/** The edge's backends (haproxy.cfg) and the Deployment whose replicas each one spreads over. */
const EDGE_BACKENDS: Record<string, string> = { production: 'gateway', certification: 'gateway', playground: 'gateway-playground' };
const env = { ...process.env, CONTAINERS_CONF: path.join(ROOT, 'deploy/container/containers.conf') };

class KubeError extends Error {}

function run(cmd: string, args: string[], opts: { quiet?: boolean } = {}): { ok: boolean; out: string; err: string } {
  const r = spawnSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new KubeError(`${cmd}: ${r.error.message}`);
  const ok = r.status === 0;
  if (!ok && !opts.quiet) throw new KubeError(`${cmd} ${args.join(' ')} failed:\n${(r.stderr || r.stdout).trim()}`);
  return { ok, out: r.stdout, err: r.stderr };
}

function render(): PodmanPlan {
  const rendered = run('kubectl', ['kustomize', '--load-restrictor=LoadRestrictionsNone', OVERLAY]).out;
  return podmanPlan(parseObjects(rendered));
}

function withPlayFiles<T>(plan: PodmanPlan, each: (name: string, file: string, aliases: string[]) => T): T[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-kube-'));
  try {
    return plan.plays.map((p) => {
      const file = path.join(dir, `${p.name}.yaml`);
      fs.writeFileSync(file, p.yaml);
      return each(p.name, file, p.aliases);
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function down(plan: PodmanPlan): void {
  withPlayFiles(plan, (_name, file) => run('podman', ['kube', 'down', file], { quiet: true }));
  for (const s of plan.secrets) run('podman', ['secret', 'rm', s.name], { quiet: true });
  for (const v of plan.volumes) run('podman', ['volume', 'rm', '--force', v], { quiet: true });
  run('podman', ['network', 'rm', '--force', NETWORK], { quiet: true });
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

/** What is not up yet: the URLs that do not answer, and the backends not sending to every replica. */
async function pending(expected: Record<string, number>): Promise<string[]> {
  const silent = (await Promise.all(WAIT_FOR.map(answers))).flatMap((ok, i) => (ok ? [] : [WAIT_FOR[i]!]));
  try {
    const res = await fetch(EDGE_STATS, { signal: AbortSignal.timeout(2000) });
    return [...silent, ...edgePending(await res.text(), expected)];
  } catch {
    return [...silent, `${EDGE_STATS} (the edge)`];
  }
}

async function up(plan: PodmanPlan, timeoutMs: number): Promise<void> {
  const missing = IMAGES.filter((i) => !run('podman', ['image', 'exists', i], { quiet: true }).ok);
  if (missing.length > 0) throw new KubeError(`missing image(s) ${missing.join(', ')}: run \`npm run image\` first`);
  const started = Date.now();
  down(plan);
  run('podman', ['network', 'create', NETWORK], { quiet: true });
  // From a file: podman takes `-` only from a named pipe, and node's stdin pipes are sockets.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-kube-'));
  try {
    for (const s of plan.secrets) {
      fs.writeFileSync(path.join(dir, 'secret.json'), s.json, { mode: 0o600 });
      run('podman', ['secret', 'create', s.name, path.join(dir, 'secret.json')]);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  if (plan.skipped.length > 0) console.log(`kube: not played by podman: ${plan.skipped.join(', ')}`);
  withPlayFiles(plan, (name, file, aliases) => {
    run('podman', ['kube', 'play', '--network', networkArg(NETWORK, aliases), file]);
    const at = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`kube: ${name} played${aliases.length ? ` (as ${aliases.join(', ')})` : ''} at ${at} s`);
  });
  // Every replica, not the first: a playground replica the edge does not send to yet would leave the
  // first calls on the other one.
  const replicas = new Map(plan.plays.map((p) => [p.name, p.replicas]));
  const expected = Object.fromEntries(Object.entries(EDGE_BACKENDS).map(([b, d]) => [b, replicas.get(d) ?? 1]));
  for (;;) {
    const waiting = await pending(expected);
    if (waiting.length === 0) break;
    if (Date.now() - started > timeoutMs) {
      throw new KubeError(`not up within ${timeoutMs / 1000} s: ${waiting.join(', ')} (podman pod ps; podman logs <pod>-<container>)`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  console.log(
    `kube: up in ${((Date.now() - started) / 1000).toFixed(1)} s: production 127.0.0.1:4400, certification :4401, playground :4402, admin :4420`,
  );
}

const command = process.argv[2];
try {
  if (command === 'up') await up(render(), Number(process.env.KUBE_UP_TIMEOUT_MS ?? 180_000));
  else if (command === 'down') {
    down(render());
    console.log('kube: down');
  } else throw new KubeError('usage: tsx scripts/kube.ts up|down');
} catch (err) {
  console.error(err instanceof KubeError ? `kube: ${err.message}` : err);
  process.exitCode = 1;
}
