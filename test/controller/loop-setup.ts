/**
 * Shared setup of the continuous loop's tests (continuous*.test.ts): `startLoop` runs a `Loop` on the
 * embedded cluster with the real sync operation (src/sync `runOperation`, CreateNamespace=true as
 * `kubectl gitops sync` sends it), records its events and waits for one; `opDone` matches the loop's
 * app-operation-done of an app.
 */
import { join } from 'node:path';
import type { Application } from '../../src/apps/index.js';
import { Loop, syncRequestOf } from '../../src/controller/index.js';
import type { LoopEvent, LoopOptions } from '../../src/controller/index.js';
import { createSourceService } from '../../src/source/index.js';
import { runOperation } from '../../src/sync/index.js';
import type { EmbeddedFixture } from '../support/embedded.js';

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

/** The loop's app-operation-done (the end of an operation, after its last attempt). */
export type OperationDone = Extract<LoopEvent, { type: 'app-operation-done' }>;
export const opDone =
  (app: string) =>
  (e: LoopEvent): e is OperationDone =>
    e.type === 'app-operation-done' && e.app === app;
