/**
 * The group runner: one (phase, wave) group of the plan, run in one step (gitops-engine sync_context.go
 * `runTasks`). Order, and what each part guarantees:
 * 1. Prunes, in parallel, with the task's `PrunePropagationPolicy` (default foreground); a prune is
 *    Running until the object is gone.
 * 2. Hooks of the group that still exist from an earlier sync lose the hook finalizer first (that sync was
 *    interrupted; otherwise the delete below would leave them terminating for good), and those with
 *    `BeforeHookCreation` are deleted: the group then returns "wait", and the step machine runs it again
 *    once they are gone (`EngineRun.replacing`). A failed finalizer removal fails those hooks.
 * 3. Applies: consecutive tasks of one kind at once, kinds one after another; a kind with a failure stops
 *    the rest, and an aborted signal stops starting new ones. New hooks get the hook finalizer. A role or
 *    binding applied client-side is reconciled first (`kubectl auth reconcile`, as Argo CD; its output
 *    leads the message). An applied task is Running ("created", "replaced", "configured", or "unchanged"
 *    when nothing was sent).
 */
import type { KubeObject } from '../common/index.js';
import { HOOK_FINALIZER, hasOption } from './annotations.js';
import { messageOf } from './engine-types.js';
import type { EngineRun, TaskState } from './engine-types.js';
import { addFinalizer, finalizersOf } from './hooks.js';
import { LAST_APPLIED_ANNOTATION as LAST_APPLIED } from './patch.js';
import { isReconciled } from './rbac-reconcile.js';
import type { SyncTask } from './types.js';

/** Runs one (phase, wave) group; returns true when it must wait for replaced hooks to go first. */
export async function runGroup(run: EngineRun, group: TaskState[], signal: AbortSignal): Promise<boolean> {
  const client = run.client;
  run.openGroup(group);
  const prunes = group.filter((s) => s.task.target === undefined);
  await Promise.all(
    prunes.map(async (s) => {
      try {
        await client.delete(s.task, propagationOf(s.task));
        run.set(s, 'Running', 'Pruned', 'pruned');
      } catch (err) {
        run.set(s, 'Failed', 'SyncFailed', messageOf(err));
      }
    }),
  );
  // Hooks left by an earlier sync may still carry the hook finalizer (that sync was interrupted): it is
  // removed first, or the delete below would leave them terminating for good (Argo CD's runTasks does
  // the same "to make sure the operation is idempotent").
  const existing = group.filter((s) => s.task.hookType && s.task.target && client.live(s.task));
  try {
    await Promise.all(
      existing
        .filter((s) => finalizersOf(client.live(s.task)).includes(HOOK_FINALIZER))
        .map((s) => client.removeFinalizer(s.task, client.live(s.task)!)),
    );
  } catch (err) {
    for (const s of existing)
      run.set(s, 'Failed', 'SyncFailed', `failed to remove hook finalizer: ${messageOf(err)}`);
    return false;
  }
  const replaced = existing.filter(
    (s) => s.task.deletePolicies.includes('BeforeHookCreation') && client.live(s.task),
  );
  run.replacing = replaced;
  if (replaced.length > 0) {
    const alive = replaced.filter((s) => !client.live(s.task)?.metadata?.deletionTimestamp);
    await Promise.all(alive.map((s) => client.delete(s.task, 'background')));
    return true;
  }
  await applyTasks(
    run,
    group.filter((s) => s.task.target !== undefined),
    signal,
  );
  return false;
}

/**
 * Applies tasks in order: consecutive tasks of one kind at once, kinds one after another. A failed write
 * does not stop the kinds after it: gitops-engine's `runTasks` applies every group of its wave whatever
 * the state (`processCreateTasks`), and the operation fails after the wave.
 */
export async function applyTasks(run: EngineRun, tasks: TaskState[], signal: AbortSignal): Promise<void> {
  let i = 0;
  while (i < tasks.length) {
    if (signal.aborted) return;
    const kind = tasks[i]!.task.key.kind;
    let j = i;
    while (j < tasks.length && tasks[j]!.task.key.kind === kind) j++;
    await Promise.all(tasks.slice(i, j).map((s) => applyOne(run, s)));
    i = j;
  }
}

/**
 * The result message of an applied task as kubectl prints it and Argo CD keeps it: the lower-cased
 * `Kind.group` (just the kind for the core group) and name, then the verb: `deployment.apps/web created`,
 * `configmap/settings configured` (kubectl's name printer; measured against Argo CD 3.6.1 by the
 * conformance corpus, docs/conformance.md).
 */
export function applyMessage(key: { group: string; kind: string; name: string }, verb: string): string {
  return `${key.kind.toLowerCase()}${key.group ? `.${key.group}` : ''}/${key.name} ${verb}`;
}

/**
 * kubectl's warning when a client-side apply patches an object that has no last-applied-configuration (its
 * `apply` adds it), as Argo CD keeps it in the result message after kubectl's output and ". ": Argo CD runs
 * kubectl's apply in-process under an empty command name, hence the double spaces (measured against Argo
 * CD 3.6.1). Undefined when kubectl would not warn (server-side apply, a create, an object that has it).
 */
export function missingLastAppliedWarning(
  task: SyncTask,
  live: KubeObject | undefined,
  resourceName: string | undefined,
  action: SyncTask['action'] = task.action,
): string | undefined {
  if (action !== 'apply' || hasOption(task.options, 'ServerSideApply')) return undefined;
  if (!live || live.metadata?.deletionTimestamp) return undefined;
  if (live.metadata?.annotations?.[LAST_APPLIED] !== undefined) return undefined;
  const bin = '';
  return (
    `Warning: resource ${resourceName ?? `${task.key.kind.toLowerCase()}s`}/${task.key.name} is missing the ` +
    `${LAST_APPLIED} annotation which is required by ${bin} apply. ${bin} apply should only be used on ` +
    `resources created declaratively by either ${bin} create --save-config or ${bin} apply. The missing ` +
    `annotation will be patched automatically.`
  );
}

/**
 * Whether Argo CD runs `kubectl auth reconcile` before applying the task: an `rbac.authorization.k8s.io/v1`
 * role or binding, applied client-side (not `ServerSideApply=true`, not `Replace=true`, which creates or
 * replaces instead: gitops-engine sync_context.go `applyObject`, resource_ops.go `ApplyResource`).
 */
export function reconcilesRbac(task: SyncTask): boolean {
  if (task.action !== 'create' && task.action !== 'apply') return false;
  if (hasOption(task.options, 'ServerSideApply') || hasOption(task.options, 'Replace')) return false;
  return isReconciled(task.target);
}

async function applyOne(run: EngineRun, s: TaskState): Promise<void> {
  try {
    if (s.task.hookType) addFinalizer(s.task.target!);
    let reconciled = '';
    if (run.client.rbacReconcile && reconcilesRbac(s.task)) {
      try {
        reconciled = await run.client.rbacReconcile(s.task);
      } catch (err) {
        run.set(s, 'Failed', 'SyncFailed', `error running kubectl auth reconcile: ${messageOf(err)}`);
        return;
      }
    }
    // What the reconcile created is patched by the apply, as kubectl's apply finds it then.
    const live = run.client.live(s.task);
    const action = reconciled && live && s.task.action === 'create' ? 'apply' : s.task.action;
    const warning = missingLastAppliedWarning(s.task, live, run.client.resourceName?.(s.task), action);
    const changed = await run.client.apply(s.task);
    const { group, kind, name } = s.task.key;
    if (group === 'apiextensions.k8s.io' && kind === 'CustomResourceDefinition')
      await run.client.crdReady?.(name);
    // kubectl's words; a server-side apply prints "serverside-applied" whatever it changed (as Argo CD
    // records it).
    const verb =
      s.task.action === 'replace'
        ? 'replaced'
        : hasOption(s.task.options, 'ServerSideApply')
          ? 'serverside-applied'
          : action === 'create'
            ? 'created'
            : changed
              ? 'configured'
              : 'unchanged';
    // kubectl's reconcile output, then the apply's, in one stream (no separator), as Argo CD keeps them.
    const message = reconciled + applyMessage(s.task.key, verb);
    run.set(s, 'Running', 'Synced', warning ? `${message}. ${warning}` : message);
  } catch (err) {
    run.set(s, 'Failed', 'SyncFailed', messageOf(err));
  }
}

function propagationOf(task: SyncTask): 'foreground' | 'background' | 'orphan' {
  const value = task.options['PrunePropagationPolicy']?.toLowerCase();
  return value === 'background' || value === 'orphan' ? value : 'foreground';
}
