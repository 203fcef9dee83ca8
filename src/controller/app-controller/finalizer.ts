/**
 * `AppFinalizer`: cascading deletion of Applications deleted with Argo CD's
 * `resources-finalizer.argocd.argoproj.io` (or its `/foreground`, `/background` variants), as Argo CD's
 * finalizeApplicationDeletion does it (src/apps deletion.ts decides each step, docs/controller.md).
 *
 * One step per call of `step(manifest)`: the app's destination cluster is resolved as the loop resolves it
 * (a kubeconfig context, else a cluster Secret; a destination that no longer resolves drops the
 * finalizer, as Argo CD does: there is nothing it could delete), the candidates are the resources the
 * Application's `status.resources` lists, each read fresh (GET); those still tracked by the app (its
 * instance name, the loop's tracking method) with no ownerReferences are its managed live objects. The
 * step deletes the highest wave of them, or waits for terminating ones, or, when none is left, removes
 * the propagation finalizer with a merge patch of `metadata.finalizers` (updateFinalizers). The caller
 * calls again (`scheduleMs` later) until `done`, or until the Application is gone.
 *
 * Argo CD takes the candidates from its cluster cache (every object tracked by the app); reading those the
 * status lists covers what the controller ever reported for the app, which it writes on every refresh.
 *
 * PreDelete / PostDelete hooks (src/apps delete-hooks.ts, delete-hooks.ts here), in finalizeApplicationDeletion's
 * order: with `pre-delete-finalizer.argocd.argoproj.io` the PreDelete hooks of the app's render run first
 * (created, then waited for; when done that finalizer comes off and the cascade follows in the same step);
 * then the cascade; then with `post-delete-finalizer...` the PostDelete hooks run; then the `/cleanup`
 * finalizers delete the hooks by their delete policies. A failed step (a hook Degraded: "PreDelete hook(s)
 * failed: ns/name") is written as the DeletionError condition (`deletionError`) and tried again later.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  APPLICATION_RESOURCE,
  CLEANUP_STAGE,
  deletionStage,
  deletionStep,
  finalizersOf,
  instanceName,
  isDeleting,
  kubeTime,
  POST_DELETE_FINALIZER,
  PRE_DELETE_FINALIZER,
  setConditions,
  withoutDeletionFinalizers,
  type DeletionStep,
} from '../../apps/index.js';
import { connect as defaultConnect, isNotFound, owningApp, resolveCluster } from '../../cluster/index.js';
import type {
  ClusterAccess,
  ClusterConnection,
  ConnectOptions,
  KubeClient,
  KubeObject,
  TrackingOptions,
} from '../../cluster/index.js';
import { oneLine } from '../../common/index.js';
import type { HealthOptions } from '../../health/index.js';
import { parseSyncOptions } from '../../sync/index.js';
import { cleanupDeleteHooks, DeleteHooks, executeDeleteHooks } from './delete-hooks.js';
import type { HookStep } from './delete-hooks.js';

export interface AppFinalizerOptions {
  /** The control-plane cluster's client (patches the Application). */
  client: KubeClient;
  argocdNamespace: string;
  kubeConfig: KubeConfig;
  clusterSecrets?: readonly ClusterAccess[] | undefined;
  tracking: TrackingOptions;
  connect?: ((options: ConnectOptions) => Promise<ClusterConnection>) | undefined;
  onWarning?: (message: string) => void;
  /** Each step taken (logs, tests). */
  onStep?: (key: string, step: DeletionStep) => void;
  /** The app's render at its spec, for its PreDelete / PostDelete hooks (delete-hooks.ts). */
  render?: ((manifest: KubeObject, signal?: AbortSignal) => Promise<readonly KubeObject[]>) | undefined;
  /** How hooks' health is judged (argocd-cm's Lua checks). */
  health?: HealthOptions | undefined;
  now?: (() => number) | undefined;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export class AppFinalizer {
  #o: AppFinalizerOptions;

  constructor(options: AppFinalizerOptions) {
    this.#o = options;
  }

  /** New cluster Secrets and tracking (the controller reloaded argocd-cm and the Secrets). */
  update(options: Pick<AppFinalizerOptions, 'clusterSecrets' | 'tracking' | 'render' | 'health'>): void {
    this.#o = { ...this.#o, ...options };
  }

  /** One step for a deleting Application; undefined when it is not being deleted. */
  async step(manifest: KubeObject, signal?: AbortSignal): Promise<DeletionStep | undefined> {
    if (!isDeleting(manifest)) return undefined;
    const o = this.#o;
    const ns = manifest.metadata?.namespace ?? o.argocdNamespace;
    const name = manifest.metadata?.name ?? '';
    const key = `${ns}/${name}`;
    const spec = isObj(manifest['spec']) ? manifest['spec'] : {};
    const syncPolicy = isObj(spec['syncPolicy']) ? spec['syncPolicy'] : {};
    const rawOptions = Array.isArray(syncPolicy['syncOptions']) ? syncPolicy['syncOptions'] : [];
    const app = {
      manifest,
      syncOptions: parseSyncOptions(rawOptions.filter((x): x is string => typeof x === 'string')),
    };
    if (deletionStage(manifest) === 'none')
      return { kind: 'not-cascading', finalizers: finalizersOf(manifest) };

    let conn: ClusterConnection | undefined;
    let step: DeletionStep;
    try {
      const destination = isObj(spec['destination'])
        ? (spec['destination'] as { server?: string; name?: string; namespace?: string })
        : {};
      let resolved: ReturnType<typeof resolveCluster>;
      try {
        resolved = resolveCluster(o.kubeConfig, destination, o.clusterSecrets);
      } catch (err) {
        // Argo CD: "Unable to get destination cluster": the finalizers come off, nothing is deleted.
        o.onWarning?.(
          `app ${key}: destination cluster not found (${oneLine(err)}): finalizer removed, nothing deleted`,
        );
        step = { kind: 'done', finalizers: withoutDeletionFinalizers(manifest) };
        await this.#setFinalizers(ns, name, step.finalizers);
        o.onStep?.(key, step);
        return step;
      }
      conn = await (o.connect ?? defaultConnect)(
        resolved.access ? { access: resolved.access } : { kubeConfig: o.kubeConfig, destination },
      );
      const c = conn;
      let current = manifest;
      const hooks = new DeleteHooks(this.#o, c, manifest, destination.namespace ?? '', signal);
      if (deletionStage(current) === 'pre-delete') {
        let r: HookStep;
        try {
          r = await executeDeleteHooks(c, 'PreDelete', await hooks.of('PreDelete'), {
            health: o.health,
            signal,
          });
        } catch (err) {
          throw new Error(`error executing pre-delete hooks: ${oneLine(err)}`, { cause: err });
        }
        if (!r.done) {
          step = { kind: 'hooks', stage: 'pre-delete', reason: r.detail };
          o.onStep?.(key, step);
          return step;
        }
        // The PreDelete hooks are done: their finalizer comes off and the cascade follows at once.
        const rest = finalizersOf(current).filter((f) => f !== PRE_DELETE_FINALIZER);
        await this.#setFinalizers(ns, name, rest);
        current = { ...current, metadata: { ...current.metadata, finalizers: rest } };
      }
      const stage = deletionStage(current);
      if (stage === 'cascade') {
        const live = await this.#managedLive(c, current, await hooks.all(), signal);
        step = deletionStep({ ...app, manifest: current }, live);
        if (step.kind === 'delete') {
          const propagationPolicy = step.propagation;
          await Promise.all(
            step.objects.map(async (obj) => {
              const info = await c.discovery.resolveApiVersionKind(
                obj.apiVersion ?? '',
                obj.kind ?? '',
                signal,
              );
              try {
                await c.client.delete(info, obj.metadata?.namespace ?? '', obj.metadata?.name ?? '', {
                  propagationPolicy,
                  signal,
                });
              } catch (err) {
                if (!isNotFound(err)) throw err;
              }
            }),
          );
        } else if (step.kind === 'done') {
          await this.#setFinalizers(ns, name, step.finalizers);
          // PostDelete hooks and the cleanups follow at the next step.
          if (
            deletionStage({ ...current, metadata: { ...current.metadata, finalizers: step.finalizers } }) !==
            'none'
          )
            step = { kind: 'hooks', stage: 'cascade', reason: 'resources deleted' };
        }
      } else if (stage === 'none') {
        step = { kind: 'done', finalizers: finalizersOf(current) };
      } else {
        const type = stage === 'pre-delete-cleanup' ? 'PreDelete' : 'PostDelete';
        const expected = await hooks.of(type);
        const r =
          stage === 'post-delete'
            ? await executeDeleteHooks(c, type, expected, { health: o.health, signal })
            : await cleanupDeleteHooks(c, type, expected, { health: o.health, signal });
        if (r.done) {
          const finalizer =
            stage === 'post-delete'
              ? POST_DELETE_FINALIZER
              : `${stage === 'pre-delete-cleanup' ? PRE_DELETE_FINALIZER : POST_DELETE_FINALIZER}/${CLEANUP_STAGE}`;
          await this.#setFinalizers(
            ns,
            name,
            finalizersOf(current).filter((f) => f !== finalizer),
          );
        }
        step = { kind: 'hooks', stage, reason: r.detail };
      }
    } finally {
      conn?.close();
    }
    o.onStep?.(key, step);
    return step;
  }

  /**
   * A failed step's error as the Application's DeletionError condition (processAppOperationQueueItem's
   * setAppCondition: written unless the same condition is there).
   */
  async deletionError(manifest: KubeObject, message: string): Promise<void> {
    const ns = manifest.metadata?.namespace ?? this.#o.argocdNamespace;
    const name = manifest.metadata?.name ?? '';
    const status = isObj(manifest['status']) ? manifest['status'] : {};
    const previous = Array.isArray(status['conditions']) ? status['conditions'] : [];
    if (previous.some((c) => isObj(c) && c['type'] === 'DeletionError' && c['message'] === message)) return;
    const conditions = setConditions(
      previous,
      [{ type: 'DeletionError', message }],
      ['DeletionError'],
      kubeTime((this.#o.now ?? Date.now)()),
    );
    try {
      await this.#o.client.patch(APPLICATION_RESOURCE, ns, name, { status: { conditions } }, 'merge', {
        subject: `application ${ns}/${name}`,
      });
    } catch (err) {
      if (!isNotFound(err)) this.#o.onWarning?.(`app ${ns}/${name}: failed to write status: ${oneLine(err)}`);
    }
  }

  async #setFinalizers(namespace: string, name: string, finalizers: string[]): Promise<void> {
    try {
      await this.#o.client.patch(
        APPLICATION_RESOURCE,
        namespace,
        name,
        { metadata: { finalizers } },
        'merge',
        {
          subject: `application ${namespace}/${name}`,
        },
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /**
   * The app's managed live objects among those its status lists and its delete hooks (tracked by the app
   * like any of its objects, so the cascade deletes a PreDelete hook too, as Argo CD's cluster cache has it).
   */
  async #managedLive(
    conn: ClusterConnection,
    manifest: KubeObject,
    deleteHooks: readonly KubeObject[],
    signal?: AbortSignal,
  ): Promise<KubeObject[]> {
    const o = this.#o;
    const status = isObj(manifest['status']) ? manifest['status'] : {};
    const hookRows = deleteHooks.map((h) => {
      const slash = (h.apiVersion ?? '').indexOf('/');
      return {
        group: slash < 0 ? '' : (h.apiVersion ?? '').slice(0, slash),
        version: (h.apiVersion ?? '').slice(slash + 1),
        kind: h.kind ?? '',
        namespace: h.metadata?.namespace ?? '',
        name: h.metadata?.name ?? '',
      } as Obj;
    });
    const rows = [
      ...(Array.isArray(status['resources']) ? status['resources'] : []).filter(isObj),
      ...hookRows,
    ];
    const instance = instanceName(
      { name: manifest.metadata?.name ?? '', namespace: manifest.metadata?.namespace },
      o.argocdNamespace,
    );
    const found = await Promise.all(
      rows.map(async (r): Promise<KubeObject | undefined> => {
        if (r['hook'] === true) return undefined;
        const group = typeof r['group'] === 'string' ? r['group'] : '';
        const kind = typeof r['kind'] === 'string' ? r['kind'] : '';
        const version = typeof r['version'] === 'string' && r['version'] ? r['version'] : undefined;
        const info = await conn.discovery.lookup({ group, kind, ...(version ? { version } : {}) }, signal);
        if (!info) return undefined;
        try {
          const obj = await conn.client.get(
            info,
            typeof r['namespace'] === 'string' && info.namespaced ? r['namespace'] : '',
            String(r['name'] ?? ''),
            signal,
          );
          obj.apiVersion ??= info.group ? `${info.group}/${info.version}` : info.version;
          obj.kind ??= info.kind;
          if ((obj.metadata?.ownerReferences?.length ?? 0) > 0) return undefined;
          return owningApp(obj, o.tracking) === instance ? obj : undefined;
        } catch (err) {
          if (isNotFound(err)) return undefined;
          throw err;
        }
      }),
    );
    return found.filter((x): x is KubeObject => x !== undefined);
  }
}

/**
 * `FinalizerQueue`: runs `AppFinalizer` steps for deleting apps, one at a time per app, again `retryMs`
 * later while a step deleted something or waits, until `done` or the Application is gone (Argo CD requeues
 * a deleting app on every event and resync). Timers are unref'd; `stop()` cancels the waiting ones.
 */
export class FinalizerQueue {
  readonly #timers = new Map<string, ReturnType<typeof setTimeout> | 'running'>();
  #stopped = false;

  constructor(
    private readonly finalizer: AppFinalizer,
    private readonly o: {
      current: (key: string) => KubeObject | undefined;
      retryMs: number;
      signal?: AbortSignal | undefined;
      onWarning?: ((message: string) => void) | undefined;
    },
  ) {}

  /** Schedules a step for the app (no-op when one is scheduled or running). */
  schedule(key: string, afterMs = 0): void {
    if (this.#stopped || this.#timers.has(key)) return;
    const timer = setTimeout(() => {
      this.#timers.set(key, 'running');
      void this.#run(key).finally(() => {
        if (this.#timers.get(key) === 'running') this.#timers.delete(key);
      });
    }, afterMs);
    timer.unref?.();
    this.#timers.set(key, timer);
  }

  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers.values()) if (t !== 'running') clearTimeout(t);
  }

  async #run(key: string): Promise<void> {
    const obj = this.o.current(key);
    if (!obj) return;
    let again = false;
    try {
      const step = await this.finalizer.step(obj, this.o.signal);
      again = step !== undefined && step.kind !== 'done' && step.kind !== 'not-cascading';
    } catch (err) {
      this.o.onWarning?.(`app ${key}: failed to delete resources: ${oneLine(err)}`);
      await this.finalizer.deletionError(obj, oneLine(err));
      again = true;
    }
    if (again) {
      this.#timers.delete(key);
      this.schedule(key, this.o.retryMs);
    }
  }
}
