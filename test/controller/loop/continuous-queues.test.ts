/**
 * The continuous loop's queues and timers (src/controller/loop/loop.ts) on the embedded API server: the resync
 * timer on a fake clock (with its jitter), dedupe and coalescing of refreshes (never two refreshes of one
 * app at once; the highest level wins), and shutdown while an operation runs (let it end, or abort it when
 * the time is up). No assertion depends on timing: the fake clock is stepped, gates are opened by the test.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/queue/index.js';
import type { Application } from '../../../src/apps/index.js';
import type { SourceService } from '../../../src/source/index.js';
import { createSourceService } from '../../../src/source/index.js';
import { runOperation } from '../../../src/sync/index.js';
import { syncRequestOf } from '../../../src/controller/index.js';
import type { LoopEvent } from '../../../src/controller/index.js';
import { api, useEmbeddedCluster, waitForObject, needsEmbedded } from '../../support/embedded.js';
import { parseApplication } from '../../../src/apps/index.js';
import { TestRepo, cm } from '../../support/git.js';
import { application, newCacheRoot, seenConnect } from '../setup.js';
import type { SeenConnection } from '../setup.js';
import { opDone, startLoop } from '../loop-setup.js';
import type { OperationDone } from '../loop-setup.js';

const T = { timeout: 60_000 };

/** Resolves once `check` holds, looking again after each turn of the event loop (what it waits for must happen). */
async function settle(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}

function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

const refreshedOf = (events: LoopEvent[], app: string): Array<Extract<LoopEvent, { type: 'refreshed' }>> =>
  events.filter(
    (e): e is Extract<LoopEvent, { type: 'refreshed' }> => e.type === 'refreshed' && e.app === app,
  );

describe('continuous loop: queues, timers, shutdown', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();

  it('a metadata-only upsert during a refresh keeps its result; a spec change drops it', T, async () => {
    repo.commit({ 'meta/a.yaml': cm('meta-a') });
    const real = createSourceService({ cacheRoot });
    let renders = 0;
    // Renders 1 and 2 each wait for their own gate, and say when they started.
    const held = [gate(), gate()];
    const rendering = [gate(), gate()];
    const source: SourceService = {
      renderApp: async (app: Application) => {
        const n = renders++;
        if (n < 2) {
          rendering[n]!.open();
          await held[n]!.wait;
        }
        return real.renderApp(app);
      },
      checkoutTree: (url, rev) => real.checkoutTree(url, rev),
      forgetRevisions: (url) => real.forgetRevisions?.(url),
      get stats() {
        return real.stats;
      },
      close: () => real.close(),
    };
    const app = application('meta', repo.url, 'meta');
    const run = startLoop(fx, [app], cacheRoot, { autoSync: { mode: 'none' }, appResyncMs: 0, source });
    try {
      await rendering[0]!.wait; // the initial refresh is rendering
      // The same spec, new labels (what a status write or a label edit seen back by a watch gives).
      run.loop.upsertApp({ ...app, labels: { team: 'a' } });
      held[0]!.open();
      const first = await run.until((e) => e.type === 'refreshed' && e.app === 'meta');
      assert.equal(first.type === 'refreshed' && first.sync, 'OutOfSync');
      assert.equal(run.loop.state('argocd/meta')?.comparison?.sync, 'OutOfSync', 'the refresh result stands');
      assert.equal(run.loop.state('argocd/meta')?.app.labels['team'], 'a');
      assert.equal(renders, 1, 'no second render for a metadata-only change');

      // A spec change during a refresh: that refresh's result is dropped, the new spec is compared.
      const from = run.events.length;
      run.loop.requestRefresh('argocd/meta', 1, 'requested');
      await rendering[1]!.wait;
      run.loop.upsertApp(application('meta', repo.url, 'meta', { namespace: 'meta-2' }));
      held[1]!.open();
      const next = await run.until((e) => e.type === 'refreshed' && e.app === 'meta', from);
      assert.equal(next.type === 'refreshed' && next.reason, 'app-changed');
      assert.equal(renders, 3);
    } finally {
      await run.stop();
      await real.close();
    }
  });

  it('resyncs each app appResyncMs (+ jitter) after its refresh, on the loop clock', T, async () => {
    repo.commit({ 'resync/a.yaml': cm('resync-a') });
    const clock = new FakeClock();
    const run = startLoop(fx, [application('resync', repo.url, 'resync')], cacheRoot, {
      autoSync: { mode: 'none' },
      clock,
      appResyncMs: 1_000,
      appResyncJitterMs: 1_000,
      random: () => 0.5,
    });
    try {
      await run.until((e) => e.type === 'refreshed' && e.reason === 'initial');
      await settle(() => clock.pendingTimers === 1); // the resync timer, set once the refresh is done
      clock.step(1_499);
      assert.equal(clock.pendingTimers, 1, 'not due before 1000 + 0.5 x 1000 ms');
      clock.step(1);
      const resync = await run.until((e) => e.type === 'refreshed' && e.reason === 'resync');
      assert.equal(resync.type === 'refreshed' && resync.level, 2);
      await settle(() => clock.pendingTimers === 1); // and the next one
    } finally {
      await run.stop();
    }
  });

  it(
    'never refreshes one app twice at once; requests during a refresh coalesce, highest level first',
    T,
    async () => {
      repo.commit({ 'dedupe/a.yaml': cm('dedupe-a') });
      const real = createSourceService({ cacheRoot });
      let inFlight = 0;
      let most = 0;
      let renders = 0;
      const first = gate();
      const rendering = gate();
      const source: SourceService = {
        renderApp: async (app: Application) => {
          inFlight++;
          renders++;
          most = Math.max(most, inFlight);
          try {
            if (renders === 1) {
              rendering.open();
              await first.wait;
            }
            return await real.renderApp(app);
          } finally {
            inFlight--;
          }
        },
        checkoutTree: (url, rev) => real.checkoutTree(url, rev),
        forgetRevisions: (url) => real.forgetRevisions?.(url),
        get stats() {
          return real.stats;
        },
        close: () => real.close(),
      };
      const run = startLoop(fx, [application('dedupe', repo.url, 'dedupe')], cacheRoot, {
        autoSync: { mode: 'none' },
        appResyncMs: 0,
        source,
        statusProcessors: 4,
      });
      try {
        await rendering.wait; // the initial refresh is rendering
        run.loop.requestRefresh('argocd/dedupe', 1, 'drift');
        run.loop.requestRefresh('argocd/dedupe', 3, 'git');
        run.loop.requestRefresh('argocd/dedupe', 2, 'resync');
        run.loop.requestRefresh('argocd/dedupe', 1, 'drift');
        first.open();
        const second = await run.until((e) => e.type === 'refreshed' && e.reason === 'git');
        assert.equal(second.type === 'refreshed' && second.level, 3);
        // One more request: the refresh after it is the third; nothing else ran in between.
        run.loop.requestRefresh('argocd/dedupe', 1, 'requested');
        await run.until((e) => e.type === 'refreshed' && e.reason === 'requested');
        assert.deepEqual(
          refreshedOf(run.events, 'dedupe').map((e) => e.reason),
          ['initial', 'git', 'requested'],
        );
        assert.equal(most, 1, 'never two refreshes of one app at once');
        assert.equal(renders, 3);
      } finally {
        await run.stop();
        await real.close();
      }
    },
  );

  it('shutdown lets a running operation end, starts nothing after, and run() resolves', T, async () => {
    repo.commit({ 'drain/a.yaml': cm('drain-a') });
    const started = gate();
    const release = gate();
    const run = startLoop(fx, [application('drain', repo.url, 'drain')], cacheRoot, {
      operation: async (app, reconciliation, request, signal) => {
        started.open();
        await release.wait;
        return runOperation(
          { name: app.name, syncOptions: app.syncPolicy.options },
          reconciliation,
          syncRequestOf(request),
          signal,
        );
      },
    });
    await started.wait;
    const stopping = run.loop.shutdown(60_000);
    await run.until((e) => e.type === 'loop-stopping');
    run.loop.requestRefresh('argocd/drain', 3, 'requested'); // ignored: the loop is stopping
    release.open();
    await stopping;
    await run.done;
    const done = run.events.find(opDone('drain')) as OperationDone | undefined;
    assert.equal(done?.phase, 'Succeeded');
    const stop = run.events.findIndex((e) => e.type === 'loop-stopping');
    assert.equal(
      run.events.slice(stop).filter((e) => e.type === 'app-operation-start' || e.type === 'refreshed').length,
      0,
    );
    await run.stop(); // idempotent
  });

  it('shutdown aborts an operation still running when its time is up', T, async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    repo.commit({ 'abort/a.yaml': cm('abort-a') });
    const started = gate();
    const run = startLoop(fx, [application('abort', repo.url, 'abort')], cacheRoot, {
      operation: (_app, _reconciliation, _request, signal) =>
        new Promise((_resolve, reject) => {
          started.open();
          signal.addEventListener('abort', () => reject(new Error('sync aborted')), { once: true });
        }),
    });
    await started.wait;
    const writes = fx.cluster.stats.writes();
    await run.loop.shutdown(10);
    await run.done;
    const done = run.events.find(opDone('abort')) as OperationDone | undefined;
    assert.equal(done?.phase, 'Error');
    assert.match(done?.message ?? '', /sync aborted/);
    assert.equal(fx.cluster.stats.writes(), writes);
    await run.stop();
  });

  it(
    'with terminateOnShutdown (sync --watch), a sync still running then is terminated as Argo CD does',
    T,
    async () => {
      repo.commit({
        'term/a.yaml':
          cm('term-a') +
          '---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: term-hook\n  annotations:\n    argocd.argoproj.io/hook: PreSync\n' +
          'spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n',
      });
      const run = startLoop(fx, [application('term', repo.url, 'term', { namespace: 'term' })], cacheRoot, {
        terminateOnShutdown: true,
        operation: (app, reconciliation, request, signal, terminate) =>
          runOperation(
            { name: app.name, syncOptions: app.syncPolicy.options },
            reconciliation,
            { ...syncRequestOf(request), syncOptions: { CreateNamespace: 'true' }, terminate },
            signal,
          ),
      });
      // No Job controller: the PreSync hook runs until the shutdown's time is up.
      await waitForObject(
        fx.cluster,
        '/apis/batch/v1/namespaces/term/jobs/term-hook',
        (o) => o !== undefined,
      );
      await run.loop.shutdown(10);
      await run.done;
      const done = run.events.find(opDone('term')) as OperationDone | undefined;
      assert.deepEqual([done?.phase, done?.message], ['Failed', 'Operation terminated']);
      const hook = await api(fx.cluster, 'GET', '/apis/batch/v1/namespaces/term/jobs/term-hook');
      assert.equal(hook.status, 404, 'the running hook was deleted');
      await run.stop();
    },
  );

  it(
    "each refresh records what it rendered in the app's state: revision and type per source, summary",
    T,
    async () => {
      const head = repo.commit({
        'rendered/one/a.yaml': cm('rendered-a'),
        'rendered/two/deploy.yaml': [
          'apiVersion: apps/v1',
          'kind: Deployment',
          'metadata:',
          '  name: web',
          '  annotations:',
          '    link.argocd.argoproj.io/docs: https://docs.example.com',
          'spec:',
          '  selector: { matchLabels: { app: web } }',
          '  template:',
          '    metadata: { labels: { app: web } }',
          '    spec:',
          '      containers: [{ name: web, image: nginx:1.25 }]',
          '',
        ].join('\n'),
      });
      const multi = (paths: string[]): Application =>
        parseApplication(
          {
            apiVersion: 'argoproj.io/v1alpha1',
            kind: 'Application',
            metadata: { name: 'rendered', namespace: 'argocd' },
            spec: {
              project: 'default',
              sources: paths.map((path) => ({ repoURL: repo.url, path, targetRevision: 'HEAD' })),
              destination: { server: 'https://kubernetes.default.svc', namespace: 'rendered' },
            },
          },
          'test rendered',
        );
      const run = startLoop(fx, [multi(['rendered/one', 'rendered/two'])], cacheRoot, {
        autoSync: { mode: 'none' },
        appResyncMs: 0,
      });
      try {
        await run.until((e) => e.type === 'refreshed' && e.app === 'rendered' && !e.error);
        const rendered = run.loop.state('argocd/rendered')?.rendered;
        assert.deepEqual(rendered, {
          sources: [
            { revision: head, type: 'Directory' },
            { revision: head, type: 'Directory' },
          ],
          // Nothing is synced (no auto-sync): the tree holds no live object, so the summary is empty
          // (Argo CD's GetSummary reads the live tree, never the rendered manifests).
          summary: { externalURLs: [], images: [], isAppOfApps: false },
        });
        // A source that does not render (a path that does not exist) is compared with no targets, as
        // Argo CD's CompareAppState: no revision or type is known for any source (the repo-server's answers
        // alone give them: status.sourceTypes and sync.revisions are cleared), the summary from the tree.
        const from = run.events.length;
        run.loop.upsertApp(multi(['rendered/one', 'rendered/missing']));
        const failed = await run.until((e) => e.type === 'refreshed' && e.app === 'rendered', from);
        assert.ok(failed.type === 'refreshed' && !failed.error && failed.sync === 'Unknown');
        assert.deepEqual(run.loop.state('argocd/rendered')?.rendered, {
          sources: [
            { revision: '', type: undefined },
            { revision: '', type: undefined },
          ],
          summary: { externalURLs: [], images: [], isAppOfApps: false },
        });
        assert.equal(run.loop.state('argocd/rendered')?.comparison?.conditions[0]?.type, 'ComparisonError');
        run.loop.removeApp('argocd/rendered');
        assert.equal(run.loop.state('argocd/rendered'), undefined);
      } finally {
        await run.stop();
      }
    },
  );

  it('ownership filters apps; requested operations run; removed apps are forgotten', T, async () => {
    repo.commit({ 'own/a.yaml': cm('own-a'), 'other/a.yaml': cm('other-a') });
    const run = startLoop(
      fx,
      [application('own', repo.url, 'own'), application('other', repo.url, 'other')],
      cacheRoot,
      {
        autoSync: { mode: 'none' },
        appResyncMs: 0,
        statusProcessors: 1,
        ownsApp: (app) => app.name === 'own',
      },
    );
    try {
      await run.until((e) => e.type === 'refreshed' && e.app === 'own' && e.reason === 'initial');
      // One worker, FIFO: the refresh of "other" is handed out before the second one of "own".
      run.loop.requestRefresh('argocd/other', 2, 'requested');
      run.loop.requestRefresh('argocd/own', 2, 'requested');
      await run.until((e) => e.type === 'refreshed' && e.app === 'own' && e.reason === 'requested');
      assert.equal(refreshedOf(run.events, 'other').length, 0, 'not owned: never refreshed');

      run.loop.setOwnership(() => true);
      await run.until((e) => e.type === 'refreshed' && e.app === 'other');
      assert.equal(run.loop.state('argocd/other')?.comparison?.sync, 'OutOfSync');

      const from = run.events.length;
      run.loop.requestOperation('argocd/other', {
        initiatedBy: { automated: false, username: 'tester' },
        prune: false,
        dryRun: false,
      });
      const done = (await run.until(opDone('other'), from)) as OperationDone;
      assert.equal(done.phase, 'Succeeded');
      const after = await run.until(
        (e) => e.type === 'refreshed' && e.app === 'other' && e.reason === 'operation-done',
        from,
      );
      assert.equal(
        after.type === 'refreshed' && after.level,
        3,
        'a requested operation is followed by a level-3 refresh',
      );
      assert.equal(after.type === 'refreshed' && after.sync, 'Synced');

      run.loop.removeApp('argocd/own');
      await run.until((e) => e.type === 'app-removed' && e.key === 'argocd/own');
      assert.equal(run.loop.state('argocd/own'), undefined);
      assert.deepEqual(run.loop.appsOfRepo(repo.url), ['argocd/other']);
    } finally {
      await run.stop();
    }
  });

  it(
    'an app added while running in a new namespace is synced, and its live edits are seen (cache rescoped)',
    T,
    async () => {
      repo.commit({ 'first/a.yaml': cm('first-a'), 'later/a.yaml': cm('later-a') });
      const run = startLoop(fx, [application('first', repo.url, 'first')], cacheRoot, {
        autoSync: { mode: 'all', prune: true, selfHeal: false, allowEmpty: false },
        appResyncMs: 0,
      });
      try {
        await run.until(opDone('first'));
        run.loop.upsertApp(application('later', repo.url, 'later', { namespace: 'loop-later' }));
        const done = (await run.until(opDone('later'))) as OperationDone;
        assert.equal(done.phase, 'Succeeded');
        await run.until((e) => e.type === 'refreshed' && e.app === 'later' && e.reason === 'operation-done');
        const from = run.events.length;
        await api(
          fx.cluster,
          'PATCH',
          '/api/v1/namespaces/loop-later/configmaps/later-a',
          { data: { key: 'edited' } },
          'application/merge-patch+json',
        );
        const drift = await run.until((e) => e.type === 'drift' && e.app === 'later', from);
        assert.deepEqual(drift.type === 'drift' && drift.resources, ['ConfigMap/loop-later/later-a']);
      } finally {
        await run.stop();
      }
    },
  );

  it(
    'a rescope during an operation: the replaced live cache is closed once the operation ends',
    T,
    async () => {
      repo.commit({ 'lease/a.yaml': cm('lease-a'), 'lease-more/a.yaml': cm('lease-more-a') });
      const started = gate();
      const release = gate();
      // Every connection the loop makes, and whether it was closed.
      const conns: SeenConnection[] = [];
      const run = startLoop(
        fx,
        [application('lease', repo.url, 'lease', { namespace: 'loop-lease' })],
        cacheRoot,
        {
          connect: seenConnect(conns),
          operation: async (app, reconciliation, request, signal) => {
            if (app.name === 'lease') {
              started.open();
              await release.wait;
            }
            return runOperation(
              { name: app.name, syncOptions: app.syncPolicy.options },
              reconciliation,
              { ...syncRequestOf(request), syncOptions: { CreateNamespace: 'true' } },
              signal,
            );
          },
        },
      );
      try {
        await started.wait; // the automated sync runs on the first cluster's live cache
        // An app in a namespace that cache does not cover: the cluster is retired, the new app's refresh
        // connects anew.
        run.loop.upsertApp(
          application('lease-more', repo.url, 'lease-more', { namespace: 'loop-lease-more' }),
        );
        await run.until((e) => e.type === 'refreshed' && e.app === 'lease-more');
        assert.equal(conns.length, 2);
        assert.equal(conns[0]!.closes, 0, 'closed under the running operation');
        release.open();
        const done = (await run.until(opDone('lease'))) as OperationDone;
        assert.equal(done.phase, 'Succeeded');
        await conns[0]!.closed; // its last lease ended with the operation
        assert.equal(conns[1]!.closes, 0);
      } finally {
        release.open();
        await run.stop();
      }
      assert.equal(conns[0]!.closes, 1, 'closed once');
    },
  );
});
