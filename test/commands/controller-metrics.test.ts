/**
 * The controller's metrics as the command wires them (src/commands/controller-flags.ts `controllerMetrics`
 * around `runController`), on the embedded API server, scraped over HTTP: app series follow the Applications
 * this controller processes, as Argo CD's `appCollector.Collect` lists them from its Application lister
 * filtered by `canProcessApp` (controller/metrics/metrics.go):
 * - an Application being deleted stays listed with `operation="delete"` (and its status's sync, health and
 *   conditions) until its finalizers are gone; once deleted, its `argocd_app_info`, `argocd_app_labels` and
 *   `argocd_app_condition` series are gone at the next scrape, while the counters (`argocd_app_sync_total`,
 *   `argocd_app_sync_duration_seconds_total`) and the `argocd_app_reconcile` histogram keep theirs (Argo CD
 *   never deletes them for an app; only `--metrics-cache-expiration` resets them all);
 * - a controller lists only the apps of its shards, so replicas never report an app twice.
 * Every wait follows an event or object change the step under test must produce.
 */
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { controllerMetrics } from '../../src/commands/controller-flags.js';
import type { ControllerFlagValues } from '../../src/commands/controller-flags.js';
import { runController } from '../../src/controller/index.js';
import type { ControllerEvent, LoopEvent } from '../../src/controller/index.js';
import type { KubeObject } from '../../src/cluster/index.js';
import { createSourceService } from '../../src/source/index.js';
import { APP_PROJECT_CRD, APPLICATION_CRD } from '../support/argocd.js';
import { api, useEmbeddedCluster, waitForDeletion, waitForObject } from '../support/embedded.js';
import { TestRepo, appYaml, cm } from '../support/git.js';
import { connectAs, createNamespaces, newCacheRoot } from '../controller/setup.js';
import { find, scrape } from '../metrics/exposition.js';

type Event = LoopEvent | ControllerEvent;
const APPS = '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications';
const CRD = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const T = { timeout: 60_000 };

/** One controller with `--metrics-addr 127.0.0.1:0`, its events, and a way to wait for one. */
async function startController(
  fx: ReturnType<typeof useEmbeddedCluster>,
  cacheRoot: string,
  extra: Partial<Parameters<typeof runController>[0]> = {},
) {
  const abort = new AbortController();
  const flags = {
    'argocd-namespace': 'argocd',
    'metrics-addr': '127.0.0.1:0',
    'metrics-application-labels': ['team'],
    'metrics-application-conditions': ['DeletionError'],
  } as ControllerFlagValues;
  const served = (await controllerMetrics(flags, abort.signal))!;
  const source = createSourceService({ cacheRoot });
  const events: Event[] = [];
  const waiters: Array<{ match: (e: Event) => boolean; resolve: () => void }> = [];
  const done = runController({
    argocdNamespace: 'argocd',
    kubeconfig: fx.kubeconfig,
    client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
    signal: abort.signal,
    finalizerRetryMs: 50,
    loopOptions: {
      kubeconfig: fx.kubeconfig,
      discovery: { cacheDir: join(fx.dir, `discovery-${Math.random()}`), ttlMs: 0 },
      client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
      eventBatchMs: 10,
      appResyncMs: 0,
      diffText: false,
      source,
    },
    ...served.hooks,
    ...extra,
    onEvent: (e) => {
      served.onEvent(e);
      events.push(e);
      for (const w of [...waiters])
        if (w.match(e)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
    },
  });
  const until = (match: (e: Event) => boolean, from = 0): Promise<void> =>
    events.slice(from).some(match)
      ? Promise.resolve()
      : new Promise((resolve) => waiters.push({ match, resolve }));
  await until((e) => e.type === 'controller-ready');
  return {
    events,
    until,
    scrape: async () => (await scrape(`${served.url}/metrics`)).exposition,
    stop: async () => {
      abort.abort();
      await done;
      await served.close();
      await source.close();
    },
  };
}

describe('controller metrics: deleted apps and shards, as Argo CD lists Applications', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let controller: Awaited<ReturnType<typeof startController>>;

  const create = async (name: string, extra: Record<string, unknown> = {}): Promise<void> => {
    const body = {
      ...(parse(appYaml(name, repo.url, name, { namespace: name })) as KubeObject),
      ...extra,
    };
    body.metadata = {
      ...body.metadata,
      namespace: 'argocd',
      labels: { team: 'blue' },
      ...(extra['metadata'] ?? {}),
    };
    const res = await api(fx.cluster, 'POST', APPS, body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
  };
  const patch = async (path: string, body: unknown): Promise<void> => {
    const res = await api(fx.cluster, 'PATCH', path, body, 'application/merge-patch+json');
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };

  before(async () => {
    const conn = await connectAs(fx);
    const crdInfo = await conn.discovery.resolve({
      group: 'apiextensions.k8s.io',
      kind: 'CustomResourceDefinition',
    });
    await conn.client.create(crdInfo, structuredClone(APPLICATION_CRD) as unknown as KubeObject);
    await conn.client.create(crdInfo, structuredClone(APP_PROJECT_CRD) as unknown as KubeObject);
    await createNamespaces(conn, ['argocd', 'kept', 'gone']);
    conn.close();
    await waitForObject(fx.cluster, `${CRD}/applications.argoproj.io`, (o) =>
      (o?.status?.conditions ?? []).some(
        (c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True',
      ),
    );
    repo.commit({ 'kept/a.yaml': cm('kept-a'), 'gone/a.yaml': cm('gone-a') });
    controller = await startController(fx, cacheRoot);
  });

  after(async () => {
    await controller?.stop();
    repo.remove();
  });

  it(
    'an app being deleted is listed with operation="delete"; once deleted its gauges go, counters stay',
    T,
    async () => {
      const operation = { sync: {}, initiatedBy: { username: 'tester' } };
      await create('kept', { operation });
      await create('gone', {
        operation,
        metadata: {
          name: 'gone',
          finalizers: ['resources-finalizer.argocd.argoproj.io', 'example.com/hold'],
        },
      });
      for (const name of ['kept', 'gone'])
        await waitForObject(
          fx.cluster,
          `${APPS}/${name}`,
          (o) => o?.status?.operationState?.phase === 'Succeeded' && o.status.sync?.status === 'Synced',
        );
      const before = await controller.scrape();
      assert.deepEqual(
        find(before, 'argocd_app_info')
          .map((s) => s.labels['name'])
          .sort(),
        ['gone', 'kept'],
      );
      assert.equal(find(before, 'argocd_app_sync_total', { name: 'gone', phase: 'Succeeded' }).length, 1);

      // Deleting: the controller deletes its resources and removes its own finalizer; another one holds it.
      assert.equal((await api(fx.cluster, 'DELETE', `${APPS}/gone`)).status, 200);
      const deleting = await waitForObject(
        fx.cluster,
        `${APPS}/gone`,
        (o) => JSON.stringify(o?.metadata?.finalizers) === JSON.stringify(['example.com/hold']),
      );
      assert.equal((await api(fx.cluster, 'GET', '/api/v1/namespaces/gone/configmaps/gone-a')).status, 404);
      await patch(`${APPS}/gone`, {
        status: { conditions: [{ type: 'DeletionError', message: 'held by example.com/hold' }] },
      });
      // The controller's watch delivers Application events in order: once it added the next Application,
      // it has seen the status patch before it.
      const seen = async (name: string): Promise<void> => {
        const mark = controller.events.length;
        await create(name);
        await controller.until((e) => e.type === 'app-added' && e.app === name, mark);
      };
      await seen('late');
      const during = await controller.scrape();
      const info = find(during, 'argocd_app_info', { name: 'gone' });
      assert.equal(info.length, 1, 'still listed while its finalizers run');
      assert.equal(info[0]!.labels['operation'], 'delete');
      assert.equal(info[0]!.labels['sync_status'], deleting.status.sync.status);
      assert.equal(info[0]!.labels['health_status'], deleting.status.health.status);
      assert.equal(find(during, 'argocd_app_labels', { name: 'gone', label_team: 'blue' }).length, 1);
      assert.equal(
        find(during, 'argocd_app_condition', { name: 'gone', condition: 'DeletionError' })[0]?.value,
        1,
      );

      // Deleted: its gauges are gone at the next scrape; the counters and the histogram keep their series.
      await patch(`${APPS}/gone`, { metadata: { finalizers: null } });
      await waitForDeletion(fx.cluster, `${APPS}/gone`);
      await seen('later');
      const afterwards = await controller.scrape();
      for (const name of ['argocd_app_info', 'argocd_app_labels', 'argocd_app_condition'])
        assert.deepEqual(find(afterwards, name, { name: 'gone' }), [], `${name} of the deleted app`);
      assert.equal(find(afterwards, 'argocd_app_info', { name: 'kept' }).length, 1);
      assert.equal(
        find(afterwards, 'argocd_app_sync_total', { name: 'gone', phase: 'Succeeded' })[0]?.value,
        1,
      );
      assert.equal(find(afterwards, 'argocd_app_sync_duration_seconds_total', { name: 'gone' }).length, 1);
      assert.ok(find(afterwards, 'argocd_app_reconcile_count', { namespace: 'argocd' })[0]!.value > 0);
    },
  );

  it('a controller lists only the apps of its shards (another replica lists the rest)', T, async () => {
    // Shard 1 of 2 (legacy distribution): the in-cluster destination is shard 0's.
    const other = await startController(fx, cacheRoot, {
      sharding: { dynamic: false, shard: 1, replicas: 2, algorithm: 'legacy' },
      forceTakeover: true,
    });
    try {
      await other.until((e) => e.type === 'shard');
      const shard = other.events.find((e) => e.type === 'shard');
      assert.ok(shard?.type === 'shard' && !shard.owned.includes('https://kubernetes.default.svc'));
      assert.ok(
        other.events.some((e) => e.type === 'app-added' && e.app === 'kept'),
        'its loop holds the app',
      );
      assert.deepEqual(find(await other.scrape(), 'argocd_app_info'), []);
      assert.equal(find(await controller.scrape(), 'argocd_app_info', { name: 'kept' }).length, 1);
    } finally {
      await other.stop();
    }
  });
});
