/**
 * Types of the controller module (a leaf: imports only types). Names follow Argo CD's
 * (`pkg/apis/application/v1alpha1/types.go`): `ComparisonResult`, `ResourceStatus`, `ApplicationCondition`.
 * Two shapes of one refresh: the `Reconciliation` (real objects and values, what sync consumes, never
 * printed) and the report made from it by `toReport` (`ComparisonResult`: plain data, masked, Secret values
 * never appear), the only shape printers and `-o json` receive.
 */
import type {
  AppProject,
  AppSummary,
  Application,
  StatusRenderedSource,
  SyncWindowsReport,
} from '../../apps/index.js';
import type { IChange, ReportOptions, ResourceComparison } from '../../diff/index.js';
import type { HealthOptions, HealthStatus } from '../../health/index.js';
import type { KubeClient, KubeObject, LiveStateCache, ResourceInfo } from '../../cluster/index.js';
import type { OperationReport, SyncEvent, Unserved, WaitingResource } from '../../sync/index.js';
import type { RenderEvent } from '../../source/index.js';

/**
 * Per resource: Synced, OutOfSync, or Unknown (its comparison failed); '' (no status, as Argo CD) for live
 * hooks, `hook: Skip` targets, ignored hook objects and objects carrying a tracking id copied from another.
 */
export type ResourceSyncStatus = 'Synced' | 'OutOfSync' | 'Unknown' | '';

/** Per app: Unknown when the comparison could not be made. */
export type AppSyncStatus = 'Synced' | 'OutOfSync' | 'Unknown';

/**
 * none: target and live agree; modified: both exist and differ; missing: no live object (to be created);
 * extra: live object tracked by the app with no target (a prune candidate).
 */
export type ResourceDifference = 'none' | 'modified' | 'missing' | 'extra';

export interface ResourceHealth {
  status: HealthStatus;
  message?: string;
}

export interface ResourceStatus {
  group: string;
  /**
   * The live object's version as read, else the target's: the target's own unless the cluster does not
   * serve the kind at it (Argo CD's CompareAppState takes it from the live object when there is one).
   */
  version: string;
  kind: string;
  /** "" for cluster-scoped resources. */
  namespace: string;
  name: string;
  status: ResourceSyncStatus;
  difference: ResourceDifference;
  /** Undefined when the kind has no health (ConfigMap, Secret, unknown CRDs). */
  health?: ResourceHealth;
  /**
   * No target, live, self-referenced (Argo CD's `RequiresPruning`, controller/state.go). Extras: sync with
   * prune would delete them. Live hooks get it too, as in Argo CD, though no sync prunes a hook (`note`).
   */
  requiresPruning: boolean;
  /** A live hook (Argo CD's `hook` flag): listed with no status, never pruned by a sync. */
  hook?: boolean;
  /** Set when the live object is tracked by another app (instance name): reported, never taken over. */
  sharedWith?: string;
  /** Extra resource annotated `compare-options: IgnoreExtraneous`: OutOfSync but the app stays Synced. */
  ignoreExtraneous?: boolean;
  /** Why the status is what it is, when not obvious ("kind not served by the cluster"). */
  message?: string;
  /**
   * The target's sync wave (Argo CD's ResourceStatus.syncWave: the target's, else a live hook's rendered
   * hook's); absent when 0, as Argo CD's omitempty drops it.
   */
  syncWave?: number;
  /**
   * Set where this verdict is Argo CD's and Argo CD is known to be wrong: a short note naming the
   * upstream issue (docs/diff.md "Where Argo CD is odd").
   */
  note?: string;
  /** json-diff-ts changes from live to target (masked). Empty when Synced. */
  changes: IChange[];
  /** Unified diff (live "-", Git "+"), masked; present when the resource differs. */
  diffText?: string;
}

/** Argo CD's condition types this controller reports. */
export type ConditionType =
  | 'UnknownKind'
  | 'SharedResourceWarning'
  | 'RepeatedResourceWarning'
  | 'ExcludedResourceWarning'
  | 'RenderWarning'
  | 'ComparisonError'
  | 'InvalidSpecError'
  | 'UnknownError'
  | 'OrphanedResourceWarning';

export interface AppCondition {
  type: ConditionType;
  message: string;
}

export interface ComparisonResult {
  /** The resolved revision (commit SHA; "local" with --local). */
  revision: string;
  /** What each source of the spec resolved to, in spec order (Argo CD's `sync.revisions` of a multi-source app). */
  revisions?: string[];
  /**
   * Sorted by group, kind, namespace, name. As Argo CD lists them: live hooks (`hook`), `hook: Skip`
   * targets and objects whose tracking id names another object are listed with status '' and no effect on
   * the app's sync; rendered hooks are not listed.
   */
  resources: ResourceStatus[];
  sync: AppSyncStatus;
  health: ResourceHealth;
  conditions: AppCondition[];
}

export interface AppDestination {
  server?: string;
  name?: string;
  namespace: string;
  /** The kubeconfig context the destination resolved to (absent when it failed to resolve). */
  context?: string;
}

/**
 * One resource of a reconciliation: its row of the report without the diff (`changes`, `diffText`), plus
 * the real objects it was judged on.
 */
export interface ReconciledResource extends Omit<ResourceStatus, 'changes' | 'diffText'> {
  /** The target as sync applies it (namespaced, tracking-stamped); absent for an extra or live hook. */
  target?: KubeObject;
  live?: KubeObject;
  /**
   * The comparison with the unmasked normalized pair (src/diff `compareObjects`); absent for rows listed
   * with no status and for failed comparisons (status Unknown).
   */
  comparison?: ResourceComparison;
  /** The sync planner's verdict: false only when the resource is Synced. */
  outOfSync: boolean;
}

/**
 * The unmasked outcome of one refresh (never printed): every resource with its target, live object,
 * normalized pair and verdict, the app's sync and health, the rendered hooks, the app's live hooks, and the
 * cluster they live on. Sync consumes it as is; `toReport` makes the masked report printers get.
 */
export interface Reconciliation {
  revision: string;
  /** What each source of the spec resolved to, in spec order: revision and type (none: a ref-only source). */
  sources: StatusRenderedSource[];
  /**
   * Argo CD's ApplicationSummary of the app's resource tree (its managed live objects and their
   * descendants by ownerReferences: live Pods' images, external URLs with the Application's own link
   * annotations, app of apps): `status.summary` (tree.ts, src/apps `applicationSummary`), worked out from
   * the live cache as it is when called (after a refresh, and again on the loop's level-0 refreshes).
   */
  summarize: () => AppSummary;
  destNamespace: string;
  /** Every resource, sorted by group, kind, namespace, name (the report's rows). */
  resources: ReconciledResource[];
  /** The app's verdict (Argo CD's sync and health status). */
  status: { sync: AppSyncStatus; health: ResourceHealth };
  conditions: AppCondition[];
  /**
   * Set when the desired state could not be loaded (a source that does not render) or compared (an
   * ignoreDifferences rule that does not compile): Argo CD's `failedToLoadObjs`. `condition` is the
   * ComparisonError among `conditions`, `error` the failure as thrown. Every resource is then Unknown, the
   * app's sync Unknown, `pairs` and `hooks` empty (nothing to apply or prune), and sync refuses the app.
   */
  failure?: { condition: AppCondition; error: unknown } | undefined;
  /** How the report masks and renders diffs (argocd-cm's sensitive annotations). */
  reportOptions: ReportOptions;
  /**
   * The resources sync may apply or prune, in render order (then extras): rows listed with no status
   * left out; `target` undefined = a prune candidate (tracked, self-referenced, no owner).
   */
  pairs: ReconciledResource[];
  /** Rendered hooks, namespaced, not yet stamped (generateName hooks have no name yet). */
  hooks: KubeObject[];
  /** Whether the render holds PreDelete / PostDelete hooks (their finalizers: src/apps delete-hooks.ts). */
  deleteHooks: { pre: boolean; post: boolean };
  /** The app's live hooks by `group/kind/namespace/name`. */
  liveHooks: Map<string, KubeObject>;
  /** How the cluster serves each `group/kind` of the pairs and hooks (undefined: not served). */
  kinds: Map<string, ResourceInfo | undefined>;
  /** Each target's group/version/kind the cluster does not serve, as discovery says (kindsOf). */
  unserved: Map<string, Unserved>;
  /** A target with the live values of the fields the app's ignoreDifferences leave out (RespectIgnoreDifferences). */
  respectIgnored: (target: KubeObject, live: KubeObject) => KubeObject;
  /** Stamps the app's tracking on an object about to be written. */
  stamp: (obj: KubeObject) => KubeObject;
  cache: LiveStateCache;
  client: KubeClient;
  /**
   * Ends the hold on the cluster of `cache` and `client` (a lease from StateManager's `clusterOf`): called once the
   * reconciliation is no longer used (its refresh recorded, its operation ended). Absent: nothing holds it.
   */
  release?: (() => void) | undefined;
  /** How the refresh judged health (argocd-cm's Lua checks): sync's waits judge the same way. */
  health?: HealthOptions | undefined;
  /** The app's AppProject (src/apps), as resolved for this run; undefined when the run has no projects. */
  project?: AppProject | undefined;
  /**
   * The project's verdict on writing an object (controller/sync.go validateSyncPermissions): the error
   * message, or undefined when permitted. Sync runs it on every task before its first write.
   */
  permission?: ((obj: KubeObject, namespaced: boolean) => string | undefined) | undefined;
}

/** One app of a run: a comparison, or the error that prevented it (never both). */
export interface AppReport {
  app: Application;
  destination: AppDestination;
  /** The AppProject the app was judged by (absent when its project was not found). */
  project?: AppProject;
  comparison?: ComparisonResult;
  /** The sync operation's outcome (sync runs only). */
  operation?: OperationReport;
  /**
   * The AppProject sync windows that apply to the app, at the time of the comparison (diff) or of the
   * operation (sync); absent when none applies. `blockedBy` says why a manual sync may not run.
   */
  syncWindows?: SyncWindowsReport;
  /**
   * One line, "app \"<name>\": <subject>: failed to <verb>: <cause>"; `exitCode` from the error.
   * `conditions`: the Application conditions Argo CD records for the same failure, each with its type and
   * message (a project refusal: `InvalidSpecError` or `UnknownError`, as refreshAppConditions).
   */
  error?: { message: string; exitCode: number; hint?: string; conditions?: AppCondition[] };
}

export interface RunReport {
  /** In the order the apps were given. */
  apps: AppReport[];
  /** Total API requests of the run (every cluster), from the counting clients. */
  requests: number;
  /** True when the signal aborted the run: apps not compared then carry an "interrupted" error. */
  interrupted: boolean;
  durationMs: number;
}

/**
 * What a run reports while it works (observer `RunOptions.onEvent`), as data: printers
 * (src/output/progress.ts) decide how it looks; the controller never writes to a terminal.
 * - `run-start`: the apps of the run, each with the kube context its destination resolved to (absent when
 *   it did not resolve: that app's `app-done` follows at once with the error), and the clusters.
 * - `cache-sync-start` / `cache-sync-progress` / `cache-sync-done`: one cluster's live cache lists (then
 *   watches) its kinds: `scopes` list+watch pairs in all (a kind per namespace or cluster-wide).
 * - src/source's `RenderEvent`s, `render-start` / `render-done`: an app's desired state (every refresh
 *   renders; cached after the first).
 * - `compare-done`: an app's comparison (sync compares before and after its operation).
 * - `health-wait`: (sync --health) an app whose operation Succeeded is still Progressing: every resource not
 *   Healthy, with its health and why; sent on each refresh while it waits (printers show what changed).
 * - `app-done`: an app is finished: its final sync and health, or its one-line error.
 * - sync's `SyncEvent`s (src/sync) come from the operation processor, named by app.
 */
export type RunEvent =
  | { type: 'run-start'; apps: Array<{ name: string; cluster?: string }>; clusters: string[] }
  | { type: 'cache-sync-start'; cluster: string; kinds: number }
  | { type: 'cache-sync-progress'; cluster: string; listed: number; scopes: number }
  | { type: 'cache-sync-done'; cluster: string; kinds: number; objects: number; error?: string }
  | RenderEvent
  | { type: 'compare-done'; app: string; sync: AppSyncStatus; health: HealthStatus; resources: number }
  | { type: 'health-wait'; app: string; resources: WaitingResource[] }
  | { type: 'app-done'; app: string; sync?: AppSyncStatus; health?: HealthStatus; error?: string }
  | SyncEvent;

/** The observer option every part of a run shares. */
export type RunEventHandler = (event: RunEvent) => void;
