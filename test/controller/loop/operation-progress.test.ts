/**
 * What a running operation shows while it runs, as Argo CD's controller persists it between passes
 * (controller/appcontroller.go processRequestedAppOperation; found by the conformance corpus, family
 * operations): the running message and results of an attempt that waits, the "Retrying attempt #N at
 * <time>." state between attempts (retryCount, the failed attempt's results), and a terminate during
 * that backoff ending with the failed attempt's results and "Operation terminated (retried N times).".
 * The operation is a stand-in reporting what the test gives it; the loop runs on the embedded server.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LoopEvent, OperationRequest } from '../../../src/controller/index.js';
import type { OperationReport, RunningProgress, TaskResult } from '../../../src/sync/index.js';
import { useEmbeddedCluster } from '../../support/embedded.js';
import { TestRepo, cm } from '../../support/git.js';
import { application, newCacheRoot } from '../setup.js';
import { opDone, startLoop } from '../loop-setup.js';
import type { OperationDone } from '../loop-setup.js';

const T = { timeout: 60_000 };

const hook = (phase: TaskResult['hookPhase'], message: string): TaskResult => ({
  group: 'batch',
  version: 'v1',
  kind: 'Job',
  namespace: 'prog',
  name: 'pre',
  status: 'Synced',
  message,
  hookType: 'PreSync',
  hookPhase: phase,
  syncPhase: 'PreSync',
  syncWave: 0,
});

const request = (limit: number): OperationRequest => ({
  initiatedBy: { automated: false, username: 'tester' },
  prune: false,
  dryRun: false,
  retry: { limit, backoff: { durationMs: 60_000, factor: 2, maxDurationMs: 300_000 }, refresh: false },
});

describe('continuous loop: a running operation as Argo CD persists it', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  repo.commit({ 'prog/a.yaml': cm('prog-a') });
  const cacheRoot = newCacheRoot();

  it('a waiting attempt reports its running message and results', T, async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const r = startLoop(fx, [application('prog', repo.url, 'prog', { namespace: 'prog' })], cacheRoot, {
      autoSync: { mode: 'none' },
      operation: async (_app, _rec, _req, _signal, _terminate, onRunning?: (p: RunningProgress) => void) => {
        onRunning?.({
          message: 'waiting for completion of hook batch/Job/pre',
          resources: [hook('Running', 'Job suspended')],
          revision: 'abc',
        });
        await held;
        return report('Succeeded', 'successfully synced (all tasks run)', [hook('Succeeded', 'done')]);
      },
    });
    try {
      await r.until((e) => e.type === 'refreshed' && e.app === 'prog');
      r.loop.requestOperation('argocd/prog', request(0));
      await r.until((e) => e.type === 'app-operation-progress' && e.app === 'prog');
      const running = r.loop.state('argocd/prog')?.running;
      assert.equal(running?.progress?.message, 'waiting for completion of hook batch/Job/pre');
      assert.deepEqual(
        running?.progress?.resources.map((x) => [x.name, x.hookPhase, x.message]),
        [['pre', 'Running', 'Job suspended']],
      );
      assert.equal(running?.progress?.revision, 'abc');
      release();
      const done = (await r.until(opDone('prog'))) as OperationDone;
      assert.equal(done.phase, 'Succeeded');
    } finally {
      release();
      await r.stop();
    }
  });

  it(
    'between retries: "Retrying attempt #1 at <time>."; terminated there: the failed results, retried 1 times',
    T,
    async () => {
      let attempts = 0;
      const r = startLoop(fx, [application('prog', repo.url, 'prog', { namespace: 'prog' })], cacheRoot, {
        autoSync: { mode: 'none' },
        operation: async () => {
          attempts++;
          return report('Failed', 'one or more synchronization tasks completed unsuccessfully', [
            hook('Failed', 'Job has reached the specified backoff limit'),
          ]);
        },
      });
      try {
        await r.until((e) => e.type === 'refreshed' && e.app === 'prog');
        const before = Date.now();
        r.loop.requestOperation('argocd/prog', request(3));
        const progress = (e: LoopEvent): boolean =>
          e.type === 'app-operation-progress' &&
          /Retrying attempt/.test(r.loop.state('argocd/prog')?.running?.progress?.message ?? '');
        await r.until(progress);
        const p = r.loop.state('argocd/prog')?.running?.progress;
        const m =
          /^one or more synchronization tasks completed unsuccessfully\. Retrying attempt #1 at (\S+Z)\.$/.exec(
            p?.message ?? '',
          );
        assert.ok(m, p?.message);
        // The next attempt after the backoff (60 s), the time in whole seconds as Go's RFC3339.
        const at = Date.parse(m[1]!);
        assert.ok(at >= Math.floor(before / 1000) * 1000 + 59_000 && at <= Date.now() + 61_000, m[1]);
        assert.equal(p?.retryCount, 1);
        assert.ok(p?.finishedAt);
        assert.deepEqual(
          p?.resources.map((x) => [x.name, x.hookPhase]),
          [['pre', 'Failed']],
        );
        // `argocd app terminate-op` during the backoff: no attempt runs, it ends at once.
        assert.equal(r.loop.terminateOperation('argocd/prog'), true);
        const done = (await r.until(opDone('prog'))) as OperationDone;
        assert.equal(attempts, 1);
        assert.equal(done.phase, 'Failed');
        assert.equal(done.message, 'Operation terminated (retried 1 times).');
        const last = r.loop.state('argocd/prog')?.lastOperation?.report;
        assert.equal(last?.message, 'Operation terminated (retried 1 times).');
        assert.equal(last?.retries, 1);
        assert.deepEqual(
          last?.resources.map((x) => [x.name, x.hookPhase, x.message]),
          [['pre', 'Failed', 'Job has reached the specified backoff limit']],
        );
      } finally {
        await r.stop();
      }
    },
  );
});

function report(phase: OperationReport['phase'], message: string, resources: TaskResult[]): OperationReport {
  const now = new Date().toISOString();
  return {
    phase,
    message,
    revision: 'abc',
    startedAt: now,
    finishedAt: now,
    dryRun: false,
    retries: 0,
    resources,
    plan: [],
  };
}
