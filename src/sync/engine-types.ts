/**
 * The engine's contract and vocabulary: what it needs from a cluster (`SyncClient`), its options, the
 * state it keeps per task (`TaskState`) and its result, plus `EngineRun`, the view of one run that the
 * engine's parts (validate.ts, groups.ts, hooks.ts, waiting.ts) act on. Every change to a task goes
 * through `EngineRun.set`, so each one is reported as a progress event; nothing here does I/O.
 */
import type { HealthOptions } from '../health/index.js';
import type { KubeObject } from '../common/index.js';
import { formatResourceKey } from './plan.js';
import type {
  OperationPhase,
  ResultCode,
  RunningProgress,
  SyncEngineEvent,
  SyncTask,
  TaskPhase,
  TaskRef,
  TaskResult,
} from './types.js';

/**
 * A task's group, version and kind the cluster does not serve, as gitops-engine's `getSyncTasks` finds it
 * (kube.ServerResourceForGroupVersionKind) and Argo CD's controller words it (util/argo AugmentSyncMsg).
 * Keyed by `unservedId`.
 */
export interface Unserved {
  /**
   * Discovery's error: the group version not served at all ("failed to discover server resources for
   * group version <g/v>: the server could not find the requested resource"), or served without the kind
   * (`<Kind>.<group> "" not found`).
   */
  error: string;
  /** A served kind of the same name: its own group first (another version), else another group. */
  installed?: { group: string; version: string };
}

/** The key of `Unserved`: `group/version/kind`. */
export function unservedId(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}

/** What the engine needs from a cluster. Implementations count and retry requests; the engine does not. */
export interface SyncClient {
  /** Server-side dry run of the write the task would make (or the delete for a prune). */
  dryRun(task: SyncTask): Promise<void>;
  /** Writes the task's target; returns false when nothing had to change (no request was sent). */
  apply(task: SyncTask): Promise<boolean>;
  /**
   * After a CustomResourceDefinition was written: resolves once it is Established, or after a short
   * time regardless (gitops-engine's `ensureCRDReady`). Absent: nothing to wait for.
   */
  crdReady?(name: string): Promise<void>;
  /**
   * `kubectl auth reconcile` of an `rbac.authorization.k8s.io/v1` target before its client-side apply,
   * as Argo CD runs it (rbac-reconcile.ts): creates or updates what the apply then patches; returns
   * kubectl's output, which leads the result message. Absent: no reconcile.
   */
  rbacReconcile?(task: SyncTask): Promise<string>;
  /** Deletes the task's live object with the propagation policy. */
  delete(task: SyncTask, propagation: 'foreground' | 'background' | 'orphan'): Promise<void>;
  /** Removes the hook finalizer from a live hook. */
  removeFinalizer(task: SyncTask, live: KubeObject): Promise<void>;
  /** The current live object of a task (from the watched live state), undefined when absent. */
  live(task: SyncTask): KubeObject | undefined;
  /** A counter of live-state changes seen so far (watch events, including our own writes). */
  generation(): number;
  /** Resolves once the generation exceeds `after` (at once if it already does) or the signal aborts. */
  changed(after: number, signal: AbortSignal): Promise<void>;
  /** True when the cluster serves the task's kind at the task's version. */
  served(task: SyncTask): boolean;
  /** For a task not served at its version: what discovery says of it (see `Unserved`). */
  unserved?(task: SyncTask): Unserved | undefined;
  /** The kind's resource name (lower-case plural, as in its URL), when known. */
  resourceName?(task: SyncTask): string | undefined;
  /**
   * Reads again, from the server, the live objects of `tasks` that the watched live state cannot show
   * (kinds it does not watch), so `live()` is current. Called before a re-evaluation on the interval.
   */
  reread?(tasks: readonly SyncTask[], signal: AbortSignal): Promise<void>;
  /**
   * Why the task's live state cannot be followed now (its watch is lost), or undefined. A task waiting
   * on it fails with this reason rather than waiting for a change that cannot arrive.
   */
  lost?(task: SyncTask): string | undefined;
}

/** Thrown by `SyncClient.dryRun` when the cluster does not serve the kind. */
export class UnknownKindError extends Error {}

export interface EngineOptions {
  dryRun?: boolean;
  /** Passed to `getResourceHealth` (argocd-cm's user health checks). */
  health?: HealthOptions;
  /**
   * Observer of the run (progress printers): every validation, group, task change and the end, as data.
   * Called synchronously; it must not throw.
   */
  onEvent?: (event: SyncEngineEvent) => void;
  /**
   * The run waits (Argo CD's controller persists the operation state then): gitops-engine's running message
   * and the results so far (`revision` is left empty: the engine does not know it). Called synchronously;
   * it must not throw.
   */
  onRunning?: (progress: RunningProgress) => void;
  /**
   * The longest a waiting run goes without re-evaluating from the live state when no change is seen
   * (default `RECHECK_MS`): a bound, not a pace; changes end the wait at once.
   */
  recheckMs?: number;
  /** The project's verdict on a task (undefined: permitted), asked for tasks whose kind is served. */
  permission?: (task: SyncTask) => string | undefined;
}

export interface TaskState {
  task: SyncTask;
  phase: TaskPhase;
  status: ResultCode | '';
  message: string;
  /**
   * The operation phase Argo CD's result shows for the task when it differs from `phase`: a plain resource
   * of the final group stays `Running` there (gitops-engine ends the operation right after applying it,
   * "successfully synced (all tasks run)", and never re-evaluates it). `''`: none at all, for a task
   * refused before the operation ran (gitops-engine getSyncTasks records an unserved kind or a project's
   * refusal with no operation phase).
   */
  reportedPhase?: TaskPhase | '';
}

export interface OperationResult {
  phase: OperationPhase;
  message: string;
  resources: TaskResult[];
}

/** One run as the engine's parts see it; the engine (engine.ts) owns it and implements its methods. */
export interface EngineRun {
  readonly states: TaskState[];
  readonly client: SyncClient;
  readonly options: EngineOptions;
  /** Hooks of the current group deleted for `BeforeHookCreation`: the group waits until they are gone. */
  replacing: TaskState[];
  /** Changes a task's state and reports it. */
  set(s: TaskState, phase: TaskPhase, status: ResultCode | '', message: string): void;
  /** Ends the operation (reporting the open group done). */
  end(phase: OperationPhase, message: string): void;
  emit(event: SyncEngineEvent): void;
  /** Reports a group's start once (a group whose replaced hooks must go first runs over two steps). */
  openGroup(states: TaskState[]): void;
}

/** A task as progress events name it. */
export function taskRef(task: SyncTask): TaskRef {
  return {
    id: task.id,
    syncPhase: task.phase,
    syncWave: task.wave,
    group: task.key.group,
    kind: task.key.kind,
    namespace: task.key.namespace,
    name: task.key.name,
    hookType: task.hookType ?? '',
  };
}

export function describe(task: SyncTask): string {
  return formatResourceKey(task.key);
}

export function statusOf(task: SyncTask): ResultCode {
  return task.target === undefined ? 'Pruned' : 'Synced';
}

export function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, ' ').trim();
}
