/**
 * The writes of `kubectl auth reconcile` for one role or binding (rbac-reconcile.ts decides what), as
 * Argo CD runs it before the client-side apply (gitops-engine resource_ops.go `rbacReconcile`):
 * - the namespace must exist: it is read first (reconcile would create it; Argo CD refuses instead);
 * - the object is read from the server, then created, updated (PUT of the live object with what it
 *   lacks), or deleted and created again (a binding whose `roleRef` changed; kubectl's delete carries a
 *   uid precondition, which our client's delete cannot send: a binding replaced meanwhile is deleted too);
 * - a conflict, or an object appearing meanwhile, is tried again with a fresh read (`SyncRequests.retry`);
 * - writes name no field manager, as kubectl's typed client (the server records the client's own).
 * What it writes is remembered in the live view, so the apply that follows patches the object it made.
 */
import { isNotFound } from '../cluster/index.js';
import type { KubeClient } from '../cluster/index.js';
import type { LiveView } from './live-view.js';
import { planReconcile, reconcileOutput } from './rbac-reconcile.js';
import { NAMESPACE_INFO, describeTask, type SyncRequests } from './requests.js';
import type { SyncTask } from './types.js';

export interface RbacWriteContext {
  client: KubeClient;
  requests: SyncRequests;
  view: LiveView;
  signal?: AbortSignal | undefined;
}

/** Reconciles the task's target; returns kubectl's output, which leads the task's result message. */
export async function reconcileRbac(ctx: RbacWriteContext, task: SyncTask): Promise<string> {
  const { client, requests, view, signal } = ctx;
  const info = requests.info(task);
  if (info.namespaced) {
    const ns = task.key.namespace;
    try {
      await client.get(NAMESPACE_INFO, '', ns, signal);
    } catch (err) {
      if (isNotFound(err)) throw new Error(`error getting namespace ${ns}: namespaces "${ns}" not found`);
      throw err;
    }
  }
  const options = { subject: describeTask(task), signal };
  return requests.retry(async () => {
    const before = view.cachedVersion(task.key);
    const existing = await requests.get(task, info);
    const target = structuredClone(task.target!);
    if (info.namespaced) target.metadata = { ...target.metadata, namespace: task.key.namespace };
    const plan = planReconcile(target, existing);
    if (!plan.protected && plan.operation !== 'none') {
      if (plan.operation === 'recreate' && existing) {
        try {
          await client.delete(info, ...requests.name(task, info), options);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
      const res =
        plan.operation === 'update'
          ? await client.update(info, plan.object, options)
          : await client.create(info, plan.object, options);
      view.remember(task.key, res, before);
    }
    return reconcileOutput(task.key, plan);
  }, task);
}
