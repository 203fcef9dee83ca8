/**
 * `Metrics`: Argo CD's application-controller metrics in a prom-client registry of its own (never the global
 * one), fed three ways and read at scrape time:
 * - `onEvent(LoopEvent)`: `refreshed` observes `argocd_app_reconcile`; the loop's `app-operation-done` (one
 *   per operation, retries included; the sync engine's own `operation-done` of each attempt is not counted)
 *   counts `argocd_app_sync_total` when the phase is completed (Succeeded, Failed, Error: Argo CD's
 *   `IncSync`) and adds `argocd_app_sync_duration_seconds_total`; `cache-sync-start`/`cache-sync-done` keep the cluster
 *   gauges (unless a `clusters` source is given).
 * - `onRequest(KubeRequestInfo)` (pass it as `ClientOptions.onRequest`): `argocd_kubectl_requests_total`
 *   for every request, `argocd_app_k8s_request_total` with the app labels of the operation it runs under
 *   (`attribute`), or empty app labels (Argo CD's nil app) outside one unless `k8sRequests: 'attributed'`.
 * - `instrumentExec(exec)`: `argocd_kubectl_exec_total`/`_pending` for `kubectl` child processes and
 *   `argocd_git_request_total`/`_duration_seconds` for `git ls-remote` and `git fetch`.
 * At scrape time `argocd_app_info` (and `argocd_app_labels`, `argocd_app_condition` when asked for) are
 * built from `loop.states()`, the cluster gauges from the cluster table. Node's process metrics (prom-client
 * default metrics) share the registry.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { hostname as osHostname } from 'node:os';
import { basename } from 'node:path';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Application } from '../apps/index.js';
import type { KubeRequestInfo } from '../cluster/index.js';
import type { AppLoopState, AutoSyncMode, LoopEvent, ReconcileLoop } from '../controller/index.js';
import { redactURL } from '../source/index.js';
import type { Exec } from '../source/index.js';
import { appInfoLabels, appLabels, cacheAgeSeconds, conditionTypes } from './collectors.js';
import type { AppLabels, ClusterInfo } from './collectors.js';
import * as N from './names.js';
import type { MetricDef } from './names.js';

export interface MetricsOptions {
  /**
   * The loop whose apps `argocd_app_info` lists; read only at event and scrape time, so it may be an
   * object whose loop is attached after the `Metrics` was built.
   */
  loop: Pick<ReconcileLoop, 'states' | 'state'>;
  /** The namespace of apps whose key has none (default "argocd"). */
  argocdNamespace?: string;
  /** The loop's auto-sync mode (`autosync_enabled`): `all` = true, `none` = false; default `policy`. */
  autoSync?: AutoSyncMode;
  /**
   * The app's destination server URL (`dest_server`); default `spec.destination.server`, else "" (a
   * destination given by `name` needs the cluster Secrets the command has).
   */
  destServer?: (app: Application) => string | undefined;
  /** Argo CD's `--metrics-application-labels`: app labels exposed as `argocd_app_labels{label_<name>}`. */
  appLabels?: readonly string[];
  /** Argo CD's `--metrics-application-conditions`: condition types counted in `argocd_app_condition`. */
  appConditions?: readonly string[];
  /** The clusters at scrape time; default: what the loop's cache-sync events said. */
  clusters?: () => readonly ClusterInfo[];
  /**
   * `all` (default): requests outside an attributed operation count with empty app labels; `attributed`:
   * only requests of an operation count, as in Argo CD (which meters only sync and deletion traffic).
   */
  k8sRequests?: 'all' | 'attributed';
  /** The `hostname` label of `argocd_kubectl_exec_*` (default os.hostname()). */
  hostname?: string;
  /** Node process metrics (prom-client `collectDefaultMetrics`) in the registry; default true. */
  processMetrics?: boolean;
  /** Epoch milliseconds (tests); default Date.now. */
  now?: () => number;
}

/** The app an API request belongs to (set by `attribute` around an operation). */
interface Attribution extends AppLabels {
  dryRun: boolean;
}

const COMPLETED = new Set(['Succeeded', 'Failed', 'Error']);

export class Metrics {
  readonly registry = new Registry();
  readonly #o: Required<Omit<MetricsOptions, 'clusters' | 'destServer'>> & Pick<MetricsOptions, 'clusters'>;
  readonly #destServer: (app: Application) => string;
  readonly #attribution = new AsyncLocalStorage<Attribution>();
  /** Clusters seen in cache-sync events, by kube context; `serverOf` maps contexts to URLs from requests. */
  readonly #clusters = new Map<string, ClusterInfo>();
  readonly #serverOf = new Map<string, string>();
  readonly #syncTotal: Counter;
  readonly #syncDuration: Counter;
  readonly #k8sRequests: Counter;
  readonly #kubectlRequests: Counter;
  readonly #execTotal: Counter;
  readonly #execPending: Gauge;
  readonly #reconcile: Histogram;
  readonly #clusterEvents: Counter;
  readonly #gitRequests: Counter;
  readonly #gitDuration: Histogram;

  constructor(options: MetricsOptions) {
    this.#o = {
      loop: options.loop,
      argocdNamespace: options.argocdNamespace ?? 'argocd',
      autoSync: options.autoSync ?? { mode: 'policy' },
      appLabels: options.appLabels ?? [],
      appConditions: options.appConditions ?? [],
      k8sRequests: options.k8sRequests ?? 'all',
      hostname: options.hostname ?? osHostname(),
      processMetrics: options.processMetrics ?? true,
      now: options.now ?? Date.now,
      ...(options.clusters ? { clusters: options.clusters } : {}),
    };
    const dest = options.destServer;
    this.#destServer = (app) => dest?.(app) ?? app.destination.server ?? '';
    const registers = [this.registry];
    const counter = (d: MetricDef) =>
      new Counter({ name: d.name, help: d.help, labelNames: d.labels, registers });
    const histogram = (d: MetricDef) =>
      new Histogram({
        name: d.name,
        help: d.help,
        labelNames: d.labels,
        buckets: [...(d.buckets ?? [])],
        registers,
      });
    const gauge = (d: MetricDef, collect?: (g: Gauge) => void, extra: readonly string[] = []) =>
      new Gauge({
        name: d.name,
        help: d.help,
        labelNames: [...d.labels, ...extra],
        registers,
        ...(collect
          ? {
              collect(this: Gauge) {
                this.reset();
                collect(this);
              },
            }
          : {}),
      });

    gauge(N.APP_INFO, (g) => this.#collectAppInfo(g));
    const labelNames = this.#o.appLabels.map((l) => N.normalizeLabel('label', l));
    if (labelNames.length) gauge(N.APP_LABELS, (g) => this.#collectAppLabels(g, labelNames), labelNames);
    if (this.#o.appConditions.length) gauge(N.APP_CONDITION, (g) => this.#collectConditions(g));
    this.#syncTotal = counter(N.APP_SYNC_TOTAL);
    this.#syncDuration = counter(N.APP_SYNC_DURATION);
    this.#k8sRequests = counter(N.APP_K8S_REQUEST_TOTAL);
    this.#execTotal = counter(N.KUBECTL_EXEC_TOTAL);
    this.#execPending = gauge(N.KUBECTL_EXEC_PENDING);
    this.#reconcile = histogram(N.APP_RECONCILE);
    this.#clusterEvents = counter(N.CLUSTER_EVENTS_TOTAL);
    const clusterGauge = (
      d: MetricDef,
      value: (c: ClusterInfo, now: number) => [Record<string, string>, number],
    ) =>
      gauge(d, (g) => {
        const now = this.#o.now();
        for (const c of this.#clusterList()) g.set(...value(c, now));
      });
    clusterGauge(N.CLUSTER_INFO, (c) => [
      { server: c.server, k8s_version: c.k8sVersion ?? '', name: c.name },
      1,
    ]);
    clusterGauge(N.CLUSTER_API_RESOURCE_OBJECTS, (c) => [{ server: c.server }, c.objects]);
    clusterGauge(N.CLUSTER_API_RESOURCES, (c) => [{ server: c.server }, c.apis]);
    clusterGauge(N.CLUSTER_CACHE_AGE, (c, now) => [{ server: c.server }, cacheAgeSeconds(c, now)]);
    clusterGauge(N.CLUSTER_CONNECTION_STATUS, (c) => [
      { server: c.server, k8s_version: c.k8sVersion ?? '' },
      c.syncError === undefined ? 1 : 0,
    ]);
    this.#kubectlRequests = counter(N.KUBECTL_REQUESTS_TOTAL);
    this.#gitRequests = counter(N.GIT_REQUEST_TOTAL);
    this.#gitDuration = histogram(N.GIT_REQUEST_DURATION);
    if (this.#o.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** The exposition text (Prometheus text format 0.0.4) and its content type. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The loop's (or a one-shot run's) event observer; bound, so it can be passed as is. */
  readonly onEvent = (event: LoopEvent): void => {
    switch (event.type) {
      case 'refreshed': {
        const { namespace } = this.#labelsOf(event.key);
        const app = this.#o.loop.state(event.key)?.app;
        this.#reconcile.observe(
          { namespace, dest_server: app ? this.#destServer(app) : '' },
          event.durationMs / 1000,
        );
        break;
      }
      case 'app-operation-done': {
        const state = this.#o.loop.state(event.key);
        const labels = {
          ...this.#labelsOf(event.key),
          dest_server: state ? this.#destServer(state.app) : '',
        };
        if (COMPLETED.has(event.phase))
          this.#syncTotal.inc({ ...labels, phase: event.phase, dry_run: String(event.request.dryRun) });
        // Argo CD adds whole seconds (FinishedAt - StartedAt, both truncated); we add the measured duration.
        this.#syncDuration.inc(labels, event.durationMs / 1000);
        break;
      }
      case 'cache-sync-start': {
        const c = this.#cluster(event.cluster);
        c.apis = event.kinds;
        break;
      }
      case 'cache-sync-done': {
        const c = this.#cluster(event.cluster);
        c.apis = event.kinds;
        c.objects = event.objects;
        if (event.error === undefined) {
          c.lastSyncAt = this.#o.now();
          delete c.syncError;
        } else c.syncError = event.error;
        break;
      }
      default:
        break;
    }
  };

  /** `ClientOptions.onRequest`: counts one API request attempt; bound. */
  readonly onRequest = (info: KubeRequestInfo): void => {
    const url = safeURL(info.server);
    if (info.context) this.#serverOf.set(info.context, info.server);
    this.#kubectlRequests.inc({
      host: url?.host ?? info.server,
      method: info.method,
      code: info.code ? String(info.code) : '<error>',
    });
    const app = this.#attribution.getStore();
    if (!app && this.#o.k8sRequests === 'attributed') return;
    this.#k8sRequests.inc({
      namespace: app?.namespace ?? '',
      name: app?.name ?? '',
      project: app?.project ?? '',
      // kubeclientmetrics: `scheme://host` of the request URL.
      server: url ? `${url.protocol}//${url.host}` : info.server,
      response_code: String(info.code),
      verb: N.K8S_VERB[info.verb] ?? 'Unknown',
      resource_kind: info.resource,
      resource_namespace: info.namespace,
      // Argo CD: the app's operation is a dry run (not the request's dryRun=All).
      dry_run: String(app?.dryRun ?? false),
    });
  };

  /**
   * Runs `fn` (an app's operation) so that the API requests it makes count under the app's labels in
   * `argocd_app_k8s_request_total` (AsyncLocalStorage: the attribution follows `fn`'s async work).
   */
  attribute<R>(app: Application, dryRun: boolean, fn: () => Promise<R>): Promise<R> {
    const key = `${app.namespace ?? this.#o.argocdNamespace}/${app.name}`;
    return this.#attribution.run({ ...appLabels(key, app, this.#o.argocdNamespace), dryRun }, fn);
  }

  /** A watch event of a cluster's live cache (`argocd_cluster_events_total`). */
  clusterEvent(server: string, group: string, kind: string): void {
    this.#clusterEvents.inc({ server, group, kind });
  }

  /** `exec` counted: kubectl processes by subcommand, git ls-remote/fetch by repository. */
  instrumentExec(exec: Exec): Exec {
    return async (command, args, options) => {
      const tool = basename(command).replace(/\.exe$/i, '');
      if (tool === 'kubectl') {
        const labels = { hostname: this.#o.hostname, command: args.find((a) => !a.startsWith('-')) ?? '' };
        this.#execTotal.inc(labels);
        this.#execPending.inc(labels);
        try {
          return await exec(command, args, options);
        } finally {
          this.#execPending.dec(labels);
        }
      }
      const git = tool === 'git' ? gitRequest(args) : undefined;
      if (!git) return exec(command, args, options);
      this.#gitRequests.inc(git);
      const started = this.#o.now();
      try {
        return await exec(command, args, options);
      } finally {
        this.#gitDuration.observe(git, (this.#o.now() - started) / 1000);
      }
    };
  }

  #labelsOf(key: string): AppLabels {
    return appLabels(key, this.#o.loop.state(key)?.app, this.#o.argocdNamespace);
  }

  #states(): AppLoopState[] {
    return this.#o.loop.states();
  }

  #collectAppInfo(g: Gauge): void {
    const options = { autoSync: this.#o.autoSync, destServer: this.#destServer };
    for (const s of this.#states())
      g.set({ ...appLabels(s.key, s.app, this.#o.argocdNamespace), ...appInfoLabels(s, options) }, 1);
  }

  #collectAppLabels(g: Gauge, names: string[]): void {
    for (const s of this.#states()) {
      const labels: Record<string, string> = { ...appLabels(s.key, s.app, this.#o.argocdNamespace) };
      this.#o.appLabels.forEach((l, i) => (labels[names[i]!] = s.app.labels[l] ?? ''));
      g.set(labels, 1);
    }
  }

  #collectConditions(g: Gauge): void {
    const wanted = new Set(this.#o.appConditions);
    for (const s of this.#states()) {
      const counts = new Map<string, number>();
      for (const t of conditionTypes(s)) if (wanted.has(t)) counts.set(t, (counts.get(t) ?? 0) + 1);
      const base = appLabels(s.key, s.app, this.#o.argocdNamespace);
      for (const [condition, n] of counts) g.set({ ...base, condition }, n);
    }
  }

  #cluster(context: string): ClusterInfo {
    let c = this.#clusters.get(context);
    if (!c) this.#clusters.set(context, (c = { server: '', name: context, objects: 0, apis: 0 }));
    return c;
  }

  #clusterList(): readonly ClusterInfo[] {
    if (this.#o.clusters) return this.#o.clusters();
    return [...this.#clusters.values()].map((c) => {
      const server = this.#serverOf.get(c.name);
      if (!server) return { ...c, server: c.name };
      // A cluster from an Argo CD Secret is the context "<name> (<server>)": the label is the Secret's name.
      const suffix = ` (${server})`;
      return { ...c, server, name: c.name.endsWith(suffix) ? c.name.slice(0, -suffix.length) : c.name };
    });
  }
}

function safeURL(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** `git ls-remote -- <url>` / `git ... fetch ... -- <url> ...` (src/source/git.ts): the request and its repo. */
function gitRequest(args: readonly string[]): { repo: string; request_type: string } | undefined {
  const sep = args.indexOf('--');
  const repo = sep >= 0 ? args[sep + 1] : undefined;
  if (repo === undefined) return undefined;
  const head = args.slice(0, sep);
  const type = head.includes('ls-remote') ? 'ls-remote' : head.includes('fetch') ? 'fetch' : undefined;
  return type ? { repo: redactURL(repo), request_type: type } : undefined;
}
