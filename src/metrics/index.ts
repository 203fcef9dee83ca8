/**
 * Metrics and probes of the long-running commands (`kubectl gitops controller`, `sync --watch`;
 * `--metrics-addr`): Argo CD's application-controller metric names, types, labels and help texts, so
 * existing dashboards and alerts work (docs/metrics.md lists each metric, its Argo CD source and what we
 * fill). Only commands import this module; the engine never does: it emits events, metrics listen.
 *
 * Wiring (a command, in this order):
 * ```ts
 * const metrics = new Metrics({ loop: { states: () => loop.states(), state: (k) => loop.state(k) },
 *                               autoSync, destServer, appLabels, appConditions });
 * // RunOptions / loop options:
 * //   client: { ...client, onRequest: metrics.onRequest }   every API request of every cluster connection
 * //   source exec: metrics.instrumentExec(execProcess)        kubectl and git child processes
 * //   operation: (app, rec, signal) => metrics.attribute(app, dryRun, () => operate(app, rec, signal))
 * //   onEvent: (e) => { metrics.onEvent(e); printer(e); }      LoopEvents (and one-shot RunEvents)
 * const server = new MetricsServer({ addr: flags['metrics-addr'], metrics, ready, signal });
 * const { url } = await server.listen();   // UsageError "--metrics-addr <addr>: failed to listen: ..."
 * ...
 * await server.close();                      // after the loop stopped (idempotent; the signal also closes)
 * ```
 * - `Metrics` keeps its own prom-client `Registry` (`metrics.registry`; never the global one), Node's
 *   process metrics included (`processMetrics: false` leaves them out).
 * - `argocd_app_info`, `argocd_app_labels`, `argocd_app_condition` and the `argocd_cluster_*` gauges are
 *   computed at scrape time from `loop.states()` and the cluster table: an app the view no longer lists
 *   disappears at once. The controller passes the apps it processes (its `onApps`: its shards' apps and
 *   those being deleted, as Argo CD's `appCollector` lists Applications), not its loop. Counters and the
 *   reconcile histogram keep a deleted app's series for the life of the process (Argo CD deletes none; only
 *   its `--metrics-cache-expiration` resets them all).
 * - `ready` decides `/readyz` (true, or the one-line reason: caches not synced, no shard claimed);
 *   `/healthz` answers 200 while the process serves.
 * - `parseMetricsAddr(addr)` validates the flag early (UsageError, exit 2).
 */
export { Metrics } from './metrics.js';
export type { MetricsOptions } from './metrics.js';
export type { ClusterInfo } from './collectors.js';
export { MetricsServer, parseMetricsAddr } from './server.js';
export type { MetricsServerOptions, Readiness } from './server.js';
