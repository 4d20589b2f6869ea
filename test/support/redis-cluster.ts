// Real multi-process Redis set-ups owned by a test, on free ports: a 3-master Redis Cluster
// (`redis-server --cluster-enabled yes` + `redis-cli --cluster create`) and a Sentinel set-up (a
// master, a replica, three `redis-server --sentinel`). Nodes can be SIGKILLed and started again.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/harness/redis-server.js';
import { eventually } from '../../scripts/harness/eventually.js';
import calculateSlot from 'cluster-key-slot';

const SERVER = process.env.REDIS_SERVER_BIN ?? 'redis-server';
const CLI = process.env.REDIS_CLI_BIN ?? 'redis-cli';

/** Why cluster tests cannot run here, or null when they can (redis-server >= 5 with cluster support, and redis-cli). */
function clusterSupportProblem(): string | null {
  const v = spawnSync(SERVER, ['--version'], { encoding: 'utf8' });
  if (v.error || v.status !== 0) return `redis-server not found (${SERVER}); apt-get install -y redis-server`;
  const major = Number(/v=(\d+)/.exec(v.stdout)?.[1] ?? 0);
  if (major < 7) return `redis-server ${major} is too old for these tests (cluster-port needs 7)`;
  const c = spawnSync(CLI, ['--version'], { encoding: 'utf8' });
  if (c.error || c.status !== 0) return `redis-cli not found (${CLI}); apt-get install -y redis-tools`;
  return null;
}

/**
 * The reason to skip the Cluster/Sentinel suites on a developer machine that lacks a fitting
 * redis-server, or null to run them. On CI (CI set, as .ci/run does) a missing or old binary fails
 * the suite instead: .ci/run installs one, so a skip there would hide a broken set-up.
 */
export function clusterSkipReason(what: string): string | null {
  const problem = clusterSupportProblem();
  if (!problem) return null;
  if (process.env.CI) throw new Error(`${what} tests cannot run on CI: ${problem}`);
  console.warn(`skipping ${what} tests: ${problem}`);
  return problem;
}

function redisCli(port: number, ...args: string[]): string {
  const r = spawnSync(CLI, ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8', timeout: 5000 });
  return `${r.stdout ?? ''}${r.stderr ?? ''}`;
}

/** A redis-server process that can be killed and started again with the same arguments. */
class Node {
  child: ChildProcess | null = null;
  constructor(
    readonly port: number,
    private readonly args: string[],
  ) {}
  async start(): Promise<void> {
    const child = spawn(SERVER, this.args, { stdio: 'ignore' });
    this.child = child;
    await eventually(async () => redisCli(this.port, 'PING').trim() === 'PONG', 10_000, 50);
  }
  signal(sig: NodeJS.Signals): void {
    if (this.child && this.child.exitCode === null) this.child.kill(sig);
  }
  async kill(): Promise<void> {
    const c = this.child;
    this.child = null;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  }
}

export interface TestCluster {
  ports: number[];
  url: string;
  /** SIGKILL master i (its slots are then unserved: no replicas, full coverage not required). */
  kill(i: number): Promise<void>;
  /** Start master i again with its node file: it rejoins with its slots. */
  start(i: number): Promise<void>;
  /** SIGSTOP master i: it hangs with its connections open (no answer, no error); resume() with SIGCONT. */
  pause(i: number): void;
  resume(i: number): void;
  /**
   * Wait until every node says cluster_state:ok and serves all 16384 slots from its own view. With
   * full coverage not required, cluster_state:ok comes before gossip has told a node every master's
   * slots: a client refreshing its slot map from it then saw two masters of three.
   */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestCluster(opts: { nodeTimeoutMs?: number } = {}): Promise<TestCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-cluster-'));
  const nodes: Node[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const bus = await freePort();
    nodes.push(
      new Node(port, [
        '--port',
        String(port),
        '--cluster-port',
        String(bus),
        '--bind',
        '127.0.0.1',
        '--protected-mode',
        'no',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        path.join(dir, `nodes-${port}.conf`),
        '--cluster-node-timeout',
        String(opts.nodeTimeoutMs ?? 1000),
        // Surviving masters keep serving their slots while one is lost (see docs/deployment.md).
        '--cluster-require-full-coverage',
        'no',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
      ]),
    );
  }
  const cluster: TestCluster = {
    ports: nodes.map((n) => n.port),
    url: `redis-cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`,
    kill: (i) => nodes[i]!.kill(),
    start: (i) => nodes[i]!.start(),
    pause: (i) => nodes[i]!.signal('SIGSTOP'),
    resume: (i) => nodes[i]!.signal('SIGCONT'),
    async ready() {
      await eventually(
        async () =>
          nodes.every((n) => {
            if (!n.child) return false;
            const info = redisCli(n.port, 'CLUSTER', 'INFO');
            return /cluster_state:ok/.test(info) && /cluster_slots_ok:16384\b/.test(info) && /cluster_known_nodes:3\b/.test(info);
          }),
        20_000,
        100,
      );
    },
    async stop() {
      for (const n of nodes) n.signal('SIGCONT');
      await Promise.all(nodes.map((n) => n.kill()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(nodes.map((n) => n.start()));
    const made = spawnSync(CLI, ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-yes'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    if (made.status !== 0) throw new Error(`redis-cli --cluster create failed: ${made.stdout}${made.stderr}`);
    await cluster.ready();
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

export interface TestSentinel {
  url: string;
  masterName: string;
  /** Port of the current master, as the sentinels say. */
  masterPort(): number;
  /** SIGKILL the data node on `port` (the master, to force a failover). */
  killData(port: number): Promise<void>;
  /** Start that data node again (it rejoins as a replica once the sentinels reconfigure it). */
  startData(port: number): Promise<void>;
  /** SIGKILL sentinel i (0 is the first of the URL's host list); startSentinel(i) brings it back. */
  killSentinel(i: number): Promise<void>;
  startSentinel(i: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestSentinel(opts: { downAfterMs?: number } = {}): Promise<TestSentinel> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'epg-sentinel-'));
  const name = 'mymaster';
  const masterPort = await freePort();
  const replicaPort = await freePort();
  const data = (port: number, extra: string[]) =>
    new Node(port, [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--protected-mode',
      'no',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      ...extra,
    ]);
  const dataNodes = new Map<number, Node>([
    [masterPort, data(masterPort, [])],
    [replicaPort, data(replicaPort, ['--replicaof', '127.0.0.1', String(masterPort)])],
  ]);
  const sentinels: Node[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const conf = path.join(dir, `sentinel-${port}.conf`);
    fs.writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        'protected-mode no',
        `dir ${dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${masterPort} 2`,
        `sentinel down-after-milliseconds ${name} ${opts.downAfterMs ?? 1000}`,
        `sentinel failover-timeout ${name} 10000`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    sentinels.push(new Node(port, [conf, '--sentinel']));
  }
  const stop = async () => {
    await Promise.all([...sentinels, ...dataNodes.values()].map((n) => n.kill()));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await dataNodes.get(masterPort)!.start();
    await dataNodes.get(replicaPort)!.start();
    await eventually(async () => /master_link_status:up/.test(redisCli(replicaPort, 'INFO', 'replication')), 15_000, 100);
    await Promise.all(sentinels.map((s) => s.start()));
    // Every sentinel knows the replica and the two other sentinels (hello messages every 2 s).
    await eventually(
      async () =>
        sentinels.every((s) => {
          const replicas = redisCli(s.port, 'SENTINEL', 'REPLICAS', name);
          const peers = redisCli(s.port, 'SENTINEL', 'SENTINELS', name);
          return replicas.includes(String(replicaPort)) && (peers.match(/\nip\n|^ip\n/g) ?? []).length >= 2;
        }),
      20_000,
      200,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url: `redis-sentinel://${sentinels.map((s) => `127.0.0.1:${s.port}`).join(',')}/${name}`,
    masterName: name,
    masterPort() {
      // Asks the first sentinel that runs (a test may have killed some).
      const asked = sentinels.find((s) => s.child) ?? sentinels[0]!;
      const out = redisCli(asked.port, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name).trim().split('\n');
      return Number(out[1]);
    },
    killData: (port) => dataNodes.get(port)!.kill(),
    startData: (port) => dataNodes.get(port)!.start(),
    killSentinel: (i) => sentinels[i]!.kill(),
    startSentinel: (i) => sentinels[i]!.start(),
    stop,
  };
}

/** Which master (index 0-2) serves a key, from one CLUSTER NODES. */
export function slotOwners(cluster: TestCluster): (key: string) => number {
  const owner = new Array<number>(16384).fill(-1);
  for (const line of redisCli(cluster.ports[0]!, 'CLUSTER', 'NODES').trim().split('\n')) {
    const f = line.split(' ');
    if (!f[2]?.includes('master')) continue;
    const index = cluster.ports.indexOf(Number(f[1]!.split('@')[0]!.split(':')[1]));
    for (const range of f.slice(8)) {
      const [from, to] = range.split('-').map(Number);
      for (let s = from!; s <= (to ?? from!); s++) owner[s] = index;
    }
  }
  return (key) => owner[calculateSlot(key)]!;
}
