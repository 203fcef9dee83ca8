/**
 * Hook finalizers and hook deletion (gitops-engine sync_context.go). New hooks carry
 * `argocd.argoproj.io/hook-finalizer` (`addFinalizer`, set on the target before it is applied) so they
 * cannot go before the engine has seen their end; a completed hook loses it (`releaseCompletedHooks`, at
 * the start of every step that is not waiting). `deleteHooks` deletes, in the background, the hooks
 * with a delete policy for their outcome (`HookSucceeded` once the operation succeeds, `HookFailed` after
 * a failure) that still exist. Hooks left by an earlier sync are handled where their group runs
 * (groups.ts).
 */
import type { KubeObject } from '../common/index.js';
import { HOOK_FINALIZER } from './annotations.js';
import type { EngineRun } from './engine-types.js';
import type { TaskPhase } from './types.js';

/** Removes the hook finalizer from every completed hook that still carries it. */
export async function releaseCompletedHooks(run: EngineRun): Promise<void> {
  await Promise.all(
    run.states
      .filter((s) => s.task.hookType && (s.phase === 'Succeeded' || s.phase === 'Failed'))
      .map(async (s) => {
        const live = run.client.live(s.task);
        if (
          live?.metadata?.['finalizers'] &&
          (live.metadata['finalizers'] as string[]).includes(HOOK_FINALIZER)
        ) {
          await run.client.removeFinalizer(s.task, live);
        }
      }),
  );
}

/** Deletes the hooks in `phase` whose delete policies include `policy` and that still exist. */
export async function deleteHooks(
  run: EngineRun,
  policy: 'HookSucceeded' | 'HookFailed',
  phase: TaskPhase,
): Promise<void> {
  await Promise.all(
    run.states
      .filter((s) => s.task.hookType && s.phase === phase && s.task.deletePolicies.includes(policy))
      .filter((s) => run.client.live(s.task) !== undefined)
      .map((s) => run.client.delete(s.task, 'background')),
  );
}

export function finalizersOf(obj: KubeObject | undefined): string[] {
  const list = obj?.metadata?.['finalizers'];
  return Array.isArray(list) ? (list as string[]) : [];
}

export function addFinalizer(obj: KubeObject): void {
  const metadata = (obj.metadata ??= {});
  const list = Array.isArray(metadata['finalizers']) ? (metadata['finalizers'] as string[]) : [];
  if (!list.includes(HOOK_FINALIZER)) metadata['finalizers'] = [...list, HOOK_FINALIZER];
}
