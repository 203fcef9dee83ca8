/**
 * Argo CD's metric names, help texts, label names (in Argo CD's order) and histogram buckets, as data. Each
 * entry cites where Argo CD defines it; the help texts are Argo CD's byte for byte, so `# HELP` lines and
 * dashboards built on them carry over. Sources: argo-cd `controller/metrics/metrics.go`,
 * `controller/metrics/clustercollector.go`, `util/metrics/kubectl/kubectl_metrics.go`,
 * `reposerver/metrics/metrics.go` (docs/metrics.md says what we fill).
 */

export interface MetricDef {
  name: string;
  help: string;
  labels: readonly string[];
  buckets?: readonly number[];
}

/** `descAppDefaultLabels` (metrics.go). */
const APP = ['namespace', 'name', 'project'] as const;

/** controller/metrics/metrics.go */
export const APP_INFO: MetricDef = {
  name: 'argocd_app_info',
  help: 'Information about application.',
  labels: [
    ...APP,
    'autosync_enabled',
    'repo',
    'dest_server',
    'dest_namespace',
    'sync_status',
    'health_status',
    'operation',
  ],
};

/** metrics.go: only with `--metrics-application-labels`; labels `label_<normalized name>` follow. */
export const APP_LABELS: MetricDef = {
  name: 'argocd_app_labels',
  help: 'Argo Application labels converted to Prometheus labels',
  labels: APP,
};

/** metrics.go: only with `--metrics-application-conditions`. */
export const APP_CONDITION: MetricDef = {
  name: 'argocd_app_condition',
  help: 'Report application conditions.',
  labels: [...APP, 'condition'],
};

export const APP_SYNC_TOTAL: MetricDef = {
  name: 'argocd_app_sync_total',
  help: 'Number of application syncs.',
  labels: [...APP, 'dest_server', 'phase', 'dry_run'],
};

export const APP_SYNC_DURATION: MetricDef = {
  name: 'argocd_app_sync_duration_seconds_total',
  help: 'Application sync performance in seconds total.',
  labels: [...APP, 'dest_server'],
};

export const APP_K8S_REQUEST_TOTAL: MetricDef = {
  name: 'argocd_app_k8s_request_total',
  help: 'Number of kubernetes requests executed during application reconciliation.',
  labels: [...APP, 'server', 'response_code', 'verb', 'resource_kind', 'resource_namespace', 'dry_run'],
};

export const KUBECTL_EXEC_TOTAL: MetricDef = {
  name: 'argocd_kubectl_exec_total',
  help: 'Number of kubectl executions',
  labels: ['hostname', 'command'],
};

export const KUBECTL_EXEC_PENDING: MetricDef = {
  name: 'argocd_kubectl_exec_pending',
  help: 'Number of pending kubectl executions',
  labels: ['hostname', 'command'],
};

export const APP_RECONCILE: MetricDef = {
  name: 'argocd_app_reconcile',
  help: 'Application reconciliation performance in seconds.',
  labels: ['namespace', 'dest_server'],
  // "Buckets chosen after observing a ~2100ms mean reconcile time"
  buckets: [0.25, 0.5, 1, 2, 4, 8, 16],
};

export const CLUSTER_EVENTS_TOTAL: MetricDef = {
  name: 'argocd_cluster_events_total',
  help: 'Number of processes k8s resource events.',
  labels: ['server', 'group', 'kind'],
};

/** controller/metrics/clustercollector.go */
export const CLUSTER_INFO: MetricDef = {
  name: 'argocd_cluster_info',
  help: 'Information about cluster.',
  labels: ['server', 'k8s_version', 'name'],
};

export const CLUSTER_API_RESOURCE_OBJECTS: MetricDef = {
  name: 'argocd_cluster_api_resource_objects',
  help: 'Number of k8s resource objects in the cache.',
  labels: ['server'],
};

export const CLUSTER_API_RESOURCES: MetricDef = {
  name: 'argocd_cluster_api_resources',
  help: 'Number of monitored kubernetes API resources.',
  labels: ['server'],
};

export const CLUSTER_CACHE_AGE: MetricDef = {
  name: 'argocd_cluster_cache_age_seconds',
  help: 'Cluster cache age in seconds.',
  labels: ['server'],
};

export const CLUSTER_CONNECTION_STATUS: MetricDef = {
  name: 'argocd_cluster_connection_status',
  help: 'The k8s cluster current connection status.',
  labels: ['server', 'k8s_version'],
};

/** util/metrics/kubectl/kubectl_metrics.go (client-go's rest_client_requests_total, renamed). */
export const KUBECTL_REQUESTS_TOTAL: MetricDef = {
  name: 'argocd_kubectl_requests_total',
  help: 'Number of kubectl request results',
  labels: ['host', 'method', 'code'],
};

/** reposerver/metrics/metrics.go (the repo-server's; ours runs in-process). */
export const GIT_REQUEST_TOTAL: MetricDef = {
  name: 'argocd_git_request_total',
  help: 'Number of git requests performed by repo server',
  labels: ['repo', 'request_type'],
};

export const GIT_REQUEST_DURATION: MetricDef = {
  name: 'argocd_git_request_duration_seconds',
  help: 'Git requests duration seconds.',
  labels: ['repo', 'request_type'],
  buckets: [0.1, 0.25, 0.5, 1, 2, 4, 10, 20],
};

/** Argo CD's `NormalizeLabels` (util/metrics/metrics.go): `<prefix>_<name with [^a-zA-Z0-9_] as _>`. */
export function normalizeLabel(prefix: string, label: string): string {
  return `${prefix}_${label.replace(/[^a-zA-Z0-9_]/g, '_')}`;
}

/** client-go's verbs as Argo CD's `kubeclientmetrics` names them (`resolveK8sRequestVerb`). */
export const K8S_VERB: Readonly<Record<string, string>> = {
  get: 'Get',
  list: 'List',
  watch: 'Watch',
  create: 'Create',
  update: 'Update',
  patch: 'Patch',
  delete: 'Delete',
  // GET /api, /apis/<group>/<version>: Argo CD's path parser calls these Get.
  discovery: 'Get',
};
