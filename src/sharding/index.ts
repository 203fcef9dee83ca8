/**
 * Sharding: which application-controller shard manages each cluster, bit for bit as Argo CD computes it
 * (docs/sharding.md), and reports over that.
 *
 * Door: `buildShardsReport(request)` reads the inputs (files, or the live Argo CD namespace through the
 * Kubernetes client, loaded only then) and returns a plain `ShardsReport` for a printer. The algorithm
 * itself is `distribute(clusters, replicas, algorithm)`.
 *
 * For `kubectl gitops controller` (docs/sharding.md, "Dynamic cluster distribution"):
 * - `new ShardClaimer({ client, namespace, controllerName?, requestedShard?, replicas, heartbeatSeconds?,
 *   forceTakeover?, onShardChange?, clock?, now? })` (dynamic mode): `await start()` refuses to start when
 *   another controller does the work (UsageError, exit 2), claims a shard in argocd-app-controller-shard-cm
 *   and heartbeats every period; `state().shard` is the shard to run as (-1: none); `onShardChange` fires
 *   when the shard or the replica count changes (re-queue every app); `readiness()` for `/readyz` (runs
 *   the procedure, as Argo CD's probe does, and throws when it failed); `stop()` on shutdown.
 *   `parseReplicasFrom('deployment/NAME')` parses `--replicas-from`.
 * - `checkStart({ client, namespace, controllerName, mode: { dynamic: false, shard }, ... })` (static mode
 *   `--shard I --replicas N`): the same refusal without claiming; skip it for `--force-takeover`.
 * - `shardOwnership({ shard, replicas, algorithm, clusterSecrets, applications, inClusterEnabled })` ->
 *   `ownsApp(app)`, `ownsServer(server)`, `ownedServers`: recompute it when the shard, the replica count, a
 *   cluster Secret or the set of Applications changes (Argo CD recomputes on cluster and app add/remove).
 */
import { argoCdStringField } from '../apps/index.js';
import { readKubeDocuments, type SourcedObject } from '../util/yaml-docs.js';
import { countApplications } from './app-counts.js';
import { clustersFromSecrets, requireClusterDocuments, type IdFrom } from './cluster-secrets.js';
import { computeDistribution, type Distribution } from './report.js';
import type { InstalledController } from './live.js';
import type { ShardClaims } from './shard-claims.js';
import type { Algorithm } from './types.js';

export { distribute, parseAlgorithm } from './distribute.js';
export { assignAppShards, appsOnShard } from './app-shards.js';
export type { AppShardRequest, AppShardAssignment, ShardableApp } from './app-shards.js';
export { computeDistribution, summarize } from './report.js';
export type {
  Distribution,
  ClusterRow,
  AlgorithmSummary,
  ShardTotals,
  MoveSummary,
  ClusterMove,
} from './report.js';
export { ALGORITHMS, DEFAULT_ALGORITHM, IN_CLUSTER_SERVER } from './types.js';
export type { Algorithm, ShardCluster } from './types.js';
export type { IdFrom } from './cluster-secrets.js';
export { clustersFromSecrets } from './cluster-secrets.js';
export { readClusterSecrets, readAppSetClusters, appSetClustersFromSecrets } from './cluster-source.js';
export type { ClusterSecretSource, AppSetClusterEntry } from './cluster-source.js';
export type { InstalledController } from './live.js';
export type { ShardClaims, ShardClaim, ShardMappingEntry } from './shard-claims.js';
export {
  SHARD_CONFIGMAP,
  SHARD_MAPPING_KEY,
  heartbeatPeriod,
  decodeShardMapping,
  encodeShardMapping,
} from './shard-claims.js';
export { claimShard, initialShardMapping, defaultShardMapping } from './claim-procedure.js';
export type { ClaimResult, ClaimHow } from './claim-procedure.js';
export { ShardClaimer, parseReplicasFrom, STARTUP_CLAIM_RUNS } from './shard-claimer.js';
export type { ShardClaimerOptions, ClaimState, ShardChange, ReplicasSource } from './shard-claimer.js';
export { checkStart, CONTROLLER_NAME_LABEL } from './start-guard.js';
export type { StartGuardOptions } from './start-guard.js';
export { shardOwnership } from './ownership.js';
export type { OwnershipRequest, ShardOwnership } from './ownership.js';
export { CONTROLLER_NAME } from './live.js';

export interface ShardsRequest {
  replicas: number;
  fromReplicas?: number | undefined;
  algorithms?: readonly Algorithm[] | undefined;
  /** Cluster Secret files; none means live mode. */
  clustersFiles: readonly string[];
  appsFiles: readonly string[];
  idFrom: IdFrom;
  /** False for --no-in-cluster; otherwise files mode adds in-cluster and live mode follows argocd-cm. */
  inCluster: boolean;
  live?: {
    kubeconfig?: string | undefined;
    context?: string | undefined;
    namespace: string;
    requestTimeoutMs?: number | undefined;
  };
  now?: Date;
  /** Aborts live reads (Ctrl-C). */
  signal?: AbortSignal;
}

export interface ShardsReport extends Distribution {
  /** Where cluster IDs come from: "uid" (exact), or the --id-from field for Secrets without a UID. */
  idFrom: IdFrom;
  /** Clusters whose ID is not their Secret's UID (their shards may differ from Argo CD's). */
  substitutedIds: number;
  source:
    | { mode: 'files'; clustersFiles: string[]; appsFiles: string[] }
    | { mode: 'live'; context: string; namespace: string };
  applications: { total: number; withoutServer: number; source: 'files' | 'live' | 'none' };
  installed?: InstalledController;
  claims?: ShardClaims;
  warnings: string[];
}

async function readAll(files: readonly string[]): Promise<SourcedObject[]> {
  return (await readAllDocuments(files)).objects;
}

async function readAllDocuments(
  files: readonly string[],
): Promise<{ objects: SourcedObject[]; documents: number }> {
  const objects: SourcedObject[] = [];
  let documents = 0;
  // Application string fields as written (a destination `name: 010` is "010"), as everywhere apps are read.
  for (const f of files) {
    const read = await readKubeDocuments(f, argoCdStringField);
    objects.push(...read.objects);
    documents += read.documents;
  }
  return { objects, documents };
}

export async function buildShardsReport(req: ShardsRequest): Promise<ShardsReport> {
  const warnings: string[] = [];
  let secrets: SourcedObject[];
  let applications: SourcedObject[];
  let appsSource: ShardsReport['applications']['source'];
  let inClusterEnabled = req.inCluster;
  let source: ShardsReport['source'];
  let installed: InstalledController | undefined;
  let claims: ShardClaims | undefined;
  if (req.clustersFiles.length > 0) {
    const read = await readAllDocuments(req.clustersFiles);
    requireClusterDocuments(read.documents, req.clustersFiles);
    secrets = read.objects;
    applications = await readAll(req.appsFiles);
    appsSource = req.appsFiles.length > 0 ? 'files' : 'none';
    source = { mode: 'files', clustersFiles: [...req.clustersFiles], appsFiles: [...req.appsFiles] };
  } else {
    const live = req.live ?? { namespace: 'argocd' };
    const [{ createKubeReader }, { readLiveInputs }] = await Promise.all([
      import('./live-reader.js'),
      import('./live.js'),
    ]);
    const reader = await createKubeReader({ ...live, signal: req.signal });
    const inputs = await readLiveInputs(reader, live.namespace, req.now ?? new Date()).finally(() =>
      reader.close?.(),
    );
    secrets = inputs.secrets;
    applications = req.appsFiles.length > 0 ? await readAll(req.appsFiles) : inputs.applications;
    appsSource = req.appsFiles.length > 0 ? 'files' : 'live';
    inClusterEnabled = req.inCluster && inputs.inClusterEnabled;
    source = { mode: 'live', context: reader.contextName, namespace: live.namespace };
    installed = inputs.installed;
    claims = inputs.claims;
    warnings.push(...inputs.warnings);
  }
  const list = clustersFromSecrets(secrets, { idFrom: req.idFrom, inClusterEnabled });
  warnings.push(...list.warnings);
  const counts = countApplications(applications);
  warnings.push(...counts.warnings);
  for (const c of list.clusters) c.apps = counts.byServer.get(c.server) ?? 0;
  const distribution = computeDistribution(list.clusters, {
    replicas: req.replicas,
    algorithms: req.algorithms,
    fromReplicas: req.fromReplicas,
  });
  const report: ShardsReport = {
    ...distribution,
    idFrom: req.idFrom,
    substitutedIds: list.clusters.filter((c) => c.idSubstituted).length,
    source,
    applications: { total: counts.total, withoutServer: counts.withoutServer, source: appsSource },
    warnings,
  };
  if (installed) report.installed = installed;
  if (claims) report.claims = claims;
  return report;
}
