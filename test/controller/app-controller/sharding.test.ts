/**
 * Two `kubectl gitops controller`s with dynamic cluster distribution (src/controller/app-controller/run.ts over
 * src/sharding's ShardClaimer) on two embedded API servers: the management cluster (in-cluster, where the
 * Argo CD namespace lives) and a remote one reached through a cluster Secret. With round-robin and two
 * replicas each controller claims one shard and runs only the operations of the apps on its cluster.
 * Then one controller is killed (stopped without a word: its claim is left to turn stale) and a replacement
 * (a new hostname, as a Deployment's new pod) started: it holds no shard while the dead one's heartbeat is
 * live, takes the shard once it is stale (3 heartbeat periods: about 30 s of real time here, the shortest
 * Argo CD allows), and runs that cluster's apps. (The same procedure on a fake clock, with every timing
 * rule, is test/sharding/shard-claimer.test.ts.)
 */
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import type { KubeObject } from '../../../src/cluster/index.js';
import { runController } from '../../../src/controller/index.js';
import type { ControllerEvent, LoopEvent } from '../../../src/controller/index.js';
import { createSourceService } from '../../../src/source/index.js';
import type { SourceService } from '../../../src/source/index.js';
import { APP_PROJECT_CRD, APPLICATION_CRD } from '../../support/argocd.js';
import { api, useEmbeddedCluster, waitForObject, crdsEstablished } from '../../support/embedded.js';
import { TestRepo, appYaml, cm } from '../../support/git.js';
import { newCacheRoot } from '../setup.js';

type Event = LoopEvent | ControllerEvent;
const APPS = '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications';

describe('two controllers with dynamic cluster distribution', () => {
  const mgmt = useEmbeddedCluster();
  const remote = useEmbeddedCluster(
    { namespaces: ['default', 'kube-system', 'web'] },
    { alwaysEmbedded: true },
  );
  const repo = new TestRepo();
  const abort = new AbortController();
  const runs: Array<{
    done: Promise<unknown>;
    source: SourceService;
    events: Event[];
    stop: AbortController;
  }> = [];
  const start = (name: string): void => {
    const source = createSourceService({ cacheRoot: newCacheRoot() });
    const events: Event[] = [];
    const stop = new AbortController();
    const done = runController({
      argocdNamespace: 'argocd',
      kubeconfig: mgmt.kubeconfig,
      signal: AbortSignal.any([abort.signal, stop.signal]),
      controllerName: name,
      sharding: { dynamic: true, requestedShard: -1, replicas: 2, algorithm: 'round-robin' },
      loopOptions: {
        source,
        kubeconfig: mgmt.kubeconfig,
        discovery: { cacheDir: join(mgmt.dir, `discovery-${name}`), ttlMs: 0 },
        client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
        eventBatchMs: 10,
        appResyncMs: 0,
        diffText: false,
      },
      onEvent: (e) => events.push(e),
    });
    runs.push({ done, source, events, stop });
  };
  const lastShard = (events: Event[]) =>
    events.filter((e) => e.type === 'shard').at(-1) as
      Extract<ControllerEvent, { type: 'shard' }> | undefined;

  before(async () => {
    for (const crd of [APPLICATION_CRD, APP_PROJECT_CRD])
      assert.equal(
        (await api(mgmt.cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd))
          .status,
        201,
      );
    await crdsEstablished(mgmt);
    for (const name of ['argocd', 'web'])
      await api(mgmt.cluster, 'POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'remote',
        namespace: 'argocd',
        labels: { 'argocd.argoproj.io/secret-type': 'cluster' },
      },
      stringData: { name: 'remote', server: remote.cluster.url, config: '{}' },
    };
    assert.equal((await api(mgmt.cluster, 'POST', '/api/v1/namespaces/argocd/secrets', secret)).status, 201);
    repo.commit({ 'web/cm.yaml': cm('web') });
    for (const [name, server] of [
      ['local', 'https://kubernetes.default.svc'],
      ['far', remote.cluster.url],
    ] as const) {
      const app = parse(
        appYaml(name, repo.url, 'web', { namespace: 'web' }).replace(
          'https://kubernetes.default.svc',
          server,
        ),
      ) as KubeObject;
      app.metadata = { ...app.metadata, namespace: 'argocd' };
      const res = await api(mgmt.cluster, 'POST', APPS, { ...app, operation: { sync: {} } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    for (const name of ['ctl-a', 'ctl-b']) start(name);
  });

  after(async () => {
    abort.abort();
    for (const r of runs) {
      await r.done.catch(() => undefined);
      await r.source.close();
    }
    repo.remove();
  });

  it(
    'each claims one shard and runs the operations of its own cluster only',
    { timeout: 120_000 },
    async () => {
      // Bounded by the test's time only: the controllers start (claims, watches, a live cache of every
      // kind the cluster serves) and then sync, which took 3 to 7 s on an idle real server but more than
      // 15 s on a loaded one (the operation had started 12 s after the apps were written).
      for (const name of ['local', 'far'])
        await waitForObject(
          mgmt.cluster,
          `${APPS}/${name}`,
          (o) => o?.status?.operationState?.phase === 'Succeeded',
          110_000,
        );
      const ran = runs.map((r) =>
        r.events.flatMap((e) => (e.type === 'app-operation-done' ? [e.app] : [])).sort(),
      );
      assert.deepEqual(ran.flat().sort(), ['far', 'local'], 'each operation ran once');
      assert.equal(ran[0]!.length, 1);
      assert.equal(ran[1]!.length, 1);
      const shards = runs.map(
        (r) =>
          r.events.filter((e) => e.type === 'shard').at(-1) as Extract<ControllerEvent, { type: 'shard' }>,
      );
      assert.deepEqual(shards.map((s) => s.shard).sort(), [0, 1]);
      assert.deepEqual(
        shards.map((s) => s.owned.length),
        [1, 1],
      );
      assert.equal((await api(remote.cluster, 'GET', '/api/v1/namespaces/web/configmaps/web')).status, 200);
      assert.equal((await api(mgmt.cluster, 'GET', '/api/v1/namespaces/web/configmaps/web')).status, 200);
    },
  );
  it(
    "a killed controller's shard is taken by its replacement once stale, and that cluster's apps run there",
    { timeout: 120_000 },
    async () => {
      // ctl-b dies: no more heartbeats, its claim stays in the ConfigMap.
      const dead = runs[1]!;
      const deadShard = lastShard(dead.events)!;
      dead.stop.abort();
      await dead.done.catch(() => undefined);
      const deadApp = deadShard.owned[0] === remote.cluster.url ? 'far' : 'local';
      start('ctl-c');
      const replacement = runs[2]!;
      // Ask for an operation on the dead controller's app: only the replacement may run it, after the takeover.
      const patched = await api(
        mgmt.cluster,
        'PATCH',
        `${APPS}/${deadApp}`,
        { operation: { sync: {}, initiatedBy: { username: 'test' } } },
        'application/merge-patch+json',
      );
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      await waitForObject(
        mgmt.cluster,
        `${APPS}/${deadApp}`,
        (o) => !o?.operation && o?.status?.operationState?.operation?.initiatedBy?.username === 'test',
        110_000,
      );
      const taken = lastShard(replacement.events);
      assert.equal(taken?.shard, deadShard.shard, "the replacement holds the dead controller's shard");
      assert.deepEqual(taken?.owned, deadShard.owned);
      const ranBy = runs.map((r) =>
        r.events.some(
          (e) =>
            e.type === 'app-operation-done' && e.app === deadApp && e.request.initiatedBy.username === 'test',
        ),
      );
      assert.deepEqual(ranBy, [false, false, true], 'run by the replacement only');
    },
  );
});
