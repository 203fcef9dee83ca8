/**
 * The sync engine: runs a plan against a `SyncClient` as a resumable step machine (gitops-engine
 * pkg/sync/sync_context.go `Sync()`). Each `step()` does one round and leaves its outcome as data on the
 * tasks (status, message, hook phase), so an interrupted or timed-out run still yields a full report.
 *
 * One step, in order:
 * 0. First step only: the project's permission of every task whose kind is served (Argo CD's
 *    `WithPermissionValidator`, run by gitops-engine's `getSyncTasks`): any refusal ends the operation
 *    Failed before the dry run, with nothing written (validate.ts).
 * 1. First step only: a server-side dry run of every task; any failure ends the operation Failed with
 *    nothing written (validate.ts). With `dryRun` the operation ends here, Succeeded (`dryRunMessage`).
 * 2. Running tasks are refreshed from the live state (waiting.ts `refresh`: health decides hooks and
 *    resources; prunes succeed once the object is gone; a vanished or unfollowable object fails).
 * 3. Wait while a hook runs, or while anything runs in a multi-step sync (more than one phase/wave).
 * 4. Completed hooks lose the `argocd.argoproj.io/hook-finalizer` (hooks.ts). After a failure: `HookFailed`
 *    hooks are deleted, SyncFail hooks run (and are waited for), the operation ends Failed.
 * 5. Nothing pending: `HookSucceeded` hooks are deleted and the operation ends Succeeded.
 * 6. The first pending (phase, wave) group runs (groups.ts): prunes in parallel; hooks of the group that
 *    still exist from an earlier sync lose the hook finalizer (so they can go), those with
 *    `BeforeHookCreation` are deleted first (the step then waits for them to go); then applies,
 *    consecutive tasks of one kind in parallel, kinds one after another (a failed write stops none of
 *    them; the operation fails after the wave: `endsAtOnce`). New hooks get the hook
 *    finalizer. If this was the last group and it held no hook, the operation ends Succeeded (resources
 *    may still become healthy later, as in Argo CD).
 * `run()` repeats steps under the waiting rule (waiting.ts): never wait for an event that a no-op step
 * does not produce. A step that asks to wait is first re-evaluated from the live state at once: when
 * nothing is left that can still change (no running hook or task whose live object has not reached its end,
 * no replaced hook still there) the next step starts without waiting, so a step that wrote nothing, or
 * whose objects are already in the state it waits for, never waits for an event that will not come (Argo
 * CD's `SyncContext.Sync` re-evaluates every task from the live state on each call and waits for no event).
 * Otherwise it reports what it waits for (a `waiting` event: each resource, its health and why) and waits
 * for the next live-state change (`client.changed`) or `recheckMs`, whichever is first, and then re-evaluates (after `client.reread` of what the live cache cannot show): an event missed or
 * never sent delays a sync by at most one interval. An aborted signal stops starting tasks, lets in-flight
 * requests finish and ends the operation Failed with the reason, the tasks not run staying without a status.
 * `run(signal, terminate)`: the `terminate` signal (Argo CD's `Terminating` phase) ends the run at its next
 * step with gitops-engine's termination instead (terminate.ts): running hooks deleted, Failed "Operation
 * terminated".
 */
import { linkedSignal } from '../common/index.js';
import type { KubeObject } from '../common/index.js';
import { isMultiStep } from './order.js';
import { describe, statusOf, taskRef } from './engine-types.js';
import type { EngineOptions, EngineRun, OperationResult, SyncClient, TaskState } from './engine-types.js';
import { runGroup, applyTasks, applyMessage } from './groups.js';
import { deleteHooks, releaseCompletedHooks } from './hooks.js';
import { terminateRun } from './terminate.js';
import { validate } from './validate.js';
import {
  blocked,
  changedOrInterval,
  refresh,
  replacedStillThere,
  runningMessage,
  waitingFor,
} from './waiting.js';
import type { OperationPhase, ResultCode, SyncEngineEvent, SyncTask, TaskPhase } from './types.js';

export class SyncEngine {
  readonly states: TaskState[];
  phase: OperationPhase = 'Running';
  message = '';
  readonly #client: SyncClient;
  readonly #options: EngineOptions;
  readonly #multiStep: boolean;
  /** This run as the engine's parts (validate.ts, groups.ts, hooks.ts, waiting.ts) act on it. */
  readonly #run: EngineRun;
  #validated = false;
  #failed = false;
  /** A write of the group run last failed and the operation ends on it (the message: "failed to apply"). */
  #applyFailed = false;
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
    this.#run = {
      states: this.states,
      client,
      options,
      replacing: [],
      set: (s, phase, status, message) => this.#set(s, phase, status, message),
      end: (phase, message) => this.#end(phase, message),
      emit: (event) => this.#emit(event),
      openGroup: (states) => this.#openGroup(states),
    };
  }

  get done(): boolean {
    return this.phase !== 'Running';
  }

  /**
   * Runs steps until the operation ends or a signal aborts. `signal` stops it where it is (Ctrl-C, a
   * timeout: "operation terminated: <reason>"); `terminate` (Argo CD's `Terminating` phase) runs
   * gitops-engine's termination at the next step instead (terminate.ts), with the client still usable.
   */
  async run(signal: AbortSignal, terminate?: AbortSignal): Promise<OperationResult> {
    const linked = terminate ? linkedSignal(signal, terminate) : undefined;
    const stop = linked?.signal ?? signal;
    try {
      while (!this.done) {
        if (terminate?.aborted && !signal.aborted) {
          await terminateRun(this.#run);
          break;
        }
        if (signal.aborted) {
          this.#end('Failed', `operation terminated: ${reasonOf(signal)}${this.#stillRunning()}`);
          break;
        }
        // Read before the step, so a change that lands while the step runs still wakes the next one.
        const generation = this.#client.generation();
        const wait = await this.step(stop);
        if (!wait || this.done || stop.aborted || !this.#waiting()) continue;
        // Say what the wait is for (printers show what changed since the last time).
        this.#options.onRunning?.({
          message: runningMessage(this.#run),
          resources: this.result().resources,
          revision: '',
        });
        this.#emit({ type: 'waiting', resources: waitingFor(this.#run) });
        if (
          (await changedOrInterval(this.#client, generation, stop, this.#options.recheckMs)) === 'interval' &&
          !stop.aborted
        ) {
          await this.#client.reread?.(
            this.states
              .filter((s) => s.phase === 'Running' || this.#run.replacing.includes(s))
              .map((s) => s.task),
            stop,
          );
        }
      }
    } finally {
      linked?.dispose();
    }
    return this.result();
  }

  /**
   * Whether the run has something to wait for, judged from the live state now: a task still running once
   * refreshed (a hook, or any task of a multi-step sync, whose live object has not reached its end) or a
   * hook replaced by `BeforeHookCreation` still there. False: the next step can start at once.
   */
  #waiting(): boolean {
    if (this.done) return false;
    refresh(this.#run);
    this.#closeGroup(false);
    return blocked(this.states, this.#multiStep) || replacedStillThere(this.#run);
  }

  result(): OperationResult {
    return {
      phase: this.phase,
      message: this.message,
      resources: this.states.map(({ task, phase, status, message, reportedPhase }) => ({
        group: task.key.group,
        version: task.apiVersion.includes('/')
          ? task.apiVersion.slice(task.apiVersion.indexOf('/') + 1)
          : task.apiVersion,
        kind: task.key.kind,
        namespace: task.resultNamespace ?? task.key.namespace,
        name: task.key.name,
        status,
        message,
        hookType: task.hookType ?? '',
        hookPhase: hookPhaseOf(task, phase, status, reportedPhase),
        syncPhase: task.phase,
        syncWave: task.wave,
        ...imagesOf(task.target ?? task.live),
      })),
    };
  }

  /** One round; returns true when the caller should wait for a live-state change before the next. */
  async step(signal: AbortSignal): Promise<boolean> {
    if (!this.#validated) {
      this.#validated = true;
      if (!(await validate(this.#run))) return false;
      if (this.#options.dryRun) {
        // As gitops-engine's dry-run operation: every task's kubectl words with " (dry run)", Succeeded,
        // and the operation ends as one with no task left (sync_context.go `Sync`, `pruneObject`).
        for (const s of this.states)
          if (s.phase === 'Pending') this.#set(s, 'Succeeded', statusOf(s.task), dryRunMessage(s.task));
        this.#end('Succeeded', 'successfully synced (no more tasks)');
        return false;
      }
    }
    refresh(this.#run);
    this.#closeGroup(false);
    if (blocked(this.states, this.#multiStep)) return true;

    await releaseCompletedHooks(this.#run);
    if (this.#failed || this.states.some((s) => s.phase === 'Failed')) return this.#afterFailure(signal);

    const pending = this.states.filter((s) => s.phase === 'Pending' && s.task.phase !== 'SyncFail');
    if (pending.length === 0) {
      await deleteHooks(this.#run, 'HookSucceeded', 'Succeeded');
      this.#end('Succeeded', 'successfully synced (no more tasks)');
      return false;
    }
    const first = pending[0]!.task;
    const group = pending.filter((s) => s.task.phase === first.phase && s.task.wave === first.wave);
    const waitForHooks = await runGroup(this.#run, group, signal);
    if (waitForHooks) return true;
    if (group.some((s) => s.phase === 'Failed' && s.status === 'SyncFailed'))
      this.#applyFailed = endsAtOnce(group, this.states);
    if (this.states.some((s) => s.phase === 'Failed')) return false;
    const last = group.length === pending.length;
    if (last && !group.some((s) => s.task.hookType)) {
      for (const s of group)
        if (s.phase === 'Running' && s.task.target) {
          s.reportedPhase = 'Running';
          this.#set(s, 'Succeeded', s.status, s.message);
        }
      // Hooks of earlier phases that succeeded go now too (Argo CD deletes them on this path as well).
      await deleteHooks(this.#run, 'HookSucceeded', 'Succeeded');
      this.#end('Succeeded', 'successfully synced (all tasks run)');
      return false;
    }
    return true;
  }

  async #afterFailure(signal: AbortSignal): Promise<boolean> {
    if (!this.#failed) {
      this.#failed = true;
      await deleteHooks(this.#run, 'HookFailed', 'Failed');
      const syncFail = this.states.filter((s) => s.task.phase === 'SyncFail' && s.phase === 'Pending');
      if (syncFail.length > 0 && !signal.aborted) {
        this.#openGroup(syncFail);
        await applyTasks(this.#run, syncFail, signal);
        return true;
      }
    }
    if (this.states.some((s) => s.task.phase === 'SyncFail' && s.phase === 'Running')) return true;
    // gitops-engine executeSyncFailPhase: "one or more objects failed to apply" when the operation ends on
    // the pass whose write failed (`endsAtOnce`), else "... completed unsuccessfully" (it ends on a later
    // pass); then ", reason: " and the messages of the tasks whose write failed (SyncFailed), joined by ",".
    const base = this.#applyFailed
      ? 'one or more objects failed to apply'
      : 'one or more synchronization tasks completed unsuccessfully';
    const reasons = this.states
      .filter((s) => s.status === 'SyncFailed' && s.task.phase !== 'SyncFail' && s.message)
      .map((s) => s.message);
    this.#end('Failed', reasons.length > 0 ? `${base}, reason: ${reasons.join(',')}` : base);
    return false;
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

/**
 * Whether an operation whose group just had a write fail ends on that pass, as gitops-engine's `Sync`
 * decides (sync_context.go, `runState == failed`): only when no task of the group is still running (an
 * object applied, a hook started; a prune is Succeeded at once) and no SyncFail task is left to run. Else
 * it waits for the running tasks (or runs the SyncFail hooks) and ends on a later pass, on its "completed
 * unsuccessfully" branch: a ConfigMap applied beside a custom resource whose kind is not served ends so
 * (conformance c094).
 */
function endsAtOnce(group: readonly TaskState[], states: readonly TaskState[]): boolean {
  if (group.some((s) => s.phase === 'Running' && s.status !== 'Pruned')) return false;
  return !states.some((s) => s.task.phase === 'SyncFail' && s.phase === 'Pending');
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'aborted';
}

/**
 * A task's `hookPhase` in the result, as gitops-engine's `setResourceResult` records every task's operation
 * phase (not only hooks'): an apply is Running until re-evaluated (Succeeded once Healthy or without health,
 * Failed once Degraded), a prune or a skipped prune Succeeded at once, a failed write Failed; a task not
 * run has none.
 */
/** gitops-engine GetResourceImages: the first container list found, each container's image. */
function imagesOf(obj: KubeObject | undefined): { images?: string[] } {
  const at = (o: unknown, path: string[]): unknown =>
    path.reduce<unknown>(
      (v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined),
      o,
    );
  for (const path of [
    ['spec', 'containers'],
    ['spec', 'template', 'spec', 'containers'],
    ['spec', 'jobTemplate', 'spec', 'template', 'spec', 'containers'],
  ]) {
    const list = at(obj, path);
    if (!Array.isArray(list)) continue;
    const images = list
      .map((c) => (c && typeof c === 'object' ? (c as Record<string, unknown>)['image'] : undefined))
      .filter((i): i is string => typeof i === 'string');
    return images.length > 0 ? { images } : {};
  }
  return {};
}

/**
 * A task's result in a dry-run operation, as kubectl's client-side dry run prints it under Argo CD
 * (measured against Argo CD 3.6.1, conformance c087): `configmap/cfg created (dry run)`, `... configured
 * (dry run)` for an object out of sync (`unchanged` when in sync), `replaced`, and `pruned (dry run)`.
 * A server-side apply is dry-run client-side there too (`shouldUseServerSideApply`), hence `configured`.
 */
export function dryRunMessage(task: SyncTask): string {
  if (task.target === undefined) return 'pruned (dry run)';
  const verb =
    task.action === 'create'
      ? 'created'
      : task.action === 'replace'
        ? 'replaced'
        : task.outOfSync
          ? 'configured'
          : 'unchanged';
  return `${applyMessage(task.key, verb)} (dry run)`;
}

function hookPhaseOf(
  task: SyncTask,
  phase: TaskPhase,
  status: ResultCode | '',
  reported: TaskPhase | '' | undefined,
): TaskPhase | '' {
  if (reported === '') return '';
  if ((status === 'Pruned' || status === 'PruneSkipped') && phase !== 'Failed' && phase !== 'Pending')
    return 'Succeeded';
  if (phase === 'Pending' || phase === 'Skipped') return '';
  if (task.hookType) return phase;
  return reported ?? phase;
}
