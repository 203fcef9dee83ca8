/**
 * The refresh of one app (door of `src/controller/refresh/`), used by every program of the controller (the
 * one-shot run, the loop, the application controller): Argo CD's state manager.
 *
 * - `StateManager.reconcile(app)` → `Reconciliation` (state.ts): targets from src/source, normalized
 *   (targets.ts); live from the cluster's cache (live.ts, cluster.ts `ClusterState`); each pair compared
 *   by src/diff (compare.ts, memo.ts; or server-side dry runs, server-side.ts); health from src/health.
 * - `toReport(reconciliation)` → `ComparisonResult` (report.ts): masked, the one step to printers.
 * - Where an app's live state comes from: destinations and AppProjects resolved (destinations.ts,
 *   projects.ts, scoped.ts), one `ClusterState` per cluster in a `ClusterPool`, with the resource filter
 *   (exclusions.ts) and the options every cluster shares (cluster-options.ts); sync windows judged
 *   (windows.ts); what every program is given (options.ts `EngineOptions`) and how an app's failure is told
 *   (app-error.ts).
 * - The controller's report types (types.ts): `Reconciliation`, `ComparisonResult`, `AppReport`,
 *   `RunReport`, `RunEvent`.
 * Imports no other room of src/controller.
 */
export { HOOK_PRUNING_NOTE, StateManager } from './state.js';
export type { StateManagerOptions } from './state.js';
export { toReport } from './report.js';
export { withTracking } from './targets.js';
export type { LocalManifests } from './local.js';
export { ClusterState, keepManagersTransform } from './cluster.js';
export type { ClusterStateOptions, ServedKind } from './cluster.js';
export { sharedClusterOptions } from './cluster-options.js';
export type { SharedClusterOptions } from './cluster-options.js';
export { clusterInfoOf, ClusterPool, primeRenders, resolveDestinations } from './destinations.js';
export type { ClusterLease, Destinations } from './destinations.js';
export type { AppProjectContext } from './projects.js';
export { scopeProjects } from './scoped.js';
export { appWindowsVerdict } from './windows.js';
export type { AppWindowsVerdict } from './windows.js';
export {
  CORE_EXCLUSIONS,
  DEFAULT_EXCLUSIONS,
  SHIPPED_EXCLUSIONS,
  ResourceFilter,
  isExcluded,
} from './exclusions.js';
export type { Exclusion, FilteredResource } from './exclusions.js';
export { appServerSideDiff, SERVER_SIDE_DIFF_MANAGER } from './server-side.js';
export { appError, MAX_TRANSIENT_RETRIES } from './app-error.js';
export type { EngineOptions } from './options.js';
export type * from './types.js';
