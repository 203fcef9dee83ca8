/**
 * kube-controller-manager's namespace controller for the embedded server
 * (pkg/controller/namespace/deletion/namespaced_resources_deleter.go): what happens to a namespace after its
 * DELETE marked it Terminating.
 *
 * - `delayMs` after the DELETE (default 2 s: a real cluster takes a few seconds to get to it, and a client
 *   must not assume it is instant), every object in it is deleted (`deleteContents`, the deleter's
 *   Background deletion).
 * - While objects remain (held by finalizers), the namespace carries the controller's conditions
 *   (status_condition_utils.go): NamespaceDeletionDiscoveryFailure, NamespaceDeletionGroupVersionParsingFailure
 *   and NamespaceDeletionContentFailure False; NamespaceContentRemaining and NamespaceFinalizersRemaining True
 *   naming what remains (`configmaps. has 1 resource instances`, `example.com/hold in 1 resource instances`).
 * - Once nothing is left (checked whenever an object in it is removed), spec.finalizers is emptied (the
 *   controller's /finalize: a MODIFIED event) and the namespace is removed (DELETED).
 * Not modelled: discovery failures and the controller's backoff re-checks.
 */
import { NAMESPACES } from './api.js';
import { now } from './managed-fields.js';
import type { ObjectStore } from './store.js';
import type { JsonMap, ResourceType } from './types.js';
import { clone, isMap } from './types.js';

/** Default delay between a namespace's DELETE and the namespace controller's work on it. */
export const DEFAULT_NAMESPACE_DELETION_DELAY_MS = 2_000;

export interface NamespaceControllerOptions {
  store: ObjectStore;
  typeOf: (tkey: string) => ResourceType | undefined;
  /** Deletes every object in the namespace. */
  deleteContents: (name: string) => void;
  delayMs?: number;
}

export class NamespaceController {
  /** Namespaces waiting for the controller, with its timer. */
  private readonly pending = new Map<string, NodeJS.Timeout>();
  /** Namespaces whose contents the controller has deleted: they go as soon as they are empty. */
  private readonly emptying = new Set<string>();
  private readonly delayMs: number;

  constructor(private readonly options: NamespaceControllerOptions) {
    this.delayMs = options.delayMs ?? DEFAULT_NAMESPACE_DELETION_DELAY_MS;
  }

  private get store(): ObjectStore {
    return this.options.store;
  }

  /** Runs the controller on a terminating namespace `delayMs` from now (once). */
  schedule(name: string): void {
    if (this.pending.has(name)) return;
    const timer = setTimeout(() => {
      this.pending.delete(name);
      this.run(name);
    }, this.delayMs);
    this.pending.set(name, timer);
  }

  /** Schedules namespaces already terminating (loaded from a data file). */
  resumeTerminating(): void {
    for (const ns of this.store.list(NAMESPACES))
      if (ns.metadata.deletionTimestamp) this.schedule(ns.metadata.name ?? '');
  }

  /** Stops pending work (server shutdown). */
  stop(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  /** An object of the namespace was removed: the namespace goes if the controller emptied it. */
  contentRemoved(name: string): void {
    this.finishIfEmpty(name);
  }

  private run(name: string): void {
    const ns = this.store.get(NAMESPACES, undefined, name);
    if (!ns?.metadata.deletionTimestamp) return;
    this.emptying.add(name);
    this.options.deleteContents(name);
    if (!this.finishIfEmpty(name)) this.recordConditions(name);
  }

  /** The conditions the controller writes while content remains (status_condition_utils.go). */
  private recordConditions(name: string): void {
    const ns = this.store.get(NAMESPACES, undefined, name);
    if (!ns) return;
    const resources = new Map<string, number>();
    const finalizers = new Map<string, number>();
    for (const tkey of this.store.typeKeys()) {
      if (tkey === NAMESPACES) continue;
      const t = this.options.typeOf(tkey);
      for (const obj of this.store.list(tkey, name)) {
        const resource = `${t?.plural ?? tkey}.${t?.group ?? ''}`;
        resources.set(resource, (resources.get(resource) ?? 0) + 1);
        for (const f of obj.metadata.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
      }
    }
    const at = now();
    const condition = (type: string, status: boolean, reason: string, message: string): JsonMap => ({
      type,
      status: status ? 'True' : 'False',
      lastTransitionTime: at,
      reason,
      message,
    });
    const list = (m: Map<string, number>, word: string): string =>
      [...m]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, n]) => `${k} ${word} ${n} resource instances`)
        .join(', ');
    const updated = clone(ns);
    updated['status'] = {
      ...(isMap(updated['status']) ? updated['status'] : {}),
      phase: 'Terminating',
      conditions: [
        condition(
          'NamespaceDeletionDiscoveryFailure',
          false,
          'ResourcesDiscovered',
          'All resources successfully discovered',
        ),
        condition(
          'NamespaceDeletionGroupVersionParsingFailure',
          false,
          'ParsedGroupVersions',
          'All legacy kube types successfully parsed',
        ),
        condition(
          'NamespaceDeletionContentFailure',
          false,
          'ContentDeleted',
          'All content successfully deleted, may be waiting on finalization',
        ),
        resources.size > 0
          ? condition(
              'NamespaceContentRemaining',
              true,
              'SomeResourcesRemain',
              `Some resources are remaining: ${list(resources, 'has')}`,
            )
          : condition(
              'NamespaceContentRemaining',
              false,
              'ContentRemoved',
              'All content successfully removed',
            ),
        finalizers.size > 0
          ? condition(
              'NamespaceFinalizersRemaining',
              true,
              'SomeFinalizersRemain',
              `Some content in the namespace has finalizers remaining: ${list(finalizers, 'in')}`,
            )
          : condition(
              'NamespaceFinalizersRemaining',
              false,
              'ContentHasNoFinalizers',
              'All content-preserving finalizers finished',
            ),
      ],
    };
    this.store.put(NAMESPACES, updated);
  }

  /** Finalizes and removes an emptied namespace once nothing is left in it; true when it went. */
  private finishIfEmpty(name: string): boolean {
    if (!this.emptying.has(name)) return false;
    const ns = this.store.get(NAMESPACES, undefined, name);
    if (!ns?.metadata.deletionTimestamp) {
      this.emptying.delete(name);
      return false;
    }
    for (const tkey of this.store.typeKeys()) {
      if (tkey !== NAMESPACES && this.store.hasIn(tkey, name)) return false;
    }
    this.emptying.delete(name);
    const finalized = clone(ns);
    finalized['spec'] = { ...(isMap(finalized['spec']) ? finalized['spec'] : {}), finalizers: [] };
    this.store.put(NAMESPACES, finalized);
    this.store.remove(NAMESPACES, undefined, name);
    return true;
  }
}
