/**
 * Running and cleaning up an Application's PreDelete and PostDelete hooks while it is deleted (Argo CD 3.6
 * controller/hook.go `executeHooks`, `cleanupHooks`), against its destination cluster. The hooks are the
 * app's render at its spec (`expected`: namespaced into the destination namespace, tracked by the app);
 * their live state is read fresh (GET) by key.
 *
 * `executeDeleteHooks`: hooks not in the cluster are created (an "already exists" answer is skipped); when
 * one was created the step ends there (not done). Otherwise the live hooks' health decides: any Degraded
 * one is deleted (so the next step creates it again, a retry) and the step fails with Argo CD's error
 * "<type> hook(s) failed: <ns>/<name>, ..."; any Progressing: not done; else done. A kind without a health
 * check counts as Healthy.
 *
 * `cleanupDeleteHooks`: the live hooks of the type are deleted by their delete policies against their
 * worst health (`HookSucceeded` when Healthy, `HookFailed` when Degraded; no policy written means
 * `BeforeHookCreation`, which keeps them); done once none is left to delete.
 */
import { ApiError, isNotFound } from '../../cluster/index.js';
import type { ClusterConnection, KubeObject, TrackingOptions } from '../../cluster/index.js';
import { getResourceHealth, HEALTH_ORDER } from '../../health/index.js';
import type { HealthOptions, HealthStatus, Unstructured } from '../../health/index.js';
import {
  finalizersOf,
  instanceName,
  isDeleteHook,
  POST_DELETE_FINALIZER,
  PRE_DELETE_FINALIZER,
} from '../../apps/index.js';
import type { DeleteHookType } from '../../apps/index.js';
import { DEFAULT_TRACKING_METHOD, INSTANCE_LABEL } from '../../common/index.js';
import { deletePolicies } from '../../sync/index.js';
import { withTracking } from '../refresh/index.js';

export interface HookStep {
  done: boolean;
  /** What the step did or waits for (logs). */
  detail: string;
}

const nameOf = (o: KubeObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

async function infoOf(conn: ClusterConnection, obj: KubeObject, signal?: AbortSignal) {
  return conn.discovery.resolveApiVersionKind(obj.apiVersion ?? '', obj.kind ?? '', signal);
}

/** The live object of each expected hook (undefined: not in the cluster). */
async function liveOf(
  conn: ClusterConnection,
  expected: readonly KubeObject[],
  signal?: AbortSignal,
): Promise<Array<{ expected: KubeObject; live: KubeObject | undefined }>> {
  return Promise.all(
    expected.map(async (obj) => {
      const info = await infoOf(conn, obj, signal);
      try {
        const live = await conn.client.get(
          info,
          obj.metadata?.namespace ?? '',
          obj.metadata?.name ?? '',
          signal,
        );
        live.apiVersion ??= obj.apiVersion;
        live.kind ??= obj.kind;
        return { expected: obj, live };
      } catch (err) {
        if (isNotFound(err)) return { expected: obj, live: undefined };
        throw err;
      }
    }),
  );
}

function healthOf(obj: KubeObject, health?: HealthOptions): HealthStatus {
  return getResourceHealth(obj as Unstructured, health)?.status ?? 'Healthy';
}

export async function executeDeleteHooks(
  conn: ClusterConnection,
  type: DeleteHookType,
  expected: readonly KubeObject[],
  o: { health?: HealthOptions | undefined; signal?: AbortSignal | undefined },
): Promise<HookStep> {
  const found = await liveOf(conn, expected, o.signal);
  let created = 0;
  for (const { expected: obj, live } of found) {
    if (live) continue;
    const info = await infoOf(conn, obj, o.signal);
    try {
      await conn.client.create(info, structuredClone(obj), { signal: o.signal });
      created++;
    } catch (err) {
      if (!(err instanceof ApiError && err.reason === 'AlreadyExists')) throw err;
    }
  }
  if (created > 0) return { done: false, detail: `created ${created} ${type} hook(s)` };
  const running = found.flatMap((f) => (f.live ? [f.live] : []));
  const failed = running.filter((h) => healthOf(h, o.health) === 'Degraded');
  if (failed.length > 0) {
    // Deleted so that the next step creates them again (a retry with a possibly fixed hook).
    for (const h of failed) await deleteObject(conn, h, o.signal);
    throw new Error(`${type} hook(s) failed: ${failed.map(nameOf).join(', ')}`);
  }
  const progressing = running.filter((h) => healthOf(h, o.health) === 'Progressing').length;
  if (progressing > 0)
    return { done: false, detail: `waiting for ${progressing} ${type} hook(s) to complete` };
  return { done: true, detail: `${type} hooks completed` };
}

export async function cleanupDeleteHooks(
  conn: ClusterConnection,
  type: DeleteHookType,
  expected: readonly KubeObject[],
  o: { health?: HealthOptions | undefined; signal?: AbortSignal | undefined },
): Promise<HookStep> {
  const hooks = (await liveOf(conn, expected, o.signal)).flatMap((f) => (f.live ? [f.live] : []));
  if (hooks.length === 0) return { done: true, detail: `no ${type} hook left` };
  let worst: HealthStatus = 'Healthy';
  for (const h of hooks) {
    const status = healthOf(h, o.health);
    if (HEALTH_ORDER.indexOf(status) > HEALTH_ORDER.indexOf(worst)) worst = status;
  }
  let pending = 0;
  for (const h of hooks) {
    const policies = deletePolicies(h);
    const doomed =
      (policies.includes('HookFailed') && worst === 'Degraded') ||
      (policies.includes('HookSucceeded') && worst === 'Healthy');
    if (!doomed) continue;
    pending++;
    if (!h.metadata?.deletionTimestamp) await deleteObject(conn, h, o.signal);
  }
  if (pending > 0) return { done: false, detail: `waiting for ${pending} ${type} hook(s) to be deleted` };
  return { done: true, detail: `${type} hooks cleaned up` };
}

async function deleteObject(conn: ClusterConnection, obj: KubeObject, signal?: AbortSignal): Promise<void> {
  const info = await infoOf(conn, obj, signal);
  try {
    await conn.client.delete(info, obj.metadata?.namespace ?? '', obj.metadata?.name ?? '', { signal });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/** What `DeleteHooks` needs of the finalizer's options. */
export interface DeleteHooksOptions {
  argocdNamespace: string;
  tracking: TrackingOptions;
  /** The app's render at its spec (the controller's source service); none: the app has no hooks here. */
  render?: ((manifest: KubeObject, signal?: AbortSignal) => Promise<readonly KubeObject[]>) | undefined;
}

/**
 * The delete hooks of one deleting Application, rendered once per step (hook.go renders the app's spec
 * sources at their target revisions): namespaced into the destination namespace when their kind is, and
 * tracked by the app with the controller's tracking method (SetAppInstance).
 */
export class DeleteHooks {
  #rendered: Promise<readonly KubeObject[]> | undefined;

  constructor(
    private readonly o: DeleteHooksOptions,
    private readonly conn: ClusterConnection,
    private readonly manifest: KubeObject,
    private readonly destNamespace: string,
    private readonly signal?: AbortSignal,
  ) {}

  /** The hooks of one type; a failed render throws (the step fails with it). */
  async of(type: DeleteHookType): Promise<KubeObject[]> {
    const render = this.o.render;
    if (!render) return [];
    this.#rendered ??= render(this.manifest, this.signal);
    const instance = instanceName(
      { name: this.manifest.metadata?.name ?? '', namespace: this.manifest.metadata?.namespace },
      this.o.argocdNamespace,
    );
    const out: KubeObject[] = [];
    for (const obj of (await this.#rendered).filter((x) => isDeleteHook(x, type))) {
      const info = await infoOf(this.conn, obj, this.signal);
      const placed: KubeObject = { ...obj, metadata: { ...(obj.metadata ?? {}) } };
      if (info.namespaced && !placed.metadata!.namespace) placed.metadata!.namespace = this.destNamespace;
      if (!info.namespaced) delete placed.metadata!.namespace;
      out.push(
        withTracking(placed, {
          instance,
          destNamespace: this.destNamespace,
          trackingMethod: this.o.tracking.method ?? DEFAULT_TRACKING_METHOD,
          instanceLabelKey: this.o.tracking.instanceLabelKey ?? INSTANCE_LABEL,
          installationId: this.o.tracking.installationId,
        }),
      );
    }
    return out;
  }

  /** Both types' hooks for the cascade (which deletes them with the app's other objects); [] on failure. */
  async all(): Promise<KubeObject[]> {
    const f = finalizersOf(this.manifest);
    if (!f.some((x) => x.startsWith(PRE_DELETE_FINALIZER) || x.startsWith(POST_DELETE_FINALIZER))) return [];
    try {
      return [...(await this.of('PreDelete')), ...(await this.of('PostDelete'))];
    } catch {
      return [];
    }
  }
}
