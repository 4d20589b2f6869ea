// The local Kubernetes overlay as an operator runs it: `npm run image` (the base is cached between
// runs), `npm run kube:up` (podman plays the rendered objects), then two playground replicas on one
// Redis share one allowance per address, a key issued the documented way (the keys command inside a
// gateway pod) answers on production, and `npm run kube:down` leaves nothing running.
// Skipped, saying why, where podman, kubectl or debootstrap is missing or podman cannot run containers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '../..');
const env = { ...process.env, CONTAINERS_CONF: path.join(ROOT, 'deploy/container/containers.conf') };
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const missing = ['podman', 'runc', 'kubectl', 'debootstrap'].filter((c) => !has(c));
const notRoot = process.getuid?.() !== 0;
const skipReason = missing.length ? `${missing.join(', ')} not installed` : notRoot ? 'needs root (debootstrap, rootful podman)' : null;
if (skipReason) console.warn(`kube-local: skipped: ${skipReason}`);

const podman = (...args: string[]) => spawnSync('podman', args, { env, encoding: 'utf8' });
// Asynchronous: the image build and kube:up take minutes, and vitest's worker must stay responsive.
const npm = async (script: string) => {
  try {
    return (await promisify(execFile)('npm', ['run', '--silent', script], { cwd: ROOT, env, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`npm run ${script} failed:\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
};
const podNames = () =>
  podman('pod', 'ps', '--format', '{{.Name}}')
    .stdout.split('\n')
    .filter((n) => /^(gateway|gateway-playground|gateway-admin|redis|upstream|edge)-pod-\d+$/.test(n));

const COUNTED = JSON.stringify({ query: '{ utilities(zipCode: "75001") { id } }' });
const post = (port: number, headers: Record<string, string> = {}) =>
  fetch(`http://127.0.0.1:${port}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: COUNTED });

/** Playground refusals (429) of one replica, from its /metrics (read inside the pod; its 200s include the edge's probes). */
function playgroundRefusals(pod: string): number {
  const script = "fetch('http://127.0.0.1:9464/metrics').then(r=>r.text()).then(t=>process.stdout.write(t))";
  const text = execFileSync('podman', ['exec', `${pod}-playground`, 'node', '-e', script], { env, encoding: 'utf8' });
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('gateway_requests_total{') && line.includes('environment="playground"') && line.includes('status="429"')) {
      sum += Number(line.split(' ').pop());
    }
  }
  return sum;
}

describe.skipIf(skipReason !== null)('npm run kube:up: the local overlay on podman', () => {
  let cannotRun: string | null = null;
  let upSeconds = 0;
  beforeAll(async () => {
    await npm('image');
    const probe = podman('run', '--rm', 'localhost/energy-plan-gateway-base:bookworm', 'true');
    if (probe.status !== 0) {
      cannotRun = `podman cannot run containers here: ${probe.stderr.trim().split('\n').pop()}`;
      console.warn(`kube-local: skipped: ${cannotRun}`);
      return;
    }
    const started = Date.now();
    await npm('kube:up');
    upSeconds = (Date.now() - started) / 1000;
  }, 900_000);
  let down = false;
  afterAll(async () => {
    if (!cannotRun && !down) await npm('kube:down');
  }, 300_000);

  it('runs two keyed and two playground replicas on one Redis behind 4400-4402', (ctx) => {
    if (cannotRun) return ctx.skip();
    console.log(`kube-local: kube:up to the first answer in ${upSeconds.toFixed(1)} s`);
    expect(podNames().sort()).toEqual([
      'edge-pod-0',
      'gateway-admin-pod-0',
      'gateway-playground-pod-0',
      'gateway-playground-pod-1',
      'gateway-pod-0',
      'gateway-pod-1',
      'redis-pod-0',
      'upstream-pod-0',
    ]);
  });

  it('30 concurrent playground calls from one address: 10 answers and 20 refusals across the replicas', async (ctx) => {
    if (cannotRun) return ctx.skip();
    const replies = await Promise.all(
      Array.from({ length: 30 }, () => post(4402).then(async (r) => ({ status: r.status, body: await r.text() }))),
    );
    const answered = replies.filter((r) => r.status === 200).length;
    const refused = replies.filter((r) => r.status === 429).length;
    const other = replies.filter((r) => r.status !== 200 && r.status !== 429).map((r) => `${r.status} ${r.body.slice(0, 300)}`);
    console.log(
      `kube-local: 30 concurrent playground calls: ${answered} answered, ${refused} refused${other.length ? `, other: ${other.join(' | ')}` : ''}`,
    );
    expect({ answered, refused, other }).toEqual({ answered: 10, refused: 20, other: [] });
    // Both replicas refused some of them: one allowance in Redis, not one per replica (which would
    // have answered up to 20).
    const perReplica = ['gateway-playground-pod-0', 'gateway-playground-pod-1'].map(playgroundRefusals);
    console.log(`kube-local: refusals per playground replica: ${perReplica.join(', ')}`);
    expect(perReplica.every((n) => n > 0)).toBe(true);
    expect(perReplica[0]! + perReplica[1]!).toBe(20);
  });

  it('a key issued with the keys command in a gateway pod answers on production at once', async (ctx) => {
    if (cannotRun) return ctx.skip();
    expect((await post(4400)).status).toBe(403);
    const issued = await promisify(execFile)(
      'podman',
      ['exec', 'gateway-pod-0-gateway', 'node', 'dist/keys.mjs', 'issue', '--env', 'production', '--partner', 'ACME'],
      { env },
    );
    // Every keyed process (both replicas and the admin pod) was told and applied it.
    expect(issued.stderr).toMatch(/key change applied by (\d+) of \1 live instance\(s\) using redis:\/\/redis:6379/);
    const key = issued.stdout.trim().split('\n').pop()!;
    expect(key).toMatch(/^epk_live_/);
    // Through the edge, so both replicas answer some of these.
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(4400, { 'x-api-key': key })));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await answers[0]!.json()).toEqual({ data: { utilities: [{ id: 'ONCOR' }] } });
  }, 120_000);

  it('kube:down leaves no pod, secret, volume or network behind', async (ctx) => {
    if (cannotRun) return ctx.skip();
    await npm('kube:down');
    down = true;
    expect(podNames()).toEqual([]);
    expect(podman('secret', 'ls', '--format', '{{.Name}}').stdout).not.toMatch(/^gateway-/m);
    expect(podman('volume', 'ls', '--format', '{{.Name}}').stdout).not.toMatch(/^(gateway-|edge-config)/m);
    expect(podman('network', 'exists', 'energy-plan-gateway-local').status).not.toBe(0);
  }, 300_000);
});
