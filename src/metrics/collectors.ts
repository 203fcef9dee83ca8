/**
 * What the scrape-time gauges read: one app's labels of `argocd_app_info` from its `AppLoopState` (Argo CD's
 * `appCollector.collectApps`), its conditions and labels, and the per-cluster values of Argo CD's
 * `clusterCollector` (from the loop's cache-sync events, or from a `ClusterInfo` source the command gives).
 * Pure functions of their inputs; the `Metrics` class owns the prom-client objects.
 */
import { normalizeGitURL } from '../apps/index.js';
import type { Application } from '../apps/index.js';
import type { AppLoopState, AutoSyncMode } from '../controller/index.js';

/** One cluster as Argo CD's `cache.ClusterInfo` describes it (clustercollector.go). */
export interface ClusterInfo {
  /** API server URL (`argocd_cluster_*{server}`). */
  server: string;
  /** The cluster's name (Argo CD: the cluster Secret's `name`; ours: the kube context). */
  name: string;
  /** The server's version (`v1.31.0`); "" when unknown. */
  k8sVersion?: string;
  /** Objects in the live cache. */
  objects: number;
  /** Resource types the live cache watches. */
  apis: number;
  /** When the cache last finished listing (epoch ms); unset: never (`cache_age_seconds` -1, as Argo CD). */
  lastSyncAt?: number;
  /** The last sync's error: `connection_status` 0. */
  syncError?: string;
}

/** The app's labels Argo CD puts first on every app metric (`descAppDefaultLabels`). */
export interface AppLabels {
  namespace: string;
  name: string;
  project: string;
}

/** `<namespace>/<name>` keys (the loop's) split; a key without "/" is a name in `fallbackNamespace`. */
export function appLabels(key: string, app: Application | undefined, fallbackNamespace: string): AppLabels {
  const slash = key.indexOf('/');
  const namespace = slash >= 0 ? key.slice(0, slash) : (app?.namespace ?? fallbackNamespace);
  const name = app?.name ?? (slash >= 0 ? key.slice(slash + 1) : key);
  // Argo CD's Spec.GetProject(): "default" when unset.
  return { namespace, name, project: app ? app.project || 'default' : '' };
}

export interface AppInfoOptions {
  autoSync: AutoSyncMode;
  destServer: (app: Application) => string;
}

/** The labels of `argocd_app_info` after the three app labels, in Argo CD's order. */
export function appInfoLabels(state: AppLoopState, options: AppInfoOptions): Record<string, string> {
  const app = state.app;
  const autoSync =
    options.autoSync.mode === 'all'
      ? true
      : options.autoSync.mode === 'none'
        ? false
        : !!app.syncPolicy.automated;
  // Argo CD's Spec.GetSource(): the first of `sources` for multi-source apps.
  const source = app.sources[0];
  const deleting = Boolean(
    (app.manifest.metadata as { deletionTimestamp?: string } | undefined)?.deletionTimestamp,
  );
  return {
    autosync_enabled: String(autoSync),
    repo: source ? normalizeGitURL(source.repoURL) : '',
    dest_server: options.destServer(app),
    dest_namespace: app.destination.namespace,
    // A failed refresh leaves the app's sync Unknown, as Argo CD's ComparisonError does; its health is the
    // last one known.
    sync_status: (!state.error && state.comparison?.sync) || 'Unknown',
    health_status: state.comparison?.health.status || 'Unknown',
    operation: deleting ? 'delete' : state.running ? 'sync' : '',
  };
}

/** Condition types of the app now: the last comparison's, or ComparisonError when the last refresh failed. */
export function conditionTypes(state: AppLoopState): string[] {
  if (state.error) return ['ComparisonError'];
  return (state.comparison?.conditions ?? []).map((c) => c.type);
}

/** Seconds since the cache last synced, truncated; -1 when it never did (clustercollector.go). */
export function cacheAgeSeconds(info: ClusterInfo, now: number): number {
  return info.lastSyncAt === undefined ? -1 : Math.trunc((now - info.lastSyncAt) / 1000);
}
