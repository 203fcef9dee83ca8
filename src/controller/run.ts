/**
 * `Run`: the one-shot refresh loop (Argo CD's application controller, in the foreground, spec §8).
 *
 * 1. Loads the kubeconfig once (a kubeconfig that fails to load rejects the run: it is the one error every
 *    app would share) and resolves each app's destination to a context (src/cluster); apps whose
 *    destination does not resolve get that error, the others go on.
 * 2. One `ClusterState` per context: one connection and one live cache shared by every app of that
 *    cluster, scoped to their destination namespaces, started by the first app that needs it.
 * 3. Every app key (`<namespace>/<name>`) goes into the refresh queue (src/queue); `statusProcessors`
 *    workers (default 4) take keys and run `StateManager.compare`. An app's failure is recorded on that app
 *    (never retried in a one-shot run, never hiding the others).
 * 4. The run ends when every app has a comparison or an error, or when `signal` aborts: apps not finished
 *    then carry an "interrupted" error and `interrupted` is true. Caches are stopped, connections closed.
 * The report lists apps in the order given, with the total API requests of the run.
 * Progress (`onEvent`, types.ts `RunEvent`): run-start, then per app render/compare (state.ts) and sync
 * events, per cluster the cache sync (cluster.ts), and app-done when an app is finished.
 */
import type { Application } from '../apps/index.js';
import {
  DEFAULT_STATUS_PROCESSORS,
  DEFAULT_TRACKING_METHOD,
  ExitCode,
  GitopsError,
  oneLine,
} from '../common/index.js';
import { connect as defaultConnect, loadKubeConfig, resolveDestination } from '../cluster/index.js';
import type { ClientOptions, ClusterConnection, ConnectOptions, DiscoveryOptions } from '../cluster/index.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { RateLimitingQueue, realClock } from '../queue/index.js';
import { ClusterState } from './cluster.js';
import { OWN_FIELD_MANAGERS, StateManager } from './state.js';
import type { StateManagerOptions } from './state.js';
import type { AppReport, ComparisonResult, Reconciliation, RunEvent, RunReport } from './types.js';
import type { OperationReport } from '../sync/index.js';
import type { RetryStrategy } from '../apps/index.js';
import { overrideIgnoreRules } from '../apps/index.js';
import { ResourceFilter } from './exclusions.js';
import { sleep } from '../cluster/index.js';

export interface RunOptions extends Omit<StateManagerOptions, 'clusterOf'> {
  apps: readonly Application[];
  /** `--kubeconfig` / `--context` (the context `https://kubernetes.default.svc` means). */
  kubeconfig?: string | undefined;
  context?: string | undefined;
  /** Refresh workers (`--status-processors`). Default 4. */
  statusProcessors?: number;
  discovery?: DiscoveryOptions;
  client?: ClientOptions;
  signal?: AbortSignal | undefined;
  /** Recovered problems (watch reconnects...). */
  onWarning?: (message: string) => void;
  /** Injected I/O (tests): how to connect and load kubeconfigs. */
  connect?: (options: ConnectOptions) => Promise<ClusterConnection>;
  loadKubeConfig?: (options: {
    kubeconfig?: string | undefined;
    context?: string | undefined;
  }) => Promise<KubeConfig>;
  now?: () => number;
  /**
   * The operation processor: when set, every app that compared cleanly gets an operation (a sync) with
   * the unmasked reconciliation, then is compared again for its final status (spec §8). A Failed
   * operation is retried per `retry` (attempt n waits duration * factor^n, capped), each attempt on a
   * fresh comparison.
   */
  operation?: (
    app: Application,
    reconciliation: Reconciliation,
    signal: AbortSignal,
  ) => Promise<OperationReport>;
  /** After a Succeeded sync, wait until each app's health is no longer Progressing (sync without --async). */
  waitForHealth?: boolean;
  /** Retries of failed operations; an app's own spec.syncPolicy.retry is used when this is unset. */
  retry?: RetryStrategy | undefined;
}

const appKey = (app: Application, argocdNamespace: string): string =>
  `${app.namespace ?? argocdNamespace}/${app.name}`;

function appError(app: Application, err: unknown): { message: string; exitCode: number; hint?: string } {
  const text = oneLine(err);
  const message = text.startsWith(`app "${app.name}"`) ? text : `app "${app.name}": ${text}`;
  const hint = err instanceof GitopsError ? err.hint : undefined;
  return {
    message,
    exitCode: err instanceof GitopsError ? err.exitCode : ExitCode.FAILURE,
    ...(hint ? { hint } : {}),
  };
}

function appDoneEvent(r: AppReport): RunEvent {
  if (r.error) return { type: 'app-done', app: r.app.name, error: r.error.message };
  const c = r.comparison;
  return { type: 'app-done', app: r.app.name, ...(c ? { sync: c.sync, health: c.health.status } : {}) };
}

export class Run {
  readonly #o: RunOptions;

  constructor(options: RunOptions) {
    this.#o = options;
  }

  async run(): Promise<RunReport> {
    const o = this.#o;
    const now = o.now ?? Date.now;
    const started = now();
    const argocdNamespace = o.argocdNamespace ?? 'argocd';
    const signal = o.signal;
    const reports: AppReport[] = o.apps.map((app) => ({
      app,
      destination: {
        ...(app.destination.server ? { server: app.destination.server } : {}),
        ...(app.destination.name ? { name: app.destination.name } : {}),
        namespace: app.destination.namespace,
      },
    }));

    // Destinations -> contexts -> one ClusterState each.
    const clusters = new Map<string, Promise<ClusterState>>();
    const contextOf = new Map<Application, string>();
    // A kubeconfig that does not load fails the whole run (every app would fail the same way).
    const kubeConfig = await (o.loadKubeConfig ?? loadKubeConfig)({
      kubeconfig: o.kubeconfig,
      context: o.context,
    });
    for (const r of reports) {
      try {
        const context = resolveDestination(kubeConfig, r.app.destination);
        contextOf.set(r.app, context);
        r.destination.context = context;
      } catch (err) {
        r.error = appError(r.app, err);
      }
    }
    const emit = o.onEvent;
    emit?.({
      type: 'run-start',
      apps: reports.map((r) => ({
        name: r.app.name,
        ...(r.destination.context ? { cluster: r.destination.context } : {}),
      })),
      clusters: [...new Set(contextOf.values())],
    });
    for (const r of reports)
      if (r.error) emit?.({ type: 'app-done', app: r.app.name, error: r.error.message });
    const managers = new Set([
      ...(o.fieldManagers ?? OWN_FIELD_MANAGERS),
      ...[
        ...o.apps.flatMap((a) => a.ignoreDifferences),
        ...(o.ignoreDifferences ?? []),
        ...(o.settings ? overrideIgnoreRules(o.settings) : []),
      ].flatMap((r) => r.managedFieldsManagers ?? []),
    ]);
    const resourceFilter = new ResourceFilter(o.settings);
    const clusterOf = (app: Application): Promise<ClusterState> => {
      const context = contextOf.get(app)!;
      let p = clusters.get(context);
      if (!p) {
        const namespaces = o.apps
          .filter((a) => contextOf.get(a) === context)
          .map((a) => a.destination.namespace);
        p = (o.connect ?? defaultConnect)({
          kubeConfig,
          destination: app.destination,
          ...(o.discovery ? { discovery: o.discovery } : {}),
          ...(o.client ? { client: o.client } : {}),
        }).then(
          (conn) =>
            new ClusterState({
              conn,
              namespaces,
              tracking: {
                method: o.trackingMethod ?? DEFAULT_TRACKING_METHOD,
                ...(o.instanceLabelKey ? { instanceLabelKey: o.instanceLabelKey } : {}),
                ...(o.settings?.installationId ? { installationId: o.settings.installationId } : {}),
              },
              managers,
              appliers: new Set(o.fieldManagers ?? OWN_FIELD_MANAGERS),
              resourceFilter,
              clusterURL: app.destination.server ?? conn.server,
              ...(o.onWarning ? { onWarning: o.onWarning } : {}),
              ...(emit ? { onEvent: emit } : {}),
            }),
        );
        clusters.set(context, p);
      }
      return p;
    };
    const manager = new StateManager({ ...o, clusterOf });

    // The refresh queue and its workers.
    const pending = reports.filter((r) => !r.error);
    const byKey = new Map(pending.map((r) => [appKey(r.app, argocdNamespace), r]));
    const queue = new RateLimitingQueue<string>({ name: 'refresh' });
    let remaining = byKey.size;
    for (const key of byKey.keys()) queue.add(key);
    if (remaining === 0) queue.shutDown();
    const worker = async (): Promise<void> => {
      for (;;) {
        let key: string;
        try {
          const got = await queue.get(signal);
          if (got.shutdown) return;
          key = got.key;
        } catch {
          return; // aborted
        }
        const report = byKey.get(key)!;
        try {
          if (o.operation) await this.#operate(report, manager, signal ?? new AbortController().signal);
          else report.comparison = await manager.compare(report.app, signal);
          queue.forget(key);
        } catch (err) {
          report.error = signal?.aborted
            ? {
                message: `app "${report.app.name}": failed to compare: interrupted`,
                exitCode: ExitCode.INTERRUPTED,
              }
            : appError(report.app, err);
        } finally {
          emit?.(appDoneEvent(report));
          queue.done(key);
          if (--remaining === 0) queue.shutDown();
        }
      }
    };
    const workers = Math.max(1, o.statusProcessors ?? DEFAULT_STATUS_PROCESSORS);
    await Promise.all(Array.from({ length: Math.min(workers, Math.max(1, byKey.size)) }, worker));
    queue.shutDown();

    let requests = 0;
    for (const p of clusters.values()) {
      const state = await p.catch(() => undefined);
      if (!state) continue;
      requests += state.conn.client.counts().total;
      await state.close();
    }
    for (const r of reports) {
      if (!r.comparison && !r.error) {
        r.error = {
          message: `app "${r.app.name}": failed to compare: interrupted`,
          exitCode: ExitCode.INTERRUPTED,
        };
      }
    }
    return { apps: reports, requests, interrupted: signal?.aborted ?? false, durationMs: now() - started };
  }

  /**
   * As `argocd app sync` without --async: after a Succeeded sync, compare again on every live-cache event
   * until the app's health is no longer Progressing (or the signal aborts: the last comparison stands).
   */
  async #waitForHealth(
    app: Application,
    manager: StateManager,
    reconciliation: Reconciliation,
    comparison: ComparisonResult,
    signal: AbortSignal,
  ): Promise<ComparisonResult> {
    let current = comparison;
    while (current.health.status === 'Progressing' && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          off();
          signal.removeEventListener('abort', done);
          resolve();
        };
        const off = reconciliation.cache.onEvent(done);
        signal.addEventListener('abort', done, { once: true });
      });
      if (signal.aborted) break;
      current = await manager.compare(app, signal);
    }
    return current;
  }

  /** Compare, sync, compare again; a Failed sync is retried on a fresh comparison while retries remain. */
  async #operate(report: AppReport, manager: StateManager, signal: AbortSignal): Promise<void> {
    const app = report.app;
    const retry = this.#o.retry ?? app.syncPolicy.retry;
    const limit = retry?.limit ?? 0;
    for (let attempt = 0; ; attempt++) {
      let reconciliation: Reconciliation | undefined;
      const before = await manager.compare(app, signal, (r) => (reconciliation = r));
      const operation = await this.#o.operation!(app, reconciliation!, signal);
      operation.retries = attempt;
      report.operation = operation;
      report.comparison = operation.dryRun || signal.aborted ? before : await manager.compare(app, signal);
      if (this.#o.waitForHealth && !operation.dryRun && operation.phase === 'Succeeded') {
        report.comparison = await this.#waitForHealth(
          app,
          manager,
          reconciliation!,
          report.comparison,
          signal,
        );
      }
      const again = operation.phase === 'Failed' && !signal.aborted && (limit < 0 || attempt < limit);
      if (!again || !retry) return;
      const { durationMs, factor, maxDurationMs } = retry.backoff;
      await sleep(realClock, Math.min(durationMs * factor ** attempt, maxDurationMs), signal);
    }
  }
}
