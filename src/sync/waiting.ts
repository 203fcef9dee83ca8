/**
 * The engine's waiting rule and the live-state re-evaluation it rests on.
 *
 * The rule: never wait for an event that a no-op step does not produce. A step that asks to wait is first
 * re-evaluated from the live state at once (`refresh`, then `blocked` / `replacedStillThere`): when nothing
 * is left that can still change (no running hook or task whose live object has not reached its end, no
 * replaced hook still there) the next step starts without waiting, so a step that wrote nothing, or whose
 * objects are already in the state it waits for, never waits for an event that will not come (Argo CD's
 * `SyncContext.Sync` re-evaluates every task from the live state on each call and waits for no event).
 * Otherwise the run waits for the next live-state change (`client.changed`) or `recheckMs`, whichever is
 * first (`changedOrInterval`), and then re-evaluates (after `client.reread` of what the live cache cannot
 * show): an event missed or never sent delays a sync by at most one interval. A task whose live state
 * cannot be followed (its watch is lost) fails instead of waiting for a change that cannot arrive.
 *
 * Re-evaluation (`refresh`) of running tasks: hooks Healthy (or without health: message "<name> created",
 * gitops-engine `getOperationPhase`) = Succeeded, Degraded/Unknown = Failed, else Running with their
 * health's message once it has one (a suspended Job: "Job suspended"); resources Healthy (or without
 * health) = Succeeded, Degraded =
 * Failed, else Running; prunes Succeeded once the object is gone. A running non-prune task whose live
 * object vanished fails.
 */
import { getResourceHealth, healthReason } from '../health/index.js';
import type { HealthOptions, HealthStatus, Unstructured } from '../health/index.js';
import { linkedSignal } from '../common/index.js';
import type { KubeObject } from '../common/index.js';
import type { EngineRun, SyncClient, TaskState } from './engine-types.js';
import type { WaitingResource } from './types.js';

/** Default `EngineOptions.recheckMs`. */
export const RECHECK_MS = 1000;

/** Re-evaluates every running task from the live state (rules in the header). */
export function refresh(run: EngineRun): void {
  for (const s of run.states) {
    if (s.phase !== 'Running') continue;
    if (s.task.createOnly) {
      // Written: done, and reported as gitops-engine leaves it (SyncTask.createOnly).
      s.reportedPhase = 'Running';
      run.set(s, 'Succeeded', s.status, s.message);
      continue;
    }
    const live = run.client.live(s.task);
    if (s.task.target === undefined) {
      if (live === undefined) run.set(s, 'Succeeded', 'Pruned', 'pruned');
      else failIfLost(run, s);
      continue;
    }
    if (live === undefined) {
      run.set(s, 'Failed', 'SyncFailed', 'the object was deleted while the sync waited for it');
      continue;
    }
    const health = healthOf(live, run.options.health);
    // gitops-engine keeps the task's result code (its write did succeed) and the latest non-empty message:
    // the health's, once there is one.
    const latest = (fallback: string) => healthMessage(live, run.options.health) || fallback;
    if (s.task.hookType) {
      // A hook of a kind without health: "<name> created" (gitops-engine getOperationPhase's default).
      if (health === undefined) run.set(s, 'Succeeded', s.status, `${live.metadata?.name ?? ''} created`);
      else if (health === 'Healthy') run.set(s, 'Succeeded', s.status, latest(s.message));
      else if (health === 'Degraded' || health === 'Unknown')
        run.set(s, 'Failed', s.status, latest(`hook ${health}`));
      else if (latest(s.message) !== s.message) run.set(s, 'Running', s.status, latest(s.message));
    } else if (health === undefined || health === 'Healthy')
      run.set(s, 'Succeeded', s.status, latest(s.message));
    else if (health === 'Degraded') run.set(s, 'Failed', s.status, latest('resource is Degraded'));
    if (s.phase === 'Running') failIfLost(run, s);
  }
}

/** A running task whose live state cannot be followed (its watch is lost) fails: no change would come. */
function failIfLost(run: EngineRun, s: TaskState): void {
  const lost = run.client.lost?.(s.task);
  if (lost !== undefined)
    run.set(s, 'Failed', s.status || 'SyncFailed', `cannot follow the live state: ${lost}`);
}

/** Running tasks the next group must wait for: any hook, or anything in a multi-step sync. */
export function blocked(states: readonly TaskState[], multiStep: boolean): boolean {
  const running = states.filter((s) => s.phase === 'Running');
  return running.some((s) => s.task.hookType) || (multiStep && running.length > 0);
}

/** Whether a hook replaced by `BeforeHookCreation` is still there (the group waits until it is gone). */
export function replacedStillThere(run: EngineRun): boolean {
  return run.replacing.some((s) => run.client.live(s.task) !== undefined);
}

/**
 * What a wait is for, from the live state now: each running task's resource with its health and why it is
 * not done (src/health `healthReason`), and each hook replaced by `BeforeHookCreation` still there.
 */
export function waitingFor(run: EngineRun): WaitingResource[] {
  const out: WaitingResource[] = [];
  const entry = (s: TaskState, health: string, reason: string): WaitingResource => ({
    group: s.task.key.group,
    kind: s.task.key.kind,
    namespace: s.task.key.namespace,
    name: s.task.key.name,
    health,
    reason,
  });
  for (const s of run.states) {
    if (s.phase !== 'Running') continue;
    if (s.task.createOnly) {
      // Written: done, and reported as gitops-engine leaves it (SyncTask.createOnly).
      s.reportedPhase = 'Running';
      run.set(s, 'Succeeded', s.status, s.message);
      continue;
    }
    const live = run.client.live(s.task);
    if (s.task.target === undefined || live === undefined) {
      out.push(entry(s, '', 'waiting for the object to be deleted'));
      continue;
    }
    let result: { status: HealthStatus; message?: string } | undefined;
    try {
      result = getResourceHealth(live as Unstructured, run.options.health);
    } catch (err) {
      result = { status: 'Unknown', message: err instanceof Error ? err.message : String(err) };
    }
    if (!result) continue;
    out.push(entry(s, result.status, healthReason({ ...s.task.key, ...result })));
  }
  for (const s of run.replacing)
    if (run.client.live(s.task) !== undefined)
      out.push(entry(s, '', 'waiting for the hook of the previous sync to be deleted'));
  return out;
}

/**
 * gitops-engine's `setRunningPhase` message for the tasks a waiting run waits for: the running hooks
 * ("waiting for completion of hook batch/Job/x"), else the running resources ("waiting for healthy state
 * of apps/Deployment/web"), or what must be deleted first ("waiting for deletion of [hook] ..."), with
 * " and N more resources|hooks" when there are several. Empty when nothing runs.
 */
export function runningMessage(run: EngineRun): string {
  let tasks = run.states.filter((s) => s.phase === 'Running').map((s) => s.task);
  let deletion = tasks.length > 0 && tasks.every((t) => t.target === undefined);
  if (tasks.length === 0) {
    tasks = run.replacing.filter((s) => run.client.live(s.task) !== undefined).map((s) => s.task);
    deletion = true;
  }
  if (tasks.length === 0) return '';
  const hooks = tasks.filter((t) => t.hookType);
  const resources = tasks.filter((t) => !t.hookType);
  let reason = hooks.length === 0 ? 'healthy state of' : 'completion of hook';
  if (deletion) reason = hooks.length > 0 ? 'deletion of hook' : 'deletion of';
  const first = (hooks[0] ?? resources[0])!;
  const more = tasks.length - 1;
  const kinds = resources.length === 0 ? 'hooks' : 'resources';
  return `waiting for ${reason} ${first.key.group}/${first.key.kind}/${first.key.name}${more > 0 ? ` and ${more} more ${kinds}` : ''}`;
}

/** Resolves on the next live-state change after `generation`, or after `recheckMs`, or on abort. */
export async function changedOrInterval(
  client: SyncClient,
  generation: number,
  signal: AbortSignal,
  recheckMs: number = RECHECK_MS,
): Promise<'change' | 'interval'> {
  const stop = new AbortController();
  // Not AbortSignal.any: `signal` is the operation's (the continuous loop's, long-lived); common/signals.ts.
  const linked = linkedSignal(signal, stop.signal);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const interval = new Promise<'interval'>((resolve) => {
    timer = setTimeout(() => resolve('interval'), recheckMs);
  });
  try {
    return await Promise.race([
      client.changed(generation, linked.signal).then(() => 'change' as const),
      interval,
    ]);
  } finally {
    clearTimeout(timer);
    stop.abort();
    linked.dispose();
  }
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
