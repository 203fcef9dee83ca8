/**
 * `RequestedOperations`: the operations users write into an Application's `operation` field (`argocd app
 * sync --core`, the UI, `kubectl patch`), as Argo CD's operation queue takes them (processRequestedAppOperation,
 * setOperationState; docs/controller.md).
 *
 * - `seen(app, obj)`: an Application event. Its `operation` is parsed (src/apps `parseOperation`) and
 *   requested from the loop once; the same `operation` seen again (our own status writes come back as
 *   events while it runs) is not requested twice. One that cannot be read is answered at once with
 *   `operationState` phase Error and its reason, and cleared (SyncAppState's "Invalid operation request").
 * - `done(event)`: the loop's app-operation-done. True when it ends a requested operation: the caller then
 *   clears `operation` with the status write (StatusWriter `clearOperation`). The answered `operation` is
 *   remembered until the Application is seen without it, so a late event still carrying it is not run again.
 * - `terminating(key, obj)`: `status.operationState.phase: Terminating` (`argocd app terminate-op`) on the
 *   operation the loop runs for the app terminates it (src/controller/loop `terminateOperation`).
 * - `reset()`: a new loop runs (a reload): operations not finished are requested again when seen, as Argo
 *   CD resumes them after a restart.
 * `defaultOperation` is the loop's sync for the controller: src/sync `runOperation` with the request's flags.
 */
import { APPLICATION_RESOURCE, kubeTime, OperationRefusal, parseOperation } from '../../apps/index.js';
import type { Application } from '../../apps/index.js';
import { isNotFound } from '../../cluster/index.js';
import type { KubeClient, KubeObject } from '../../cluster/index.js';
import { GitopsError, oneLine } from '../../common/index.js';
import { runOperation } from '../../sync/index.js';
import type { SyncApp } from '../../sync/index.js';
import { syncRequestOf } from '../loop/index.js';
import type { LoopEvent, LoopOptions, OperationRequest, ReconcileLoop } from '../loop/index.js';

export interface RequestedOperationsOptions {
  client: KubeClient;
  argocdNamespace: string;
  loop: () => Pick<ReconcileLoop, 'requestOperation' | 'terminateOperation' | 'state'> | undefined;
  now: () => number;
  onWarning?: ((message: string) => void) | undefined;
}

export class RequestedOperations {
  readonly #o: RequestedOperationsOptions;
  /** Requests asked of the loop, by app key, until their operation ends. */
  readonly #requested = new Map<string, { request: OperationRequest; raw: string }>();
  /** The `operation` answered, until the Application is seen without it. */
  readonly #handled = new Map<string, string>();

  constructor(options: RequestedOperationsOptions) {
    this.#o = options;
  }

  seen(key: string, app: Application, obj: KubeObject): void {
    const op = obj['operation'];
    if (op === undefined || op === null) {
      this.#handled.delete(key);
      return;
    }
    const raw = JSON.stringify(op);
    if (this.#handled.get(key) === raw || this.#requested.get(key)?.raw === raw) return;
    let request: OperationRequest | undefined;
    try {
      request = parseOperation(app);
    } catch (err) {
      this.#handled.set(key, raw);
      this.#o.onWarning?.(oneLine(err));
      const why =
        err instanceof OperationRefusal
          ? err.reason
          : err instanceof GitopsError
            ? err.message.replace(/^[^:]*: /, '')
            : oneLine(err);
      void this.#refuse(key, obj, why);
      return;
    }
    if (!request) return;
    this.#requested.set(key, { request, raw });
    const loop = this.#o.loop();
    loop?.requestOperation(key, request);
    // Written Terminating before this controller ran it (a restart): Argo CD terminates it at once.
    if (operationStateOf(obj)?.phase === 'Terminating') loop?.terminateOperation(key);
  }

  /**
   * `argocd app terminate-op` (or a patch) set `status.operationState.phase: Terminating`: the operation
   * the loop runs for the app is terminated, when the state names it (same `startedAt`), so a stale event
   * never terminates a later operation. Automated syncs too (Argo CD writes them into `operation`).
   */
  terminating(key: string, obj: KubeObject): void {
    const state = operationStateOf(obj);
    if (state?.phase !== 'Terminating') return;
    const loop = this.#o.loop();
    const running = loop?.state(key)?.running;
    if (running && kubeTime(running.startedAt) === state.startedAt) loop?.terminateOperation(key);
  }

  /** The loop's app-operation-done: true when it ends an operation requested through the Application. */
  done(event: LoopEvent): boolean {
    if (event.type !== 'app-operation-done') return false;
    const mine = this.#requested.get(event.key);
    if (!mine || mine.request !== event.request) return false;
    this.#requested.delete(event.key);
    this.#handled.set(event.key, mine.raw);
    return true;
  }

  /** The app is gone (deleted) or no longer reconciled here (deleting). */
  forget(key: string, andHandled = false): void {
    this.#requested.delete(key);
    if (andHandled) this.#handled.delete(key);
  }

  reset(): void {
    this.#requested.clear();
  }

  /** Answers an operation that cannot run, and clears it (one patch). */
  async #refuse(key: string, obj: KubeObject, message: string): Promise<void> {
    const t = kubeTime(this.#o.now());
    const patch = {
      status: {
        operationState: { operation: obj['operation'], phase: 'Error', message, startedAt: t, finishedAt: t },
      },
      operation: null,
    };
    try {
      await this.#o.client.patch(
        APPLICATION_RESOURCE,
        obj.metadata?.namespace ?? this.#o.argocdNamespace,
        obj.metadata?.name ?? '',
        patch,
        'merge',
        { subject: `application ${key}` },
      );
    } catch (err) {
      if (!isNotFound(err)) this.#o.onWarning?.(`app ${key}: failed to write status: ${oneLine(err)}`);
    }
  }
}

function operationStateOf(obj: KubeObject): { phase?: unknown; startedAt?: unknown } | undefined {
  const status = obj['status'];
  if (!status || typeof status !== 'object') return undefined;
  const state = (status as Record<string, unknown>)['operationState'];
  return state && typeof state === 'object' ? (state as { phase?: unknown; startedAt?: unknown }) : undefined;
}

/** What a sync operation reads of the app (src/sync `SyncApp`): its name, sync options, managed namespace. */
export function syncAppOf(app: Application): SyncApp {
  return {
    name: app.name,
    syncOptions: app.syncPolicy.options,
    ...(app.syncPolicy.managedNamespaceMetadata
      ? { managedNamespaceMetadata: app.syncPolicy.managedNamespaceMetadata }
      : {}),
  };
}

/** A sync as the request says (src/sync `runOperation`), with the app's own sync options beneath. */
export const defaultOperation: LoopOptions['operation'] = (
  app,
  reconciliation,
  request,
  signal,
  terminate,
  onRunning,
) =>
  runOperation(syncAppOf(app), reconciliation, { ...syncRequestOf(request), terminate, onRunning }, signal);
