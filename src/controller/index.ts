/**
 * The controller (door of `src/controller/`): Argo CD's application controller, as four programs, each a
 * room with its own door; code outside src/controller imports this door only.
 *
 * - refresh/ (the refresh of one app, used by all): `StateManager.reconcile(app)` → `Reconciliation`:
 *   targets from src/source, normalized; live from the cluster's cache; each pair compared by src/diff
 *   (client-side three-way, or server-side dry run); health from src/health. Per resource: target, live,
 *   the unmasked normalized pair, sync status and health, plus the app's verdict, hooks and cluster
 *   handles: what sync consumes. `toReport(reconciliation)` → `ComparisonResult {revision, resources,
 *   sync, health, conditions}`: the one step to the printable report; `StateManager.compare(app)` is both.
 * - run/ (the one-shot run: diff, sync, render): `new Run(options).run()` → `RunReport`: compares every
 *   given app through the refresh queue (`statusProcessors` workers, default 4) over one shared live cache
 *   per cluster. Never throws for an app's failure: each `AppReport` holds a `ComparisonResult` or an
 *   error (render, destination, cluster); only a kubeconfig that fails to load rejects the run. Honours
 *   `signal` (unfinished apps are reported "interrupted").
 * - loop/ (`sync --watch`, and the engine of the controller): `new Loop(options).run()`: refresh and
 *   operation queues running until `shutdown`, resync timers, live-cache triggers, auto-sync and self-heal,
 *   behind the `ReconcileLoop` door. docs/loop.md.
 * - app-controller/ (`kubectl gitops controller`): `runController`: the loop fed by the live Argo CD
 *   namespace, `StatusWriter`, `AppFinalizer`, shard claims. docs/controller.md.
 * - appset/ (`kubectl gitops controller` too): `runAppSetController`: Argo CD's ApplicationSet controller,
 *   generating and writing Applications and the ApplicationSets' status. docs/appset-controller.md.
 * Rooms import only rooms below them, through their doors: run and loop import refresh; app-controller
 * imports loop and refresh; appset imports none (docs/architecture.md; test/architecture.test.ts).
 *
 * Guarantees
 * - Reports (`AppReport.comparison`) are plain data and masked: Secret values (`data`, `stringData`)
 *   appear only as runs of "+" in `changes` and `diffText`; no raw target or live object is in them. Runs
 *   keep reconciliations to themselves (the operation processor's input), never in a RunReport.
 * - Per resource: Synced / OutOfSync, with `difference` none | modified | missing | extra, and
 *   `requiresPruning` for extra resources tracked by the app. Live hooks (`hook`), `hook: Skip` targets
 *   and objects with a copied tracking id are listed with status '' (never pruned, no effect on app sync).
 * - argocd-cm (`settings`, read by src/apps): user Lua health checks, ignoreDifferences overrides, compare
 *   options, masked annotations, and the resource filter (refresh/exclusions.ts) scoping the cache and targets.
 * - A managed namespace (CreateNamespace=true + managedNamespaceMetadata) is a target Namespace.
 * - Reported, never fatal: unknown kinds (UnknownKind), shared resources (SharedResourceWarning,
 *   `sharedWith`), excluded kinds, duplicates, failed server-side dry runs (ComparisonError).
 * - Tracking: `trackingMethod` annotation (default) | label | annotation+label, instance names as Argo CD's
 *   (`<appNs>_<app>` outside `argocdNamespace`).
 * - Diff strategy as Argo CD's: a field removed from Git is a difference when the last-applied annotation
 *   shows we applied it (three-way), or, for apps with the ServerSideApply=true sync option (and targets
 *   annotated with it), when a managedFields entry of `fieldManagers` (default argocd-controller,
 *   kubectl-gitops) owns it (structured-merge); with neither it is not (two-way).
 * - API requests per run: discovery + one list (and watch) per kind and scope, plus one GET per target
 *   outside the cached namespaces or at a non-preferred version, plus one dry run per live resource with
 *   server-side diff. Never one request per resource otherwise.
 */
export { Run } from './run/index.js';
export { runAppSetController } from './appset/index.js';
export type { AppSetControllerOptions, AppSetEvent, AppsSyncPolicy } from './appset/index.js';
export { prepareRun } from './run/index.js';
export type { PreparedRun, PrepareOptions } from './run/index.js';
export type { RunOptions } from './run/index.js';
export { HOOK_PRUNING_NOTE, StateManager } from './refresh/index.js';
export { OWN_FIELD_MANAGERS } from '../common/index.js';
export { toReport } from './refresh/index.js';
export type { StateManagerOptions } from './refresh/index.js';
export { ClusterState, keepManagersTransform } from './refresh/index.js';
export type { ClusterStateOptions, ServedKind } from './refresh/index.js';
export {
  CORE_EXCLUSIONS,
  DEFAULT_EXCLUSIONS,
  SHIPPED_EXCLUSIONS,
  ResourceFilter,
  isExcluded,
} from './refresh/index.js';
export type { Exclusion, FilteredResource } from './refresh/index.js';
export { appServerSideDiff, SERVER_SIDE_DIFF_MANAGER } from './refresh/index.js';
// Every type of the refresh room's door (the report types among them) and of the loop's.
export type * from './refresh/index.js';
export type * from './loop/index.js';
export { watchApps } from './loop/index.js';
export type { WatchEvent, WatchRunOptions } from './loop/index.js';
export { Loop } from './loop/index.js';
export type { LoopOptions } from './loop/index.js';
export { DEFAULT_APP_RESYNC_JITTER_MS, DEFAULT_APP_RESYNC_MS } from './loop/index.js';
export { syncRequestOf } from './loop/index.js';
export { runController, defaultOperation } from './app-controller/index.js';
export type {
  ControllerBase,
  ControllerEvent,
  ControllerRunOptions,
  ControllerSharding,
  ControllerSummary,
} from './app-controller/index.js';
export { StatusWriter, REFRESH_ANNOTATION } from './app-controller/index.js';
export type { StatusWriterOptions } from './app-controller/index.js';
export { AppFinalizer, FinalizerQueue } from './app-controller/index.js';
export { ControllerShards } from './app-controller/index.js';
export { RequestedOperations, syncAppOf } from './app-controller/index.js';
export type { AppFinalizerOptions } from './app-controller/index.js';
export {
  decideAutoSync,
  DEFAULT_AUTOMATED_RETRY,
  DEFAULT_SELF_HEAL_BACKOFF,
  selfHealRemainingMs,
} from './loop/index.js';
export type { AutoSyncDecision, AutoSyncInput, LastOperation, SelfHealBackoff } from './loop/index.js';
