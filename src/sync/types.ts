/**
 * The data a sync operation is made of: tasks, their phases and result codes, named as Argo CD names them
 * (gitops-engine pkg/sync/common/types.go) so `jq` habits over `argocd app get -o json` carry over.
 */
import type { KubeObject } from '../common/index.js';

/** Phases of a sync operation, in execution order (SyncFail only runs after a failure). */
export type SyncPhase = 'PreSync' | 'Sync' | 'PostSync' | 'SyncFail';

/** Values of `argocd.argoproj.io/hook`: the phases plus `Skip` (never applied, never pruned). */
export type HookType = SyncPhase | 'Skip';

/** Values of `argocd.argoproj.io/hook-delete-policy`. */
export type HookDeletePolicy = 'HookSucceeded' | 'HookFailed' | 'BeforeHookCreation';

/** Per-task result codes of a sync (Argo CD's ResultCode). */
export type ResultCode = 'Synced' | 'SyncFailed' | 'Pruned' | 'PruneSkipped';

/** Operation phases (Argo CD's OperationPhase). */
export type OperationPhase = 'Running' | 'Terminating' | 'Failed' | 'Error' | 'Succeeded';

/** A task's progress while the operation runs (Argo CD's hook/operation phase of one task). */
export type TaskPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Skipped';

/** What applying a task does to the cluster. */
export type TaskAction = 'create' | 'apply' | 'replace' | 'prune' | 'prune-skip' | 'none';

/** The identity of a resource: group/kind/namespace/name ("" group for the core API). */
export interface ResourceKey {
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

/** One unit of work: a resource in one phase. Invariant: `target` or `live` is set (both for updates). */
export interface SyncTask {
  /** Stable id inside a plan: `<phase>:<group>/<kind>:<ns>/<name>`. */
  id: string;
  phase: SyncPhase;
  /** The wave the task runs in (after Namespace/CRD hoisting and prune-wave mirroring). */
  wave: number;
  /** The object to write; undefined for prunes. Hooks have their final name (generateName resolved). */
  target?: KubeObject;
  /** The live object, when one exists. */
  live?: KubeObject;
  /** API version of the object (target's, else live's). */
  apiVersion: string;
  key: ResourceKey;
  /** The hook type when the task is a hook; undefined for plain resources. */
  hookType?: SyncPhase;
  /** Delete policies of a hook (BeforeHookCreation when none is written). */
  deletePolicies: HookDeletePolicy[];
  /** Sync options read from the object's annotation merged over the app's (object wins). */
  options: Record<string, string>;
  action: TaskAction;
  /** The compare verdict of the pair; ApplyOutOfSyncOnly skips `Synced` resources. */
  outOfSync: boolean;
  /**
   * The namespace the operation's result names: gitops-engine gives every target without a namespace the
   * destination namespace before it runs, cluster-scoped ones included, so their results carry it.
   * Undefined: the key's namespace.
   */
  resultNamespace?: string;
  /** Message for skipped prunes ("ignored (requires pruning)"). */
  message?: string;
  /**
   * The Namespace CreateNamespace creates, without managedNamespaceMetadata: once it exists gitops-engine
   * no longer lists its task (Argo CD's syncNamespace declines an existing namespace), so its result stays
   * as its write left it (`hookPhase: Running`) and nothing waits for it.
   */
  createOnly?: true;
}

/** The outcome of one task, as the report prints it. */
export interface TaskResult {
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
  status: ResultCode | '';
  message: string;
  hookType: SyncPhase | '';
  hookPhase: TaskPhase | '';
  syncPhase: SyncPhase;
  syncWave: number;
  /**
   * The object's container images (Argo CD's ResourceResult `images`: gitops-engine GetResourceImages reads
   * `spec.containers`, `spec.template.spec.containers` or a CronJob's job template; init containers not).
   */
  images?: string[];
}

/**
 * An operation that waits, as Argo CD persists it between passes (gitops-engine `setRunningPhase`): the
 * running message ("waiting for completion of hook batch/Job/x"), the results so far, the revision.
 */
export interface RunningProgress {
  message: string;
  resources: TaskResult[];
  revision: string;
}

/** One planned task as `--dry-run` prints it. */
export interface PlannedTask {
  syncPhase: SyncPhase;
  syncWave: number;
  group: string;
  kind: string;
  namespace: string;
  name: string;
  action: TaskAction;
  hookType: SyncPhase | '';
}

/** The outcome of one app's sync operation (Argo CD's OperationState, flattened for `-o json`). */
export interface OperationReport {
  phase: OperationPhase;
  message: string;
  revision: string;
  startedAt: string;
  finishedAt: string;
  dryRun: boolean;
  /** Attempts made after the first (retries). */
  retries: number;
  resources: TaskResult[];
  /** The ordered plan (for `--dry-run` output and progress). */
  plan: PlannedTask[];
}

/** A task as progress events name it: where it runs and which resource it writes. */
export interface TaskRef {
  /** The task's id in its plan (`SyncTask.id`). */
  id: string;
  syncPhase: SyncPhase;
  syncWave: number;
  group: string;
  kind: string;
  namespace: string;
  name: string;
  hookType: SyncPhase | '';
}

/** One (phase, wave) group of a plan, in execution order. */
export interface PlannedGroup {
  syncPhase: SyncPhase;
  syncWave: number;
  tasks: TaskRef[];
}

/** A resource a wait is for, not Healthy yet, and why (src/health `healthReason`). */
export interface WaitingResource {
  group: string;
  kind: string;
  namespace: string;
  name: string;
  /** Its health now ('' when it has none, e.g. a replaced hook still being deleted). */
  health: string;
  reason: string;
}

/**
 * What the engine reports while an operation runs, in order (observer `EngineOptions.onEvent`). Plain
 * data: printers (src/output/progress.ts) decide how it looks; the engine never writes to a terminal.
 * - `validate-start` / `validate-done`: the server-side dry run of every task (`failed` tasks failed it).
 * - `wave-start`: a (phase, wave) group starts (SyncFail hooks after a failure are one group).
 * - `task`: a task changed: applied or pruned (`Running`), done (`Succeeded`/`Failed`), or its hook phase.
 * - `waiting`: the engine waits (for a hook, between waves): the resources it waits for and why, each time
 *   it re-evaluates (printers show what changed).
 * - `wave-done`: nothing of the group runs any more (the wait between waves is over).
 * - `operation-done`: the operation ended with Argo CD's phase and message.
 */
export type SyncEngineEvent =
  | { type: 'validate-start'; tasks: number }
  | { type: 'validate-done'; failed: number }
  | { type: 'wave-start'; syncPhase: SyncPhase; syncWave: number; tasks: number }
  | { type: 'task'; task: TaskRef; phase: TaskPhase; status: ResultCode | ''; message: string }
  | { type: 'waiting'; resources: WaitingResource[] }
  | { type: 'wave-done'; syncPhase: SyncPhase; syncWave: number; succeeded: number; failed: number }
  | { type: 'operation-done'; phase: OperationPhase; message: string };

/** The operation of one app starts: its plan by group (tasks already skipped are left out). */
export interface OperationStartEvent {
  type: 'operation-start';
  dryRun: boolean;
  groups: PlannedGroup[];
}

/** Events of one app's sync operation (`SyncRequest.onEvent`): the engine's, named by app. */
export type SyncEvent = { app: string } & (OperationStartEvent | SyncEngineEvent);
