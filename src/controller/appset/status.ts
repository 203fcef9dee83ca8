/**
 * Writes an ApplicationSet's `status` as Argo CD's ApplicationSet controller does, through the status
 * subresource (`applicationsets/<name>/status`), one JSON merge patch per change
 * (applicationset_controller.go setApplicationSetStatusCondition, updateResourcesStatus,
 * setAppSetApplicationStatus; `applicationset/status/resource_status.go`):
 *
 * - conditions (conditions.ts) and the health computed from them, only when a condition's type, reason,
 *   status or message changed;
 * - `resources`: one entry per generated Application now in the cluster, sorted by name (group
 *   argoproj.io, version v1alpha1, kind Application, name, namespace, the app's sync status, its health
 *   status), at most `maxResources` (Argo CD's --max-resources-status-count, 5000), and `resourcesCount`
 *   (all of them); written when they changed (Argo CD rewrites them every reconcile, same content);
 * - `applicationStatus` (progressive syncs), sorted by application, when an entry's status, step or
 *   message changed or the count did.
 * The status the reconcile works from is the one the last write answered (else the cache's).
 */
import type { KubeClient, KubeObject, ResourceInfo } from '../../cluster/index.js';
import { deepEqual } from '../../diff/index.js';
import type { AppSetCondition } from './conditions.js';
import { calculateHealth, conditionsChanged, evaluateConditions, setConditions } from './conditions.js';
import type { AppStatusEntry } from './progressive.js';

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export const APPLICATIONSET_RESOURCE: ResourceInfo = {
  group: 'argoproj.io',
  version: 'v1alpha1',
  kind: 'ApplicationSet',
  plural: 'applicationsets',
  namespaced: true,
  verbs: ['get', 'list', 'watch', 'patch', 'update'],
};

/** Kubernetes' time format (seconds, UTC), as metav1.Time serializes. */
export const kubeNow = (ms: number): string =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export interface ResourceEntry {
  group: string;
  version: string;
  kind: string;
  name: string;
  namespace: string;
  status?: string;
  health: { status?: string };
}

export class AppSetStatus {
  #status: Json;
  readonly #appset: KubeObject;

  constructor(
    appset: KubeObject,
    private readonly client: KubeClient,
    private readonly now: () => number,
    private readonly onWrite: (fields: string[]) => void,
  ) {
    this.#appset = appset;
    this.#status = isMap((appset as Json)['status'])
      ? structuredClone((appset as Json)['status'] as Json)
      : {};
  }

  conditions(): AppSetCondition[] {
    return Array.isArray(this.#status['conditions']) ? (this.#status['conditions'] as AppSetCondition[]) : [];
  }

  applicationStatus(): AppStatusEntry[] {
    return Array.isArray(this.#status['applicationStatus'])
      ? (this.#status['applicationStatus'] as AppStatusEntry[])
      : [];
  }

  /** setApplicationSetStatusCondition. */
  async setConditions(
    given: AppSetCondition[],
    parametersGenerated: boolean,
    rollingSync: boolean,
  ): Promise<void> {
    const { conditions, evaluated } = evaluateConditions(given, parametersGenerated, rollingSync);
    const previous = this.conditions();
    const next = setConditions(previous, conditions, evaluated, kubeNow(this.now()));
    if (!conditionsChanged(next, previous)) return;
    await this.#write({ conditions: next, health: calculateHealth(next) });
  }

  /** updateResourcesStatus. */
  async setResources(apps: readonly KubeObject[], maxResources: number): Promise<void> {
    const entries: ResourceEntry[] = apps
      .map((app) => {
        const st = isMap((app as Json)['status']) ? ((app as Json)['status'] as Json) : {};
        const sync = String((st['sync'] as Json | undefined)?.['status'] ?? '');
        const health = String((st['health'] as Json | undefined)?.['status'] ?? '');
        return {
          group: 'argoproj.io',
          version: 'v1alpha1',
          kind: 'Application',
          name: String(app.metadata?.name ?? ''),
          namespace: String(app.metadata?.namespace ?? ''),
          ...(sync ? { status: sync } : {}),
          health: health ? { status: health } : {},
        };
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const count = entries.length;
    const kept = maxResources > 0 ? entries.slice(0, maxResources) : entries;
    const before = (this.#status['resources'] as unknown[] | undefined) ?? [];
    const beforeCount = (this.#status['resourcesCount'] as number | undefined) ?? 0;
    if (deepEqual(before as never, kept as never) && beforeCount === count) return;
    // None: both omitted, as Go's omitempty leaves them out of what Argo CD writes.
    await this.#write(
      count === 0 ? { resources: null, resourcesCount: null } : { resources: kept, resourcesCount: count },
    );
  }

  /** setAppSetApplicationStatus. */
  async setApplicationStatus(entries: readonly AppStatusEntry[]): Promise<void> {
    const previous = this.applicationStatus();
    let changed = entries.length !== previous.length;
    if (!changed)
      for (const e of entries) {
        const p = previous.find((x) => x.application === e.application);
        if (!p || p.status !== e.status || p.step !== e.step || p.message !== e.message) {
          changed = true;
          break;
        }
      }
    if (!changed) return;
    const sorted = [...entries].sort((a, b) =>
      a.application < b.application ? -1 : a.application > b.application ? 1 : 0,
    );
    await this.#write({ applicationStatus: sorted });
  }

  async #write(fields: Json): Promise<void> {
    const meta = this.#appset.metadata ?? {};
    const answer = await this.client.patch(
      APPLICATIONSET_RESOURCE,
      String(meta.namespace ?? ''),
      String(meta.name ?? ''),
      { status: fields },
      'merge',
      { subresource: 'status' },
    );
    const st = (answer as Json)['status'];
    this.#status = isMap(st) ? st : { ...this.#status, ...fields };
    this.onWrite(Object.keys(fields).map((f) => `status.${f}`));
  }
}
