/**
 * Refusing to start (issue 22): `kubectl gitops controller` does not start against a namespace where another
 * application controller already does the work, unless `--force-takeover`. Two rules, checked in this order:
 *
 * 1. Argo CD's own controller runs there: a StatefulSet or Deployment named `argocd-application-controller`
 *    (common.DefaultApplicationControllerName; Argo CD runs it as a StatefulSet, or as a Deployment with
 *    dynamic cluster distribution), or any StatefulSet or Deployment labelled
 *    `app.kubernetes.io/name=argocd-application-controller` (the label of Argo CD's manifests and Helm
 *    chart), with `status.readyReplicas` > 0. The Deployment our own replica count is read from
 *    (`--replicas-from deployment/NAME`) is ours and never counts.
 * 2. Another controller holds the shard we would take: in `argocd-app-controller-shard-cm`, the entry of
 *    that shard has another ControllerName and a live heartbeat (not stale: spec 6). The shard we would take
 *    is what the claim procedure would pick now (claim-procedure.ts), looked up in the ConfigMap as it is,
 *    before any reset of a list longer than R (a reset would hand a live holder's shard to us). In static
 *    mode (`--shard I --replicas N`) it is shard I.
 *
 * Both refusals are `UsageError`s (exit 2) naming the object and the holder. A value Argo CD cannot decode
 * is left to the claim itself, which fails on it with the same message the controller gives.
 */
import { isNotFound, type KubeClient, type KubeObject } from '../cluster/index.js';
import { GitopsError, UsageError, oneLine } from '../common/index.js';
import { claimShard } from './claim-procedure.js';
import { CONFIGMAPS, getOrUndefined, readyReplicas, WORKLOADS, type WorkloadKind } from './claim-kube.js';
import { CONTROLLER_NAME } from './live.js';
import {
  decodeShardMapping,
  formatHeartbeat,
  HEARTBEAT_TIMEOUT_PERIODS,
  isStale,
  SHARD_CONFIGMAP,
  SHARD_MAPPING_KEY,
  type ShardMappingEntry,
} from './shard-claims.js';

export const CONTROLLER_NAME_LABEL = 'app.kubernetes.io/name';

export interface StartGuardOptions {
  client: KubeClient;
  namespace: string;
  /** Our ControllerName (hostname by default). */
  controllerName: string;
  /**
   * Dynamic mode: the requested shard (-1: any) and the replica count; the shard we would take is what
   * the claim procedure picks. Static mode: the shard we run as.
   */
  mode: { dynamic: true; requestedShard: number; replicas: number } | { dynamic: false; shard: number };
  heartbeatSeconds: number;
  /** Wall-clock now, epoch milliseconds. */
  nowMs: number;
  /** Our own Deployment (`--replicas-from`): never counted as Argo CD's controller. */
  ownDeployment?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** The server's reason without the client's own "<subject>: failed to <verb>: " prefix. */
const causeOf = (err: unknown): string => oneLine(err).replace(/^.*?failed to [^:]+: /, '');

async function findArgoController(
  o: StartGuardOptions,
): Promise<{ kind: WorkloadKind; name: string; ready: number } | undefined> {
  const candidates: { kind: WorkloadKind; object: KubeObject }[] = [];
  for (const kind of ['StatefulSet', 'Deployment'] as const) {
    const resource = WORKLOADS[kind];
    try {
      const named = await getOrUndefined(o.client, resource, o.namespace, CONTROLLER_NAME, o.signal);
      if (named) candidates.push({ kind, object: named });
      const labelled = await o.client.listAll(resource, {
        namespace: o.namespace,
        labelSelector: `${CONTROLLER_NAME_LABEL}=${CONTROLLER_NAME}`,
        ...(o.signal ? { signal: o.signal } : {}),
      });
      for (const object of labelled) candidates.push({ kind, object });
    } catch (err) {
      if (isNotFound(err)) continue; // the apps API not served: no workload of that kind
      throw new GitopsError(
        `failed to check for Argo CD's application controller: ${causeOf(err)} (needs get and list on ${resource.plural}; or pass --force-takeover)`,
        { subject: `namespace ${o.namespace}`, cause: err },
      );
    }
  }
  for (const { kind, object } of candidates) {
    const name = object.metadata?.name ?? '';
    if (kind === 'Deployment' && name === o.ownDeployment) continue;
    const ready = readyReplicas(object);
    if (ready > 0) return { kind, name, ready };
  }
  return undefined;
}

/** The entry of the shard we would take, with its live holder when that holder is someone else. */
export function liveHolder(
  entries: readonly ShardMappingEntry[],
  shard: number,
  controllerName: string,
  nowMs: number,
  heartbeatSeconds: number,
): ShardMappingEntry | undefined {
  const entry = entries.find((e) => e.shardNumber === shard);
  if (!entry || entry.controllerName === '' || entry.controllerName === controllerName) return undefined;
  return isStale(entry, nowMs, heartbeatSeconds) ? undefined : entry;
}

/** Throws a `UsageError` when another controller does the work here (see the module header); else returns. */
export async function checkStart(o: StartGuardOptions): Promise<void> {
  const argo = await findArgoController(o);
  if (argo) {
    throw new UsageError(
      `failed to start: Argo CD's application controller runs here with ${argo.ready} ready replica${argo.ready === 1 ? '' : 's'}; scale it to 0 first, or pass --force-takeover`,
      { subject: `${argo.kind.toLowerCase()} ${o.namespace}/${argo.name}` },
    );
  }
  let cm: KubeObject | undefined;
  try {
    cm = await getOrUndefined(o.client, CONFIGMAPS, o.namespace, SHARD_CONFIGMAP, o.signal);
  } catch (err) {
    throw new GitopsError(
      `failed to read: ${causeOf(err)} (needs get on configmaps; or pass --force-takeover)`,
      { subject: `configmap ${o.namespace}/${SHARD_CONFIGMAP}`, cause: err },
    );
  }
  const text = (cm?.['data'] as Record<string, string> | undefined)?.[SHARD_MAPPING_KEY];
  if (!cm || text === undefined) return;
  let entries: ShardMappingEntry[];
  try {
    entries = decodeShardMapping(text);
  } catch {
    return; // the claim itself reports it
  }
  let shard: number;
  if (o.mode.dynamic) {
    const r = claimShard(
      entries,
      o.controllerName,
      o.mode.replicas,
      o.mode.requestedShard,
      o.nowMs,
      o.heartbeatSeconds,
    );
    if (r.how === 'none' || r.how === 'own') return;
    shard = r.shard;
  } else {
    shard = o.mode.shard;
  }
  const holder = liveHolder(entries, shard, o.controllerName, o.nowMs, o.heartbeatSeconds);
  if (!holder) return;
  const staleAt = holder.heartbeatMs! + HEARTBEAT_TIMEOUT_PERIODS * o.heartbeatSeconds * 1000;
  throw new UsageError(
    `failed to claim shard ${shard}: controller ${holder.controllerName} holds it (heartbeat ${formatHeartbeat(holder.heartbeatMs)}, stale after ${formatHeartbeat(staleAt)}); stop it, or pass --force-takeover`,
    { subject: `configmap ${o.namespace}/${SHARD_CONFIGMAP}` },
  );
}
