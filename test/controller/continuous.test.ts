/**
 * The continuous loop (src/controller/loop.ts) on the embedded API server with real Git repositories:
 * a commit picked up by a requested refresh and synced (auto-sync), a live edit refreshing the app and
 * healed with self-heal or reported without it, a failed revision not retried by auto-sync, and the
 * shutdown while an operation runs. Every wait is for an event the step under test must produce (each
 * test has a generous timeout only so a broken loop fails instead of hanging).
 */
import { join } from 'node:path';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Application } from '../../src/apps/index.js';
import { Loop, syncRequestOf } from '../../src/controller/index.js';
import type { LoopEvent, LoopOptions } from '../../src/controller/index.js';
import { createSourceService } from '../../src/source/index.js';
import { runOperation } from '../../src/sync/index.js';
import { api, useEmbeddedCluster } from '../support/embedded.js';
import type { EmbeddedFixture } from '../support/embedded.js';
import { TestRepo, cm } from '../support/git.js';
import { application, newCacheRoot } from './setup.js';

const T = { timeout: 60_000 };

/** A running loop with its events, and a way to wait for one. */
export interface Running {
  loop: Loop;
  events: LoopEvent[];
  /** Resolves with the first event (from `from` on) matching; rejects if the loop ends first. */
  until: (match: (e: LoopEvent) => boolean, from?: number) => Promise<LoopEvent>;
  /** run()'s promise. */
  done: Promise<void>;
  stop: () => Promise<void>;
}

export function startLoop(
  fx: EmbeddedFixture,
  apps: Application[],
  cacheRoot: string,
  extra: Partial<LoopOptions> = {},
): Running {
  const source = createSourceService({ cacheRoot });
  const events: LoopEvent[] = [];
  const waiters: Array<{ match: (e: LoopEvent) => boolean; resolve: (e: LoopEvent) => void; from: number }> =
    [];
  const loop = new Loop({
    apps,
    source,
    kubeconfig: fx.kubeconfig,
    discovery: { cacheDir: join(fx.dir, 'discovery'), ttlMs: 0 },
    client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
    autoSync: { mode: 'all', prune: true, selfHeal: false, allowEmpty: false },
    eventBatchMs: 10,
    operation: (app, reconciliation, request, signal) =>
      runOperation(
        { name: app.name, syncOptions: app.syncPolicy.options },
        reconciliation,
        { ...syncRequestOf(request), syncOptions: { CreateNamespace: 'true', ...request.syncOptions } },
        signal,
      ),
    ...extra,
    onEvent: (e) => {
      events.push(e);
      extra.onEvent?.(e);
      for (const w of [...waiters]) {
        if (events.length - 1 >= w.from && w.match(e)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(e);
        }
      }
    },
  });
  let ended = false;
  const done = loop.run().finally(() => {
    ended = true;
  });
  const until = (match: (e: LoopEvent) => boolean, from = 0): Promise<LoopEvent> => {
    const seen = events.slice(from).find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise<LoopEvent>((resolve, reject) => {
      waiters.push({ match, resolve, from });
      void done.then(() => ended && reject(new Error('the loop ended before the event came')), reject);
    });
  };
  return {
    loop,
    events,
    until,
    done,
    stop: async () => {
      await loop.shutdown(10_000);
      await done;
      await source.close();
    },
  };
}

/** The loop's operation-done (src/sync's engine has an event of the same type, without `key`). */
export type OperationDone = Extract<LoopEvent, { type: 'operation-done'; key: string }>;
export const opDone =
  (app: string) =>
  (e: LoopEvent): e is OperationDone =>
    e.type === 'operation-done' && 'key' in e && e.app === app;

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
