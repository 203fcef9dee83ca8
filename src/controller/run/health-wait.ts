/**
 * `waitForHealth`: the wait for health after a Succeeded sync, as `argocd app sync` without --async.
 *
 * Guarantees
 * - Compares the app again until its health is no longer Progressing, or the signal aborts (the last
 *   comparison stands).
 * - Never waits for one event: it compares again on the next live-cache event (or lost change) seen since
 *   the last comparison began (one that lands during a comparison is not lost), and at the latest every
 *   `HEALTH_RECHECK_MS` without one.
 * - A Progressing resource whose watch is lost (`LiveStateCache.lost`) would never report its end: the
 *   wait fails with that reason instead of waiting.
 * - Its cache listeners are removed however the wait ends.
 */
import type { Application } from '../../apps/index.js';
import type { ComparisonResult, Reconciliation, StateManager } from '../refresh/index.js';

/** The longest the wait for health goes without comparing again when the live cache reports no change. */
export const HEALTH_RECHECK_MS = 1000;

/** Compares `app` again until its health is no longer Progressing; returns the last comparison. */
export async function waitForHealth(
  app: Application,
  manager: StateManager,
  reconciliation: Reconciliation,
  comparison: ComparisonResult,
  signal: AbortSignal,
): Promise<ComparisonResult> {
  let current = comparison;
  const cache = reconciliation.cache;
  let changes = 0;
  let wake: (() => void) | undefined;
  const seen = (): void => {
    changes++;
    wake?.();
  };
  const off = cache.onEvent(seen);
  const offLost = cache.onLostChange(seen);
  try {
    while (current.health.status === 'Progressing' && !signal.aborted) {
      // A Progressing resource whose watch is lost would never report its end: say so rather than wait.
      for (const r of current.resources) {
        if (r.health?.status !== 'Progressing') continue;
        const lost = cache.lost(r);
        if (lost !== undefined)
          throw new Error(
            `failed to wait for health: ${r.group}/${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name} cannot be followed: ${lost}`,
          );
      }
      if (changes === 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, HEALTH_RECHECK_MS);
          function done(): void {
            clearTimeout(timer);
            wake = undefined;
            signal.removeEventListener('abort', done);
            resolve();
          }
          wake = done;
          signal.addEventListener('abort', done, { once: true });
        });
      }
      if (signal.aborted) break;
      changes = 0;
      current = await manager.compare(app, signal);
    }
    return current;
  } finally {
    off();
    offLost();
  }
}
