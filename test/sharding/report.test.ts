/** Distribution summaries, scaling moves, shard claims and live configuration resolution. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { computeDistribution, summarize } from '../../src/sharding/report.js';
import { heartbeatPeriod, parseShardClaims } from '../../src/sharding/shard-claims.js';
import { readLiveInputs, type ArgoNamespaceReader } from '../../src/sharding/live.js';
import type { KubeObject } from '../../src/util/yaml-docs.js';
import type { ShardCluster } from '../../src/sharding/types.js';

const c = (id: string, apps: number, extra: Partial<ShardCluster> = {}): ShardCluster => ({
  id,
  server: `https://${id}`,
  name: id,
  apps,
  ...extra,
});

describe('summaries', () => {
  test('per-shard counts, % of average and imbalance; unmanaged clusters are apart', () => {
    const clusters = [
      c('a', 10),
      c('b', 20),
      c('c', 30),
      c('d', 5, { skipReconcile: true }),
      c('e', 7, { manualShard: -1 }),
    ];
    const s = summarize(clusters, [0, 0, 1, 1, -1], 2);
    assert.deepEqual(
      s.shards.map((x) => [x.shard, x.clusters, x.apps, x.appsPercentOfAverage, x.clustersPercentOfAverage]),
      [
        [0, 2, 30, 100, 133.3],
        [1, 1, 30, 100, 66.7],
      ],
    );
    assert.deepEqual(s.unmanaged, { clusters: 2, apps: 12 });
    assert.deepEqual(s.average, { clusters: 1.5, apps: 30 });
    assert.deepEqual(s.imbalance, { clusters: 1.333, apps: 1 });
  });

  test('no apps at all: percentages are null, not NaN', () => {
    const s = summarize([c('a', 0)], [0], 2);
    assert.equal(s.shards[0]!.appsPercentOfAverage, null);
    assert.equal(s.imbalance.apps, null);
  });
});

describe('scaling moves', () => {
  test('round-robin from 2 to 3 replicas moves exactly the clusters whose index mod R changes', () => {
    const clusters = ['1', '2', '3', '4', '5', '6'].map((id) => c(id, 1));
    const d = computeDistribution(clusters, { replicas: 3, fromReplicas: 2, algorithms: ['round-robin'] });
    assert.equal(d.moves!['round-robin']!.apps, 4);
    // Positions 0..5: mod 2 = 0,1,0,1,0,1; mod 3 = 0,1,2,0,1,2 -> positions 2,3,4,5 move.
    assert.deepEqual(
      d.moves!['round-robin']!.moved.map((m) => [m.name, m.from, m.to]),
      [
        ['3', 0, 2],
        ['4', 1, 0],
        ['5', 0, 1],
        ['6', 1, 2],
      ],
    );
  });

  test('consistent-hashing from 3 to 2 moves only clusters that were on shard 2 (no apps: pure ring)', () => {
    const clusters = Array.from({ length: 133 }, (_, i) => c(String(i).padStart(6, '0'), 0));
    const d = computeDistribution(clusters, {
      replicas: 2,
      fromReplicas: 3,
      algorithms: ['consistent-hashing'],
    });
    const m = d.moves!['consistent-hashing']!;
    assert.ok(m.clusters > 0);
    for (const x of m.moved) assert.equal(x.from, 2, `${x.name} moved from ${x.from}`);
  });
});

describe('shard claims', () => {
  test('heartbeat period: default 10, out of range or unparsable means 10', () => {
    assert.equal(heartbeatPeriod(undefined), 10);
    assert.equal(heartbeatPeriod('30'), 30);
    assert.equal(heartbeatPeriod('9'), 10);
    assert.equal(heartbeatPeriod('61'), 10);
    assert.equal(heartbeatPeriod('x'), 10);
  });

  test('stale strictly after heartbeat + 3 periods; null is always stale; "" is unclaimed', () => {
    const json =
      '[{"ShardNumber":0,"ControllerName":"ctl-a","HeartbeatTime":"2026-08-22T10:00:00Z"},' +
      '{"ShardNumber":1,"ControllerName":"ctl-b","HeartbeatTime":"2026-08-22T09:59:29Z"},' +
      '{"ShardNumber":2,"ControllerName":"","HeartbeatTime":null}]';
    const now = new Date('2026-08-22T10:00:00Z');
    const claims = parseShardClaims(json, now, 10);
    assert.deepEqual(
      claims.claims.map((x) => [x.shard, x.controller, x.stale]),
      [
        [0, 'ctl-a', false],
        [1, 'ctl-b', true],
        [2, null, true],
      ],
    );
    // Exactly at the timeout is not stale yet.
    assert.equal(parseShardClaims(json, new Date('2026-08-22T10:00:30Z'), 10).claims[0]!.stale, false);
    assert.equal(parseShardClaims(json, new Date('2026-08-22T10:00:31Z'), 10).claims[0]!.stale, true);
    assert.throws(() => parseShardClaims('{"a":1}', now, 10), /not a JSON array/);
  });
});

describe('live configuration', () => {
  function fakeReader(objects: {
    configMaps?: Record<string, KubeObject>;
    workloads?: Record<string, KubeObject>;
  }): ArgoNamespaceReader {
    return {
      contextName: 'fake',
      listSecrets: async () => [],
      listApplications: async () => [],
      getConfigMap: async (_ns, name) => objects.configMaps?.[name],
      getWorkload: async (_ns, kind, name) => objects.workloads?.[`${kind}/${name}`],
    };
  }
  const workload = (kind: string, env: unknown[], replicas?: number): KubeObject => ({
    apiVersion: 'apps/v1',
    kind,
    metadata: { name: 'argocd-application-controller' },
    spec: { replicas, template: { spec: { containers: [{ name: 'argocd-application-controller', env }] } } },
  });
  const now = new Date('2026-08-22T10:00:00Z');

  test('StatefulSet: algorithm from a configMapKeyRef, replicas from ARGOCD_CONTROLLER_REPLICAS', async () => {
    const reader = fakeReader({
      configMaps: {
        'argocd-cmd-params-cm': { data: { 'controller.sharding.algorithm': 'round-robin' } },
        'argocd-cm': { data: { 'cluster.inClusterEnabled': 'false' } },
      },
      workloads: {
        'StatefulSet/argocd-application-controller': workload('StatefulSet', [
          { name: 'ARGOCD_CONTROLLER_REPLICAS', value: '3' },
          {
            name: 'ARGOCD_CONTROLLER_SHARDING_ALGORITHM',
            valueFrom: {
              configMapKeyRef: { name: 'argocd-cmd-params-cm', key: 'controller.sharding.algorithm' },
            },
          },
        ]),
      },
    });
    const inputs = await readLiveInputs(reader, 'argocd', now);
    assert.deepEqual(inputs.installed, {
      workload: 'StatefulSet/argocd-application-controller',
      algorithm: 'round-robin',
      replicas: 3,
      dynamic: false,
    });
    assert.equal(inputs.inClusterEnabled, false);
    assert.equal(inputs.claims, undefined);
  });

  test('unparsable replicas env is 0; no workload falls back to argocd-cmd-params-cm', async () => {
    const bad = fakeReader({
      workloads: {
        'StatefulSet/argocd-application-controller': workload('StatefulSet', [
          { name: 'ARGOCD_CONTROLLER_REPLICAS', value: 'two' },
        ]),
      },
    });
    assert.equal((await readLiveInputs(bad, 'argocd', now)).installed.replicas, 0);
    const none = fakeReader({
      configMaps: {
        'argocd-cmd-params-cm': { data: { 'controller.sharding.algorithm': 'consistent-hashing' } },
      },
    });
    assert.deepEqual((await readLiveInputs(none, 'argocd', now)).installed, {
      workload: null,
      algorithm: 'consistent-hashing',
      replicas: null,
      dynamic: false,
    });
  });

  test('dynamic distribution: Deployment replicas and the shard-claim ConfigMap with the heartbeat env', async () => {
    const reader = fakeReader({
      configMaps: {
        'argocd-app-controller-shard-cm': {
          data: {
            shardControllerMapping:
              '[{"ShardNumber":0,"ControllerName":"ctl-0","HeartbeatTime":"2026-08-22T09:59:00Z"}]',
          },
        },
      },
      workloads: {
        'Deployment/argocd-application-controller': workload(
          'Deployment',
          [
            { name: 'ARGOCD_ENABLE_DYNAMIC_CLUSTER_DISTRIBUTION', value: 'true' },
            { name: 'ARGOCD_CONTROLLER_REPLICAS', value: '9' },
            { name: 'ARGOCD_CONTROLLER_HEARTBEAT_TIME', value: '30' },
          ],
          2,
        ),
      },
    });
    const inputs = await readLiveInputs(reader, 'argocd', now);
    assert.equal(inputs.installed.replicas, 2, 'the env var is ignored in dynamic mode');
    assert.equal(inputs.installed.dynamic, true);
    assert.equal(inputs.claims!.heartbeatSeconds, 30);
    assert.equal(inputs.claims!.claims[0]!.stale, false, '60 s old with a 90 s timeout');
  });
});
