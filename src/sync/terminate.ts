/**
 * Terminating a running operation (gitops-engine pkg/sync/sync_context.go `Terminate` and
 * `terminateHooksPreemptively`): what `argocd app terminate-op` (`status.operationState.phase:
 * Terminating`) makes Argo CD's controller do at the operation's next step.
 *
 * 1. Completed hooks (Succeeded or Failed) lose the `argocd.argoproj.io/hook-finalizer`.
 * 2. Each running hook, read from the live state: gone -> Succeeded "Terminated"; else its finalizer is
 *    removed and it is deleted (background) when it still runs or has the `HookFailed` delete policy; a
 *    hook found completed takes its real outcome, one still running ends Failed "Terminated".
 * 3. The operation ends `Failed` "Operation terminated", or `Error` "Operation termination had errors"
 *    when a finalizer could not be removed or a hook deleted (the task says why).
 * Plain resources already applied keep their result; tasks not started stay without one. Nothing waits.
 */
import { getResourceHealth } from '../health/index.js';
import type { Unstructured } from '../health/index.js';
import type { EngineRun, TaskState } from './engine-types.js';
import { messageOf } from './engine-types.js';
import { finalizersOf } from './hooks.js';
import { HOOK_FINALIZER } from './annotations.js';

/** Argo CD's messages (sync_context.go Terminate). */
export const OPERATION_TERMINATED = 'Operation terminated';
export const TERMINATION_HAD_ERRORS = 'Operation termination had errors';

/** Runs the termination (see the header) and ends the operation. */
export async function terminateRun(run: EngineRun): Promise<void> {
  let ok = true;
  for (const s of run.states.filter(
    (x) => x.task.hookType && (x.phase === 'Succeeded' || x.phase === 'Failed'),
  )) {
    const live = run.client.live(s.task);
    if (!live || !finalizersOf(live).includes(HOOK_FINALIZER)) continue;
    // Argo CD records a failure on the task and still calls the termination successful.
    await run.client
      .removeFinalizer(s.task, live)
      .catch((err: unknown) =>
        run.set(s, s.phase, s.status, `Failed to remove hook finalizer: ${messageOf(err)}`),
      );
  }
  const running = run.states.filter((s) => s.task.hookType && s.phase === 'Running');
  for (const s of running) if (!(await terminateHook(run, s))) ok = false;
  run.end(ok ? 'Failed' : 'Error', ok ? OPERATION_TERMINATED : TERMINATION_HAD_ERRORS);
}

async function terminateHook(run: EngineRun, s: TaskState): Promise<boolean> {
  const live = run.client.live(s.task);
  if (!live) {
    run.set(s, 'Succeeded', s.status, 'Terminated');
    return true;
  }
  let outcome: { phase: 'Succeeded' | 'Failed' | 'Running'; message: string };
  try {
    const health = getResourceHealth(live as Unstructured, run.options.health);
    const status = health?.status ?? 'Healthy';
    outcome =
      status === 'Healthy'
        ? { phase: 'Succeeded', message: health?.message ?? '' }
        : status === 'Degraded'
          ? { phase: 'Failed', message: health?.message ?? '' }
          : { phase: 'Running', message: health?.message ?? '' };
  } catch (err) {
    outcome = { phase: 'Running', message: `Failed to get hook health: ${messageOf(err)}` };
  }
  try {
    if (finalizersOf(live).includes(HOOK_FINALIZER)) await run.client.removeFinalizer(s.task, live);
  } catch (err) {
    run.set(s, 'Failed', s.status, `Failed to remove hook finalizer: ${messageOf(err)}`);
    return false;
  }
  if (outcome.phase === 'Running' || s.task.deletePolicies.includes('HookFailed')) {
    try {
      await run.client.delete(s.task, 'background');
    } catch (err) {
      run.set(s, 'Failed', s.status, `Failed to delete: ${messageOf(err)}`);
      return false;
    }
  }
  if (outcome.phase === 'Running') run.set(s, 'Failed', s.status, 'Terminated');
  else run.set(s, outcome.phase, s.status, outcome.message || s.message);
  return true;
}
