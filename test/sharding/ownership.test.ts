/**
 * `shardOwnership` (src/sharding/ownership.ts): the clusters and apps one shard owns, checked against Argo
 * CD's reference vectors (test/fixtures/sharding/sharding-vectors.json, computed by Argo CD's own sharding
 * cache) turned back into cluster Secrets and Applications, so static `--shard I --replicas N`, a shard
 * claimed in dynamic mode and `kubectl gitops shards` agree; then the destination rules of canProcessApp /
 * IsManagedCluster (controller/appcontroller.go, controller/sharding/cache.go).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../src/cluster/index.js';
import { shardOwnership, type Algorithm, type OwnershipRequest } from '../../src/sharding/index.js';
import { fixturesDir } from '../support/paths.js';

interface VectorCase {
  name: string;
  replicas: number[];
  clusters: { id: string; server: string; name: string; shard?: number; apps: number }[];
  expected: Record<string, Record<string, number[]>>;
}
const vectors = JSON.parse(readFileSync(join(fixturesDir, 'sharding', 'sharding-vectors.json'), 'utf8')) as {
  cases: VectorCase[];
};

const b64 = (s: string) => Buffer.from(s).toString('base64');
const IN_CLUSTER = 'https://kubernetes.default.svc';

function secret(
  uid: string,
  server: string,
  name: string,
  shard?: number,
  annotations?: Record<string, string>,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `cluster-${name}`,
      namespace: 'argocd',
      uid,
      labels: { 'argocd.argoproj.io/secret-type': 'cluster' },
      ...(annotations ? { annotations } : {}),
    },
    data: {
      server: b64(server),
      name: b64(name),
      ...(shard !== undefined ? { shard: b64(String(shard)) } : {}),
    },
  };
}

function application(name: string, destination: { server?: string; name?: string }): KubeObject {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace: 'argocd' },
    spec: { destination },
  };
}

describe('shard ownership agrees with Argo CD reference vectors', () => {
  for (const c of vectors.cases) {
    it(c.name, () => {
      // The empty ID is the in-cluster entry Argo CD makes up when no Secret has its server.
      const secrets = c.clusters
        .filter((x) => x.id !== '')
        .map((x) => secret(x.id, x.server, x.name, x.shard));
      const apps = c.clusters.flatMap((x, i) =>
        Array.from({ length: x.apps }, (_, j) => application(`app-${i}-${j}`, { server: x.server })),
      );
      // In-cluster on only where the case has that server (else Argo CD would add an entry the case lacks).
      const inClusterEnabled = c.clusters.some((x) => x.server === IN_CLUSTER);
      let checked = 0;
      for (const [algorithm, byReplicas] of Object.entries(c.expected)) {
        for (const [r, expected] of Object.entries(byReplicas)) {
          const replicas = Number(r);
          for (let shard = 0; shard < replicas; shard++) {
            const own = shardOwnership({
              shard,
              replicas,
              algorithm: algorithm as Algorithm,
              clusterSecrets: secrets,
              applications: apps,
              inClusterEnabled,
            });
            const want = c.clusters.filter((_, i) => expected[i] === shard).map((x) => x.server);
            assert.deepEqual(
              [...own.ownedServers].sort(),
              [...want].sort(),
              `${algorithm} R=${r} shard ${shard}`,
            );
            c.clusters.forEach((x, i) => {
              const app = { name: 'probe', destination: { server: `${x.server}/` } };
              assert.equal(own.ownsApp(app), expected[i] === shard, `${algorithm} R=${r} ${x.server}`);
            });
            checked++;
          }
        }
      }
      assert.ok(checked > 0);
    });
  }
});

describe('app destinations (canProcessApp / IsManagedCluster)', () => {
  // Legacy, R = 2: ID "2" -> 1, ID "1" -> 0 (Argo CD's cache test, spec section 7).
  const base: OwnershipRequest = {
    shard: 1,
    replicas: 2,
    algorithm: 'legacy',
    clusterSecrets: [
      secret('1', 'https://one.example', 'one'),
      secret('2', 'https://two.example', 'two'),
      secret('3', 'https://dup-a.example', 'dup'),
      secret('4', 'https://dup-b.example', 'dup'),
      secret('5', 'https://skip.example', 'skip', undefined, { 'argocd.argoproj.io/skip-reconcile': 'true' }),
      secret('6', 'https://minus.example', 'minus', -1),
    ],
    applications: [],
    inClusterEnabled: true,
  };
  const on = (shard: number, o: Partial<OwnershipRequest> = {}) => shardOwnership({ ...base, ...o, shard });
  const app = (destination: { server?: string; name?: string }) => ({ name: 'a', destination });

  it('by server (trailing / removed) and by name', () => {
    assert.equal(on(1).ownsApp(app({ server: 'https://two.example/' })), true);
    assert.equal(on(0).ownsApp(app({ server: 'https://two.example' })), false);
    assert.equal(on(1).ownsApp(app({ name: 'two' })), true);
    assert.equal(on(0).ownsApp(app({ name: 'one' })), true);
    assert.equal(on(0).ownsApp(app({ server: IN_CLUSTER })), true, 'in-cluster (empty ID): legacy shard 0');
  });

  it('an unresolvable destination belongs to every shard (Argo CD), or to shard 0 on request', () => {
    for (const d of [
      { server: 'https://nowhere.example' },
      { name: 'dup' },
      { server: 'https://one.example', name: 'one' },
    ]) {
      assert.equal(on(1).destinationOf(app(d)), undefined, JSON.stringify(d));
      assert.deepEqual([on(0).ownsApp(app(d)), on(1).ownsApp(app(d))], [true, true], JSON.stringify(d));
      const shard0 = { unknownDestination: 'shard-0' as const };
      assert.deepEqual([on(0, shard0).ownsApp(app(d)), on(1, shard0).ownsApp(app(d))], [true, false]);
    }
  });

  it('skip-reconcile: no shard owns the cluster, it still has a shard in the distribution', () => {
    const all = [0, 1].map((s) => on(s));
    assert.ok(all.every((o) => !o.ownsServer('https://skip.example')));
    assert.ok(all[0]!.shardOfServer.has('https://skip.example'));
  });

  it('quirk: a controller holding no shard (-1) owns the clusters with manual shard -1', () => {
    assert.deepEqual(on(-1).ownedServers, ['https://minus.example']);
    assert.equal(on(0).ownsServer('https://minus.example'), false);
    assert.equal(on(1).ownsServer('https://minus.example'), false);
  });
});
