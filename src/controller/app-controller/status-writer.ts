/**
 * `StatusWriter`: writes the continuous loop's results into the live Applications, as Argo CD's controller
 * persists them (persistAppStatus, setOperationState, persistRevisionHistory; src/apps status.ts builds the
 * status, rules in docs/controller.md).
 *
 * - On a loop event about an app (`refreshed`, `app-operation-start`, `-progress`, `-done`) it builds the
 *   app's new status from the previous one and the loop's state (`loop.state(key)`: comparison, operations,
 *   and its last render's source revisions, types and summary), and sends what changed as one JSON merge
 *   patch of the Application (Argo CD's Application CRD has no status subresource: status is patched on the
 *   main resource). No change, no request: at most one patch per event, none for a no-op refresh.
 * - The previous status is the newest of the Application as the namespace watch last saw it and as our
 *   last patch answered (Argo CD's writeBackToInformer), by resourceVersion, so a watch lagging behind our
 *   own write never makes us send the same change twice.
 * - Writes of one app are serialized; events arriving meanwhile coalesce into one more write with the
 *   latest state. A failed write is reported (`onWarning`) and left: the next event writes the status in
 *   full again (a merge patch from what the server has). A 404 (the app was deleted) is dropped.
 * - `operationState` and `history` are written for the operations this process ran (seen starting); a last
 *   operation the loop read back from the Application after a restart is left as the status holds it.
 * - Finalizers: an app whose last render holds PreDelete / PostDelete hooks gets their finalizers (and
 *   loses them when it holds none) in the same patch (src/apps `deleteHookFinalizers`).
 * - `clearOperation(key)`: the next write of that app also sets `operation: null` (a requested operation
 *   finished); `removeRefreshAnnotation(key)`: it also removes `argocd.argoproj.io/refresh` (consumed).
 */
import {
  APPLICATION_RESOURCE,
  buildStatus,
  deleteHookFinalizers,
  finalizersOf,
  isDeleting,
} from '../../apps/index.js';
import type { AppOperationReport } from '../../apps/index.js';
import { isNotFound } from '../../cluster/index.js';
import type { KubeClient, KubeObject } from '../../cluster/index.js';
import { oneLine } from '../../common/index.js';
import type { AppLoopState, LoopEvent, OperationRequest } from '../loop/index.js';

export const REFRESH_ANNOTATION = 'argocd.argoproj.io/refresh';

export interface StatusWriterOptions {
  client: KubeClient;
  argocdNamespace: string;
  /** The Application as the namespace watch last saw it. */
  current: (namespace: string, name: string) => KubeObject | undefined;
  state: (key: string) => AppLoopState | undefined;
  persistResourceHealth?: boolean | undefined;
  now?: () => number;
  onWarning?: (message: string) => void;
  /** Each patch sent (logs, tests). */
  onPatch?: (key: string, patch: Record<string, unknown>) => void;
}

interface AppWrites {
  running: Promise<void> | undefined;
  again: boolean;
  level: number;
  clearOperation: boolean;
  removeRefresh: boolean;
  /** The Application as our last patch returned it. */
  written?: KubeObject | undefined;
  /** The last operation ended and is not in `history` yet. */
  pendingHistory: boolean;
  /** The SyncError condition to write (null: clear it; undefined: leave it). */
  syncError?: string | null | undefined;
  /**
   * The operations this process ran. A last operation the loop read back from `status.operationState`
   * (after a restart) is not written again: the status already holds it, in full.
   */
  own: WeakSet<object>;
  /** When the loop's running operation started (its app-operation-start). */
  startedAt?: string | undefined;
  /**
   * The last operation as its app-operation-done told it: stands in for the loop's `lastOperation` when the
   * operation ended without a report (it failed before syncing anything), so its Error is still written.
   */
  ended?: { request: OperationRequest; report: AppOperationReport } | undefined;
}

function newerOf(a: KubeObject | undefined, b: KubeObject | undefined): KubeObject | undefined {
  if (!a) return b;
  if (!b) return a;
  const ra = a.metadata?.resourceVersion ?? '';
  const rb = b.metadata?.resourceVersion ?? '';
  if (/^\d+$/.test(ra) && /^\d+$/.test(rb)) return BigInt(ra) >= BigInt(rb) ? a : b;
  return a; // opaque versions: the watch's copy
}

export class StatusWriter {
  readonly #o: StatusWriterOptions;
  readonly #apps = new Map<string, AppWrites>();
  #patches = 0;

  constructor(options: StatusWriterOptions) {
    this.#o = options;
  }

  /** Patches sent so far. */
  get patches(): number {
    return this.#patches;
  }

  /** The loop's event handler: writes the status of the app the event is about. */
  onEvent(event: LoopEvent): void {
    if (event.type === 'app-operation-start') {
      const e = this.#entry(event.key);
      e.startedAt = new Date((this.#o.now ?? Date.now)()).toISOString();
      e.own.add(event.request);
    }
    if (event.type === 'app-operation-done') {
      const e = this.#entry(event.key);
      e.pendingHistory = true;
      const now = new Date((this.#o.now ?? Date.now)()).toISOString();
      e.ended = {
        request: event.request,
        report: {
          phase: event.phase,
          message: event.message,
          revision: event.revision,
          startedAt: e.startedAt ?? now,
          finishedAt: now,
          dryRun: event.request.dryRun,
          retries: 0,
          resources: [],
        },
      };
    }
    if (event.type === 'auto-sync-skipped') {
      // autoSync's conditions (appcontroller.go): only these two skips are SyncErrors.
      if (/^Failed last sync attempt|auto-sync will wipe out all resources/.test(event.reason)) {
        this.#entry(event.key).syncError = event.reason;
        void this.write(event.key, 0);
      }
    }
    if (event.type === 'app-operation-start') this.#entry(event.key).syncError = null;
    if (event.type === 'refreshed' && event.sync === 'Synced') this.#entry(event.key).syncError = null;
    if (event.type === 'refreshed') void this.write(event.key, event.level);
    else if (
      event.type === 'app-operation-start' ||
      event.type === 'app-operation-progress' ||
      event.type === 'app-operation-done'
    )
      void this.write(event.key, 0);
  }

  clearOperation(key: string): void {
    this.#entry(key).clearOperation = true;
  }

  removeRefreshAnnotation(key: string): void {
    this.#entry(key).removeRefresh = true;
  }

  /** A new loop runs (the controller reloaded): what the previous one reported of operations is dropped. */
  resetOperations(): void {
    for (const e of this.#apps.values()) e.ended = undefined;
  }

  /** Forgets an app (deleted). */
  forget(key: string): void {
    this.#apps.delete(key);
  }

  /**
   * Writes the app's status (coalescing with a write in flight). `level`: the comparison level of the
   * refresh that asks (0: no refresh, an operation event: reconciledAt stays). Resolves when written.
   */
  write(key: string, level = 0): Promise<void> {
    const entry = this.#entry(key);
    entry.level = Math.max(entry.level, level);
    if (entry.running) {
      entry.again = true;
      return entry.running;
    }
    const run = async (): Promise<void> => {
      do {
        entry.again = false;
        const lvl = entry.level;
        entry.level = 0;
        await this.#writeOnce(key, entry, lvl);
      } while (entry.again);
    };
    entry.running = run().finally(() => {
      entry.running = undefined;
    });
    return entry.running;
  }

  /** Resolves when every write in flight is done. */
  async idle(): Promise<void> {
    await Promise.all([...this.#apps.values()].map((e) => e.running));
  }

  #entry(key: string): AppWrites {
    let e = this.#apps.get(key);
    if (!e) {
      e = {
        running: undefined,
        again: false,
        level: 0,
        clearOperation: false,
        removeRefresh: false,
        pendingHistory: false,
        own: new WeakSet(),
      };
      this.#apps.set(key, e);
    }
    return e;
  }

  async #writeOnce(key: string, entry: AppWrites, level: number): Promise<void> {
    const o = this.#o;
    const loopState = o.state(key);
    if (!loopState) return;
    const ended = entry.ended;
    const last = loopState.lastOperation;
    const state =
      ended && !loopState.running && last?.request !== ended.request
        ? { ...loopState, lastOperation: ended }
        : last && !loopState.running && !entry.own.has(last.request)
          ? { ...loopState, lastOperation: undefined }
          : loopState;
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const current = newerOf(o.current(namespace, name), entry.written);
    if (!current) return; // gone
    // Source revisions and types, summary: the loop's record of the app's last render.
    const rendered = loopState.rendered;
    const clearOperation =
      entry.clearOperation && current['operation'] !== undefined && current['operation'] !== null;
    const built = buildStatus({
      previous: current['status'],
      state,
      now: (o.now ?? Date.now)(),
      controllerNamespace: o.argocdNamespace,
      level,
      persistResourceHealth: o.persistResourceHealth,
      ...(rendered ? { sources: rendered.sources, summary: rendered.summary } : {}),
      clearOperation,
      syncError: entry.syncError,
      appendHistory: entry.pendingHistory,
    });
    const historyWritten = entry.pendingHistory;
    const patch: Record<string, unknown> = { ...(built.patch ?? {}) };
    const metadata: Record<string, unknown> = {};
    if (entry.removeRefresh && current.metadata?.annotations?.[REFRESH_ANNOTATION] !== undefined)
      metadata['annotations'] = { [REFRESH_ANNOTATION]: null };
    // The PreDelete / PostDelete hook finalizers follow the last render (processAppRefreshQueueItem), before
    // the status that says Synced: never on an app being deleted.
    const finalizers =
      loopState.deleteHooks && !isDeleting(current)
        ? deleteHookFinalizers(finalizersOf(current), loopState.deleteHooks)
        : undefined;
    if (finalizers) metadata['finalizers'] = finalizers;
    if (Object.keys(metadata).length > 0) patch['metadata'] = metadata;
    entry.clearOperation = false;
    entry.removeRefresh = false;
    if (Object.keys(patch).length === 0) {
      entry.pendingHistory = false; // nothing to record: not a recordable sync, or recorded already
      return;
    }
    try {
      entry.written = await o.client.patch(APPLICATION_RESOURCE, namespace, name, patch, 'merge', {
        subject: `application ${key}`,
      });
      this.#patches++;
      if (historyWritten) entry.pendingHistory = false;
      o.onPatch?.(key, patch);
    } catch (err) {
      if (isNotFound(err)) return;
      o.onWarning?.(`app ${key}: failed to write status: ${oneLine(err)}`);
    }
  }
}
