/**
 * `healthWait`: the wait for health after a Succeeded sync (`sync --health`, as `argocd app wait --health`),
 * one decision per refresh of the app; the waiting itself is the refresh queue's (processors.ts).
 *
 * Guarantees
 * - Holds no worker: while the app is Progressing it goes back to the refresh queue, to be compared again
 *   on its cluster's next live-cache event (or lost change) after this refresh, and at the latest after
 *   `HEALTH_RECHECK_MS` without one: it never waits for one event (a no-op step produces none). One app
 *   that never becomes Healthy (a LoadBalancer Service with no load balancer controller) therefore delays
 *   no other app's final refresh (issue 34).
 * - Says what it waits for: a `health-wait` event on each refresh, every resource not Healthy with its
 *   health and why (src/health `healthReason`); printers show what changed.
 * - A Progressing resource whose watch is lost (`LiveStateCache.lost`) would never report its end: the wait
 *   fails with that reason instead.
 */
import type { Application } from '../../apps/index.js';
import { notHealthy } from '../../health/index.js';
import type { ComparisonResult, Reconciliation, RunEventHandler } from '../refresh/index.js';

/** The longest the wait for health goes without comparing again when the live cache reports no change. */
export const HEALTH_RECHECK_MS = 1000;

/**
 * After a refresh of `app` (its operation Succeeded): undefined when its health is no longer Progressing
 * (the wait is over); else how to come back (a recheck delay, and the live-cache events that wake it).
 */
export function healthWait(
  app: Application,
  reconciliation: Reconciliation,
  comparison: ComparisonResult,
  emit: RunEventHandler | undefined,
): { recheckMs: number; wakeOn: (wake: () => void) => () => void } | undefined {
  if (comparison.health.status !== 'Progressing') return undefined;
  const cache = reconciliation.cache;
  // A Progressing resource whose watch is lost would never report its end: say so rather than wait.
  for (const r of comparison.resources) {
    if (r.health?.status !== 'Progressing') continue;
    const lost = cache.lost(r);
    if (lost !== undefined)
      throw new Error(
        `failed to wait for health: ${r.group}/${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name} cannot be followed: ${lost}`,
      );
  }
  emit?.({ type: 'health-wait', app: app.name, resources: notHealthy(comparison.resources) });
  return {
    recheckMs: HEALTH_RECHECK_MS,
    wakeOn: (wake) => {
      const off = cache.onEvent(() => wake());
      const offLost = cache.onLostChange(() => wake());
      return () => {
        off();
        offLost();
      };
    },
  };
}
