// `npm run kube:up` / `npm run kube:down`: the local Kubernetes overlay (deploy/kubernetes/overlays/local)
// rendered with `kubectl kustomize` and played with podman (scripts/kube-podman.ts says what is
// translated). kube:up returns once the playground answers /healthz and production /readyz on
// 127.0.0.1:4402 and :4400; kube:down removes every pod, secret, volume and the network it made.
// Needs the images of `npm run image`, podman (with runc) and kubectl.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { networkArg, parseObjects, podmanPlan, type PodmanPlan } from './kube-podman.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OVERLAY = path.join(ROOT, 'deploy/kubernetes/overlays/local');
const NETWORK = 'energy-plan-gateway-local';
const IMAGES = [
  'localhost/energy-plan-gateway:local',
  'localhost/energy-plan-gateway-redis:local',
  'localhost/energy-plan-gateway-edge:local',
];
const WAIT_FOR = ['http://127.0.0.1:4402/healthz', 'http://127.0.0.1:4400/readyz'];
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
  for (;;) {
    const ok = await Promise.all(WAIT_FOR.map(answers));
    if (ok.every(Boolean)) break;
    if (Date.now() - started > timeoutMs) {
      const pending = WAIT_FOR.filter((_, i) => !ok[i]).join(', ');
      throw new KubeError(`no answer from ${pending} within ${timeoutMs / 1000} s (podman pod ps; podman logs <pod>-<container>)`);
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
