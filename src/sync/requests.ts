/**
 * How `ClusterSyncClient` makes one request, whatever the sync option: all go through the counting
 * `KubeClient`.
 *
 * - The kind's path: from discovery (`kinds`), else from a CRD this sync applies (its group, plural,
 *   scope, at the version the object names); neither: `UnknownKindError`.
 * - Write options: field manager `argocd-controller` (as Argo CD's), kubectl's `fieldValidation=Strict`
 *   unless `Validate=false` (then `Ignore`), the operation's signal, the task named as the subject.
 * - The body of a create or replace: the target carrying last-applied-configuration (not with
 *   `Replace=true`, kubectl's replace and create write none), in the task's
 *   namespace; built once per task, so the dry run's body is the write's (not for hooks: they gain the
 *   hook finalizer in between).
 * - Retries (`retry`): a 409 conflict at once, with a fresh read (`attempt` > 0); 5xx and transport
 *   failures with exponential backoff (429 is already retried by KubeClient); `maxAttempts` bounds both,
 *   and a stopped operation ends them. `createSurely`, the create after our own delete, retries passing
 *   failures with backoff and is never cut by the operation's signal.
 */
import { ApiError, isConflict, isNotFound, isRetryable, sleep } from '../cluster/index.js';
import type { KubeClient, ResourceInfo, WriteOptions } from '../cluster/index.js';
import { DEFAULT_FIELD_MANAGER, parseApiVersion } from '../common/index.js';
import type { KubeObject } from '../common/index.js';
import { realClock } from '../queue/index.js';
import { hasOption } from './annotations.js';
import { UnknownKindError, unservedId } from './engine-types.js';
import type { Unserved } from './engine-types.js';
import { withLastApplied } from './patch.js';
import type { SyncTask } from './types.js';

/** The core Namespace kind (read by CreateNamespace and by the RBAC reconcile). */
export const NAMESPACE_INFO: ResourceInfo = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
  verbs: [],
};

/** Sync writes as Argo CD's controller does. */
export const SYNC_FIELD_MANAGER = DEFAULT_FIELD_MANAGER;

export interface RequestOptions {
  client: KubeClient;
  /** How the cluster serves each `group/kind` of the plan (undefined: not served). */
  kinds: ReadonlyMap<string, ResourceInfo | undefined>;
  /** Each target's group/version/kind the cluster does not serve (`unservedId`). */
  unserved: ReadonlyMap<string, Unserved>;
  /** CustomResourceDefinitions this sync applies (paths of kinds discovery does not know yet). */
  crds: readonly KubeObject[];
  maxAttempts: number;
  backoffMs: number;
  signal?: AbortSignal;
}

export class SyncRequests {
  readonly #o: RequestOptions;
  readonly #bodies = new WeakMap<SyncTask, KubeObject>();

  constructor(options: RequestOptions) {
    this.#o = options;
  }

  async get(task: SyncTask, info: ResourceInfo): Promise<KubeObject | undefined> {
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
  async retry<T>(fn: (attempt: number) => Promise<T>, task: SyncTask): Promise<T> {
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
  create(task: SyncTask, info: ResourceInfo, dryRun: boolean): Promise<KubeObject> {
    return this.#o.client.create(info, this.applied(task, info), this.writeOptions(task, dryRun));
  }

  /** A create after our own delete: passing failures retried with backoff, never cut by the signal. */
  async createSurely(info: ResourceInfo, body: KubeObject, task: SyncTask): Promise<KubeObject> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#o.client.create(info, body, {
          ...this.writeOptions(task, false),
          signal: undefined,
        });
      } catch (err) {
        if (!isRetryable(err) || attempt + 1 >= this.#o.maxAttempts) throw err;
        await sleep(realClock, this.#o.backoffMs * 2 ** attempt);
      }
    }
  }

  /**
   * The target with last-applied-configuration, in the task's namespace (the request path names it).
   * Built once per task: the dry run's body is the write's (not for hooks: they gain the hook finalizer
   * in between). Callers never change it.
   */
  applied(task: SyncTask, info: ResourceInfo): KubeObject {
    const built = task.hookType ? undefined : this.#bodies.get(task);
    if (built) return built;
    // `Replace=true` is kubectl replace (or create) without --save-config: no last-applied-configuration
    // (measured against Argo CD 3.6.1, conformance c078, c083, c085).
    const body = hasOption(task.options, 'Replace')
      ? (structuredClone(task.target!) as KubeObject)
      : withLastApplied(task.target!);
    if (info.namespaced && !body.metadata?.namespace)
      body.metadata = { ...body.metadata, namespace: task.key.namespace };
    if (!task.hookType) this.#bodies.set(task, body);
    return body;
  }

  /** Every sync write: our field manager, kubectl's Strict validation unless `Validate=false`. */
  writeOptions(task: SyncTask, dryRun: boolean): WriteOptions {
    return {
      dryRun,
      fieldManager: SYNC_FIELD_MANAGER,
      fieldValidation: hasOption(task.options, 'Validate', 'false') ? 'Ignore' : 'Strict',
      subject: describeTask(task),
      signal: this.#o.signal,
    };
  }

  name(task: SyncTask, info: ResourceInfo): [namespace: string, name: string] {
    return [info.namespaced ? task.key.namespace : '', task.key.name];
  }

  /**
   * The kind's path at the task's own version: discovery's, when the cluster serves that version (a kind's
   * plural and scope are the same at every version), else a CRD of this sync that serves it.
   */
  info(task: SyncTask): ResourceInfo {
    const { group, kind } = task.key;
    const { version } = parseApiVersion(task.apiVersion);
    const served = this.#o.unserved.has(unservedId(group, version, kind))
      ? undefined
      : this.#o.kinds.get(`${group}/${kind}`);
    const info = served ? { ...served, version } : this.#definedInSync(task);
    // kubectl's words (its RESTMapper's NoKindMatchError), as Argo CD's apply reports them.
    if (!info) throw new UnknownKindError(`no matches for kind "${kind}" in version "${task.apiVersion}"`);
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
}

export function describeTask(task: SyncTask): string {
  const k = task.key;
  return `${k.group ? `${k.group}/` : ''}${k.kind} ${k.namespace ? `${k.namespace}/` : ''}${k.name}`;
}
