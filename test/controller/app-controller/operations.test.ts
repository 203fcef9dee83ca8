/**
 * Argo CD's remaining operations through `kubectl gitops controller` on the embedded API server, with real
 * Git repositories: terminate (`status.operationState.phase: Terminating`, what `argocd app terminate-op`
 * writes), rollback (`operation.sync` with a history entry's source and revision, as `argocd app rollback`
 * writes it; refused with auto-sync), a local sync (`operation.sync.manifests`), and PreDelete / PostDelete
 * hooks with their finalizers. No Job controller runs: a hook Job stays Progressing until the test marks it
 * Complete, as the Job controller would. Every wait follows an event the step under test must produce.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, useEmbeddedCluster, waitForDeletion, waitForObject } from '../../support/embedded.js';
import { TestRepo, appYaml, cm } from '../../support/git.js';
import { newCacheRoot } from '../setup.js';
import { APPS, hookJob, startController } from './harness.js';
import type { ControllerHarness } from './harness.js';

const T = { timeout: 60_000 };
type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('operations of kubectl gitops controller (terminate, rollback, local sync, delete hooks)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let h: ControllerHarness;

  before(async () => {
    repo.commit({
      'term/a.yaml': cm('term-a') + '---\n' + hookJob('term-pre', 'PreSync'),
      'rb1/a.yaml': cm('rb-a'),
      'rb2/a.yaml': cm('rb-a', '  labels:\n    v: two\n') + '---\n' + cm('rb-b'),
      'loc/a.yaml': cm('loc-git'),
      'fresh/a.yaml': cm('fresh-a'),
      'del/a.yaml':
        cm('del-a') +
        '---\n' +
        hookJob('del-pre', 'PreDelete', 'HookSucceeded') +
        '---\n' +
        hookJob('del-post', 'PostDelete', 'HookSucceeded'),
    });
    h = await startController(fx, cacheRoot, ['term', 'rb', 'auto', 'loc', 'del', 'fresh']);
  });

  after(async () => {
    await h.stop();
    repo.remove();
  });

  it(
    'terminates a running operation: Terminating -> Failed "Operation terminated", hook deleted',
    T,
    async () => {
      await h.create(appYaml('term', repo.url, 'term', { namespace: 'term' }), { operation: { sync: {} } });
      // The PreSync hook Job runs (no Job controller completes it): the operation waits, Running.
      await waitForObject(fx.cluster, '/apis/batch/v1/namespaces/term/jobs/term-pre', (o) => o !== undefined);
      // While it waits, the status shows what Argo CD persists between passes: gitops-engine's running
      // message and the results so far (the hook Running), with the revision and source.
      const running = await waitForObject(
        fx.cluster,
        `${APPS}/term`,
        (o) =>
          o?.status?.operationState?.phase === 'Running' &&
          o.status.operationState.message === 'waiting for completion of hook batch/Job/term-pre',
      );
      const progress = running.status.operationState;
      assert.deepEqual(
        progress.syncResult.resources.map((r: Any) => [r.kind, r.name, r.hookType, r.hookPhase]),
        [['Job', 'term-pre', 'PreSync', 'Running']],
      );
      assert.equal(progress.syncResult.revision, repo.head());
      assert.equal(progress.syncResult.source.path, 'term');
      assert.equal(progress.finishedAt, undefined);
      // What `argocd app terminate-op` does: an update of the Application with the phase Terminating.
      running.status.operationState.phase = 'Terminating';
      const put = await api(fx.cluster, 'PUT', `${APPS}/term`, running);
      assert.equal(put.status, 200, JSON.stringify(put.body));
      const app = await waitForObject(
        fx.cluster,
        `${APPS}/term`,
        (o) => o?.status?.operationState?.phase === 'Failed' && o.operation === undefined,
      );
      const st = app.status.operationState;
      assert.equal(st.message, 'Operation terminated');
      const hook = st.syncResult.resources.find((r: Any) => r.name === 'term-pre');
      assert.deepEqual([hook.hookType, hook.hookPhase, hook.message], ['PreSync', 'Failed', 'Terminated']);
      // The Sync phase never started: term-a has no result and was not created.
      assert.equal(
        st.syncResult.resources.some((r: Any) => r.name === 'term-a'),
        false,
      );
      assert.equal((await api(fx.cluster, 'GET', '/api/v1/namespaces/term/configmaps/term-a')).status, 404);
      // The running hook lost its finalizer and was deleted.
      await waitForDeletion(fx.cluster, '/apis/batch/v1/namespaces/term/jobs/term-pre');
      // Not retried, and no history for a failed operation.
      assert.equal(app.status.history, undefined);
    },
  );

  it('rolls back to a history entry: its source and revision, recorded in history', T, async () => {
    const first = repo.head();
    await h.create(appYaml('rb', repo.url, 'rb1', { namespace: 'rb' }), {
      operation: { sync: {}, initiatedBy: { username: 'alice' } },
    });
    await waitForObject(fx.cluster, `${APPS}/rb`, (o) => o?.status?.history?.length === 1 && !o.operation);
    // The spec moves to another path; a sync deploys it.
    await h.patchApp('rb', { spec: { source: { path: 'rb2' } } });
    await waitForObject(fx.cluster, `${APPS}/rb`, (o) => o?.status?.sync?.comparedTo?.source?.path === 'rb2');
    await h.patchApp('rb', { operation: { sync: { prune: true }, initiatedBy: { username: 'alice' } } });
    const synced = await waitForObject(
      fx.cluster,
      `${APPS}/rb`,
      (o) => o?.status?.history?.length === 2 && !o.operation,
    );
    assert.equal((await api(fx.cluster, 'GET', '/api/v1/namespaces/rb/configmaps/rb-b')).status, 200);
    // What `argocd app rollback rb 0 --prune` writes (server/application Rollback).
    const entry = synced.status.history[0];
    assert.equal(entry.source.path, 'rb1');
    await h.patchApp('rb', {
      operation: {
        sync: {
          revision: entry.revision,
          prune: true,
          syncStrategy: { apply: {} },
          source: entry.source,
        },
        initiatedBy: { username: 'bob' },
      },
    });
    const app = await waitForObject(
      fx.cluster,
      `${APPS}/rb`,
      (o) => o?.status?.history?.length === 3 && !o.operation,
    );
    const st = app.status.operationState;
    assert.equal(st.phase, 'Succeeded', st.message);
    assert.equal(st.syncResult.revision, first);
    assert.equal(st.syncResult.source.path, 'rb1');
    assert.equal(st.operation.sync.source.path, 'rb1');
    const last = app.status.history[2];
    assert.deepEqual(
      [last.id, last.revision, last.source.path, last.initiatedBy.username],
      [2, first, 'rb1', 'bob'],
    );
    // rb1's objects: rb-b pruned, rb-a without the rb2 label.
    await waitForDeletion(fx.cluster, '/api/v1/namespaces/rb/configmaps/rb-b');
    const a = await api(fx.cluster, 'GET', '/api/v1/namespaces/rb/configmaps/rb-a');
    assert.equal(a.body.metadata.labels?.v, undefined);
    // Compared with its spec (rb2) again, the app is OutOfSync.
    await waitForObject(fx.cluster, `${APPS}/rb`, (o) => o?.status?.sync?.status === 'OutOfSync');
  });

  it("refuses a rollback while auto-sync is enabled, with Argo CD's words", T, async () => {
    const spec = '  syncPolicy:\n    automated: {}\n';
    await h.create(appYaml('auto', repo.url, 'rb1', { namespace: 'auto', spec }), {
      operation: { sync: { revision: repo.head(), source: { repoURL: repo.url, path: 'rb2' } } },
    });
    const app = await waitForObject(
      fx.cluster,
      `${APPS}/auto`,
      (o) => o?.status?.operationState?.phase === 'Error' && o.operation === undefined,
    );
    assert.equal(app.status.operationState.message, 'rollback cannot be initiated when auto-sync is enabled');
    assert.equal((await api(fx.cluster, 'GET', '/api/v1/namespaces/auto/configmaps/rb-b')).status, 404);
  });

  it('applies operation.sync.manifests as given, rendering nothing', T, async () => {
    const local = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'loc-local' },
      data: { from: 'laptop' },
    });
    await h.create(appYaml('loc', repo.url, 'loc', { namespace: 'loc' }), {
      operation: { sync: { revision: repo.head(), manifests: [local] }, initiatedBy: { username: 'carol' } },
    });
    const app = await waitForObject(
      fx.cluster,
      `${APPS}/loc`,
      (o) => o?.status?.operationState?.phase === 'Succeeded' && o.operation === undefined,
    );
    const st = app.status.operationState;
    assert.deepEqual(
      st.syncResult.resources.map((r: Any) => [r.kind, r.name, r.status]),
      [['ConfigMap', 'loc-local', 'Synced']],
    );
    assert.equal(st.syncResult.revision, repo.head());
    assert.deepEqual(st.operation.sync.manifests, [local]);
    const made = await api(fx.cluster, 'GET', '/api/v1/namespaces/loc/configmaps/loc-local');
    assert.equal(made.status, 200);
    assert.equal(
      made.body.metadata.annotations['argocd.argoproj.io/tracking-id'],
      'loc:/ConfigMap:loc/loc-local',
    );
    // Git's object was not rendered or applied.
    assert.equal((await api(fx.cluster, 'GET', '/api/v1/namespaces/loc/configmaps/loc-git')).status, 404);
    // The refreshes after it compare with the local sync's manifests while it is the last operation
    // (processAppRefreshQueueItem): Synced, at the targetRevision as written, nothing fetched.
    const after = await waitForObject(
      fx.cluster,
      `${APPS}/loc`,
      (o) => o?.status?.reconciledAt >= st.finishedAt && o.status.sync?.status !== undefined,
    );
    assert.deepEqual([after.status.sync.status, after.status.sync.revision], ['Synced', 'HEAD']);
    assert.deepEqual(
      after.status.resources.map((r: Any) => r.name),
      ['loc-local'],
    );
  });

  it('runs PreDelete hooks before and PostDelete hooks after a cascading delete', T, async () => {
    await h.create(appYaml('del', repo.url, 'del', { namespace: 'del' }), {
      metadata: { name: 'del', finalizers: ['resources-finalizer.argocd.argoproj.io'] },
      operation: { sync: {} },
    });
    // The refresh adds the hook finalizers (processAppRefreshQueueItem); the sync never runs those hooks.
    const synced = await waitForObject(
      fx.cluster,
      `${APPS}/del`,
      (o) =>
        o?.status?.operationState?.phase === 'Succeeded' &&
        (o.metadata.finalizers ?? []).includes('post-delete-finalizer.argocd.argoproj.io/cleanup'),
    );
    assert.deepEqual(synced.metadata.finalizers, [
      'resources-finalizer.argocd.argoproj.io',
      'pre-delete-finalizer.argocd.argoproj.io',
      'pre-delete-finalizer.argocd.argoproj.io/cleanup',
      'post-delete-finalizer.argocd.argoproj.io',
      'post-delete-finalizer.argocd.argoproj.io/cleanup',
    ]);
    assert.equal((await api(fx.cluster, 'GET', '/apis/batch/v1/namespaces/del/jobs/del-pre')).status, 404);
    assert.equal((await api(fx.cluster, 'GET', '/api/v1/namespaces/del/configmaps/del-a')).status, 200);

    assert.equal((await api(fx.cluster, 'DELETE', `${APPS}/del`)).status, 200);
    // PreDelete: the hook is created, tracked by the app; nothing else is deleted while it runs.
    const pre = await waitForObject(fx.cluster, '/apis/batch/v1/namespaces/del/jobs/del-pre', (o) => !!o);
    assert.equal(pre.metadata.annotations['argocd.argoproj.io/tracking-id'], 'del:batch/Job:del/del-pre');
    await h.until(
      (e) => e.type === 'app-deleting' && e.key === 'argocd/del' && /waiting for 1 PreDelete/.test(e.detail),
    );
    assert.equal((await api(fx.cluster, 'GET', '/api/v1/namespaces/del/configmaps/del-a')).status, 200);
    assert.ok(
      (await h.getApp('del')).metadata.finalizers.includes('pre-delete-finalizer.argocd.argoproj.io'),
    );
    await h.finishJob('del', 'del-pre');
    // Then the cascade (the PreDelete hook goes with the app's objects), then the PostDelete hook.
    await waitForDeletion(fx.cluster, '/api/v1/namespaces/del/configmaps/del-a');
    await waitForObject(fx.cluster, '/apis/batch/v1/namespaces/del/jobs/del-post', (o) => !!o);
    await waitForDeletion(fx.cluster, '/apis/batch/v1/namespaces/del/jobs/del-pre');
    const waiting = await h.getApp('del');
    assert.deepEqual(waiting.metadata.finalizers, [
      'pre-delete-finalizer.argocd.argoproj.io/cleanup',
      'post-delete-finalizer.argocd.argoproj.io',
      'post-delete-finalizer.argocd.argoproj.io/cleanup',
    ]);
    await h.finishJob('del', 'del-post');
    // Done: the cleanup deletes the HookSucceeded hook and the Application goes.
    await waitForDeletion(fx.cluster, `${APPS}/del`);
    await waitForDeletion(fx.cluster, '/apis/batch/v1/namespaces/del/jobs/del-post');
  });

  it('a requested sync resolves its branch afresh: a commit pushed a moment ago is synced', T, async () => {
    await h.create(appYaml('fresh', repo.url, 'fresh', { namespace: 'fresh' }), { operation: { sync: {} } });
    await waitForObject(fx.cluster, `${APPS}/fresh`, (o) => o?.status?.history?.length === 1 && !o.operation);
    // A new commit, well within the 3 minutes a resync reuses a resolved branch for; SyncAppState compares
    // with noRevisionCache, so the next requested sync takes it.
    repo.commit({ 'fresh/a.yaml': cm('fresh-a') + '---\n' + cm('fresh-b') });
    await h.patchApp('fresh', { operation: { sync: {} } });
    const app = await waitForObject(
      fx.cluster,
      `${APPS}/fresh`,
      (o) => o?.status?.history?.length === 2 && !o.operation,
    );
    assert.equal(app.status.operationState.syncResult.revision, repo.head());
    assert.equal((await api(fx.cluster, 'GET', '/api/v1/namespaces/fresh/configmaps/fresh-b')).status, 200);
  });
});
