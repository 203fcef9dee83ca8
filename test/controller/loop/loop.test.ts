/**
 * The controller loop (src/controller/run/run.ts, processors.ts): refresh and operation processors on their own queues.
 * A transient failure of one app is retried through the queue with backoff, a permanent one is that app's
 * error at once; an operation runs on the operation queue while other apps keep refreshing; the run ends
 * when every app is finished. The first renders start while the kubeconfig loads (they need no cluster).
 */
import { join } from 'node:path';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, connect, loadKubeConfig } from '../../../src/cluster/index.js';
import type { ConnectOptions } from '../../../src/cluster/index.js';
import type { RunEvent } from '../../../src/controller/index.js';
import type { OperationReport } from '../../../src/sync/index.js';
import { useEmbeddedCluster } from '../../support/embedded.js';
import { TestRepo, cm } from '../../support/git.js';
import { Run } from '../../../src/controller/index.js';
import { createSourceService } from '../../../src/source/index.js';
import type { RenderedApp, SourceService } from '../../../src/source/index.js';
import { application, newCacheRoot, refresh, reportOf } from '../setup.js';

describe('controller loop: processors and queues', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();

  it('retries a transient failure of one app through the queue, then compares it', async () => {
    repo.commit({ 'flaky/a.yaml': cm('a') });
    let attempts = 0;
    const warnings: string[] = [];
    const report = await refresh(
      fx,
      [application('flaky', repo.url, 'flaky', { namespace: 'default' })],
      cacheRoot,
      {
        connect: (options: ConnectOptions) => {
          attempts++;
          if (attempts <= 2)
            return Promise.reject(
              new ApiError('cluster', 'connect', 503, {
                message: 'the server is currently unable to handle the request',
              }),
            );
          return connect(options);
        },
        onWarning: (m) => warnings.push(m),
      },
    );
    const r = reportOf(report, 'flaky');
    assert.equal(r.error, undefined, r.error?.message);
    assert.equal(r.comparison?.sync, 'OutOfSync');
    assert.equal(attempts, 3, 'two failures, each retried, then a connection');
    assert.equal(
      warnings.filter((w) => /^app "flaky": .*unable to handle the request; retrying$/.test(w)).length,
      2,
      warnings.join('\n'),
    );
  });

  it("a permanent failure is the app's error at once, never retried", async () => {
    repo.commit({ 'denied/a.yaml': cm('a') });
    let attempts = 0;
    const report = await refresh(
      fx,
      [application('denied', repo.url, 'denied', { namespace: 'default' })],
      cacheRoot,
      {
        connect: () => {
          attempts++;
          return Promise.reject(new ApiError('cluster', 'connect', 403, { message: 'forbidden' }));
        },
      },
    );
    assert.match(reportOf(report, 'denied').error?.message ?? '', /^app "denied": .*forbidden/);
    assert.equal(attempts, 1);
  });

  it('an operation runs on the operation queue while other apps keep refreshing', async () => {
    repo.commit({ 'slow/a.yaml': cm('a'), 'quick/a.yaml': cm('a') });
    const events: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const report = await refresh(
      fx,
      [
        application('slow', repo.url, 'slow', { namespace: 'default' }),
        application('quick', repo.url, 'quick', { namespace: 'default' }),
      ],
      cacheRoot,
      {
        statusProcessors: 1,
        operationProcessors: 1,
        onEvent: (e: RunEvent) => {
          if (e.type === 'compare-done') {
            events.push(`compared ${e.app}`);
            // The quick app's first comparison came while the slow app's operation was held.
            if (e.app === 'quick') release();
          }
        },
        operation: async (app): Promise<OperationReport> => {
          events.push(`operation ${app.name} start`);
          if (app.name === 'slow') await held;
          events.push(`operation ${app.name} end`);
          return {
            phase: 'Succeeded',
            message: 'done',
            revision: '',
            startedAt: new Date(0).toISOString(),
            finishedAt: new Date(0).toISOString(),
            dryRun: false,
            retries: 0,
            resources: [],
            plan: [],
          };
        },
      },
    );
    assert.equal(
      reportOf(report, 'slow').operation?.phase,
      'Succeeded',
      reportOf(report, 'slow').error?.message,
    );
    assert.equal(reportOf(report, 'quick').operation?.phase, 'Succeeded');
    const at = (e: string) => events.indexOf(e);
    assert.ok(at('operation slow start') < at('compared quick'), events.join(', '));
    assert.ok(at('compared quick') < at('operation slow end'), events.join(', '));
    assert.ok(at('operation slow end') < at('operation quick start'), 'one operation worker: one at a time');
    assert.equal(
      events.filter((e) => e === 'compared slow').length,
      2,
      'refreshed again after its operation',
    );
  });

  it('the first renders start while the kubeconfig loads; a started render is used, not repeated', async () => {
    repo.commit({ 'early-a/a.yaml': cm('a'), 'early-b/b.yaml': cm('b'), 'early-c/c.yaml': cm('c') });
    const apps = ['early-a', 'early-b', 'early-c'].map((n) =>
      application(n, repo.url, n, { namespace: 'default' }),
    );
    const inner = createSourceService({ cacheRoot });
    const renders: string[] = [];
    const source: SourceService = {
      renderApp: (app): Promise<RenderedApp> => {
        renders.push(app.name);
        return inner.renderApp(app);
      },
      checkoutTree: (url, revision) => inner.checkoutTree(url, revision),
      get stats() {
        return inner.stats;
      },
      close: () => inner.close(),
    };
    let startedBeforeKubeconfig: string[] = [];
    try {
      const report = await new Run({
        apps,
        source,
        kubeconfig: fx.kubeconfig,
        statusProcessors: 2,
        discovery: { cacheDir: join(fx.dir, 'discovery'), ttlMs: 0 },
        loadKubeConfig: async (options) => {
          startedBeforeKubeconfig = [...renders];
          return loadKubeConfig(options);
        },
      }).run();
      for (const app of apps) assert.equal(reportOf(report, app.name).comparison?.sync, 'OutOfSync');
    } finally {
      await source.close();
    }
    assert.deepEqual(startedBeforeKubeconfig, ['early-a', 'early-b'], 'one per refresh worker, in order');
    assert.deepEqual(renders.sort(), ['early-a', 'early-b', 'early-c'], 'a started render is not repeated');
  });

  it('a kubeconfig that fails to load fails the run after the renders it started have ended', async () => {
    repo.commit({ 'doomed/a.yaml': cm('a') });
    let ended = false;
    const inner = createSourceService({ cacheRoot });
    const source: SourceService = {
      renderApp: (app) =>
        inner.renderApp(app).finally(() => {
          ended = true;
        }),
      checkoutTree: (url, revision) => inner.checkoutTree(url, revision),
      get stats() {
        return inner.stats;
      },
      close: () => inner.close(),
    };
    try {
      await assert.rejects(
        new Run({
          apps: [application('doomed', repo.url, 'doomed', { namespace: 'default' })],
          source,
          loadKubeConfig: () => Promise.reject(new Error('no kubeconfig')),
        }).run(),
        /no kubeconfig/,
      );
      assert.equal(ended, true, 'no render left running after the run failed');
    } finally {
      await source.close();
    }
  });
});
