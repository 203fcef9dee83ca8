/**
 * The continuous loop's workers (loop.ts starts `statusProcessors` refresh workers and
 * `operationProcessors` operation workers): each takes an app key from its queue, runs the processor
 * (process.ts) and calls `done`, until the queue is shut down. A level-0 refresh (tree and summary
 * only, `treeRefresh`) runs at once; any other refresh asked for while the app's operation runs is
 * deferred to the operation's end; a transient refresh failure (5xx, 429, transport) is
 * retried with per-app backoff (`MAX_TRANSIENT_RETRIES`), any other is the app's error until the next
 * refresh; every refresh of an owned app sets its next resync. Keys the queues still hand out after
 * shutdown start nothing; operations of apps no longer owned are dropped with a warning.
 */
import type { Application } from '../../apps/index.js';
import { isRetryable } from '../../cluster/index.js';
import { oneLine } from '../../common/index.js';
import type { RateLimitingQueue } from '../../queue/index.js';
import { operateEntry, refreshEntry, treeRefresh } from './process.js';
import type { LoopCore } from './process.js';
import { dropDecided, maxRefresh } from './state.js';
import type { LoopEntry } from './state.js';
import { appError, MAX_TRANSIENT_RETRIES } from '../refresh/index.js';

export interface WorkerContext {
  core: LoopCore;
  entry: (key: string) => LoopEntry | undefined;
  owns: (app: Application) => boolean;
  refreshSignal: AbortSignal;
  operationSignal: AbortSignal;
  /** After a refresh at `level`: the next resync (a level-1 refresh keeps a pending one). */
  scheduleResync: (entry: LoopEntry, level: number) => void;
}

export async function refreshWorker(w: WorkerContext, queue: RateLimitingQueue<string>): Promise<void> {
  const { core } = w;
  for (;;) {
    const got = await queue.get();
    if (got.shutdown) return;
    const key = got.key;
    const entry = w.entry(key);
    try {
      if (!entry || core.stopping() || !w.owns(entry.app)) continue;
      const request = entry.pending ?? { level: 2 as const, reason: 'resync' as const };
      entry.pending = undefined;
      // Level 0 reads the live cache only: it neither waits for a running operation nor compares (falls
      // back to a full refresh when there is no comparison yet).
      if (request.level === 0 && treeRefresh(core, entry, request)) {
        queue.forget(key);
        continue;
      }
      if (entry.executing) {
        entry.deferred = maxRefresh(entry.deferred, request); // the operation's end refreshes
        continue;
      }
      const started = core.clock.now();
      const specVersion = entry.specVersion;
      try {
        await refreshEntry(core, entry, request, w.refreshSignal);
        queue.forget(key);
      } catch (err) {
        // Stopping, or the app was replaced or removed meanwhile (its new spec is refreshed anew).
        if (core.stopping() || w.entry(key) !== entry || entry.specVersion !== specVersion) continue;
        entry.state.error = appError(entry.app, err);
        core.emit({
          type: 'refreshed',
          app: entry.app.name,
          key,
          reason: request.reason,
          level: request.level,
          durationMs: core.clock.now() - started,
          error: entry.state.error.message,
        });
        if (isRetryable(err) && queue.numRequeues(key) < MAX_TRANSIENT_RETRIES) {
          core.onWarning?.(`app "${entry.app.name}": ${oneLine(err)}; retrying`);
          entry.pending = maxRefresh(entry.pending, request);
          queue.addRateLimited(key);
          continue;
        }
        queue.forget(key);
      }
      if (w.entry(key) === entry) w.scheduleResync(entry, request.level);
    } finally {
      queue.done(key);
    }
  }
}

export async function operationWorker(w: WorkerContext, queue: RateLimitingQueue<string>): Promise<void> {
  const { core } = w;
  for (;;) {
    const got = await queue.get();
    if (got.shutdown) return;
    const key = got.key;
    const entry = w.entry(key);
    try {
      // After shutdown the queue still hands out waiting keys: none of them starts.
      if (!entry || !entry.operation || core.stopping()) continue;
      if (!w.owns(entry.app)) {
        core.onWarning?.(
          `app "${entry.app.name}": operation dropped: the app is no longer this controller's`,
        );
        dropDecided(entry.operation);
        entry.operation = undefined;
        continue;
      }
      await operateEntry(core, entry, w.operationSignal);
    } catch (err) {
      core.onWarning?.(`app "${entry?.app.name ?? key}": ${oneLine(err)}`);
    } finally {
      queue.done(key);
    }
  }
}
