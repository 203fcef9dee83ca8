/**
 * `ProcessedApps`: the Applications this `kubectl gitops controller` processes, seen as Argo CD's metrics
 * see them (controller/metrics/metrics.go `appCollector.Collect`: every Application of the informer's lister
 * that `canProcessApp` accepts, read at scrape time). It is what `argocd_app_info`, `argocd_app_labels` and
 * `argocd_app_condition` list (src/metrics reads `states()` / `state(key)`; `onApps` hands it out).
 *
 * - The loop's apps of this controller's shards (the loop keeps the others, neither refreshed nor operated:
 *   Argo CD's filter leaves them to the controller that owns them, so N replicas never list an app twice).
 * - Apps being deleted here (`deleting`): the loop no longer reconciles them, but the Application is still
 *   listed until its finalizers are gone, with `operation="delete"` (its manifest's deletionTimestamp) and
 *   sync, health and conditions as its `status` last recorded them (Argo CD reads `app.Status`).
 * - An app deleted (`forget`, the watch's DELETED) is gone at once. Skipped apps (skip-reconcile) are not in
 *   the loop and never recorded here.
 */
import { parseApplication } from '../../apps/index.js';
import type { Application } from '../../apps/index.js';
import type { KubeObject } from '../../cluster/index.js';
import type { HealthStatus } from '../../health/index.js';
import type { AppLoopState, ReconcileLoop } from '../loop/index.js';
import type { AppCondition, AppSyncStatus } from '../refresh/index.js';

export interface ProcessedAppsOptions {
  /** The loop running now (a reload builds a new one). */
  loop: () => Pick<ReconcileLoop, 'states' | 'state'> | undefined;
  /** Whether this controller's shards hold the app (ControllerShards `owns`). */
  owns: (app: Application) => boolean;
}

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The state an Application's `status` records (sync, health, conditions), for an app no loop holds. */
export function stateOfStatus(key: string, app: Application, manifest: KubeObject): AppLoopState {
  const status = obj((manifest as { status?: unknown }).status);
  const sync = str(obj(status['sync'])['status']) || 'Unknown';
  const health = str(obj(status['health'])['status']) || 'Unknown';
  const conditions = (Array.isArray(status['conditions']) ? status['conditions'] : []).map((c) => ({
    type: str(obj(c)['type']),
    message: str(obj(c)['message']),
  }));
  return {
    key,
    app,
    selfHealAttempts: 0,
    comparison: {
      revision: str(obj(status['sync'])['revision']),
      resources: [],
      // Values the status holds, as Argo CD's metrics print them (whatever a controller wrote).
      sync: sync as AppSyncStatus,
      health: { status: health as HealthStatus },
      conditions: conditions as AppCondition[],
    },
  };
}

export class ProcessedApps implements Pick<ReconcileLoop, 'states' | 'state'> {
  readonly #o: ProcessedAppsOptions;
  /** Apps being deleted by this controller, by key, as their Application last read. */
  readonly #deleting = new Map<string, AppLoopState>();

  constructor(options: ProcessedAppsOptions) {
    this.#o = options;
  }

  /** An Application being deleted (deletionTimestamp set) that this controller finalizes. */
  deleting(key: string, manifest: KubeObject): void {
    let app: Application;
    try {
      app = parseApplication(
        { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', ...manifest },
        `cluster ${key}`,
      );
    } catch {
      this.#deleting.delete(key); // a spec we cannot read: the loop did not hold it either
      return;
    }
    this.#deleting.set(key, stateOfStatus(key, app, manifest));
  }

  /** The Application is gone, no longer deleting, or skipped. */
  forget(key: string): void {
    this.#deleting.delete(key);
  }

  states(): AppLoopState[] {
    const out = (this.#o.loop()?.states() ?? []).filter(
      (s) => !this.#deleting.has(s.key) && this.#o.owns(s.app),
    );
    for (const s of this.#deleting.values()) if (this.#o.owns(s.app)) out.push(s);
    return out;
  }

  state(key: string): AppLoopState | undefined {
    return this.#deleting.get(key) ?? this.#o.loop()?.state(key);
  }
}
