/**
 * Live inputs for `shards`: cluster Secrets, Applications and the installed controller's configuration,
 * read from the Argo CD namespace through an `ArgoNamespaceReader` (the Kubernetes client lives behind it,
 * so this file stays testable and cheap to load).
 *
 * Installed configuration, as the controller resolves it (spec 2):
 * - Workload: Deployment `<controller name>` when dynamic distribution is on, else the StatefulSet.
 *   The name is ARGOCD_APPLICATION_CONTROLLER_NAME (default argocd-application-controller).
 * - Algorithm: the container's ARGOCD_CONTROLLER_SHARDING_ALGORITHM (a literal value or a configMapKeyRef,
 *   which the stock manifests point at argocd-cmd-params-cm `controller.sharding.algorithm`); with no
 *   workload found, `controller.sharding.algorithm` itself, as `argocd admin cluster shards` reads it.
 * - Replicas: StatefulSet mode ARGOCD_CONTROLLER_REPLICAS (unset or unparsable = 0); dynamic mode the
 *   Deployment's spec.replicas.
 * - in-cluster: argocd-cm `cluster.inClusterEnabled` (on unless exactly "false").
 *
 * A namespace holding none of Argo CD's objects (no argocd-cm, no argocd-cmd-params-cm, no controller
 * workload, no cluster Secret, no Application), or one that does not exist, is an error naming what was not
 * found: a table of the in-cluster entry alone would read as a real answer.
 */
import { inClusterEnabled } from '../apps/index.js';
import { GitopsError } from '../common/index.js';
import type { KubeObject, SourcedObject } from '../util/yaml-docs.js';
import {
  heartbeatPeriod,
  parseShardClaims,
  SHARD_CONFIGMAP,
  SHARD_MAPPING_KEY,
  type ShardClaims,
} from './shard-claims.js';

export const CONTROLLER_NAME = 'argocd-application-controller';
export const CLUSTER_SECRET_SELECTOR = 'argocd.argoproj.io/secret-type=cluster';

export interface ArgoNamespaceReader {
  /** The kube context the reader talks to (named in errors). */
  readonly contextName: string;
  listSecrets(namespace: string, labelSelector: string): Promise<KubeObject[]>;
  /** Applications in the namespace; [] when the Application CRD is not installed. */
  listApplications(namespace: string): Promise<KubeObject[]>;
  getConfigMap(namespace: string, name: string): Promise<KubeObject | undefined>;
  getWorkload(
    namespace: string,
    kind: 'StatefulSet' | 'Deployment',
    name: string,
  ): Promise<KubeObject | undefined>;
  /** False when the namespace does not exist (404); true otherwise (also when namespaces cannot be read). */
  namespaceExists?(namespace: string): Promise<boolean>;
  /** Closes the reader's connections (its keep-alive sockets); the reader is not used afterwards. */
  close?(): void;
}

export interface InstalledController {
  /** "StatefulSet/argocd-application-controller", or null when no controller workload was found. */
  workload: string | null;
  /** The algorithm string as configured (may be unknown: Argo CD then uses legacy); null when unset. */
  algorithm: string | null;
  replicas: number | null;
  dynamic: boolean;
}

export interface LiveInputs {
  secrets: SourcedObject[];
  applications: SourcedObject[];
  inClusterEnabled: boolean;
  installed: InstalledController;
  /** Present when the shard-claim ConfigMap exists (dynamic cluster distribution). */
  claims?: ShardClaims;
  warnings: string[];
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { configMapKeyRef?: { name?: string; key?: string } };
}

type ConfigMapGetter = (name: string) => Promise<KubeObject | undefined>;

function configMapData(cm: KubeObject | undefined): Record<string, string> {
  return ((cm?.['data'] as Record<string, string> | undefined) ?? {}) as Record<string, string>;
}

function controllerEnv(workload: KubeObject | undefined): EnvVar[] {
  const spec = workload?.['spec'] as {
    template?: { spec?: { containers?: { name?: string; env?: EnvVar[] }[] } };
  };
  const containers = spec?.template?.spec?.containers ?? [];
  const container = containers.find((c) => c.name === CONTROLLER_NAME) ?? containers[0];
  return container?.env ?? [];
}

async function resolveEnv(
  env: EnvVar[],
  name: string,
  getConfigMap: ConfigMapGetter,
): Promise<string | undefined> {
  const v = env.find((e) => e.name === name);
  if (!v) return undefined;
  if (v.value !== undefined) return v.value;
  const ref = v.valueFrom?.configMapKeyRef;
  if (ref?.name && ref.key) return configMapData(await getConfigMap(ref.name))[ref.key];
  return undefined;
}

/** Go's strconv.Atoi-then-range check for ARGOCD_CONTROLLER_REPLICAS: anything off gives 0. */
function parseReplicasEnv(text: string | undefined): number {
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return 0;
  const n = Number(text);
  return n < 0 || n > 2147483647 ? 0 : n;
}

export async function readLiveInputs(
  reader: ArgoNamespaceReader,
  namespace: string,
  now: Date,
): Promise<LiveInputs> {
  const warnings: string[] = [];
  const configMaps = new Map<string, Promise<KubeObject | undefined>>();
  const getConfigMap: ConfigMapGetter = (name) => {
    let p = configMaps.get(name);
    if (!p) configMaps.set(name, (p = reader.getConfigMap(namespace, name)));
    return p;
  };
  const [secretObjects, appObjects, argocdCm, paramsCm] = await Promise.all([
    reader.listSecrets(namespace, CLUSTER_SECRET_SELECTOR),
    reader.listApplications(namespace),
    getConfigMap('argocd-cm'),
    getConfigMap('argocd-cmd-params-cm'),
  ]);
  const params = configMapData(paramsCm);
  const controllerName = CONTROLLER_NAME;
  const [statefulSet, deployment] = await Promise.all([
    reader.getWorkload(namespace, 'StatefulSet', controllerName),
    reader.getWorkload(namespace, 'Deployment', controllerName),
  ]);
  const found = [argocdCm, paramsCm, statefulSet, deployment].some((o) => o !== undefined);
  if (!found && secretObjects.length === 0 && appObjects.length === 0) {
    const exists = (await reader.namespaceExists?.(namespace)) ?? true;
    throw new GitopsError(
      exists
        ? `failed to read Argo CD: namespace ${namespace} has no argocd-cm or argocd-cmd-params-cm ConfigMap, no ${controllerName} StatefulSet or Deployment, no cluster Secret and no Application (is Argo CD installed there? see --argocd-namespace)`
        : `failed to read Argo CD: namespace ${namespace} not found (Argo CD's namespace is --argocd-namespace)`,
      { subject: `context ${reader.contextName}` },
    );
  }
  const dynamicFromEnv = async (w: KubeObject | undefined) =>
    (await resolveEnv(controllerEnv(w), 'ARGOCD_ENABLE_DYNAMIC_CLUSTER_DISTRIBUTION', getConfigMap)) ===
    'true';
  const dynamic = deployment
    ? await dynamicFromEnv(deployment)
    : statefulSet
      ? await dynamicFromEnv(statefulSet)
      : false;
  const workload = dynamic ? deployment : (statefulSet ?? deployment);
  const workloadKind = workload === statefulSet ? 'StatefulSet' : 'Deployment';
  const env = controllerEnv(workload);
  let algorithm: string | null;
  if (workload) {
    algorithm = (await resolveEnv(env, 'ARGOCD_CONTROLLER_SHARDING_ALGORITHM', getConfigMap)) ?? null;
  } else {
    algorithm = params['controller.sharding.algorithm'] ?? null;
  }
  let replicas: number | null = null;
  if (workload && dynamic) {
    replicas = ((workload['spec'] as { replicas?: number } | undefined)?.replicas ?? 1) as number;
  } else if (workload) {
    replicas = parseReplicasEnv(await resolveEnv(env, 'ARGOCD_CONTROLLER_REPLICAS', getConfigMap));
  }
  const installed: InstalledController = {
    workload: workload ? `${workloadKind}/${controllerName}` : null,
    algorithm,
    replicas,
    dynamic,
  };
  const result: LiveInputs = {
    secrets: secretObjects.map((object, doc) => ({ object, file: '', doc })),
    applications: appObjects.map((object, doc) => ({ object, file: '', doc })),
    inClusterEnabled: inClusterEnabled(configMapData(argocdCm)),
    installed,
    warnings,
  };
  const shardCm = await getConfigMap(SHARD_CONFIGMAP);
  const mapping = configMapData(shardCm)[SHARD_MAPPING_KEY];
  if (shardCm && mapping !== undefined) {
    const period = heartbeatPeriod(await resolveEnv(env, 'ARGOCD_CONTROLLER_HEARTBEAT_TIME', getConfigMap));
    try {
      result.claims = parseShardClaims(mapping, now, period);
    } catch (err) {
      warnings.push(`configmap ${namespace}/${SHARD_CONFIGMAP}: ${(err as Error).message}`);
    }
  }
  return result;
}
