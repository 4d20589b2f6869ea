// scripts/kube-podman.ts: rendered Kubernetes objects made into what podman 4.3's `kube play` takes.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import yaml from 'js-yaml';
import { edgePending, networkArg, parseObjects, podmanPlan, type KubeObject } from '../../scripts/kube-podman.js';

const deployment = (name: string, component: string, extra: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: {
    replicas: 2,
    selector: { matchLabels: { component } },
    template: {
      metadata: { labels: { component, app: 'epg' } },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'img',
            ports: [
              { name: 'production', containerPort: 4000 },
              { name: 'edge', containerPort: 4400, hostPort: 4400 },
            ],
            readinessProbe: { httpGet: { path: '/readyz', port: 'production' } },
            livenessProbe: { httpGet: { path: '/healthz', port: 4000 } },
            envFrom: [{ configMapRef: { name: 'env' } }],
          },
        ],
        volumes: [
          { name: 'keys', persistentVolumeClaim: { claimName: 'keys' } },
          { name: 'cfg', configMap: { name: 'cfg' } },
        ],
        ...extra,
      },
    },
  },
});
const service = (name: string, component: string) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: { selector: { component } },
});
const objects = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'env' }, data: { A: '1' } },
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { '.meshrc.yaml': 'x: 1\n' } },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'keys' }, spec: {} },
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { T: 'dA==' }, stringData: { U: 'u' } },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'gateway' } },
  service('gateway', 'keyed'),
  service('gateway-alt', 'keyed'),
  deployment('gateway', 'keyed'),
  deployment('redis', 'redis', {}, { 'energy-plan-gateway/start-order': '0' }),
  service('redis', 'redis'),
] as KubeObject[];

describe('podmanPlan', () => {
  const plan = podmanPlan(objects);
  const docs = (name: string) => yaml.loadAll(plan.plays.find((p) => p.name === name)!.yaml) as KubeObject[];

  it('plays each Deployment on its own, by start order, answering to the Services that select it', () => {
    expect(plan.plays.map((p) => [p.name, p.aliases])).toEqual([
      ['redis', ['redis']],
      ['gateway', ['gateway', 'gateway-alt']],
    ]);
    expect(networkArg('net', ['gateway', 'gateway-alt'])).toBe('net:alias=gateway,alias=gateway-alt');
    expect(networkArg('net', [])).toBe('net');
  });

  it('carries the ConfigMaps a play uses, and a claim only in the first play that uses it', () => {
    expect(docs('redis').map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      'ConfigMap/cfg',
      'ConfigMap/env',
      'PersistentVolumeClaim/keys',
      'Deployment/redis',
    ]);
    expect(docs('gateway').map((d) => `${d.kind}/${d.metadata.name}`)).toEqual(['ConfigMap/cfg', 'ConfigMap/env', 'Deployment/gateway']);
    expect(plan.volumes.sort()).toEqual(['cfg', 'keys']);
  });

  it('keeps hostPorts only and gives probes port numbers', () => {
    const d = docs('gateway').at(-1)! as unknown as ReturnType<typeof deployment>;
    const c = d.spec.template.spec.containers[0]!;
    expect(c.ports).toEqual([{ name: 'edge', containerPort: 4400, hostPort: 4400 }]);
    expect(c.readinessProbe.httpGet.port).toBe(4000);
    expect(c.livenessProbe.httpGet.port).toBe(4000);
  });

  it('turns Secrets into podman secrets of base64 values, and names what it leaves out', () => {
    expect(plan.secrets).toEqual([{ name: 's', json: JSON.stringify({ T: 'dA==', U: 'dQ==' }) }]);
    expect(plan.skipped).toEqual(['PodDisruptionBudget/gateway']);
  });

  it('says which reference is missing or which probe port is unknown', () => {
    expect(() => podmanPlan(objects.filter((o) => o.metadata.name !== 'cfg'))).toThrow('Deployment redis uses ConfigMap cfg');
    const bad = deployment('bad', 'bad');
    bad.spec.template.spec.containers[0]!.readinessProbe.httpGet.port = 'nope';
    expect(() => podmanPlan([...objects, bad] as KubeObject[])).toThrow('bad: readinessProbe names port nope');
  });

  it('refuses a document that is not a Kubernetes object', () => {
    expect(() => parseObjects('kind: ConfigMap\n')).toThrow('not a Kubernetes object');
    expect(parseObjects('---\n---\nkind: ConfigMap\nmetadata: { name: a }\n')).toHaveLength(1);
  });
});

// haproxy's `/stats;csv`, cut to the columns edgePending reads and some around them.
const stats = (...servers: [string, string, string][]) =>
  ['# pxname,svname,qcur,status,weight', ...servers.map(([px, sv, status]) => `${px},${sv},0,${status},1`)].join('\n') + '\n';

describe('edgePending: kube:up waits until the edge sends to every replica', () => {
  const expected = { production: 2, playground: 2 };

  it('names each backend with fewer replicas UP than the Deployment has', () => {
    // The failure this guards: one playground replica was not in the edge yet, so it took no call.
    const csv = stats(
      ['playground', 'FRONTEND', 'OPEN'],
      ['production', 'gateway1', 'UP'],
      ['production', 'gateway2', 'UP'],
      ['production', 'gateway3', 'MAINT (resolution)'],
      ['production', 'BACKEND', 'UP'],
      ['playground', 'playground1', 'UP'],
      ['playground', 'playground2', 'DOWN'],
      ['playground', 'playground3', 'MAINT (resolution)'],
      ['playground', 'BACKEND', 'UP'],
    );
    expect(edgePending(csv, expected)).toEqual(['playground 1/2 up']);
  });

  it('is empty once every replica is UP', () => {
    const both = stats(
      ['production', 'gateway1', 'UP'],
      ['production', 'gateway2', 'UP'],
      ['playground', 'playground1', 'UP'],
      ['playground', 'playground2', 'UP'],
    );
    expect(edgePending(both, expected)).toEqual([]);
    expect(edgePending(stats(['production', 'gateway1', 'UP']), expected)).toEqual(['production 1/2 up', 'playground 0/2 up']);
  });

  it('refuses a page that is not the stats CSV', () => {
    expect(() => edgePending('<html>503 Service Unavailable</html>', expected)).toThrow('no pxname, svname or status column');
    expect(() => edgePending('', expected)).toThrow('no pxname');
  });
});

const kubectl = spawnSync('sh', ['-c', 'command -v kubectl']).status === 0;
describe.skipIf(!kubectl)('the local overlay, rendered with kubectl kustomize', () => {
  const root = path.resolve(import.meta.dirname, '../..');
  const render = (dir: string) => {
    const r = spawnSync('kubectl', ['kustomize', '--load-restrictor=LoadRestrictionsNone', path.join(root, dir)], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    return parseObjects(r.stdout);
  };

  it('gives podman every process with the Services it is reached by, Redis and the upstream first', () => {
    const plan = podmanPlan(render('deploy/kubernetes/overlays/local'));
    expect(plan.plays.map((p) => [p.name, p.aliases, p.replicas])).toEqual([
      ['redis', ['redis'], 1],
      ['upstream', ['upstream'], 1],
      ['edge', [], 1],
      ['gateway', ['gateway'], 2],
      ['gateway-admin', ['gateway-admin'], 1],
      ['gateway-playground', ['gateway-playground'], 2],
    ]);
  });

  it('base: WORKERS from the CPU limit, probes, non-root and a read-only root in every gateway Deployment', () => {
    const deployments = render('deploy/kubernetes/base').filter((o) => o.kind === 'Deployment') as unknown as ReturnType<
      typeof deployment
    >[];
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(['gateway', 'gateway-admin', 'gateway-playground']);
    for (const d of deployments) {
      const spec = d.spec.template.spec as unknown as {
        securityContext: { runAsNonRoot: boolean };
        terminationGracePeriodSeconds: number;
        containers: {
          env: { name: string; valueFrom?: unknown }[];
          securityContext: { readOnlyRootFilesystem: boolean };
          readinessProbe: { httpGet: { path: string } };
          livenessProbe: { httpGet: { path: string } };
        }[];
      };
      const c = spec.containers[0]!;
      expect(spec.securityContext.runAsNonRoot).toBe(true);
      expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
      expect(c.readinessProbe.httpGet.path).toBe('/readyz');
      expect(c.livenessProbe.httpGet.path).toBe('/healthz');
      expect(spec.terminationGracePeriodSeconds).toBe(30);
      if (d.metadata.name !== 'gateway-admin') {
        expect(c.env.find((e) => e.name === 'WORKERS')?.valueFrom).toEqual({ resourceFieldRef: { resource: 'limits.cpu', divisor: '1' } });
      }
    }
  });
});
