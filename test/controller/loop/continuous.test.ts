/**
 * The continuous loop (src/controller/loop/loop.ts) on the embedded API server with real Git repositories:
 * a commit picked up by a requested refresh and synced (auto-sync), a live edit refreshing the app and
 * healed with self-heal or reported without it, a failed revision not retried by auto-sync, and the
 * shutdown while an operation runs. Every wait is for an event the step under test must produce (each
 * test has a generous timeout only so a broken loop fails instead of hanging).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { syncRequestOf } from '../../../src/controller/index.js';
import { runOperation } from '../../../src/sync/index.js';
import { api, useEmbeddedCluster, needsEmbedded } from '../../support/embedded.js';
import type { EmbeddedFixture } from '../../support/embedded.js';
import { TestRepo, cm } from '../../support/git.js';
import { opDone, startLoop } from '../loop-setup.js';
import type { OperationDone } from '../loop-setup.js';
import { application, newCacheRoot } from '../setup.js';

const T = { timeout: 60_000 };

const getCM = async (
  fx: EmbeddedFixture,
  ns: string,
  name: string,
): Promise<{ status: number; data?: Record<string, string> }> => {
  const res = await api(fx.cluster, 'GET', `/api/v1/namespaces/${ns}/configmaps/${name}`);
  return { status: res.status, data: (res.body as { data?: Record<string, string> }).data };
};

describe('continuous loop: Git changes, auto-sync', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();

  it('syncs a new commit picked up by a requested refresh (autoSync all)', T, async () => {
    const first = repo.commit({ 'git/a.yaml': cm('git-a') });
    const run = startLoop(fx, [application('git', repo.url, 'git')], cacheRoot);
    try {
      const op = (await run.until(opDone('git'))) as OperationDone;
      assert.equal(op.phase, 'Succeeded');
      assert.equal(op.revision, first);
      assert.equal((await getCM(fx, 'default', 'git-a')).status, 200);
      await run.until((e) => e.type === 'refreshed' && e.reason === 'operation-done' && e.sync === 'Synced');

      const second = repo.commit({ 'git/b.yaml': cm('git-b') });
      const from = run.events.length;
      run.loop.requestRefresh('argocd/git', 3, 'git');
      const next = (await run.until(opDone('git'), from)) as OperationDone;
      assert.equal(next.revision, second);
      assert.equal((await getCM(fx, 'default', 'git-b')).status, 200);
      assert.equal(run.loop.state('argocd/git')?.syncedRevision, second);
    } finally {
      await run.stop();
    }
  });
});

const patchCM = (
  fx: EmbeddedFixture,
  ns: string,
  name: string,
  data: Record<string, string>,
): Promise<unknown> =>
  api(
    fx.cluster,
    'PATCH',
    `/api/v1/namespaces/${ns}/configmaps/${name}`,
    { data },
    'application/merge-patch+json',
  );

describe('continuous loop: drift and self-heal', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();

  it('a live edit of a tracked object refreshes the app; with selfHeal it is synced back', T, async () => {
    repo.commit({ 'heal/a.yaml': cm('heal-a') });
    const run = startLoop(fx, [application('heal', repo.url, 'heal')], cacheRoot, {
      autoSync: { mode: 'all', prune: true, selfHeal: true, allowEmpty: false },
    });
    try {
      await run.until(opDone('heal'));
      await run.until((e) => e.type === 'refreshed' && e.reason === 'operation-done' && e.sync === 'Synced');
      const from = run.events.length;
      await patchCM(fx, 'default', 'heal-a', { key: 'edited by hand' });
      const drift = await run.until((e) => e.type === 'drift' && e.app === 'heal', from);
      assert.deepEqual(drift.type === 'drift' && drift.resources, ['ConfigMap/default/heal-a']);
      assert.equal(drift.type === 'drift' && drift.healing, true);
      const refreshed = run.events.slice(from).find((e) => e.type === 'refreshed');
      assert.equal(refreshed?.type === 'refreshed' && refreshed.reason, 'drift');
      assert.equal(refreshed?.type === 'refreshed' && refreshed.level, 1);
      const healed = (await run.until(opDone('heal'), from)) as OperationDone;
      assert.equal(healed.phase, 'Succeeded');
      assert.equal(healed.request.selfHeal, true);
      assert.deepEqual(healed.request.resources, [{ group: '', kind: 'ConfigMap', name: 'heal-a' }]);
      assert.equal((await getCM(fx, 'default', 'heal-a')).data?.['key'], 'heal-a');
      assert.equal(run.loop.state('argocd/heal')?.selfHealAttempts, 1);
    } finally {
      await run.stop();
    }
  });

  it(
    'a second drift at the same revision waits for the self-heal backoff, then heals (attempt counted)',
    T,
    async () => {
      repo.commit({ 'backoff/a.yaml': cm('backoff-a') });
      // The wall clock auto-sync judges the backoff by (and the operations stamp finishedAt with) can jump.
      let ahead = 0;
      const wall = (): Date => new Date(Date.now() + ahead);
      const run = startLoop(fx, [application('backoff', repo.url, 'backoff')], cacheRoot, {
        autoSync: { mode: 'all', prune: true, selfHeal: true, allowEmpty: false },
        selfHealBackoff: { durationMs: 600_000, factor: 2, maxDurationMs: 3_600_000 },
        wallClock: wall,
        operation: (app, reconciliation, request, signal) =>
          runOperation(
            { name: app.name, syncOptions: app.syncPolicy.options },
            reconciliation,
            syncRequestOf(request),
            signal,
            wall,
          ),
      });
      try {
        await run.until(opDone('backoff'));
        await run.until(
          (e) => e.type === 'refreshed' && e.reason === 'operation-done' && e.sync === 'Synced',
        );
        let from = run.events.length;
        await patchCM(fx, 'default', 'backoff-a', { key: 'first edit' });
        // Attempt 1 goes at once.
        await run.until((e) => opDone('backoff')(e) && e.request.selfHeal === true, from);
        await run.until(
          (e) => e.type === 'refreshed' && e.reason === 'operation-done' && e.sync === 'Synced',
          from,
        );
        from = run.events.length;
        await patchCM(fx, 'default', 'backoff-a', { key: 'second edit' });
        // Attempt 2 waits 10 minutes after the first heal ended: reported as healing, skipped for now.
        const skipped = await run.until((e) => e.type === 'auto-sync-skipped' && e.app === 'backoff', from);
        assert.match(
          skipped.type === 'auto-sync-skipped' ? skipped.reason : '',
          /self-heal retrying in \d+s\)$/,
        );
        const drift = await run.until((e) => e.type === 'drift' && e.app === 'backoff', from);
        assert.equal(drift.type === 'drift' && drift.healing, true);
        assert.equal((await getCM(fx, 'default', 'backoff-a')).data?.['key'], 'second edit');
        // Ten minutes later (the wall clock jumps; a refresh judges again): healed.
        ahead = 600_000;
        run.loop.requestRefresh('argocd/backoff', 2, 'requested');
        const healed = (await run.until(
          (e) => opDone('backoff')(e) && e.request.selfHeal === true,
          from,
        )) as OperationDone;
        assert.equal(healed.phase, 'Succeeded');
        assert.equal(run.loop.state('argocd/backoff')?.selfHealAttempts, 2);
        assert.equal((await getCM(fx, 'default', 'backoff-a')).data?.['key'], 'backoff-a');
      } finally {
        await run.stop();
      }
    },
  );

  it('without selfHeal the drift is reported and nothing is written', T, async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    repo.commit({ 'report/a.yaml': cm('report-a') });
    const run = startLoop(fx, [application('report', repo.url, 'report')], cacheRoot);
    try {
      await run.until(opDone('report'));
      await run.until((e) => e.type === 'refreshed' && e.reason === 'operation-done' && e.sync === 'Synced');
      const from = run.events.length;
      await patchCM(fx, 'default', 'report-a', { key: 'edited by hand' });
      const writes = fx.cluster.stats.writes();
      const drift = await run.until((e) => e.type === 'drift' && e.app === 'report', from);
      assert.equal(drift.type === 'drift' && drift.healing, false);
      const skipped = await run.until((e) => e.type === 'auto-sync-skipped' && e.app === 'report', from);
      assert.match(
        skipped.type === 'auto-sync-skipped' ? skipped.reason : '',
        /^most recent sync already to \[[0-9a-f]{40}\]$/,
      );
      // Another full refresh decides the same: still no operation, no write.
      const again = run.events.length;
      run.loop.requestRefresh('argocd/report', 2, 'requested');
      const r = await run.until((e) => e.type === 'refreshed' && e.reason === 'requested', again);
      assert.equal(r.type === 'refreshed' && r.sync, 'OutOfSync');
      assert.equal(run.events.slice(from).filter((e) => e.type === 'app-operation-start').length, 0);
      assert.equal(fx.cluster.stats.writes(), writes);
      assert.equal((await getCM(fx, 'default', 'report-a')).data?.['key'], 'edited by hand');
    } finally {
      await run.stop();
    }
  });
});

describe('continuous loop: failed revisions', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();

  it('a revision whose sync failed is not synced again by auto-sync; a new revision is', T, async () => {
    const bad = repo.commit({ 'fail/a.yaml': cm('fail-a', '  namespace: no-such-namespace\n') });
    const app = application('fail', repo.url, 'fail', {
      spec: '  syncPolicy:\n    retry:\n      limit: 1\n      backoff:\n        duration: 20ms\n',
    });
    const run = startLoop(fx, [app], cacheRoot);
    try {
      const failed = (await run.until(opDone('fail'))) as OperationDone;
      assert.equal(failed.phase, 'Failed');
      assert.equal(failed.revision, bad);
      assert.equal(run.loop.state('argocd/fail')?.lastOperation?.report.retries, 1, 'retried once (limit 1)');
      assert.match(failed.message, /\(retried 1 times\)\.$/);
      const skipped = await run.until((e) => e.type === 'auto-sync-skipped' && e.app === 'fail');
      assert.match(
        skipped.type === 'auto-sync-skipped' ? skipped.reason : '',
        new RegExp(`^Failed last sync attempt to \\[${bad}\\]`),
      );
      // A full refresh at the same revision: no new operation.
      const from = run.events.length;
      run.loop.requestRefresh('argocd/fail', 3, 'requested');
      await run.until((e) => e.type === 'refreshed' && e.reason === 'requested', from);
      assert.equal(run.events.slice(from).filter((e) => e.type === 'app-operation-start').length, 0);

      const good = repo.commit({ 'fail/a.yaml': cm('fail-a') });
      run.loop.requestRefresh('argocd/fail', 3, 'git');
      const fixed = (await run.until((e) => opDone('fail')(e) && e.revision === good, from)) as OperationDone;
      assert.equal(fixed.phase, 'Succeeded');
    } finally {
      await run.stop();
    }
  });
});
