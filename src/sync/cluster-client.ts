/**
 * `ClusterSyncClient`: the engine's `SyncClient` over one cluster connection and its live cache. This
 * module holds the writes: which request each sync option makes, and the `Force=true` replace. The waits
 * on live state (reads through our own writes, `changed`, `settled`, the wait for a deleted object to be
 * gone) are live-view.ts's; how one request is made (kind path, body, options, retries) is requests.ts's.
 *
 * - Reads come from the live cache through `LiveView`; `reread()` GETs objects of kinds the cache does not
 *   watch, and objects it has not caught up with since our write, for the engine's re-evaluation on its
 *   interval. Every wait (`settled`, the `Force=true` delete) also re-evaluates on `RECHECK_MS` rather
 *   than trusting that an event will come.
 * - Writes, all through the counting `KubeClient` (field manager `argocd-controller`, as Argo CD's):
 *   create = POST of the target carrying last-applied-configuration; client-side apply = the locally
 *   computed three-way patch (patch.ts), no request when it is empty, a role or binding reconciled first
   as `kubectl auth reconcile` (rbac-writes.ts); `ServerSideApply=true` = apply
 *   patch with force (conflicts taken over, as Argo CD does); `Replace=true` = PUT (POST when absent;
 *   with `Force=true` delete and create, as `kubectl replace --force`, except CRDs and Namespaces);
 *   `Force=true` = when the patch is rejected (422), delete, wait until gone, create (the original again
 *   if the server refuses the new one), as `kubectl apply --force`; `Validate=false` = the
 *   server's field validation off (`fieldValidation=Ignore`, else `Strict` as kubectl sends it).
 *   Every write's answer is remembered in the live view, so the engine sees it before the cache does.
 * - Dry runs are the same requests with `dryRun=All` (prunes: a dry-run delete); a task whose patch is
 *   empty needs none; `Force=true`'s replacement is checked with a dry-run create.
 * - A 409 conflict is retried with a fresh read and a recomputed patch; 5xx and transport failures with
 *   exponential backoff (429 is already retried by KubeClient). `maxAttempts` bounds both.
 */
import { ApiError, isNotFound } from '../cluster/index.js';
import type { KubeClient, LiveStateCache, ResourceInfo } from '../cluster/index.js';
import { BUILT_IN_GROUPS } from '../diff/index.js';
import { parseApiVersion } from '../common/index.js';
import type { KubeObject } from '../common/index.js';
import { HOOK_FINALIZER, hasOption } from './annotations.js';
import { finalizersOf } from './hooks.js';
import { restorable, stripForApply } from './object-copies.js';
import { UnknownKindError, unservedId } from './engine-types.js';
import type { SyncClient, Unserved } from './engine-types.js';
import { LiveView } from './live-view.js';
import { applyPatch } from './patch.js';
import { reconcileRbac } from './rbac-writes.js';
import { SyncRequests, describeTask } from './requests.js';
import type { SyncTask } from './types.js';

export interface ClusterSyncClientOptions {
  client: KubeClient;
  cache: LiveStateCache;
  /** How the cluster serves each `group/kind` of the plan (undefined: not served). */
  kinds: ReadonlyMap<string, ResourceInfo | undefined>;
  /** Each target's group/version/kind the cluster does not serve (`unservedId`), as discovery says. */
  unserved?: ReadonlyMap<string, Unserved>;
  /**
   * CustomResourceDefinitions this sync applies. Their kinds were not served when the sync started, so
   * discovery cannot name their paths; the CRD itself does (group, plural, scope), as the server will
   * once it is established (the engine waits for the CRD's health before the next kind).
   */
  crds?: readonly KubeObject[];
  /** Attempts per write for 409 and 5xx (default 5). */
  maxAttempts?: number;
  /** First backoff delay in ms (default 100; doubles per attempt). */
  backoffMs?: number;
  signal?: AbortSignal;
}

const CRD_READINESS_MS = 3000;
const CRD_INFO: ResourceInfo = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
  verbs: ['get'],
};

export class ClusterSyncClient implements SyncClient {
  readonly #o: Required<Omit<ClusterSyncClientOptions, 'signal'>> & { signal?: AbortSignal };
  readonly #view: LiveView;
  readonly #r: SyncRequests;

  constructor(options: ClusterSyncClientOptions) {
    this.#o = { maxAttempts: 5, backoffMs: 100, crds: [], unserved: new Map(), ...options };
    this.#view = new LiveView(options.cache);
    this.#r = new SyncRequests(this.#o);
  }

  /** Resolves once the cache has seen every write it covers (see `LiveView.settled`). */
  settled(signal: AbortSignal): Promise<void> {
    return this.#view.settled(signal);
  }

  close(): void {
    this.#view.close();
  }

  lost(task: SyncTask): string | undefined {
    return this.#o.cache.lost(task.key);
  }

  served(task: SyncTask): boolean {
    return (
      this.#o.kinds.get(`${task.key.group}/${task.key.kind}`) !== undefined &&
      this.unserved(task) === undefined
    );
  }

  unserved(task: SyncTask): Unserved | undefined {
    const { version } = parseApiVersion(task.apiVersion);
    return this.#o.unserved.get(unservedId(task.key.group, version, task.key.kind));
  }

  resourceName(task: SyncTask): string | undefined {
    try {
      return this.#r.info(task).plural;
    } catch {
      return undefined;
    }
  }

  live(task: SyncTask): KubeObject | undefined {
    return this.#view.live(task.key);
  }

  generation(): number {
    return this.#view.generation();
  }

  changed(after: number, signal: AbortSignal): Promise<void> {
    return this.#view.changed(after, signal);
  }

  /**
   * GETs the objects of `tasks` the live cache cannot show now: kinds it does not watch, and objects it
   * has not caught up with since our write (an event missed or late). Their answers stand in as writes do.
   */
  async reread(tasks: readonly SyncTask[], signal: AbortSignal): Promise<void> {
    await Promise.all(
      tasks
        .filter((t) => this.served(t))
        .filter((t) => !this.#o.cache.covers(t.key) || this.#view.behind(t.key))
        .map(async (task) => {
          if (signal.aborted) return;
          const before = this.#view.cachedVersion(task.key);
          try {
            this.#view.remember(task.key, await this.#r.get(task, this.#r.info(task)), before);
          } catch {
            // Unreadable now: the next re-evaluation tries again; the cache may catch up meanwhile.
          }
        }),
    );
  }

  async dryRun(task: SyncTask): Promise<void> {
    if (!this.served(task))
      throw new UnknownKindError(`no matches for kind "${task.key.kind}" in version "${task.apiVersion}"`);
    if (task.target === undefined) {
      await this.#delete(task, 'Background', true);
      return;
    }
    await this.#write(task, true);
  }

  async apply(task: SyncTask): Promise<boolean> {
    return this.#write(task, false);
  }

  /**
   * Polls the CRD every 100 ms for 3 s at most until its Established condition is True, as gitops-engine's
   * applyObject does after writing one (sync_context.go `ensureCRDReady`, `crdReadinessTimeout`): the next
   * kind group may be its custom resources, which kube-apiserver serves only once it is established. Not
   * established in time is no failure (Argo CD only logs it).
   */
  async crdReady(name: string): Promise<void> {
    const deadline = Date.now() + CRD_READINESS_MS;
    while (!this.#o.signal?.aborted) {
      try {
        const crd = await this.#o.client.get(CRD_INFO, '', name, this.#o.signal);
        const conditions = ((crd['status'] as { conditions?: unknown[] } | undefined)?.conditions ??
          []) as Array<{ type?: string; status?: string }>;
        const established = conditions.find((c) => c.type === 'Established');
        if (established?.status === 'True') return;
      } catch {
        // tried again until the deadline
      }
      if (Date.now() + 100 > deadline) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** `kubectl auth reconcile` of a role or binding before its client-side apply (rbac-writes.ts). */
  rbacReconcile(task: SyncTask): Promise<string> {
    const { client, signal } = this.#o;
    return reconcileRbac({ client, requests: this.#r, view: this.#view, signal }, task);
  }

  async delete(task: SyncTask, propagation: 'foreground' | 'background' | 'orphan'): Promise<void> {
    const policy =
      propagation === 'foreground' ? 'Foreground' : propagation === 'orphan' ? 'Orphan' : 'Background';
    await this.#delete(task, policy, false);
  }

  /**
   * Removes the hook finalizer with an update (PUT) of the whole object, as gitops-engine
   * `removeHookFinalizer` does (`updateResource`), retried on a conflict. The object is read from the
   * server first: the live cache may hold it transformed (fields dropped to save memory), and a PUT writes
   * every field. `live` tells only whether there is anything to do.
   */
  async removeFinalizer(task: SyncTask, live: KubeObject): Promise<void> {
    if (!finalizersOf(live).includes(HOOK_FINALIZER)) return;
    const info = this.#r.info(task);
    await this.#r.retry(async () => {
      const before = this.#view.cachedVersion(task.key);
      const current = await this.#r.get(task, info);
      if (!current) return;
      const finalizers = finalizersOf(current);
      if (!finalizers.includes(HOOK_FINALIZER)) return;
      const body = {
        ...current,
        metadata: { ...current.metadata, finalizers: finalizers.filter((f) => f !== HOOK_FINALIZER) },
      };
      const res = await this.#o.client.update(info, body, {
        ...this.#r.writeOptions(task, false),
        // Our own finalizer alone changes: the object's other fields are not ours to judge.
        fieldValidation: 'Ignore',
      });
      this.#view.remember(task.key, res, before);
    }, task);
  }

  // --- writes ---

  async #write(task: SyncTask, dryRun: boolean): Promise<boolean> {
    const info = this.#r.info(task);
    const target = task.target!;
    const options = task.options;
    return this.#r.retry(async (attempt) => {
      const before = this.#view.cachedVersion(task.key);
      const live = attempt === 0 ? this.live(task) : await this.#r.get(task, info);
      if (hasOption(options, 'ServerSideApply')) {
        const body = stripForApply(target);
        const res = await this.#o.client.patch(info, ...this.#r.name(task, info), body, 'apply', {
          ...this.#r.writeOptions(task, dryRun),
          force: true,
        });
        if (!dryRun) this.#view.remember(task.key, res, before);
        return true;
      }
      if (!live || live.metadata?.deletionTimestamp) {
        if (live && !dryRun)
          throw new ApiError(describeTask(task), 'create', 409, {
            message: 'the previous object is still being deleted',
          });
        const res = await this.#r.create(task, info, dryRun);
        if (!dryRun) this.#view.remember(task.key, res, before);
        return true;
      }
      // Replace=true with Force=true is `kubectl replace --force`: delete and create, changed or not. CRDs
      // and Namespaces are updated instead, never re-created: that would delete every custom resource, or
      // everything in the namespace (gitops-engine sync_context.go applyObject).
      if (
        hasOption(options, 'Replace') &&
        hasOption(options, 'Force') &&
        task.action === 'replace' &&
        !isCrdOrNamespace(task)
      ) {
        return this.#forceReplace(task, info, live, dryRun);
      }
      if (hasOption(options, 'Replace') && task.action === 'replace' && !dryRun) {
        const applied = this.#r.applied(task, info);
        const body = {
          ...applied,
          metadata: { ...applied.metadata, resourceVersion: live.metadata?.resourceVersion ?? '' },
        };
        const res = await this.#o.client.update(info, body, this.#r.writeOptions(task, dryRun));
        this.#view.remember(task.key, res, before);
        return true;
      }
      const patch = applyPatch(target, live, BUILT_IN_GROUPS.has(task.key.group));
      if (patch.empty) return false;
      try {
        const res = await this.#o.client.patch(
          info,
          ...this.#r.name(task, info),
          patch.patch,
          patch.type === 'application/strategic-merge-patch+json' ? 'strategic' : 'merge',
          this.#r.writeOptions(task, dryRun),
        );
        if (!dryRun) this.#view.remember(task.key, res, before);
        return true;
      } catch (err) {
        // kubectl apply --force replaces what the server refuses as invalid, or keeps refusing as a
        // conflict once its retries are spent (kubectl apply.go Patcher.Patch).
        const refused =
          err instanceof ApiError &&
          (err.code === 422 || (err.code === 409 && attempt + 1 >= this.#o.maxAttempts));
        if (!(hasOption(options, 'Force') && refused)) throw err;
        return this.#forceReplace(task, info, live, dryRun);
      }
    }, task);
  }

  /** Replaces the live object as `Force=true` does: checked in a dry run, else deleted and created. */
  async #forceReplace(task: SyncTask, info: ResourceInfo, live: KubeObject, dryRun: boolean): Promise<true> {
    if (dryRun) await this.#validateReplacement(task, info);
    else await this.#replaceByForce(task, info, live);
    return true;
  }

  /**
   * The dry run of `Force=true` when the server refuses the patch (422: an immutable field): the object
   * that would replace the live one is checked with a dry-run create. kube-apiserver validates a create
   * (decoding, the strategy's validation, validating admission) before its storage looks for the name
   * (registry/generic/registry/store.go Create), so AlreadyExists means the replacement itself is valid.
   */
  async #validateReplacement(task: SyncTask, info: ResourceInfo): Promise<void> {
    try {
      await this.#r.create(task, info, true);
    } catch (err) {
      if (err instanceof ApiError && err.code === 409 && err.reason === 'AlreadyExists') return;
      throw err;
    }
  }

  /**
   * `Force=true` as `kubectl apply --force` (kubectl apply.go deleteAndCreate): delete the live object
   * (background propagation, kubectl's default), wait until it is gone, create the target; if the server
   * refuses that, create the original again and fail saying so. Once the delete went through, nothing
   * stops half-way: the creates are retried on passing failures and are not cut by the operation's
   * signal (each request still has its timeout), so an interrupt cannot leave the object deleted.
   */
  async #replaceByForce(task: SyncTask, info: ResourceInfo, live: KubeObject): Promise<void> {
    await this.#delete(task, 'Background', false);
    await this.#view.gone(task.key, () => this.#r.get(task, info), this.#o.signal);
    const before = this.#view.cachedVersion(task.key); // '' once gone: the new object is what the cache waits for
    try {
      this.#view.remember(
        task.key,
        await this.#r.createSurely(info, this.#r.applied(task, info), task),
        before,
      );
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      try {
        this.#view.remember(task.key, await this.#r.createSurely(info, restorable(live), task), before);
      } catch (restoreErr) {
        const lost = restoreErr instanceof Error ? restoreErr.message : String(restoreErr);
        throw new Error(`Force=true deleted the object, then ${why}; creating it again failed too: ${lost}`);
      }
      throw new Error(`Force=true could not replace the object (${why}); the original was created again`);
    }
  }

  async #delete(
    task: SyncTask,
    policy: 'Foreground' | 'Background' | 'Orphan',
    dryRun: boolean,
  ): Promise<void> {
    const info = this.#r.info(task);
    await this.#r.retry(async () => {
      const before = this.#view.cachedVersion(task.key);
      let answer: KubeObject | undefined;
      try {
        answer = await this.#o.client.delete(info, ...this.#r.name(task, info), {
          dryRun,
          propagationPolicy: policy,
          subject: describeTask(task),
          signal: this.#o.signal,
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      // The answer says what is left: an object still terminating (finalizers to run), or nothing.
      if (!dryRun) this.#view.remember(task.key, terminating(answer) ? answer : undefined, before);
    }, task);
  }
}

/** A delete's answer that is the object still terminating (finalizers left), not a Status or the last state. */
function terminating(answer: KubeObject | undefined): boolean {
  if (!answer || answer.kind === 'Status' || !answer.metadata?.deletionTimestamp) return false;
  const finalizers = answer.metadata['finalizers'];
  const grace = Number(answer.metadata['deletionGracePeriodSeconds'] ?? 0);
  return (Array.isArray(finalizers) && finalizers.length > 0) || grace > 0;
}

function isCrdOrNamespace(task: SyncTask): boolean {
  const { group, kind } = task.key;
  return (
    (group === 'apiextensions.k8s.io' && kind === 'CustomResourceDefinition') ||
    (group === '' && kind === 'Namespace')
  );
}
