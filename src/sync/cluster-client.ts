/**
 * `ClusterSyncClient`: the engine's `SyncClient` over one cluster connection and its live cache.
 *
 * - Reads come from the live cache (list+watch); `changed()` resolves on the cache's next event (or our own
 *   next write). Right after a write, the server's answer stands in for the object until the cache has
 *   moved past the version it held before the write; after a delete, the answer says whether the object is
 *   gone (200 without finalizers, or 404) or still terminating. `reread()` GETs objects of kinds the cache
 *   does not watch, for the engine's re-evaluation on its interval. Every wait here (`settled`, the
 *   `Force=true` delete) also re-evaluates on `RECHECK_MS` rather than trusting that an event will come.
 * - Writes, all through the counting `KubeClient` (field manager `argocd-controller`, as Argo CD's):
 *   create = POST of the target carrying last-applied-configuration; client-side apply = the locally
 *   computed three-way patch (patch.ts), no request when it is empty; `ServerSideApply=true` = apply
 *   patch with force (conflicts taken over, as Argo CD does); `Replace=true` = PUT (POST when absent;
 *   with `Force=true` delete and create, as `kubectl replace --force`, except CRDs and Namespaces);
 *   `Force=true` = when the patch is rejected (422), delete, wait until gone, create (the original again
 *   if the server refuses the new one), as `kubectl apply --force`; `Validate=false` = the
 *   server's field validation off (`fieldValidation=Ignore`, else `Strict` as kubectl sends it).
 * - Dry runs are the same requests with `dryRun=All`; a task whose patch is empty needs none.
 * - A 409 conflict is retried with a fresh read and a recomputed patch; 5xx and transport failures with
 *   exponential backoff (429 is already retried by KubeClient). `maxAttempts` bounds both.
 */
import { ApiError, isConflict, isNotFound, isRetryable } from '../cluster/index.js';
import type { KubeClient, LiveStateCache, ResourceInfo, WriteOptions } from '../cluster/index.js';
import { BUILT_IN_GROUPS } from '../diff/index.js';
import { realClock } from '../queue/index.js';
import { sleep } from '../cluster/index.js';
import { DEFAULT_FIELD_MANAGER } from '../common/index.js';
import type { KubeObject } from '../common/index.js';
import { HOOK_FINALIZER, hasOption } from './annotations.js';
import { UnknownKindError } from './engine-types.js';
import type { SyncClient } from './engine-types.js';
import { RECHECK_MS } from './waiting.js';
import { applyPatch, withLastApplied } from './patch.js';
import { formatResourceKey } from './plan.js';
import type { SyncTask } from './types.js';

/** Sync writes as Argo CD's controller does. */
export const SYNC_FIELD_MANAGER = DEFAULT_FIELD_MANAGER;

/** How long `settled()` waits without the live cache showing any more of our writes. */
export const SETTLE_LIMIT_MS = 60_000;

/** How long `Force=true` waits for a deleted object to be gone before it gives up (it is not re-created). */
export const FORCE_DELETE_WAIT_MS = 60_000;

export interface ClusterSyncClientOptions {
  client: KubeClient;
  cache: LiveStateCache;
  /** How the cluster serves each `group/kind` of the plan (undefined: not served). */
  kinds: ReadonlyMap<string, ResourceInfo | undefined>;
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

interface Written {
  key: SyncTask['key'];
  /** The server's answer: the object as written, undefined when a delete left nothing. */
  obj: KubeObject | undefined;
  /** The cache's resourceVersion when we wrote ("" when it had no object). */
  before: string;
  /**
   * True while the cache (covering this key) still holds the version from before the write (or, for a
   * write right after our own delete of the object, shows it gone in between). Once false, never true
   * again: the cache has caught up, and what it shows later is newer than our answer.
   */
  pending: () => boolean;
}

export class ClusterSyncClient implements SyncClient {
  readonly #o: Required<Omit<ClusterSyncClientOptions, 'signal'>> & { signal?: AbortSignal };
  readonly #written = new Map<string, Written>();
  readonly #bodies = new WeakMap<SyncTask, KubeObject>();
  #generation = 0;
  #listeners: Array<() => void> = [];
  readonly #unsubscribe: () => void;

  constructor(options: ClusterSyncClientOptions) {
    this.#o = { maxAttempts: 5, backoffMs: 100, crds: [], ...options };
    const offEvent = options.cache.onEvent((e) => {
      // Catch up on the write of this key now, so a later change (e.g. a delete) is not taken for "behind".
      this.#written.get(formatResourceKey(e.key))?.pending();
      this.#bump();
    });
    const offLost = options.cache.onLostChange(() => this.#bump());
    this.#unsubscribe = () => {
      offEvent();
      offLost();
    };
  }

  /**
   * Resolves once the cache has seen every write it covers (so a refresh after the sync is current).
   * Rejects when the watch that would show a write is lost (`LiveStateCache.lost`): it would never come;
   * and when the cache shows no progress on them for `SETTLE_LIMIT_MS` (a watch that delivers nothing
   * without being lost): the wait is for events, so it is bounded rather than trusted.
   */
  async settled(signal: AbortSignal): Promise<void> {
    let count = Infinity;
    let since = realClock.now();
    for (;;) {
      const generation = this.#generation;
      const behind = [...this.#written.values()].filter((w) => w.pending());
      if (behind.length === 0 || signal.aborted) return;
      for (const w of behind) {
        const lost = this.#o.cache.lost(w.key);
        if (lost !== undefined)
          throw new Error(`${formatResourceKey(w.key)}: written, but the live cache cannot show it: ${lost}`);
      }
      if (behind.length < count) {
        count = behind.length;
        since = realClock.now();
      } else if (realClock.now() - since >= SETTLE_LIMIT_MS) {
        throw new Error(
          `${formatResourceKey(behind[0]!.key)}: written, but the live cache has not shown it after ${SETTLE_LIMIT_MS / 1000}s`,
        );
      }
      await this.#changedOrInterval(generation, signal);
    }
  }

  close(): void {
    this.#unsubscribe();
  }

  lost(task: SyncTask): string | undefined {
    return this.#o.cache.lost(task.key);
  }

  served(task: SyncTask): boolean {
    return this.#o.kinds.get(`${task.key.group}/${task.key.kind}`) !== undefined;
  }

  live(task: SyncTask): KubeObject | undefined {
    const key = formatResourceKey(task.key);
    const cached = this.#o.cache.get(task.key);
    const written = this.#written.get(key);
    if (!written) return cached;
    // Kinds the cache does not watch: our own last answer is the best knowledge there is.
    if (!this.#o.cache.covers(task.key) || written.pending()) return written.obj;
    return cached;
  }

  generation(): number {
    return this.#generation;
  }

  changed(after: number, signal: AbortSignal): Promise<void> {
    if (this.#generation > after || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        const i = this.#listeners.indexOf(done);
        if (i >= 0) this.#listeners.splice(i, 1);
        resolve();
      };
      this.#listeners.push(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** `changed`, or `RECHECK_MS` passed: true when it was a change. */
  async #changedOrInterval(after: number, signal: AbortSignal): Promise<boolean> {
    const interval = AbortSignal.timeout(RECHECK_MS);
    await this.changed(after, AbortSignal.any([signal, interval]));
    return !interval.aborted;
  }

  /**
   * GETs the objects of `tasks` the live cache cannot show now: kinds it does not watch, and objects it
   * has not caught up with since our write (an event missed or late). Their answers stand in as writes do.
   */
  async reread(tasks: readonly SyncTask[], signal: AbortSignal): Promise<void> {
    await Promise.all(
      tasks
        .filter((t) => this.served(t))
        .filter(
          (t) =>
            !this.#o.cache.covers(t.key) || this.#written.get(formatResourceKey(t.key))?.pending() === true,
        )
        .map(async (task) => {
          if (signal.aborted) return;
          const before = this.#cachedVersion(task);
          try {
            this.#remember(task, await this.#get(task, this.#info(task)), before);
          } catch {
            // Unreadable now: the next re-evaluation tries again; the cache may catch up meanwhile.
          }
        }),
    );
  }

  async dryRun(task: SyncTask): Promise<void> {
    if (!this.served(task))
      throw new UnknownKindError(`kind ${task.key.group}/${task.key.kind} is not served`);
    if (task.target === undefined) {
      await this.#delete(task, 'Background', true);
      return;
    }
    await this.#write(task, true);
  }

  async apply(task: SyncTask): Promise<boolean> {
    return this.#write(task, false);
  }

  async delete(task: SyncTask, propagation: 'foreground' | 'background' | 'orphan'): Promise<void> {
    const policy =
      propagation === 'foreground' ? 'Foreground' : propagation === 'orphan' ? 'Orphan' : 'Background';
    await this.#delete(task, policy, false);
  }

  async removeFinalizer(task: SyncTask, live: KubeObject): Promise<void> {
    const info = this.#info(task);
    await this.#retry(async (attempt) => {
      const before = this.#cachedVersion(task);
      const current = attempt === 0 ? live : await this.#get(task, info);
      if (!current) return;
      const finalizers = ((current.metadata?.['finalizers'] as string[] | undefined) ?? []).filter(
        (f) => f !== HOOK_FINALIZER,
      );
      const body = { metadata: { finalizers, resourceVersion: current.metadata?.resourceVersion } };
      const res = await this.#o.client.patch(info, ...this.#name(task, info), body, 'merge', {
        ...this.#writeOptions(task, false),
        // A metadata-only patch of our own finalizer: the object's other fields are not ours to judge.
        fieldValidation: 'Ignore',
      });
      this.#remember(task, res, before);
    }, task);
  }

  // --- writes ---

  async #write(task: SyncTask, dryRun: boolean): Promise<boolean> {
    const info = this.#info(task);
    const target = task.target!;
    const options = task.options;
    return this.#retry(async (attempt) => {
      const before = this.#cachedVersion(task);
      const live = attempt === 0 ? this.live(task) : await this.#get(task, info);
      if (hasOption(options, 'ServerSideApply')) {
        const body = stripForApply(target);
        const res = await this.#o.client.patch(info, ...this.#name(task, info), body, 'apply', {
          ...this.#writeOptions(task, dryRun),
          force: true,
        });
        if (!dryRun) this.#remember(task, res, before);
        return true;
      }
      if (!live || live.metadata?.deletionTimestamp) {
        if (live && !dryRun)
          throw new ApiError(describeTask(task), 'create', 409, {
            message: 'the previous object is still being deleted',
          });
        const res = await this.#create(task, info, dryRun);
        if (!dryRun) this.#remember(task, res, before);
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
        const applied = this.#applied(task, info);
        const body = {
          ...applied,
          metadata: { ...applied.metadata, resourceVersion: live.metadata?.resourceVersion ?? '' },
        };
        const res = await this.#o.client.update(info, body, this.#writeOptions(task, dryRun));
        this.#remember(task, res, before);
        return true;
      }
      const patch = applyPatch(target, live, BUILT_IN_GROUPS.has(task.key.group));
      if (patch.empty) return false;
      try {
        const res = await this.#o.client.patch(
          info,
          ...this.#name(task, info),
          patch.patch,
          patch.type === 'application/strategic-merge-patch+json' ? 'strategic' : 'merge',
          this.#writeOptions(task, dryRun),
        );
        if (!dryRun) this.#remember(task, res, before);
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
      await this.#create(task, info, true);
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
    await this.#gone(task, info);
    const before = this.#cachedVersion(task); // '' once gone: the new object is what the cache waits for
    try {
      this.#remember(task, await this.#createSurely(info, this.#applied(task, info), task), before);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      try {
        this.#remember(task, await this.#createSurely(info, restorable(live), task), before);
      } catch (restoreErr) {
        const lost = restoreErr instanceof Error ? restoreErr.message : String(restoreErr);
        throw new Error(`Force=true deleted the object, then ${why}; creating it again failed too: ${lost}`);
      }
      throw new Error(`Force=true could not replace the object (${why}); the original was created again`);
    }
  }

  /** A create after our own delete: passing failures retried with backoff, never cut by the signal. */
  async #createSurely(info: ResourceInfo, body: KubeObject, task: SyncTask): Promise<KubeObject> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#o.client.create(info, body, {
          ...this.#writeOptions(task, false),
          signal: undefined,
        });
      } catch (err) {
        if (!isRetryable(err) || attempt + 1 >= this.#o.maxAttempts) throw err;
        await sleep(realClock, this.#o.backoffMs * 2 ** attempt);
      }
    }
  }

  /**
   * Resolves once the task's object is gone from the cluster (see `#replaceByForce`): on live-cache
   * events, or by reading it again every second (as kubectl polls) when the cache does not watch the kind
   * or its watch is lost. Fails when it is still there after `FORCE_DELETE_WAIT_MS` or when the operation
   * is stopped, naming its finalizers; it is then still terminating, not half-replaced.
   */
  async #gone(task: SyncTask, info: ResourceInfo): Promise<void> {
    const signal = this.#o.signal;
    const deadline = realClock.now() + FORCE_DELETE_WAIT_MS;
    const limit = AbortSignal.any([AbortSignal.timeout(FORCE_DELETE_WAIT_MS), ...(signal ? [signal] : [])]);
    // The delete's own answer first (`live`): an object the server removed at once is not waited for.
    let poll = false;
    for (;;) {
      const generation = this.#generation;
      const followed = this.#o.cache.covers(task.key) && this.#o.cache.lost(task.key) === undefined;
      const current = followed && !poll ? this.live(task) : await this.#get(task, info);
      if (current === undefined) return;
      if (limit.aborted || realClock.now() >= deadline) {
        const finalizers = (current.metadata?.['finalizers'] as string[] | undefined) ?? [];
        const why = signal?.aborted ? 'the operation stopped' : `${FORCE_DELETE_WAIT_MS / 1000}s passed`;
        throw new Error(
          `Force=true deleted the object, but it was still terminating when ${why}` +
            (finalizers.length ? ` (finalizers: ${finalizers.join(', ')})` : '') +
            '; it was not created again',
        );
      }
      // No change within the interval: read the object from the server rather than trust an event.
      if (followed) poll = !(await this.#changedOrInterval(generation, limit));
      else await sleep(realClock, RECHECK_MS, limit).catch(() => undefined);
    }
  }

  async #delete(
    task: SyncTask,
    policy: 'Foreground' | 'Background' | 'Orphan',
    dryRun: boolean,
  ): Promise<void> {
    const info = this.#info(task);
    await this.#retry(async () => {
      const before = this.#cachedVersion(task);
      let answer: KubeObject | undefined;
      try {
        answer = await this.#o.client.delete(info, ...this.#name(task, info), {
          dryRun,
          propagationPolicy: policy,
          subject: describeTask(task),
          signal: this.#o.signal,
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      // The answer says what is left: an object still terminating (finalizers to run), or nothing.
      if (!dryRun) this.#remember(task, terminating(answer) ? answer : undefined, before);
    }, task);
  }

  async #get(task: SyncTask, info: ResourceInfo): Promise<KubeObject | undefined> {
    try {
      return await this.#o.client.get(
        info,
        info.namespaced ? task.key.namespace : '',
        task.key.name,
        this.#o.signal,
      );
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Retries 409 (with a fresh read: `attempt` > 0) and retryable failures with exponential backoff. */
  async #retry<T>(fn: (attempt: number) => Promise<T>, task: SyncTask): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn(attempt);
      } catch (err) {
        const again = attempt + 1 < this.#o.maxAttempts && (isConflict(err) || isRetryable(err));
        if (!again || this.#o.signal?.aborted)
          throw err instanceof ApiError
            ? err
            : new ApiError(
                describeTask(task),
                'sync',
                0,
                { message: err instanceof Error ? err.message : String(err) },
                err,
              );
        if (!isConflict(err)) await sleep(realClock, this.#o.backoffMs * 2 ** attempt, this.#o.signal);
      }
    }
  }

  /** POST of the target carrying last-applied-configuration. */
  #create(task: SyncTask, info: ResourceInfo, dryRun: boolean): Promise<KubeObject> {
    return this.#o.client.create(info, this.#applied(task, info), this.#writeOptions(task, dryRun));
  }

  /**
   * The target with last-applied-configuration, in the task's namespace (the request path names it).
   * Built once per task: the dry run's body is the write's (not for hooks: they gain the hook finalizer
   * in between). Callers never change it.
   */
  #applied(task: SyncTask, info: ResourceInfo): KubeObject {
    const built = task.hookType ? undefined : this.#bodies.get(task);
    if (built) return built;
    const body = withLastApplied(task.target!);
    if (info.namespaced && !body.metadata?.namespace)
      body.metadata = { ...body.metadata, namespace: task.key.namespace };
    if (!task.hookType) this.#bodies.set(task, body);
    return body;
  }

  /** Every sync write: our field manager, kubectl's Strict validation unless `Validate=false`. */
  #writeOptions(task: SyncTask, dryRun: boolean): WriteOptions {
    return {
      dryRun,
      fieldManager: SYNC_FIELD_MANAGER,
      fieldValidation: hasOption(task.options, 'Validate', 'false') ? 'Ignore' : 'Strict',
      subject: describeTask(task),
      signal: this.#o.signal,
    };
  }

  #name(task: SyncTask, info: ResourceInfo): [namespace: string, name: string] {
    return [info.namespaced ? task.key.namespace : '', task.key.name];
  }

  #cachedVersion(task: SyncTask): string {
    return this.#o.cache.get(task.key)?.metadata?.resourceVersion ?? '';
  }

  #info(task: SyncTask): ResourceInfo {
    const info = this.#o.kinds.get(`${task.key.group}/${task.key.kind}`) ?? this.#definedInSync(task);
    if (!info) throw new UnknownKindError(`kind ${task.key.group}/${task.key.kind} is not served`);
    return info;
  }

  /** The kind as a CRD of this sync defines it, at the version the object names (its path must match). */
  #definedInSync(task: SyncTask): ResourceInfo | undefined {
    const obj = task.target ?? task.live;
    const version = String(obj?.apiVersion ?? '').split('/')[1];
    if (!version) return undefined;
    for (const crd of this.#o.crds) {
      const spec = crd['spec'] as
        | {
            group?: string;
            scope?: string;
            names?: { kind?: string; plural?: string };
            versions?: Array<{ name?: string; served?: boolean }>;
          }
        | undefined;
      if (spec?.group !== task.key.group || spec.names?.kind !== task.key.kind || !spec.names.plural)
        continue;
      if (!(spec.versions ?? []).some((v) => v.name === version && v.served !== false)) continue;
      return {
        group: spec.group,
        version,
        kind: spec.names.kind,
        plural: spec.names.plural,
        namespaced: spec.scope !== 'Cluster',
        verbs: [],
      };
    }
    return undefined;
  }

  /** Records a write's answer; `before` is the cache's resourceVersion read before the request. */
  #remember(task: SyncTask, obj: KubeObject | undefined, before: string): void {
    const cache = this.#o.cache;
    const id = formatResourceKey(task.key);
    const written = obj?.metadata?.resourceVersion ?? '';
    // Right after our own delete that left nothing, the cache may show the object gone on its way to ours.
    const previous = this.#written.get(id);
    const afterDelete = previous !== undefined && previous.obj === undefined;
    let caughtUp = false;
    const pending = (): boolean => {
      if (caughtUp || !cache.covers(task.key)) return false;
      const now = cache.get(task.key)?.metadata?.resourceVersion ?? '';
      if (now !== written && (now === before || (afterDelete && now === ''))) return true;
      caughtUp = true;
      return false;
    };
    this.#written.set(id, { key: task.key, obj, before, pending });
    this.#bump();
  }

  #bump(): void {
    this.#generation++;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const l of listeners) l();
  }
}

/** A delete's answer that is the object still terminating (finalizers left), not a Status or the last state. */
function terminating(answer: KubeObject | undefined): boolean {
  if (!answer || answer.kind === 'Status' || !answer.metadata?.deletionTimestamp) return false;
  const finalizers = answer.metadata['finalizers'];
  const grace = Number(answer.metadata['deletionGracePeriodSeconds'] ?? 0);
  return (Array.isArray(finalizers) && finalizers.length > 0) || grace > 0;
}

function describeTask(task: SyncTask): string {
  const k = task.key;
  return `${k.group ? `${k.group}/` : ''}${k.kind} ${k.namespace ? `${k.namespace}/` : ''}${k.name}`;
}

/** Server-side apply takes the object without server-owned metadata. */
function stripForApply(target: KubeObject): KubeObject {
  const copy = structuredClone(target);
  if (copy.metadata) {
    delete copy.metadata.resourceVersion;
    delete copy.metadata.managedFields;
  }
  return copy;
}

/** A live object as it can be created again: without what the server sets (`kubectl apply --force`'s restore). */
export function restorable(live: KubeObject): KubeObject {
  const metadata = { ...live.metadata };
  for (const k of [
    'uid',
    'resourceVersion',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'generation',
    'managedFields',
    'selfLink',
  ])
    delete (metadata as Record<string, unknown>)[k];
  const { status: _status, ...rest } = live;
  const restored: KubeObject = { ...rest, metadata };
  // A Job's selector and its template's controller-uid labels were generated for the old object; a create
  // that carries them is refused (422 "`selector` not auto-generated") unless manualSelector is set.
  const spec = restored['spec'] as Record<string, unknown> | undefined;
  if (live.apiVersion === 'batch/v1' && live.kind === 'Job' && spec && spec['manualSelector'] !== true) {
    const { selector: _selector, ...jobSpec } = spec;
    const template = jobSpec['template'] as { metadata?: { labels?: Record<string, string> } } | undefined;
    const labels = { ...template?.metadata?.labels };
    for (const k of ['controller-uid', 'batch.kubernetes.io/controller-uid']) delete labels[k];
    restored['spec'] = {
      ...jobSpec,
      ...(template ? { template: { ...template, metadata: { ...template.metadata, labels } } } : {}),
    };
  }
  return restored;
}

function isCrdOrNamespace(task: SyncTask): boolean {
  const { group, kind } = task.key;
  return (
    (group === 'apiextensions.k8s.io' && kind === 'CustomResourceDefinition') ||
    (group === '' && kind === 'Namespace')
  );
}
