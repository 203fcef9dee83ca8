/**
 * What the simulated controllers of src/embedded/simulate/ share (simulate.ts is the manual): the workload
 * kinds they handle, small readers of stored objects, the condition and hash rules the upstream controllers
 * follow, and `Simulation`, the writes a controller step may make (the WorkloadSimulator implements them
 * through the server's write pipeline).
 */
import type { ApiCore } from '../api.js';
import { now } from '../managed-fields.js';
import { stableJson } from '../meta.js';
import type { Json, JsonMap, KObject, OwnerReference } from '../types.js';
import { clone, isMap } from '../types.js';

/** The annotation that makes a Pod (or every Pod of a Job) fail. Its value must be "true". */
export const SIMULATE_FAIL_ANNOTATION = 'gitops.kubectl.io/simulate-fail';
/** The name of the one virtual node Pods "run" on. */
export const SIMULATED_NODE = 'embedded-node';

export interface Kind {
  group: string;
  version: string;
  plural: string;
  kind: string;
}

export const DEPLOYMENT: Kind = { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment' };
export const REPLICASET: Kind = { group: 'apps', version: 'v1', plural: 'replicasets', kind: 'ReplicaSet' };
export const STATEFULSET: Kind = {
  group: 'apps',
  version: 'v1',
  plural: 'statefulsets',
  kind: 'StatefulSet',
};
export const DAEMONSET: Kind = { group: 'apps', version: 'v1', plural: 'daemonsets', kind: 'DaemonSet' };
export const JOB: Kind = { group: 'batch', version: 'v1', plural: 'jobs', kind: 'Job' };
export const POD: Kind = { group: '', version: 'v1', plural: 'pods', kind: 'Pod' };
export const KINDS = [DEPLOYMENT, REPLICASET, STATEFULSET, DAEMONSET, JOB, POD];

export const tkeyOf = (k: Kind): string => `${k.group}/${k.plural}`;
export const BY_TKEY = new Map(KINDS.map((k) => [tkeyOf(k), k]));
export const BY_KIND = new Map(KINDS.map((k) => [`${k.group}/${k.kind}`, k]));

export const CONTROLLER_MANAGER = 'kube-controller-manager';
export const KUBELET = 'kubelet';

export type Condition = JsonMap & { type: string; status: string; reason?: string; message?: string };

/** The writes and reads a controller step makes, through the server's pipeline (WorkloadSimulator). */
export interface Simulation {
  readonly core: ApiCore;
  create(kind: Kind, namespace: string, obj: JsonMap, manager?: string): void;
  update(kind: Kind, obj: KObject, manager?: string): void;
  /** Writes `status` through the status subresource, unless it is what is stored already. */
  writeStatus(kind: Kind, obj: KObject, status: JsonMap, manager?: string): void;
  remove(kind: Kind, obj: KObject): void;
  /** Objects of a kind in a namespace whose controller is `owner`. */
  owned(kind: Kind, owner: KObject): KObject[];
  /** Re-reconciles the Deployment when its progress deadline passes. */
  armDeadline(d: KObject, key: string, since: number): void;
  clearDeadline(key: string): void;
  nextPodIp(): string;
}

// --- small readers --------------------------------------------------------------------------------

export function path(obj: unknown, p: string): Json | undefined {
  let cur: unknown = obj;
  for (const part of p.split('.')) {
    if (!isMap(cur)) return undefined;
    cur = cur[part];
  }
  return cur as Json | undefined;
}

export function num(obj: unknown, p: string, fallback: number): number {
  const v = path(obj, p);
  return typeof v === 'number' ? v : fallback;
}

export function mapAt(obj: unknown, p: string): JsonMap {
  const v = path(obj, p);
  return isMap(v) ? v : {};
}

export function conditionsOf(obj: unknown): Condition[] {
  const v = path(obj, 'status.conditions');
  return Array.isArray(v) ? (v.filter((c) => isMap(c) && typeof c['type'] === 'string') as Condition[]) : [];
}

export function isDeleting(o: KObject): boolean {
  return o.metadata.deletionTimestamp !== undefined;
}

export function controllerRef(o: KObject): OwnerReference | undefined {
  return o.metadata.ownerReferences?.find((r) => r.controller === true);
}

export function ownerRef(owner: KObject, kind: Kind): OwnerReference {
  return {
    apiVersion: kind.group ? `${kind.group}/${kind.version}` : kind.version,
    kind: kind.kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * Whether a Pod (or a Job, for its Pods) fails: annotated to, or a container whose command says so, as a
 * container would exit non-zero on a node: the program `false`, or a shell (`sh -c`, `bash -c`...)
 * script that is `false` or ends with `exit N`, N > 0 (e.g. a hook Job running `exit 1`).
 */
export function wantsFailure(o: KObject): boolean {
  if (o.metadata.annotations?.[SIMULATE_FAIL_ANNOTATION] === 'true') return true;
  const containers = path(o, 'spec.containers') ?? path(o, 'spec.template.spec.containers');
  return Array.isArray(containers) && containers.some((c) => commandFails(c));
}

function commandFails(container: Json): boolean {
  if (!isMap(container)) return false;
  const argv = [container['command'], container['args']]
    .flatMap((a) => (Array.isArray(a) ? a : []))
    .map((a) => String(a));
  const program = (argv[0] ?? '').split('/').pop() ?? '';
  if (program === 'false') return true;
  if (!['sh', 'bash', 'ash', 'dash', 'zsh'].includes(program)) return false;
  const script = argv[argv.indexOf('-c') + 1];
  if (!argv.includes('-c') || script === undefined) return false;
  const last =
    script
      .trim()
      .split(/[;\n&|]+/)
      .pop()
      ?.trim() ?? '';
  const exit = /^exit\s+(\d+)$/.exec(last);
  return last === 'false' || (exit !== null && Number(exit[1]) > 0);
}

export function podPhase(p: KObject): string {
  const v = path(p, 'status.phase');
  return typeof v === 'string' ? v : 'Pending';
}

export function podReady(p: KObject): boolean {
  return (
    podPhase(p) === 'Running' &&
    !isDeleting(p) &&
    conditionsOf(p).some((c) => c.type === 'Ready' && c.status === 'True')
  );
}

/** kube-controller-manager's ComputeHash: FNV-1a 32 of the template, encoded with SafeEncodeString. */
export function templateHash(template: Json | undefined): string {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(stableJson(template ?? {}), 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return [...String(h)].map((c) => alphabet[c.charCodeAt(0) % alphabet.length]).join('');
}

/** An int-or-percent field (maxUnavailable) against a total, rounded down as the Deployment controller does. */
export function intOrPercent(v: Json | undefined, total: number, fallback: number): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.endsWith('%')) return Math.floor((Number(v.slice(0, -1)) * total) / 100);
  return fallback;
}

/** Drops zero counters the API's omitempty fields leave out. */
export function omitZero(status: JsonMap, keys: readonly string[]): JsonMap {
  for (const k of keys) if (status[k] === 0) delete status[k];
  return status;
}

/**
 * A condition as the controllers set it: unchanged (status, reason, message) keeps the old entry;
 * lastTransitionTime moves only when status changes; lastUpdateTime (Deployments) on every change.
 */
export function setCondition(
  list: Condition[],
  next: { type: string; status: string; reason?: string; message?: string },
  opts: { updateTime?: boolean; probeTime?: boolean | null } = {},
): Condition[] {
  const old = list.find((c) => c.type === next.type);
  if (old && old.status === next.status && old.reason === next.reason && old.message === next.message)
    return list;
  const t = now();
  const c: Condition = { type: next.type, status: next.status };
  if (opts.probeTime === null) c['lastProbeTime'] = null;
  else if (opts.probeTime) c['lastProbeTime'] = t;
  if (opts.updateTime) c['lastUpdateTime'] = t;
  c['lastTransitionTime'] = old && old.status === next.status ? (old['lastTransitionTime'] ?? t) : t;
  if (next.reason !== undefined) c.reason = next.reason;
  if (next.message !== undefined) c.message = next.message;
  return old ? list.map((x) => (x === old ? c : x)) : [...list, c];
}

/** A Pod from a template, owned by `owner`. */
export function podFrom(
  owner: KObject,
  ownerKind: Kind,
  template: JsonMap,
  extra: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    name?: string;
    spec?: JsonMap;
  },
): JsonMap {
  const tmeta = mapAt(template, 'metadata');
  const labels = { ...(isMap(tmeta['labels']) ? tmeta['labels'] : {}), ...extra.labels } as JsonMap;
  const annotations = {
    ...(isMap(tmeta['annotations']) ? tmeta['annotations'] : {}),
    ...extra.annotations,
  } as JsonMap;
  const metadata: JsonMap = {
    ...(extra.name ? { name: extra.name } : { generateName: `${owner.metadata.name ?? ''}-` }),
    namespace: owner.metadata.namespace ?? '',
    labels,
    ownerReferences: [ownerRef(owner, ownerKind) as unknown as Json],
  };
  if (Object.keys(annotations).length > 0) metadata['annotations'] = annotations;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata,
    spec: { ...clone(mapAt(template, 'spec')), ...extra.spec },
  };
}
