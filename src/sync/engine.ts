/**
 * The sync engine: runs a plan against a `SyncClient` as a resumable step machine (gitops-engine
 * pkg/sync/sync_context.go `Sync()`). Each `step()` does one round and leaves its outcome as data on the
 * tasks (status, message, hook phase), so an interrupted or timed-out run still yields a full report.
 *
 * One step, in order:
 * 0. First step only: the project's permission of every task whose kind is served (Argo CD's
 *    `WithPermissionValidator`, run by gitops-engine's `getSyncTasks`): any refusal ends the operation
 *    Failed, "one or more synchronization tasks are not valid: <reasons>", before the dry run, with
 *    nothing written (the refused tasks SyncFailed with the reason).
 * 1. First step only: a server-side dry run of every task (writes with `dryRun=All`; prunes as dry-run
 *    deletes). Any failure ends the operation Failed, "one or more objects failed to apply (dry run)",
 *    with nothing written. A kind the cluster does not serve fails there unless a CRD of this sync
 *    defines it or `SkipDryRunOnMissingResource=true`. With `dryRun` the operation ends here, Succeeded.
 * 2. Running tasks are refreshed from the live state: hooks Healthy (or without health) = Succeeded,
 *    Degraded/Unknown = Failed, else Running; resources Healthy (or without health) = Succeeded,
 *    Degraded = Failed, else Running; prunes Succeeded once the object is gone. A running non-prune task
 *    whose live object vanished fails.
 * 3. Wait while a hook runs, or while anything runs in a multi-step sync (more than one phase/wave).
 * 4. Completed hooks lose the `argocd.argoproj.io/hook-finalizer`. After a failure: `HookFailed` hooks
 *    are deleted, SyncFail hooks run (and are waited for), the operation ends Failed.
 * 5. Nothing pending: `HookSucceeded` hooks are deleted and the operation ends Succeeded.
 * 6. The first pending (phase, wave) group runs: prunes in parallel; hooks with `BeforeHookCreation`
 *    whose previous object still exists are deleted first (the step then waits for them to go);
 *    then applies, consecutive tasks of one kind in parallel, kinds one after another. New hooks get the
 *    hook finalizer. If this was the last group and it held no hook, the operation ends Succeeded
 *    (resources may still become healthy later, as in Argo CD).
 * `run()` repeats steps, waiting between them for the next live-state change (`client.changed`), never by
 * polling; an aborted signal stops starting tasks, lets in-flight requests finish and ends the operation
 * Failed with the reason, the tasks not run staying without a status.
 */
import { getResourceHealth } from '../health/index.js';
import type { HealthOptions, HealthStatus, Unstructured } from '../health/index.js';
import type { KubeObject } from '../common/index.js';
import { HOOK_FINALIZER, hasOption } from './annotations.js';
import { isMultiStep } from './order.js';
import { formatResourceKey } from './plan.js';
import type {
  OperationPhase,
  ResultCode,
  SyncEngineEvent,
  SyncTask,
  TaskPhase,
  TaskRef,
  TaskResult,
} from './types.js';

/** What the engine needs from a cluster. Implementations count and retry requests; the engine does not. */
export interface SyncClient {
  /** Server-side dry run of the write the task would make (or the delete for a prune). */
  dryRun(task: SyncTask): Promise<void>;
  /** Writes the task's target; returns false when nothing had to change (no request was sent). */
  apply(task: SyncTask): Promise<boolean>;
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
  /** True when the cluster serves the task's kind. */
  served(task: SyncTask): boolean;
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
  /** The project's verdict on a task (undefined: permitted), asked for tasks whose kind is served. */
  permission?: (task: SyncTask) => string | undefined;
}

export interface TaskState {
  task: SyncTask;
  phase: TaskPhase;
  status: ResultCode | '';
  message: string;
}

export interface OperationResult {
  phase: OperationPhase;
  message: string;
  resources: TaskResult[];
}

export class SyncEngine {
  readonly states: TaskState[];
  phase: OperationPhase = 'Running';
  message = '';
  readonly #client: SyncClient;
  readonly #options: EngineOptions;
  readonly #multiStep: boolean;
  #validated = false;
  #failed = false;
  /** The group started last and not yet reported done (progress events). */
  #group: { syncPhase: SyncTask['phase']; syncWave: number; states: TaskState[] } | undefined;

  constructor(tasks: readonly SyncTask[], client: SyncClient, options: EngineOptions = {}) {
    this.states = tasks.map((task) => ({
      task,
      phase: task.action === 'prune-skip' || task.action === 'none' ? 'Skipped' : 'Pending',
      status: task.action === 'prune-skip' ? 'PruneSkipped' : task.action === 'none' ? 'Pruned' : '',
      message: task.message ?? '',
    }));
    this.#client = client;
    this.#options = options;
    this.#multiStep = isMultiStep(tasks.filter((t) => t.phase !== 'SyncFail'));
  }

  get done(): boolean {
    return this.phase !== 'Running';
  }

  /** Runs steps until the operation ends or the signal aborts. */
  async run(signal: AbortSignal): Promise<OperationResult> {
    while (!this.done) {
      if (signal.aborted) {
        this.#end('Failed', `operation terminated: ${reasonOf(signal)}${this.#stillRunning()}`);
        break;
      }
      // Read before the step, so a change that lands while the step runs still wakes the next one.
      const generation = this.#client.generation();
      const wait = await this.step(signal);
      if (wait && !this.done && !signal.aborted) await this.#client.changed(generation, signal);
    }
    return this.result();
  }

  result(): OperationResult {
    return {
      phase: this.phase,
      message: this.message,
      resources: this.states.map(({ task, phase, status, message }) => ({
        group: task.key.group,
        version: task.apiVersion.includes('/')
          ? task.apiVersion.slice(task.apiVersion.indexOf('/') + 1)
          : task.apiVersion,
        kind: task.key.kind,
        namespace: task.key.namespace,
        name: task.key.name,
        status,
        message,
        hookType: task.hookType ?? '',
        hookPhase: task.hookType ? (phase === 'Pending' || phase === 'Skipped' ? '' : phase) : '',
        syncPhase: task.phase,
        syncWave: task.wave,
      })),
    };
  }

  /** One round; returns true when the caller should wait for a live-state change before the next. */
  async step(signal: AbortSignal): Promise<boolean> {
    if (!this.#validated) {
      this.#validated = true;
      if (!(await this.#validate())) return false;
      if (this.#options.dryRun) {
        for (const s of this.states)
          if (s.phase === 'Pending') this.#set(s, 'Succeeded', statusOf(s.task), 'dry run');
        this.#end('Succeeded', 'dry run: every task validated, nothing written');
        return false;
      }
    }
    this.#refresh();
    this.#closeGroup(false);
    const running = this.states.filter((s) => s.phase === 'Running');
    if (running.some((s) => s.task.hookType) || (this.#multiStep && running.length > 0)) return true;

    await this.#releaseCompletedHooks();
    if (this.#failed || this.states.some((s) => s.phase === 'Failed')) return this.#afterFailure(signal);

    const pending = this.states.filter((s) => s.phase === 'Pending' && s.task.phase !== 'SyncFail');
    if (pending.length === 0) {
      await this.#deleteHooks('HookSucceeded', 'Succeeded');
      this.#end('Succeeded', 'successfully synced (all tasks run)');
      return false;
    }
    const first = pending[0]!.task;
    const group = pending.filter((s) => s.task.phase === first.phase && s.task.wave === first.wave);
    const waitForHooks = await this.#runGroup(group, signal);
    if (waitForHooks) return true;
    if (this.states.some((s) => s.phase === 'Failed')) return false;
    const last = group.length === pending.length;
    if (last && !group.some((s) => s.task.hookType)) {
      for (const s of group)
        if (s.phase === 'Running' && s.task.target) this.#set(s, 'Succeeded', s.status, s.message);
      this.#end('Succeeded', 'successfully synced (all tasks run)');
      return false;
    }
    return true;
  }

  async #validate(): Promise<boolean> {
    const crdKinds = new Set(
      this.states
        .filter((s) => s.task.key.kind === 'CustomResourceDefinition' && s.task.target)
        .map((s) => {
          const spec = s.task.target!['spec'] as { group?: string; names?: { kind?: string } } | undefined;
          return `${spec?.group ?? ''}/${spec?.names?.kind ?? ''}`;
        }),
    );
    const createdNamespaces = new Set(
      this.states
        .filter(
          (s) => s.task.key.kind === 'Namespace' && s.task.key.group === '' && s.task.action === 'create',
        )
        .map((s) => s.task.key.name),
    );
    const work = this.states.filter((s) => s.phase === 'Pending');
    this.#emit({ type: 'validate-start', tasks: work.length });
    if (!this.#permitted()) {
      this.#emit({ type: 'validate-done', failed: this.states.filter((s) => s.phase === 'Failed').length });
      return false;
    }
    await Promise.all(
      work.map(async (s) => {
        const kindKey = `${s.task.key.group}/${s.task.key.kind}`;
        if (!this.#client.served(s.task)) {
          if (crdKinds.has(kindKey) || hasOption(s.task.options, 'SkipDryRunOnMissingResource')) return;
          this.#set(
            s,
            'Failed',
            statusOf(s.task) === 'Pruned' ? 'Pruned' : 'SyncFailed',
            `the server could not find the requested resource (${kindKey})`,
          );
          return;
        }
        try {
          await this.#client.dryRun(s.task);
        } catch (err) {
          if (
            err instanceof UnknownKindError &&
            (crdKinds.has(kindKey) || hasOption(s.task.options, 'SkipDryRunOnMissingResource'))
          )
            return;
          // The namespace this sync creates does not exist yet: the server cannot judge the object there.
          if (isNotFoundError(err) && createdNamespaces.has(s.task.key.namespace)) return;
          this.#set(s, 'Failed', 'SyncFailed', messageOf(err));
        }
      }),
    );
    this.#emit({ type: 'validate-done', failed: this.states.filter((s) => s.phase === 'Failed').length });
    if (this.states.some((s) => s.phase === 'Failed')) {
      this.#end('Failed', 'one or more objects failed to apply (dry run)');
      return false;
    }
    return true;
  }

  /** Step 0: every task the project refuses fails, and then the operation, before any request. */
  #permitted(): boolean {
    const permission = this.#options.permission;
    if (!permission) return true;
    const reasons = new Set<string>();
    for (const s of this.states) {
      if (!this.#client.served(s.task)) continue;
      const reason = permission(s.task);
      if (reason === undefined) continue;
      reasons.add(reason);
      this.#set(s, 'Failed', 'SyncFailed', reason);
    }
    if (reasons.size === 0) return true;
    this.#end('Failed', `one or more synchronization tasks are not valid: ${[...reasons].sort().join('; ')}`);
    return false;
  }

  #refresh(): void {
    for (const s of this.states) {
      if (s.phase !== 'Running') continue;
      const live = this.#client.live(s.task);
      if (s.task.target === undefined) {
        if (live === undefined) this.#set(s, 'Succeeded', 'Pruned', 'pruned');
        else this.#failIfLost(s);
        continue;
      }
      if (live === undefined) {
        this.#set(s, 'Failed', 'SyncFailed', 'the object was deleted while the sync waited for it');
        continue;
      }
      const health = healthOf(live, this.#options.health);
      if (s.task.hookType) {
        if (health === undefined || health === 'Healthy') this.#set(s, 'Succeeded', 'Synced', s.message);
        else if (health === 'Degraded' || health === 'Unknown')
          this.#set(s, 'Failed', 'SyncFailed', healthMessage(live, this.#options.health) || `hook ${health}`);
      } else if (health === undefined || health === 'Healthy') this.#set(s, 'Succeeded', 'Synced', s.message);
      else if (health === 'Degraded')
        this.#set(
          s,
          'Failed',
          'SyncFailed',
          healthMessage(live, this.#options.health) || 'resource is Degraded',
        );
      if (s.phase === 'Running') this.#failIfLost(s);
    }
  }

  /** A running task whose live state cannot be followed (its watch is lost) fails: no change would come. */
  #failIfLost(s: TaskState): void {
    const lost = this.#client.lost?.(s.task);
    if (lost !== undefined)
      this.#set(s, 'Failed', s.status || 'SyncFailed', `cannot follow the live state: ${lost}`);
  }

  async #releaseCompletedHooks(): Promise<void> {
    await Promise.all(
      this.states
        .filter((s) => s.task.hookType && (s.phase === 'Succeeded' || s.phase === 'Failed'))
        .map(async (s) => {
          const live = this.#client.live(s.task);
          if (
            live?.metadata?.['finalizers'] &&
            (live.metadata['finalizers'] as string[]).includes(HOOK_FINALIZER)
          ) {
            await this.#client.removeFinalizer(s.task, live);
          }
        }),
    );
  }

  async #afterFailure(signal: AbortSignal): Promise<boolean> {
    if (!this.#failed) {
      this.#failed = true;
      await this.#deleteHooks('HookFailed', 'Failed');
      const syncFail = this.states.filter((s) => s.task.phase === 'SyncFail' && s.phase === 'Pending');
      if (syncFail.length > 0 && !signal.aborted) {
        this.#openGroup(syncFail);
        await this.#apply(syncFail, signal);
        return true;
      }
    }
    if (this.states.some((s) => s.task.phase === 'SyncFail' && s.phase === 'Running')) return true;
    const failed = this.states.filter((s) => s.phase === 'Failed' && s.task.phase !== 'SyncFail');
    this.#end(
      'Failed',
      `one or more tasks failed: ${failed.map((s) => `${describe(s.task)}: ${s.message}`).join('; ')}`,
    );
    return false;
  }

  async #deleteHooks(policy: 'HookSucceeded' | 'HookFailed', phase: TaskPhase): Promise<void> {
    await Promise.all(
      this.states
        .filter((s) => s.task.hookType && s.phase === phase && s.task.deletePolicies.includes(policy))
        .filter((s) => this.#client.live(s.task) !== undefined)
        .map((s) => this.#client.delete(s.task, 'background')),
    );
  }

  /** Runs one (phase, wave) group; returns true when it must wait for replaced hooks to go first. */
  async #runGroup(group: TaskState[], signal: AbortSignal): Promise<boolean> {
    this.#openGroup(group);
    const prunes = group.filter((s) => s.task.target === undefined);
    await Promise.all(
      prunes.map(async (s) => {
        try {
          await this.#client.delete(s.task, propagationOf(s.task));
          this.#set(s, 'Running', 'Pruned', 'pruned');
        } catch (err) {
          this.#set(s, 'Failed', 'SyncFailed', messageOf(err));
        }
      }),
    );
    const replaced = group.filter(
      (s) =>
        s.task.hookType && s.task.deletePolicies.includes('BeforeHookCreation') && this.#client.live(s.task),
    );
    if (replaced.length > 0) {
      const alive = replaced.filter((s) => !this.#client.live(s.task)?.metadata?.deletionTimestamp);
      await Promise.all(alive.map((s) => this.#client.delete(s.task, 'background')));
      return true;
    }
    await this.#apply(
      group.filter((s) => s.task.target !== undefined),
      signal,
    );
    return false;
  }

  /** Applies tasks in order: consecutive tasks of one kind at once, kinds one after another. */
  async #apply(tasks: TaskState[], signal: AbortSignal): Promise<void> {
    let i = 0;
    while (i < tasks.length) {
      if (signal.aborted) return;
      const kind = tasks[i]!.task.key.kind;
      let j = i;
      while (j < tasks.length && tasks[j]!.task.key.kind === kind) j++;
      await Promise.all(tasks.slice(i, j).map((s) => this.#applyOne(s)));
      if (tasks.slice(i, j).some((s) => s.phase === 'Failed')) return;
      i = j;
    }
  }

  async #applyOne(s: TaskState): Promise<void> {
    try {
      if (s.task.hookType) addFinalizer(s.task.target!);
      const changed = await this.#client.apply(s.task);
      const verb =
        s.task.action === 'create'
          ? 'created'
          : s.task.action === 'replace'
            ? 'replaced'
            : changed
              ? 'configured'
              : 'unchanged';
      this.#set(s, 'Running', 'Synced', `${s.task.key.kind.toLowerCase()}/${s.task.key.name} ${verb}`);
    } catch (err) {
      this.#set(s, 'Failed', 'SyncFailed', messageOf(err));
    }
  }

  #set(s: TaskState, phase: TaskPhase, status: ResultCode | '', message: string): void {
    s.phase = phase;
    s.status = status;
    s.message = message;
    this.#emit({ type: 'task', task: taskRef(s.task), phase, status, message });
  }

  #end(phase: OperationPhase, message: string): void {
    this.phase = phase;
    this.message = message;
    this.#closeGroup(true);
    this.#emit({ type: 'operation-done', phase, message });
  }

  /** Reports a group's start once (a group whose replaced hooks must go first runs over two steps). */
  #openGroup(states: TaskState[]): void {
    const first = states[0]!.task;
    if (this.#group?.syncPhase === first.phase && this.#group.syncWave === first.wave) return;
    this.#closeGroup(true);
    this.#group = { syncPhase: first.phase, syncWave: first.wave, states };
    this.#emit({ type: 'wave-start', syncPhase: first.phase, syncWave: first.wave, tasks: states.length });
  }

  /**
   * Reports the open group done when none of its tasks runs any more and none is left to start (or,
   * with `force`, at once: a failure or the end stops what was left).
   */
  #closeGroup(force: boolean): void {
    const group = this.#group;
    if (!group) return;
    const open = group.states.some((s) => s.phase === 'Running' || s.phase === 'Pending');
    if (open && !force) {
      // After a failure the tasks not started stay Pending: the group is over once nothing runs.
      const failed = group.states.some((s) => s.phase === 'Failed');
      if (!failed || group.states.some((s) => s.phase === 'Running')) return;
    }
    this.#group = undefined;
    this.#emit({
      type: 'wave-done',
      syncPhase: group.syncPhase,
      syncWave: group.syncWave,
      succeeded: group.states.filter((s) => s.phase === 'Succeeded').length,
      failed: group.states.filter((s) => s.phase === 'Failed').length,
    });
  }

  #emit(event: SyncEngineEvent): void {
    this.#options.onEvent?.(event);
  }

  #stillRunning(): string {
    const running = this.states.filter((s) => s.phase === 'Running').map((s) => describe(s.task));
    const pending = this.states.filter((s) => s.phase === 'Pending').length;
    return `${running.length > 0 ? `; still running: ${running.join(', ')}` : ''}${pending > 0 ? `; ${pending} task(s) not started` : ''}`;
  }
}

function isNotFoundError(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 404;
}

function statusOf(task: SyncTask): ResultCode {
  return task.target === undefined ? 'Pruned' : 'Synced';
}

function propagationOf(task: SyncTask): 'foreground' | 'background' | 'orphan' {
  const value = task.options['PrunePropagationPolicy']?.toLowerCase();
  return value === 'background' || value === 'orphan' ? value : 'foreground';
}

function addFinalizer(obj: KubeObject): void {
  const metadata = (obj.metadata ??= {});
  const list = Array.isArray(metadata['finalizers']) ? (metadata['finalizers'] as string[]) : [];
  if (!list.includes(HOOK_FINALIZER)) metadata['finalizers'] = [...list, HOOK_FINALIZER];
}

function healthOf(live: KubeObject, options?: HealthOptions): HealthStatus | undefined {
  try {
    return getResourceHealth(live as Unstructured, options)?.status;
  } catch {
    return 'Unknown';
  }
}

function healthMessage(live: KubeObject, options?: HealthOptions): string {
  try {
    return getResourceHealth(live as Unstructured, options)?.message ?? '';
  } catch {
    return '';
  }
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

function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, ' ').trim();
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'aborted';
}
