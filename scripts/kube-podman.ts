// What `podman kube play` (podman 4.3, Debian's) cannot take from rendered Kubernetes objects, made
// into what it can: it plays Pods, Deployments, ConfigMaps and PersistentVolumeClaims only.
// - a Service becomes DNS aliases on the podman network of the Deployments it selects (so
//   `redis:6379` reaches the Redis pod and `gateway-playground` every playground replica);
// - a Secret becomes a podman secret holding its data (JSON of base64 values), which podman reads
//   for `secretKeyRef` (Secret volumes are not supported: the local overlay uses none);
// - PodDisruptionBudgets and HorizontalPodAutoscalers have no meaning there and are left out;
// - a container port without hostPort is dropped (podman would publish it on the host), and a
//   probe naming a port gets its number.
// Each Deployment is played on its own, with the ConfigMaps and claims it uses, because podman gives
// a play's aliases to every pod of that play.
import yaml from 'js-yaml';

export interface KubeObject {
  apiVersion?: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

export interface Play {
  /** The Deployment's name (its pods are `<name>-pod-<n>`). */
  name: string;
  /** The multi-document YAML given to `podman kube play`. */
  yaml: string;
  /** Names the pods answer to on the network: the Services that select them. */
  aliases: string[];
  /** How many pods podman starts (the Deployment's replicas). */
  replicas: number;
}

export interface PodmanPlan {
  plays: Play[];
  secrets: { name: string; json: string }[];
  /** Named volumes podman makes for the claims and ConfigMap volumes (removed by kube:down). */
  volumes: string[];
  /** Kinds left out, for the log. */
  skipped: string[];
}

const PLAYED = new Set(['Deployment', 'ConfigMap', 'PersistentVolumeClaim', 'Service', 'Secret']);
const START_ORDER = 'energy-plan-gateway/start-order';

export function parseObjects(text: string): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const doc of yaml.loadAll(text)) {
    if (doc === null || doc === undefined) continue;
    const o = doc as Partial<KubeObject>;
    if (typeof o.kind !== 'string' || typeof o.metadata?.name !== 'string') {
      throw new Error(`not a Kubernetes object (kind and metadata.name needed): ${JSON.stringify(doc).slice(0, 120)}`);
    }
    objects.push(o as KubeObject);
  }
  return objects;
}

function podTemplate(d: KubeObject): { labels: Record<string, string>; spec: Record<string, unknown> } {
  const template = (d.spec?.template ?? {}) as { metadata?: { labels?: Record<string, string> }; spec?: Record<string, unknown> };
  return { labels: template.metadata?.labels ?? {}, spec: template.spec ?? {} };
}

function selects(service: KubeObject, labels: Record<string, string>): boolean {
  const selector = (service.spec?.selector ?? {}) as Record<string, string>;
  const keys = Object.keys(selector);
  return keys.length > 0 && keys.every((k) => labels[k] === selector[k]);
}

/** The ConfigMaps and claims a pod template's volumes and env name. */
function references(spec: Record<string, unknown>): { configMaps: Set<string>; claims: Set<string> } {
  const configMaps = new Set<string>();
  const claims = new Set<string>();
  for (const v of (spec.volumes ?? []) as { configMap?: { name: string }; persistentVolumeClaim?: { claimName: string } }[]) {
    if (v.configMap) configMaps.add(v.configMap.name);
    if (v.persistentVolumeClaim) claims.add(v.persistentVolumeClaim.claimName);
  }
  const containers = [...((spec.containers ?? []) as unknown[]), ...((spec.initContainers ?? []) as unknown[])] as {
    envFrom?: { configMapRef?: { name: string } }[];
    env?: { valueFrom?: { configMapKeyRef?: { name: string } } }[];
  }[];
  for (const c of containers) {
    for (const e of c.envFrom ?? []) if (e.configMapRef) configMaps.add(e.configMapRef.name);
    for (const e of c.env ?? []) if (e.valueFrom?.configMapKeyRef) configMaps.add(e.valueFrom.configMapKeyRef.name);
  }
  return { configMaps, claims };
}

interface Port {
  name?: string;
  containerPort: number;
  hostPort?: number;
}
interface Container {
  ports?: Port[];
  [probe: string]: unknown;
}

/** The Deployment with only its hostPorts, probes naming ports by number. */
function withoutClusterPorts(d: KubeObject): KubeObject {
  const copy = structuredClone(d);
  const { spec } = podTemplate(copy);
  for (const c of (spec.containers ?? []) as Container[]) {
    const numbers = new Map((c.ports ?? []).filter((p) => p.name).map((p) => [p.name, p.containerPort]));
    for (const key of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
      const probe = c[key] as { httpGet?: { port: number | string }; tcpSocket?: { port: number | string } } | undefined;
      for (const action of [probe?.httpGet, probe?.tcpSocket]) {
        if (action && typeof action.port === 'string') {
          const n = numbers.get(action.port);
          if (n === undefined)
            throw new Error(`${d.metadata.name}: ${key} names port ${action.port}, which the container does not declare`);
          action.port = n;
        }
      }
    }
    if (c.ports) c.ports = c.ports.filter((p) => p.hostPort !== undefined);
  }
  return copy;
}

export function podmanPlan(objects: KubeObject[]): PodmanPlan {
  const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const configMaps = new Map(byKind('ConfigMap').map((c) => [c.metadata.name, c]));
  const claims = new Map(byKind('PersistentVolumeClaim').map((c) => [c.metadata.name, c]));
  const services = byKind('Service');
  const volumes = new Set<string>(claims.keys());
  const order = (d: KubeObject) => Number(d.metadata.annotations?.[START_ORDER] ?? 1);
  const deployments = byKind('Deployment').sort((a, b) => order(a) - order(b));

  const claimed = new Set<string>();
  const plays = deployments.map((d): Play => {
    const { labels, spec } = podTemplate(d);
    const refs = references(spec);
    const docs: KubeObject[] = [];
    for (const name of refs.configMaps) {
      const c = configMaps.get(name);
      if (!c) throw new Error(`Deployment ${d.metadata.name} uses ConfigMap ${name}, which the rendering does not hold`);
      docs.push(c);
    }
    for (const v of (spec.volumes ?? []) as { configMap?: { name: string } }[]) if (v.configMap) volumes.add(v.configMap.name);
    for (const name of refs.claims) {
      const c = claims.get(name);
      if (!c) throw new Error(`Deployment ${d.metadata.name} uses claim ${name}, which the rendering does not hold`);
      // A claim is made by the first play that uses it (a second would fail: the volume exists).
      if (!claimed.has(name)) docs.push(c);
      claimed.add(name);
    }
    docs.push(withoutClusterPorts(d));
    return {
      name: d.metadata.name,
      yaml: docs.map((o) => yaml.dump(o, { noRefs: true, lineWidth: -1 })).join('---\n'),
      aliases: services.filter((s) => selects(s, labels)).map((s) => s.metadata.name),
      replicas: Number(d.spec?.replicas ?? 1),
    };
  });

  const secrets = byKind('Secret').map((s) => {
    const data: Record<string, string> = { ...s.data };
    for (const [k, v] of Object.entries(s.stringData ?? {})) data[k] = Buffer.from(v).toString('base64');
    return { name: s.metadata.name, json: JSON.stringify(data) };
  });
  const skipped = objects.filter((o) => !PLAYED.has(o.kind)).map((o) => `${o.kind}/${o.metadata.name}`);
  return { plays, secrets, volumes: [...volumes], skipped };
}

/** `--network` value giving the play's pods their aliases (podman: name:alias=a,alias=b). */
export function networkArg(network: string, aliases: string[]): string {
  return aliases.length === 0 ? network : `${network}:${aliases.map((a) => `alias=${a}`).join(',')}`;
}

/**
 * What the edge still waits for: from haproxy's stats CSV, each backend with fewer replicas UP than
 * `expected` names (backend → replicas), as "playground 1/2 up". Podman runs no Services, so the
 * edge is where a replica becomes reachable: it resolves the name and must pass one /readyz check.
 */
export function edgePending(csv: string, expected: Record<string, number>): string[] {
  const [header = '', ...rows] = csv.trim().split('\n');
  const columns = header.replace(/^#\s*/, '').split(',');
  const [px, sv, st] = ['pxname', 'svname', 'status'].map((c) => columns.indexOf(c));
  if (px! < 0 || sv! < 0 || st! < 0) throw new Error('the edge stats have no pxname, svname or status column');
  const up = new Map<string, number>();
  for (const row of rows) {
    const cells = row.split(',');
    if (cells[sv!] === 'FRONTEND' || cells[sv!] === 'BACKEND' || !cells[st!]?.startsWith('UP')) continue;
    up.set(cells[px!]!, (up.get(cells[px!]!) ?? 0) + 1);
  }
  return Object.entries(expected)
    .filter(([backend, n]) => (up.get(backend) ?? 0) < n)
    .map(([backend, n]) => `${backend} ${up.get(backend) ?? 0}/${n} up`);
}
