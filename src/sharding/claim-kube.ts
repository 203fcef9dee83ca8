/**
 * The Kubernetes reads and writes of the shard claimer and the start-up guard, over the project's counting
 * client (src/cluster `KubeClient`): the shard ConfigMap (get, create, update with the resourceVersion that
 * was read, so a concurrent writer makes the update fail with 409 Conflict) and the controller workloads.
 */
import { isNotFound, type KubeClient, type KubeObject, type ResourceInfo } from '../cluster/index.js';

const info = (group: string, kind: string, plural: string): ResourceInfo => ({
  group,
  version: 'v1',
  kind,
  plural,
  namespaced: true,
  verbs: ['get', 'list', 'create', 'update'],
});

export const CONFIGMAPS = info('', 'ConfigMap', 'configmaps');
export const DEPLOYMENTS = info('apps', 'Deployment', 'deployments');
export const STATEFULSETS = info('apps', 'StatefulSet', 'statefulsets');

export type WorkloadKind = 'Deployment' | 'StatefulSet';
export const WORKLOADS: Record<WorkloadKind, ResourceInfo> = {
  Deployment: DEPLOYMENTS,
  StatefulSet: STATEFULSETS,
};

/** GET that answers undefined for 404. */
export async function getOrUndefined(
  client: KubeClient,
  what: ResourceInfo,
  namespace: string,
  name: string,
  signal?: AbortSignal,
): Promise<KubeObject | undefined> {
  try {
    return await client.get(what, namespace, name, signal);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** `spec.replicas` of a Deployment; the API server defaults it to 1, so a missing value reads as 1. */
export function specReplicas(workload: KubeObject): number {
  const r = (workload['spec'] as { replicas?: unknown } | undefined)?.replicas;
  return typeof r === 'number' ? r : 1;
}

/** `status.readyReplicas` (absent: 0). */
export function readyReplicas(workload: KubeObject): number {
  const r = (workload['status'] as { readyReplicas?: unknown } | undefined)?.readyReplicas;
  return typeof r === 'number' ? r : 0;
}
