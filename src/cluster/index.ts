/**
 * Cluster access: kubeconfig and destinations, one counting client, discovery and the live state cache.
 * This is the door of `src/cluster/`; `@kubernetes/client-node` is only loaded (lazily) by `connect` /
 * `loadKubeConfig`, so importing this module is cheap.
 *
 * - `connect({ kubeconfig, context, destination })` → `ClusterConnection` { client, discovery, liveCache() }.
 *   Kubeconfig precedence: `--kubeconfig` > `KUBECONFIG` > `~/.kube/config`; `--context` overrides the current
 *   context; a destination (`server` or `name`; `https://kubernetes.default.svc` = current context) picks a
 *   context, or fails with "destination <x>: failed to resolve to a kubeconfig context: ...".
 * - `resolveCluster(kc, destination, clusterSecrets)`: a kubeconfig context first, else an Argo CD cluster
 *   Secret (`ClusterAccess`, cluster-secret.ts: token, basic auth, TLS, exec providers, proxy, and the
 *   Secret's namespaces/clusterResources scope); `connect({ access })` reaches it.
 * - `lookupDestination(destination, secrets, inClusterEnabled)`: Argo CD's destination -> cluster Secret
 *   lookup (cluster-lookup.ts), shared by destinations, shard ownership and fleet splitting.
 * - `KubeClient`: every request counted per verb and group/kind (`counts()`); writes take per-call
 *   `WriteOptions` (dryRun, fieldManager, force, fieldValidation); reads and 429s retried with backoff;
 *   failures are `ApiError` (code, reason).
 * - `Discovery`: served types, cached on disk per cluster (short TTL), refreshed once on a miss.
 * - `LiveStateCache`: list then watch per type (and namespace), resume on reconnect, relist on 410; indexed
 *   by key, owning app and owner uid; scope options, transform, `onEvent`, `waitFor`, `waitForSync`.
 * - `resourceTree(cache, roots)`: an app's managed objects and their descendants by ownerReferences.
 */
export { connect } from './connect.js';
export type { ConnectOptions, ClusterConnection } from './connect.js';
export {
  loadKubeConfig,
  forContext,
  resolveDestination,
  IN_CLUSTER_SERVER,
  IN_CLUSTER_NAME,
} from './kubeconfig.js';
export type { KubeConfigOptions, Destination } from './kubeconfig.js';
export { ClusterAccess, ClusterConfigError } from './cluster-secret.js';
export type { ClusterScope, ClusterSecretFields } from './cluster-secret.js';
export { ExecCredentialPlugin, EXEC_API_VERSIONS } from './exec-credential.js';
export type { ExecConfig } from './exec-credential.js';
export { resolveCluster } from './destination.js';
export { lookupDestination, serversByName } from './cluster-lookup.js';
export type { DestinationLookup, LookupSecret } from './cluster-lookup.js';
export type { ResolvedCluster } from './destination.js';
export { KubeClient, resourcePath } from './client.js';
export type {
  ClientOptions,
  CredentialPlugin,
  DeleteOptions,
  KubeRequestInfo,
  RequestCounts,
  WatchEvent,
  ListResult,
  PatchType,
  Verb,
  WriteOptions,
} from './client-types.js';
export { ApiError, isNotFound, isConflict, isGone, isRetryable } from './errors.js';
export { CredentialsError } from './credentials.js';
export type { StatusBody } from './errors.js';
export { Discovery, userCacheDir, defaultDiscoveryCacheDir, toResourceInfo } from './discovery.js';
export type { DiscoveryOptions, DiscoveredResource } from './discovery.js';
export { LiveStateCache } from './live-cache.js';
export type { LiveCacheStats } from './live-cache.js';
export type { KindChange } from './live-cache-kinds.js';
export type { ManagedTarget } from './live-cache-managed.js';
export type { LiveCacheOptions, ScopeOptions } from './live-cache-options.js';
export type { CacheEvent, CacheEventType, CacheEventHandler } from './live-cache-store.js';
export {
  owningApp,
  parseTrackingId,
  INSTANCE_LABEL,
  TRACKING_ID_ANNOTATION,
  INSTALLATION_ID_ANNOTATION,
} from './tracking.js';
export type { TrackingMethod, TrackingOptions, TrackingId } from './tracking.js';
export { resourceTree } from './resource-tree.js';
export type { TreeSource, TreeOptions } from './resource-tree.js';
export { defaultTransform, identityTransform, stripTransform, stubOf, isStub } from './transform.js';
export type { Transform, StripOptions } from './transform.js';
export { formatKey, keyOf, groupKind, apiVersionOf, parseApiVersion } from './types.js';
export type { KubeObject, ResourceKey, GroupVersionKind, ResourceInfo } from './types.js';
export { sleep } from './sleep.js';
