/**
 * ShardClaimer and the start-up refusal on the embedded API server, with a fake clock for heartbeats and a
 * wall clock derived from it (docs/sharding.md, "Dynamic cluster distribution"; Argo CD
 * controller/sharding/sharding.go and controller/appcontroller.go readinessHealthCheck). Nothing here waits
 * on real time: the test steps the clock, then awaits `settled()`.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { connect, type ClusterConnection, type KubeClient } from '../../src/cluster/index.js';
import type { GitopsError } from '../../src/common/index.js';
import { FakeClock } from '../../src/common/index.js';
import {
  shardOwnership,
  checkStart,
  decodeShardMapping,
  SHARD_CONFIGMAP,
  ShardClaimer,
  parseReplicasFrom,
  type ShardChange,
  type ShardClaimerOptions,
} from '../../src/sharding/index.js';
import { api, embeddedOnly, useEmbeddedCluster } from '../support/embedded.js';

const NS = 'argocd';
const BASE = Date.parse('2026-08-22T10:00:00Z');
const CM_PATH = `/api/v1/namespaces/${NS}/configmaps/${SHARD_CONFIGMAP}`;
const DEPLOY = `/apis/apps/v1/namespaces/${NS}/deployments`;
const STS = `/apis/apps/v1/namespaces/${NS}/statefulsets`;

const workload = (kind: 'Deployment' | 'StatefulSet', name: string, replicas: number, labels = {}) => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name, namespace: NS, labels },
  spec: {
    replicas,
    ...(kind === 'StatefulSet' ? { serviceName: name } : {}),
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'c', image: 'example/controller:1' }] },
    },
  },
});

// Every test injects faults or counts requests (cluster.faults, .stats): the in-process server's own.
const internals = { skip: embeddedOnly('fault injection and request counts in every test') };

describe('ShardClaimer (embedded API server, fake clock)', internals, () => {
  const fx = useEmbeddedCluster();
  let conn: ClusterConnection;
  let client: KubeClient;
  let clock: FakeClock;
  let claimers: ShardClaimer[] = [];

  before(async () => {
    conn = await connect({
      kubeconfig: fx.kubeconfig,
      discovery: { cacheDir: join(fx.dir, 'discovery') },
      client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
    });
    client = conn.client;
    await api(fx.cluster, 'POST', '/api/v1/namespaces', { metadata: { name: NS } });
  });
  after(() => conn.close());

  beforeEach(async () => {
    for (const c of claimers) await c.stop();
    claimers = [];
    fx.cluster.faults.reset();
    clock = new FakeClock();
    for (const path of [
      CM_PATH,
      `${DEPLOY}/ctl`,
      `${DEPLOY}/argocd-application-controller`,
      `${DEPLOY}/other`,
    ]) {
      await api(fx.cluster, 'DELETE', path);
    }
    await api(fx.cluster, 'DELETE', `${STS}/argocd-application-controller`);
  });

  const claimer = (name: string, o: Partial<ShardClaimerOptions> = {}, changes?: ShardChange[]) => {
    const c = new ShardClaimer({
      client,
      namespace: NS,
      controllerName: name,
      replicas: 2,
      clock,
      now: () => BASE + clock.now(),
      ...(changes ? { onShardChange: (ch) => changes.push(ch) } : {}),
      ...o,
    });
    claimers.push(c);
    return c;
  };
  /**
   * Advances the fake clock one second at a time and lets every run end before the next second, so
   * controllers started a second apart heartbeat one after the other, as pods do (two controllers writing
   * at the same instant is the conflict tests' business).
   */
  const tick = async (seconds = 10) => {
    for (let i = 0; i < seconds; i++) {
      clock.step(1000);
      for (const c of claimers) await c.settled();
    }
  };
  /** Starts controllers one second apart. */
  const startStaggered = async (...list: ShardClaimer[]) => {
    for (const c of list) {
      await c.start();
      clock.step(1000);
    }
  };
  const mapping = async () => {
    const cm = await api(fx.cluster, 'GET', CM_PATH);
    assert.equal(cm.status, 200);
    return decodeShardMapping(cm.body.data.shardControllerMapping).map((e) => [
      e.shardNumber,
      e.controllerName,
      e.heartbeatMs === null ? null : (e.heartbeatMs - BASE) / 1000,
    ]);
  };

  it('two controllers split the shards; the first creates the ConfigMap', async () => {
    const a = claimer('ctl-a');
    const b = claimer('ctl-b');
    await startStaggered(a, b);
    // Start-up runs 4 times, each given the previous run's shard: run 1 creates the ConfigMap (a) or takes a
    // free entry (b); runs 2-4 are given that shard and so take their own entry "over".
    assert.deepEqual(
      [a.state().shard, a.state().how, b.state().shard, b.state().how],
      [0, 'takeover', 1, 'takeover'],
    );
    assert.deepEqual(await mapping(), [
      [0, 'ctl-a', 0],
      [1, 'ctl-b', 1],
    ]);
    await tick();
    assert.deepEqual(await mapping(), [
      [0, 'ctl-a', 10],
      [1, 'ctl-b', 11],
    ]);
    assert.equal(b.state().how, 'own', 'heartbeats find their own entry');
  });

  it('a controller that stops heartbeating loses its shard once stale (3 periods) to a new one', async () => {
    const changes: ShardChange[] = [];
    const a = claimer('ctl-a');
    const b = claimer('ctl-b');
    await startStaggered(a, b); // now t=2; ctl-b's last heartbeat is t=1
    await b.stop();
    // A replacement pod (new hostname) starts while ctl-b's claim is live: it holds nothing yet.
    const c = claimer('ctl-c', {}, changes);
    assert.equal((await c.start()).shard, -1);
    await tick(20); // ctl-c heartbeats at t=12 and t=22: ctl-b's claim is live until t=31
    assert.equal(c.state().shard, -1);
    await tick(10); // t=32: strictly after t=1 + 30 s
    assert.equal(c.state().shard, 1);
    assert.deepEqual(changes, [{ shard: 1, replicas: 2, previousShard: -1, previousReplicas: 2 }]);
    assert.equal(a.state().shard, 0, 'a survivor keeps its own shard');
    assert.deepEqual(await mapping(), [
      [0, 'ctl-a', 30],
      [1, 'ctl-c', 32],
    ]);
  });

  it('a requested shard held live is refused without --force-takeover, taken over with it', async () => {
    const changes: ShardChange[] = [];
    const a = claimer('ctl-a', {}, changes);
    await startStaggered(a, claimer('ctl-b'));
    const writes = fx.cluster.stats.writes();
    await assert.rejects(claimer('ctl-c', { requestedShard: 0 }).start(), (err: GitopsError) => {
      assert.equal(err.exitCode, 2);
      assert.equal(
        err.message,
        `configmap ${NS}/${SHARD_CONFIGMAP}: failed to claim shard 0: controller ctl-a holds it (heartbeat 2026-08-22T10:00:00Z, stale after 2026-08-22T10:00:30Z); stop it, or pass --force-takeover`,
      );
      return true;
    });
    assert.equal(fx.cluster.stats.writes(), writes, 'a refusal writes nothing');
    const c = claimer('ctl-c2', { requestedShard: 0, forceTakeover: true });
    assert.equal((await c.start()).shard, 0);
    await tick(); // ctl-a heartbeats at t=10
    // ctl-a no longer finds its name and every entry is held live: it holds nothing now.
    assert.equal(a.state().shard, -1);
    assert.deepEqual(changes, [{ shard: -1, replicas: 2, previousShard: 0, previousReplicas: 2 }]);
  });

  it('scale down resets the list (more entries than replicas); scale up appends', async () => {
    await api(fx.cluster, 'POST', DEPLOY, workload('Deployment', 'ctl', 3));
    const changes: Record<string, ShardChange[]> = { a: [], b: [], c: [] };
    const from = parseReplicasFrom('deployment/ctl');
    const a = claimer('ctl-a', { replicas: from }, changes.a);
    const b = claimer('ctl-b', { replicas: from }, changes.b);
    const c = claimer('ctl-c', { replicas: from }, changes.c);
    await startStaggered(a, b, c);
    assert.deepEqual(
      [a, b, c].map((x) => x.state().shard),
      [0, 1, 2],
    );

    await api(
      fx.cluster,
      'PATCH',
      `${DEPLOY}/ctl`,
      { spec: { replicas: 2 } },
      'application/merge-patch+json',
    );
    await tick();
    // ctl-a (t=10) finds 3 entries for 2 replicas, resets the list and takes the first free entry; ctl-b
    // (t=11) the next one; ctl-c (t=12) finds both held live.
    assert.deepEqual(
      [a, b, c].map((x) => [x.state().shard, x.state().replicas]),
      [
        [0, 2],
        [1, 2],
        [-1, 2],
      ],
    );
    assert.deepEqual(changes.a, [{ shard: 0, replicas: 2, previousShard: 0, previousReplicas: 3 }]);
    assert.deepEqual(changes.c, [{ shard: -1, replicas: 2, previousShard: 2, previousReplicas: 3 }]);
    assert.deepEqual(await mapping(), [
      [0, 'ctl-a', 10],
      [1, 'ctl-b', 11],
    ]);

    await api(
      fx.cluster,
      'PATCH',
      `${DEPLOY}/ctl`,
      { spec: { replicas: 3 } },
      'application/merge-patch+json',
    );
    await tick();
    assert.deepEqual(
      [a, b, c].map((x) => x.state().shard),
      [0, 1, 2],
    );
    assert.deepEqual(await mapping(), [
      [0, 'ctl-a', 20],
      [1, 'ctl-b', 21],
      [2, 'ctl-c', 22],
    ]);

    // Replicas 0: readiness fails (Argo CD: "replicas is not set or is less than 0"), nothing is written.
    await api(
      fx.cluster,
      'PATCH',
      `${DEPLOY}/ctl`,
      { spec: { replicas: 0 } },
      'application/merge-patch+json',
    );
    await assert.rejects(a.readiness(), /replica count is 0/);
    assert.equal(
      a.state().lastError,
      `configmap ${NS}/${SHARD_CONFIGMAP}: failed to claim a shard: the replica count is 0; the controller is not ready until it is at least 1`,
    );
    assert.equal(a.state().shard, 0);
    // The Deployment gone: the probe skips the claim and is ready (readinessHealthCheck).
    await api(fx.cluster, 'DELETE', `${DEPLOY}/ctl`);
    await a.readiness();
    assert.equal(a.state().how, 'skipped');
  });

  it('a missing Deployment at start is an error (GetClusterSharding)', async () => {
    await assert.rejects(
      claimer('ctl-a', { replicas: { deployment: 'ctl' } }).start(),
      (err: GitopsError) =>
        err.exitCode === 2 &&
        err.message.startsWith(`deployment ${NS}/ctl: failed to read its replica count`),
    );
  });

  it('replicas <= 1 at start: shard 0 and nothing written; the heartbeat then claims', async () => {
    const a = claimer('ctl-a', { replicas: 1 });
    assert.deepEqual([(await a.start()).shard, a.state().how], [0, 'start']);
    assert.equal((await api(fx.cluster, 'GET', CM_PATH)).status, 404);
    await tick();
    assert.deepEqual(await mapping(), [[0, 'ctl-a', 10]]);
    assert.equal(a.state().how, 'created');
  });

  it('conflicts (409) at start-up: 4 runs whatever happens; more only while the last one conflicts', async () => {
    await claimer('seed').start();
    await claimers.pop()!.stop();
    const updates = () => fx.cluster.stats.snapshot().byVerb['update'] ?? 0;
    let before = updates();
    fx.cluster.faults.failRequests({ verb: 'update', resource: 'configmaps', status: 409, times: 2 });
    assert.equal((await claimer('ctl-b').start()).shard, 1);
    assert.equal(updates() - before, 4, 'four runs, two of which conflicted');
    // Argo CD exits when the 4th run conflicts; here a 5th run settles it.
    before = updates();
    fx.cluster.faults.failRequests({ verb: 'update', resource: 'configmaps', status: 409, times: 4 });
    assert.equal((await claimer('ctl-c').start()).shard, -1, 'entries 0 and 1 are held live');
    assert.equal(updates() - before, 5);
    fx.cluster.faults.failRequests({ verb: 'update', resource: 'configmaps', status: 409, times: 32 });
    await assert.rejects(claimer('ctl-d').start(), (err: GitopsError) =>
      err.message.startsWith(
        `configmap ${NS}/${SHARD_CONFIGMAP}: failed to claim a shard: 32 runs in a row ended in a conflict: Operation cannot be fulfilled`,
      ),
    );
  });

  it('two controllers starting at the same instant on an empty namespace split the shards', async () => {
    const [a, b] = await Promise.all([claimer('ctl-a').start(), claimer('ctl-b').start()]);
    assert.deepEqual([a.shard, b.shard].sort(), [0, 1]);
  });

  it('quirk: a conflict makes start-up forget the requested shard until the first heartbeat', async () => {
    await claimer('seed').start();
    await claimers.pop()!.stop();
    // Entry 0 belongs to "seed" (live), entry 1 is free. The first run (requested shard 0) conflicts, so
    // the next run is given -1 and takes the first free entry, 1; the last two refresh it.
    fx.cluster.faults.failRequests({ verb: 'update', resource: 'configmaps', status: 409, times: 1 });
    const changes: ShardChange[] = [];
    const b = claimer('ctl-b', { requestedShard: 0, forceTakeover: true }, changes);
    assert.equal((await b.start()).shard, 1);
    // The first heartbeat runs with the requested shard again and takes entry 0 over.
    await tick();
    assert.equal(b.state().shard, 0);
    assert.deepEqual(await mapping(), [
      [0, 'ctl-b', 10],
      [1, 'ctl-b', 0],
    ]);
    assert.deepEqual(changes, [{ shard: 0, replicas: 2, previousShard: 1, previousReplicas: 2 }]);
  });

  it('a real conflict (another writer between GET and PUT) fails that heartbeat only', async () => {
    const a = claimer('ctl-a');
    await a.start();
    const realUpdate = client.update.bind(client);
    let interfered = false;
    client.update = async (info, obj, opts) => {
      if (!interfered) {
        interfered = true;
        const got = await api(fx.cluster, 'GET', CM_PATH);
        const labelled = { ...got.body, metadata: { ...got.body.metadata, labels: { touched: 'yes' } } };
        assert.equal((await api(fx.cluster, 'PUT', CM_PATH, labelled)).status, 200);
      }
      return realUpdate(info, obj, opts);
    };
    try {
      await assert.rejects(a.readiness(), (err: Error) => /conflict|modified/i.test(err.message));
      assert.equal(a.state().shard, 0);
      await a.readiness();
      assert.equal(a.state().lastError, undefined);
    } finally {
      client.update = realUpdate;
    }
  });

  it("refuses to start while Argo CD's controller has ready replicas; --force-takeover starts anyway", async () => {
    await api(fx.cluster, 'POST', STS, workload('StatefulSet', 'argocd-application-controller', 1));
    // Not ready: no refusal.
    await claimer('early').start();
    await claimers.pop()!.stop();
    await api(fx.cluster, 'DELETE', CM_PATH);
    await api(
      fx.cluster,
      'PATCH',
      `${STS}/argocd-application-controller/status`,
      { status: { readyReplicas: 1 } },
      'application/merge-patch+json',
    );
    const writes = fx.cluster.stats.writes();
    await assert.rejects(claimer('ctl-a').start(), (err: GitopsError) => {
      assert.equal(err.exitCode, 2);
      assert.equal(
        err.message,
        `statefulset ${NS}/argocd-application-controller: failed to start: Argo CD's application controller runs here with 1 ready replica; scale it to 0 first, or pass --force-takeover`,
      );
      return true;
    });
    assert.equal(fx.cluster.stats.writes(), writes, 'a refusal writes nothing');
    assert.equal((await claimer('ctl-b', { forceTakeover: true }).start()).shard, 0);
  });

  it('a Deployment labelled app.kubernetes.io/name=argocd-application-controller counts; our own --replicas-from does not', async () => {
    const labels = { 'app.kubernetes.io/name': 'argocd-application-controller' };
    const ready = (path: string) =>
      api(
        fx.cluster,
        'PATCH',
        `${path}/status`,
        { status: { readyReplicas: 2 } },
        'application/merge-patch+json',
      );
    await api(fx.cluster, 'POST', DEPLOY, workload('Deployment', 'other', 2, labels));
    await ready(`${DEPLOY}/other`);
    await assert.rejects(claimer('ctl-a').start(), {
      name: 'UsageError',
      message: /^deployment argocd\/other: failed to start: .* 2 ready replicas;/,
    });
    await api(fx.cluster, 'DELETE', `${DEPLOY}/other`);
    // Our own Deployment may carry Argo CD's name (standing in for it): it is where R comes from.
    await api(fx.cluster, 'POST', DEPLOY, workload('Deployment', 'argocd-application-controller', 2, labels));
    await ready(`${DEPLOY}/argocd-application-controller`);
    const own = claimer('ctl-a', { replicas: parseReplicasFrom('deployment/argocd-application-controller') });
    assert.equal((await own.start()).shard, 0);
  });

  it('static mode (--shard I --replicas N): refused while another controller holds shard I live', async () => {
    await claimer('ctl-a').start();
    const guard = (shard: number, nowMs: number) =>
      checkStart({
        client,
        namespace: NS,
        controllerName: 'static',
        mode: { dynamic: false, shard },
        heartbeatSeconds: 10,
        nowMs,
      });
    await assert.rejects(guard(0, BASE + 30_000), /failed to claim shard 0: controller ctl-a holds it/);
    await guard(1, BASE); // entry 1 is free
    await guard(0, BASE + 31_000); // stale
  });

  it("clusters follow the claims: two controllers split them, a replacement takes the dead one's over", async () => {
    const b64 = (x: string) => Buffer.from(x).toString('base64');
    const secrets = ['1', '2', '3', '4'].map((uid) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `c${uid}`, uid, labels: { 'argocd.argoproj.io/secret-type': 'cluster' } },
      data: { server: b64(`https://c${uid}.example`) },
    }));
    const owned = (x: ShardClaimer) =>
      shardOwnership({
        shard: x.state().shard,
        replicas: x.state().replicas,
        algorithm: 'legacy',
        clusterSecrets: secrets,
        applications: [],
        inClusterEnabled: false,
      }).ownedServers;
    const a = claimer('ctl-a');
    const b = claimer('ctl-b');
    await startStaggered(a, b);
    // Legacy, R = 2 (FNV-1a of the UID mod 2): IDs 1 and 3 on shard 0, 2 and 4 on shard 1.
    assert.deepEqual(owned(a), ['https://c1.example', 'https://c3.example']);
    assert.deepEqual(owned(b), ['https://c2.example', 'https://c4.example']);
    await b.stop();
    const c = claimer('ctl-c');
    await c.start();
    assert.deepEqual(owned(c), []);
    await tick(30);
    assert.deepEqual(owned(c), ['https://c2.example', 'https://c4.example']);
  });

  it('a value Argo CD cannot decode fails the claim with one line naming the ConfigMap', async () => {
    await api(fx.cluster, 'POST', `/api/v1/namespaces/${NS}/configmaps`, {
      metadata: { name: SHARD_CONFIGMAP },
      data: {
        shardControllerMapping: '[{"ShardNumber":0,"ControllerName":"a","HeartbeatTime":"yesterday"}]',
      },
    });
    await assert.rejects(claimer('ctl-a').start(), {
      message: `configmap ${NS}/${SHARD_CONFIGMAP}: failed to read shardControllerMapping: [0].HeartbeatTime: parsing time "yesterday" as RFC 3339 failed (Argo CD's controller fails on it too; fix or delete the ConfigMap)`,
    });
  });

  it('stop(): no more heartbeats, the claim is left to turn stale', async () => {
    const a = claimer('ctl-a');
    await a.start();
    await a.stop();
    const writes = fx.cluster.stats.writes();
    await tick(40);
    assert.equal(fx.cluster.stats.writes(), writes);
    assert.deepEqual(await mapping(), [
      [0, 'ctl-a', 0],
      [1, '', null],
    ]);
  });

  it('flags: --replicas-from, --shard and the heartbeat period are checked', () => {
    assert.deepEqual(parseReplicasFrom('deploy/x'), { deployment: 'x' });
    assert.throws(() => parseReplicasFrom('statefulset/x'), /flag --replicas-from: failed to parse/);
    assert.throws(() => claimer('x', { requestedShard: -2 }), /flag --shard: failed to parse/);
    claimers.pop();
    assert.equal(claimer('x', { heartbeatSeconds: 61 }).heartbeatSeconds, 10);
    assert.equal(claimer('y', { heartbeatSeconds: '30' }).heartbeatSeconds, 30);
  });
});
