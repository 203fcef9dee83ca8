/**
 * Defaults the real API server fills in for built-in kinds, as data tables (design practice 7), plus the
 * few write-time conversions every real server does (Secret `stringData` -> `data`).
 *
 * Guarantees:
 * - A default is set only where the field is absent (undefined); values the client sent are never changed.
 * - Defaulting is idempotent: applying it to an already defaulted object changes nothing.
 * - Allocated values (Service clusterIP, nodePort) are assigned on create only; updates that omit them keep
 *   the allocated ones (the real server's "patchAllocatedValues").
 * Later diff tests rely on these fields appearing on live objects, so keep the tables faithful to
 * upstream `pkg/apis/<group>/v1/defaults.go`.
 */
import type { Json, JsonMap, KObject } from './types.js';
import { isMap } from './types.js';

type Rule = readonly [path: string, value: Json];

/** PodSpec defaults (SetDefaults_PodSpec). */
const POD_SPEC: Rule[] = [
  ['restartPolicy', 'Always'],
  ['dnsPolicy', 'ClusterFirst'],
  ['terminationGracePeriodSeconds', 30],
  ['schedulerName', 'default-scheduler'],
  ['securityContext', {}],
];

/** Container defaults (SetDefaults_Container); imagePullPolicy is computed from the image tag. */
const CONTAINER: Rule[] = [
  ['terminationMessagePath', '/dev/termination-log'],
  ['terminationMessagePolicy', 'File'],
  ['resources', {}],
];

/** Per-kind defaults outside the pod template, keyed "group/Kind". */
const KIND_RULES: Record<string, Rule[]> = {
  'apps/Deployment': [
    ['spec.replicas', 1],
    ['spec.revisionHistoryLimit', 10],
    ['spec.progressDeadlineSeconds', 600],
  ],
  'apps/StatefulSet': [
    ['spec.replicas', 1],
    ['spec.podManagementPolicy', 'OrderedReady'],
    ['spec.updateStrategy.type', 'RollingUpdate'],
    ['spec.revisionHistoryLimit', 10],
    ['spec.persistentVolumeClaimRetentionPolicy.whenDeleted', 'Retain'],
    ['spec.persistentVolumeClaimRetentionPolicy.whenScaled', 'Retain'],
  ],
  'apps/DaemonSet': [
    ['spec.updateStrategy.type', 'RollingUpdate'],
    ['spec.revisionHistoryLimit', 10],
  ],
  'apps/ReplicaSet': [['spec.replicas', 1]],
  'batch/Job': [
    ['spec.parallelism', 1],
    ['spec.completions', 1],
    ['spec.backoffLimit', 6],
    ['spec.completionMode', 'NonIndexed'],
    ['spec.suspend', false],
    ['spec.podReplacementPolicy', 'TerminatingOrFailed'],
  ],
  'batch/CronJob': [
    ['spec.concurrencyPolicy', 'Allow'],
    ['spec.suspend', false],
    ['spec.successfulJobsHistoryLimit', 3],
    ['spec.failedJobsHistoryLimit', 1],
  ],
  '/Service': [
    ['spec.type', 'ClusterIP'],
    ['spec.sessionAffinity', 'None'],
    ['spec.internalTrafficPolicy', 'Cluster'],
    ['status.loadBalancer', {}],
  ],
  '/Secret': [['type', 'Opaque']],
  '/Namespace': [
    ['spec.finalizers', ['kubernetes']],
    ['status.phase', 'Active'],
  ],
  '/PersistentVolumeClaim': [
    ['spec.volumeMode', 'Filesystem'],
    ['status.phase', 'Pending'],
  ],
  '/Pod': [
    ['spec.enableServiceLinks', true],
    ['spec.priority', 0],
    ['spec.preemptionPolicy', 'PreemptLowerPriority'],
    ['status.phase', 'Pending'],
  ],
};

/**
 * Fields a real server's responses always carry because Go serializes empty structs and non-omitempty
 * zero values (they are not defaults, but clients see them the same way): the status of workloads before
 * any controller ran, and `creationTimestamp: null` in pod template metadata. Set only when absent.
 */
const SERIALIZED_EMPTY: Record<string, Rule[]> = {
  'apps/Deployment': [['status', {}]],
  'apps/StatefulSet': [['status', { replicas: 0, availableReplicas: 0 }]],
  'apps/DaemonSet': [
    [
      'status',
      { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
    ],
  ],
  'apps/ReplicaSet': [['status', { replicas: 0 }]],
  'batch/Job': [['status', {}]],
  'batch/CronJob': [['status', {}]],
  'networking.k8s.io/Ingress': [['status', { loadBalancer: {} }]],
};

/** Pod template metadata, which serializes `creationTimestamp: null` when the template has metadata. */
const TEMPLATE_METADATA_PATHS: Record<string, string[]> = {
  'apps/Deployment': ['spec.template.metadata'],
  'apps/StatefulSet': ['spec.template.metadata'],
  'apps/DaemonSet': ['spec.template.metadata'],
  'apps/ReplicaSet': ['spec.template.metadata'],
  'batch/Job': ['spec.template.metadata'],
  'batch/CronJob': ['spec.jobTemplate.metadata', 'spec.jobTemplate.spec.template.metadata'],
};

/** Where each kind keeps its pod spec. */
const POD_SPEC_PATHS: Record<string, string> = {
  'apps/Deployment': 'spec.template.spec',
  'apps/StatefulSet': 'spec.template.spec',
  'apps/DaemonSet': 'spec.template.spec',
  'apps/ReplicaSet': 'spec.template.spec',
  'batch/Job': 'spec.template.spec',
  'batch/CronJob': 'spec.jobTemplate.spec.template.spec',
  '/Pod': 'spec',
};

function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.split('/')[0]! : '';
}

export function getPath(obj: Json | undefined, path: string): Json | undefined {
  let cur: Json | undefined = obj;
  for (const p of path.split('.')) cur = isMap(cur) ? cur[p] : undefined;
  return cur;
}

/** Sets path to value when absent, creating intermediate maps. */
export function setIfAbsent(obj: JsonMap, path: string, value: Json): void {
  const parts = path.split('.');
  let cur: JsonMap = obj;
  for (const p of parts.slice(0, -1)) {
    const next = cur[p];
    if (next === undefined || next === null) cur = cur[p] = {};
    else if (isMap(next)) cur = next;
    else return;
  }
  const last = parts[parts.length - 1]!;
  if (cur[last] === undefined) cur[last] = structuredClone(value);
}

function applyRules(obj: JsonMap, rules: readonly Rule[]): void {
  for (const [path, value] of rules) setIfAbsent(obj, path, value);
}

/** Always for `:latest` or an untagged image, else IfNotPresent (digests count as tags). */
export function defaultPullPolicy(image: string): string {
  if (image.includes('@')) return 'IfNotPresent';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const colon = lastSegment.lastIndexOf(':');
  if (colon < 0) return 'Always';
  return lastSegment.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(c: JsonMap): void {
  applyRules(c, CONTAINER);
  if (c['imagePullPolicy'] === undefined && typeof c['image'] === 'string') {
    c['imagePullPolicy'] = defaultPullPolicy(c['image']);
  }
  if (Array.isArray(c['ports'])) for (const p of c['ports']) if (isMap(p)) setIfAbsent(p, 'protocol', 'TCP');
}

function defaultPodSpec(spec: JsonMap): void {
  applyRules(spec, POD_SPEC);
  for (const list of ['containers', 'initContainers']) {
    const cs = spec[list];
    if (Array.isArray(cs)) for (const c of cs) if (isMap(c)) defaultContainer(c);
  }
}

function defaultStrategy(obj: JsonMap, gk: string): void {
  const spec = obj['spec'];
  if (!isMap(spec)) return;
  if (gk === 'apps/Deployment') {
    setIfAbsent(spec, 'strategy.type', 'RollingUpdate');
    const s = spec['strategy'];
    if (isMap(s) && s['type'] === 'RollingUpdate') {
      setIfAbsent(s, 'rollingUpdate.maxUnavailable', '25%');
      setIfAbsent(s, 'rollingUpdate.maxSurge', '25%');
    }
  } else if (gk === 'apps/StatefulSet') {
    const s = spec['updateStrategy'];
    if (isMap(s) && s['type'] === 'RollingUpdate') setIfAbsent(s, 'rollingUpdate.partition', 0);
  } else if (gk === 'apps/DaemonSet') {
    const s = spec['updateStrategy'];
    if (isMap(s) && s['type'] === 'RollingUpdate') {
      setIfAbsent(s, 'rollingUpdate.maxUnavailable', 1);
      setIfAbsent(s, 'rollingUpdate.maxSurge', 0);
    }
  }
}

function defaultServicePorts(obj: JsonMap): void {
  const ports = getPath(obj, 'spec.ports');
  if (!Array.isArray(ports)) return;
  for (const p of ports) {
    if (!isMap(p)) continue;
    setIfAbsent(p, 'protocol', 'TCP');
    if (p['targetPort'] === undefined && p['port'] !== undefined) p['targetPort'] = p['port'];
  }
}

/** Hands out Service cluster IPs (10.96.0.0/12 range, .1 is the kubernetes service) and node ports. */
export class Allocator {
  private nextIp = 10;
  private nextPort = 30000;

  clusterIP(): string {
    const n = this.nextIp++;
    return `10.96.${(n >> 8) & 255}.${n & 255}`;
  }

  nodePort(): number {
    return this.nextPort++;
  }
}

function allocateService(obj: JsonMap, alloc: Allocator): void {
  const spec = obj['spec'];
  if (!isMap(spec) || spec['type'] === 'ExternalName') return;
  if (spec['clusterIP'] === undefined || spec['clusterIP'] === '') spec['clusterIP'] = alloc.clusterIP();
  if (spec['clusterIPs'] === undefined) spec['clusterIPs'] = [spec['clusterIP'] as string];
  setIfAbsent(spec, 'ipFamilies', spec['clusterIP'] === 'None' ? ['IPv4'] : ['IPv4']);
  setIfAbsent(spec, 'ipFamilyPolicy', 'SingleStack');
  if (spec['type'] === 'NodePort' || spec['type'] === 'LoadBalancer') {
    setIfAbsent(spec, 'externalTrafficPolicy', 'Cluster');
    if (Array.isArray(spec['ports'])) {
      for (const p of spec['ports'])
        if (isMap(p) && p['nodePort'] === undefined) p['nodePort'] = alloc.nodePort();
    }
  }
}

/** Copies allocated Service values an update omitted (clusterIP(s), ipFamilies, nodePorts). */
export function keepAllocated(obj: KObject, old: KObject): void {
  if (obj.kind !== 'Service' || groupOf(obj.apiVersion) !== '') return;
  const spec = obj['spec'] as Json;
  const oldSpec = old['spec'] as Json;
  if (!isMap(spec) || !isMap(oldSpec)) return;
  for (const k of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) {
    if (spec[k] === undefined && oldSpec[k] !== undefined) spec[k] = structuredClone(oldSpec[k]);
  }
  const ports = spec['ports'];
  const oldPorts = oldSpec['ports'];
  if (Array.isArray(ports) && Array.isArray(oldPorts)) {
    for (const p of ports) {
      if (!isMap(p) || p['nodePort'] !== undefined) continue;
      const o = oldPorts.find((x) => isMap(x) && x['port'] === p['port']);
      if (isMap(o) && o['nodePort'] !== undefined) p['nodePort'] = o['nodePort'];
    }
  }
}

/** Secret `stringData` is write-only: merged into `data` (base64), then dropped. */
function mergeStringData(obj: JsonMap): void {
  const sd = obj['stringData'];
  if (sd === undefined) return;
  if (isMap(sd)) {
    const data = isMap(obj['data']) ? { ...obj['data'] } : {};
    for (const [k, v] of Object.entries(sd))
      data[k] = Buffer.from(String(v ?? ''), 'utf8').toString('base64');
    obj['data'] = data;
  }
  delete obj['stringData'];
}

/**
 * Fills in defaults on `obj` in place (a fresh copy owned by the caller). `alloc` is given on create only.
 */
export function applyDefaults(obj: KObject, alloc?: Allocator): void {
  const gk = `${groupOf(obj.apiVersion)}/${obj.kind}`;
  const o = obj as unknown as JsonMap;
  const rules = KIND_RULES[gk];
  if (rules) applyRules(o, rules);
  defaultStrategy(o, gk);
  applyRules(o, SERIALIZED_EMPTY[gk] ?? []);
  for (const path of TEMPLATE_METADATA_PATHS[gk] ?? []) {
    const meta = getPath(o, path);
    if (isMap(meta) && meta['creationTimestamp'] === undefined) meta['creationTimestamp'] = null;
  }
  const podPath = POD_SPEC_PATHS[gk];
  if (podPath) {
    const spec = getPath(o, podPath);
    if (isMap(spec)) defaultPodSpec(spec);
  }
  if (gk === '/Service') {
    defaultServicePorts(o);
    if (alloc) allocateService(o, alloc);
  }
  if (gk === '/Secret') mergeStringData(o);
  if (gk === '/Namespace' && obj.metadata.name) {
    obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name };
  }
}
