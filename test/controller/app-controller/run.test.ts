/**
 * `kubectl gitops controller` (src/controller/app-controller/run.ts) on the embedded API server with real Git
 * repositories and Argo CD's CRDs (no status subresource, as Argo CD's): an `operation` written to a live
 * Application is run, its `status.operationState` written, `operation` cleared, history appended; status
 * writes are one patch of the changed fields per reconcile and none for a no-op one; an automated app
 * syncs a new commit; a failed revision is not retried; a deleted Application with the resources finalizer
 * has its resources deleted first. Every wait follows an event the step under test must produce.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/cluster/index.js';
import { skipsReconcile } from '../../../src/controller/app-controller/run.js';
import type { ControllerEvent } from '../../../src/controller/index.js';
import { api, useEmbeddedCluster, waitForDeletion, waitForObject } from '../../support/embedded.js';
import { TestRepo, appYaml, cm } from '../../support/git.js';
import { newCacheRoot } from '../setup.js';
import { APPS, startController } from './harness.js';
import type { ControllerHarness, Event } from './harness.js';

const T = { timeout: 60_000 };

describe('kubectl gitops controller on the embedded API server', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let h: ControllerHarness;
  let events: Event[];
  const until = (match: (e: Event) => boolean, from = 0): Promise<Event> => h.until(match, from);
  const create = (yaml: string, extra: Record<string, unknown> = {}): Promise<void> => h.create(yaml, extra);
  const patchApp = (name: string, patch: unknown): Promise<void> => h.patchApp(name, patch);
  const getApp = (name: string): Promise<any> => h.getApp(name); // eslint-disable-line @typescript-eslint/no-explicit-any

  before(async () => {
    repo.commit({
      'op/a.yaml': cm('op-a'),
      'auto/a.yaml': cm('auto-a'),
      'bad/a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad-a\ndata:\n  n: 1\n',
      'gone/a.yaml':
        cm('gone-a') +
        '---\n' +
        cm('gone-kept', '  annotations:\n    argocd.argoproj.io/sync-options: Delete=false\n'),
    });
    h = await startController(fx, cacheRoot, ['op', 'auto', 'bad', 'gone'], { reload: true });
    events = h.events;
  });

  after(async () => {
    await h.stop();
    repo.remove();
  });

  it(
    'runs an operation written to the Application: operationState, operation cleared, history',
    T,
    async () => {
      await create(appYaml('op', repo.url, 'op', { namespace: 'op' }), {
        operation: { sync: { prune: true }, initiatedBy: { username: 'alice' } },
      });
      const app = await waitForObject(
        fx.cluster,
        `${APPS}/op`,
        (o) =>
          o?.status?.operationState?.phase === 'Succeeded' && o.operation === undefined && o.status.history,
      );
      const st = app.status;
      assert.equal(st.operationState.operation.initiatedBy.username, 'alice');
      assert.equal(st.operationState.syncResult.revision, repo.head());
      assert.deepEqual(
        st.operationState.syncResult.resources.map((r: any) => [r.kind, r.name, r.status]), // eslint-disable-line @typescript-eslint/no-explicit-any
        [['ConfigMap', 'op-a', 'Synced']],
      );
      assert.equal(st.history.length, 1);
      assert.equal(st.history[0].id, 0);
      assert.equal(st.history[0].revision, repo.head());
      assert.deepEqual(st.history[0].initiatedBy, { username: 'alice' });
      const cmRes = await api(fx.cluster, 'GET', '/api/v1/namespaces/op/configmaps/op-a');
      assert.equal(cmRes.status, 200);
      // The refresh after the operation writes the app Synced.
      await waitForObject(fx.cluster, `${APPS}/op`, (o) => o?.status?.sync?.status === 'Synced');
      const synced = await getApp('op');
      assert.equal(synced.status.sync.revision, repo.head());
      assert.equal(synced.status.controllerNamespace, 'argocd');
      assert.deepEqual(synced.status.sync.comparedTo.destination, {
        server: 'https://kubernetes.default.svc',
        namespace: 'op',
      });
      assert.deepEqual(synced.status.resources, [
        { version: 'v1', kind: 'ConfigMap', namespace: 'op', name: 'op-a', status: 'Synced' },
      ]);
      // From the app's render: a plain directory of manifests, no image and no link.
      assert.equal(synced.status.sourceType, 'Directory');
      assert.deepEqual(synced.status.summary, {});
    },
  );

  it(
    'writes status once per reconcile with only the changed fields, nothing for a no-op refresh',
    T,
    async () => {
      await waitForObject(fx.cluster, `${APPS}/op`, (o) => o?.status?.sync?.status === 'Synced');
      // A level-1 refresh (a watch event on a managed object that changes nothing compared): no write.
      const from = events.length;
      const label = await api(
        fx.cluster,
        'PATCH',
        '/api/v1/namespaces/op/configmaps/op-a',
        { metadata: { labels: { touched: 'yes' } } },
        'application/merge-patch+json',
      );
      assert.equal(label.status, 200);
      await until((e) => e.type === 'refreshed' && e.key === 'argocd/op' && e.level === 1, from);
      // Then a requested refresh (level 3): the one write it causes removes the annotation and moves reconciledAt.
      const mark = events.length;
      await patchApp('op', { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'normal' } } });
      const written = (await until(
        (e) => e.type === 'status-written' && e.key === 'argocd/op' && e.fields.includes('metadata'),
        from,
      )) as Extract<ControllerEvent, { type: 'status-written' }>;
      // reconciledAt has whole seconds (metav1.Time): it moves unless the previous refresh was in the same second.
      assert.ok(
        written.fields.every((f) => ['metadata', 'status.reconciledAt'].includes(f)),
        written.fields.join(),
      );
      const writes = events.slice(from).filter((e) => e.type === 'status-written' && e.key === 'argocd/op');
      assert.deepEqual(writes, [written], 'no write for the level-1 refresh');
      assert.ok(
        events.slice(mark).some((e) => e.type === 'refreshed' && e.key === 'argocd/op' && e.level === 3),
      );
      const app = await getApp('op');
      assert.equal(app.metadata.annotations?.['argocd.argoproj.io/refresh'], undefined);
    },
  );

  it('auto-syncs an app with syncPolicy.automated, then a new Git commit', T, async () => {
    const spec = '  syncPolicy:\n    automated:\n      prune: true\n';
    await create(appYaml('auto', repo.url, 'auto', { namespace: 'auto', spec }));
    const first = repo.head();
    await waitForObject(
      fx.cluster,
      `${APPS}/auto`,
      (o) => o?.status?.operationState?.phase === 'Succeeded' && o.status.sync?.status === 'Synced',
    );
    const second = repo.commit({ 'auto/b.yaml': cm('auto-b') });
    assert.notEqual(second, first);
    // A Git change reaches the controller through a refresh (a webhook or `argocd app get --refresh`).
    await patchApp('auto', { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'normal' } } });
    const app = await waitForObject(
      fx.cluster,
      `${APPS}/auto`,
      (o) =>
        o?.status?.operationState?.syncResult?.revision === second &&
        o.status.operationState.phase === 'Succeeded',
    );
    assert.deepEqual(app.status.operationState.operation.initiatedBy, { automated: true });
    assert.equal(app.status.history.at(-1).revision, second);
    assert.equal((await api(fx.cluster, 'GET', '/api/v1/namespaces/auto/configmaps/auto-b')).status, 200);
  });

  it('does not retry a revision whose automated sync failed', T, async () => {
    const spec = '  syncPolicy:\n    automated: {}\n    retry:\n      limit: 0\n';
    await create(appYaml('bad', repo.url, 'bad', { namespace: 'bad', spec }));
    const app = await waitForObject(fx.cluster, `${APPS}/bad`, (o) =>
      ['Failed', 'Error'].includes(o?.status?.operationState?.phase),
    );
    assert.equal(app.status.operationState.syncResult?.revision ?? repo.head(), repo.head());
    const starts = () =>
      events.filter((e) => e.type === 'app-operation-start' && e.key === 'argocd/bad').length;
    assert.equal(starts(), 1);
    const from = events.length;
    await patchApp('bad', { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'normal' } } });
    await until((e) => e.type === 'refreshed' && e.key === 'argocd/bad' && e.reason === 'requested', from);
    assert.equal(starts(), 1);
    assert.ok(events.some((e) => e.type === 'auto-sync-skipped' && e.key === 'argocd/bad'));
    // autoSync's SyncError condition says why.
    const withCondition = await waitForObject(fx.cluster, `${APPS}/bad`, (o) =>
      (o?.status?.conditions ?? []).some((c: { type: string }) => c.type === 'SyncError'),
    );
    const cond = withCondition.status.conditions.find((c: { type: string }) => c.type === 'SyncError');
    assert.match(
      cond.message,
      /^Failed last sync attempt to \[[0-9a-f]{40}\]: one or more objects failed to apply/,
    );
  });

  it('cascade-deletes the resources of an Application deleted with the resources finalizer', T, async () => {
    await create(appYaml('gone', repo.url, 'gone', { namespace: 'gone' }), {
      metadata: { name: 'gone', namespace: 'argocd', finalizers: ['resources-finalizer.argocd.argoproj.io'] },
      operation: { sync: {} },
    });
    await waitForObject(
      fx.cluster,
      `${APPS}/gone`,
      (o) => o?.status?.operationState?.phase === 'Succeeded' && o.status.resources?.length === 2,
    );
    const del = await api(fx.cluster, 'DELETE', `${APPS}/gone`);
    assert.equal(del.status, 200);
    await waitForDeletion(fx.cluster, `${APPS}/gone`);
    assert.equal((await api(fx.cluster, 'GET', '/api/v1/namespaces/gone/configmaps/gone-a')).status, 404);
    // Delete=false keeps it.
    assert.equal((await api(fx.cluster, 'GET', '/api/v1/namespaces/gone/configmaps/gone-kept')).status, 200);
  });

  it('reloads when argocd-cm changes: the loop restarts with the apps, and goes on', T, async () => {
    const from = events.length;
    const res = await api(fx.cluster, 'POST', '/api/v1/namespaces/argocd/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'argocd-cm', namespace: 'argocd' },
      data: { 'timeout.reconciliation': '180s' },
    });
    assert.equal(res.status, 201);
    await until((e) => e.type === 'controller-reloading', from);
    const ready = (await until((e) => e.type === 'controller-ready', from)) as Extract<
      ControllerEvent,
      { type: 'controller-ready' }
    >;
    assert.equal(h.reloads, 1);
    assert.ok(ready.apps >= 3);
    // The new loop reads the failed revision from status.operationState: still not retried.
    await until((e) => e.type === 'auto-sync-skipped' && e.key === 'argocd/bad', from);
    assert.equal(events.filter((e) => e.type === 'app-operation-start' && e.key === 'argocd/bad').length, 1);
    const mark = events.length;
    await patchApp('op', { metadata: { annotations: { 'argocd.argoproj.io/refresh': 'normal' } } });
    await until((e) => e.type === 'refreshed' && e.key === 'argocd/op' && e.reason === 'requested', mark);
    // The operation the status records is left as it was (the new loop only read it back).
    const op = await getApp('op');
    assert.equal(op.status.operationState.syncResult.resources.length, 1);
    assert.equal(op.status.operationState.operation.initiatedBy.username, 'alice');
  });
});

describe('skip-reconcile (canProcessApp)', () => {
  it("argocd.argoproj.io/skip-reconcile as Go's strconv.ParseBool reads it", () => {
    const app = (v?: string): KubeObject => ({
      metadata: {
        name: 'a',
        ...(v === undefined ? {} : { annotations: { 'argocd.argoproj.io/skip-reconcile': v } }),
      },
    });
    for (const v of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(skipsReconcile(app(v)), true, v);
    for (const v of [undefined, '0', 'false', 'yes', '', 'on'])
      assert.equal(skipsReconcile(app(v)), false, String(v));
  });
});
