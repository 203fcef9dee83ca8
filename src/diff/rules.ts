/**
 * The normalization rules of the diff module as data (design practice 7). Every table is keyed by
 * "group/Kind" ("/Service" for the core group) and uses the path patterns of paths.ts.
 *
 * - SERVER_METADATA: metadata fields the API server owns; dropped from both sides.
 * - DEFAULTS: values the API server fills in for built-in kinds (upstream `pkg/apis/<group>/v1/defaults.go`),
 *   applied to both the predicted and the live object after the three-way merge, only where absent.
 * - QUANTITY_FIELDS: fields re-printed canonically (quantities), on target, live and last-applied alike.
 *   Numeric strings in integer or int-or-string fields (`containerPort: "8080"`) are never turned into
 *   numbers: Argo CD's typed remarshal fails on them and keeps the object as written, so they differ from
 *   the live integer (and the API server would reject most of them), as gitops-engine `diff.go remarshal`.
 * - mergeKeyFor: lists merged element by element (strategic-merge patch keys) in built-in kinds, looked up in
 *   Kubernetes' published OpenAPI (src/schema, the one source of schema facts); every other list is atomic.
 */
import { builtinCatalog, listKeyDefault } from '../schema/index.js';
import { isMap } from './paths.js';
import type { Json, JsonMap } from './types.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
import { DEFAULT_FIELD_MANAGER, INSTANCE_LABEL } from '../common/index.js';

export { TRACKING_ID_ANNOTATION } from '../common/index.js';
export const DEFAULT_INSTANCE_LABEL = INSTANCE_LABEL;
export const DEFAULT_FIELD_MANAGERS: readonly string[] = [DEFAULT_FIELD_MANAGER];

/** `metadata` fields owned by the API server. */
export const SERVER_METADATA: readonly string[] = [
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
];

/** API groups served by every Kubernetes API server: their kinds are "known types" (typed scheme). */
export const BUILT_IN_GROUPS: ReadonlySet<string> = new Set([
  '',
  'apps',
  'batch',
  'autoscaling',
  'policy',
  'extensions',
  'networking.k8s.io',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'admissionregistration.k8s.io',
  'certificates.k8s.io',
  'node.k8s.io',
  'events.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'resource.k8s.io',
]);

/** Where each kind keeps a PodSpec (argoproj.io/Rollout as Argo CD's known-types normalizer declares). */
export const POD_SPEC_PATHS: Readonly<Record<string, string>> = {
  'apps/Deployment': 'spec.template.spec',
  'apps/StatefulSet': 'spec.template.spec',
  'apps/DaemonSet': 'spec.template.spec',
  'apps/ReplicaSet': 'spec.template.spec',
  '/ReplicationController': 'spec.template.spec',
  '/PodTemplate': 'template.spec',
  'batch/Job': 'spec.template.spec',
  'batch/CronJob': 'spec.jobTemplate.spec.template.spec',
  '/Pod': 'spec',
  'argoproj.io/Rollout': 'spec.template.spec',
};

/** A default: at every map reached by `at` ("" = object root), set `field` (dotted) when absent. */
export interface DefaultRule {
  at: string;
  field: string;
  /** The value, or computed from the receiving map (undefined = no default). */
  value: Json | ((m: JsonMap) => Json | undefined);
  /** Only when this holds for the receiving map. */
  when?: (m: JsonMap) => boolean;
}

/** Always for `:latest` or untagged images, else IfNotPresent (SetDefaults_Container). */
export function defaultPullPolicy(image: string): string {
  if (image.includes('@')) return 'IfNotPresent';
  const last = image.slice(image.lastIndexOf('/') + 1);
  const colon = last.lastIndexOf(':');
  if (colon < 0) return 'Always';
  return last.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'];
const PROBES = ['livenessProbe', 'readinessProbe', 'startupProbe'];

function containerRules(list: string): DefaultRule[] {
  const c = `${list}[]`;
  const rules: DefaultRule[] = [
    { at: c, field: 'terminationMessagePath', value: '/dev/termination-log' },
    { at: c, field: 'terminationMessagePolicy', value: 'File' },
    {
      at: c,
      field: 'imagePullPolicy',
      value: (m) => (typeof m['image'] === 'string' ? defaultPullPolicy(m['image']) : undefined),
    },
    { at: `${c}.ports[]`, field: 'protocol', value: 'TCP' },
    { at: `${c}.env[].valueFrom.fieldRef`, field: 'apiVersion', value: 'v1' },
  ];
  for (const p of PROBES) {
    rules.push(
      { at: `${c}.${p}`, field: 'timeoutSeconds', value: 1 },
      { at: `${c}.${p}`, field: 'periodSeconds', value: 10 },
      { at: `${c}.${p}`, field: 'successThreshold', value: 1 },
      { at: `${c}.${p}`, field: 'failureThreshold', value: 3 },
      { at: `${c}.${p}.httpGet`, field: 'path', value: '/' },
      { at: `${c}.${p}.httpGet`, field: 'scheme', value: 'HTTP' },
    );
  }
  return rules;
}

/** PodSpec defaults (SetDefaults_PodSpec, _Container, _Probe, _Volume), relative to the pod spec. */
const POD_SPEC_DEFAULTS: readonly DefaultRule[] = [
  { at: '', field: 'restartPolicy', value: 'Always' },
  { at: '', field: 'dnsPolicy', value: 'ClusterFirst' },
  { at: '', field: 'terminationGracePeriodSeconds', value: 30 },
  { at: '', field: 'schedulerName', value: 'default-scheduler' },
  { at: 'volumes[].secret', field: 'defaultMode', value: 420 },
  { at: 'volumes[].configMap', field: 'defaultMode', value: 420 },
  { at: 'volumes[].projected', field: 'defaultMode', value: 420 },
  { at: 'volumes[].downwardAPI', field: 'defaultMode', value: 420 },
  { at: 'volumes[].hostPath', field: 'type', value: '' },
  ...CONTAINER_LISTS.flatMap(containerRules),
];

const isRollingUpdate = (m: JsonMap): boolean => m['type'] === 'RollingUpdate';

/** Per-kind defaults outside the pod spec. */
const KIND_DEFAULTS: Readonly<Record<string, readonly DefaultRule[]>> = {
  'apps/Deployment': [
    { at: 'spec', field: 'replicas', value: 1 },
    { at: 'spec', field: 'revisionHistoryLimit', value: 10 },
    { at: 'spec', field: 'progressDeadlineSeconds', value: 600 },
    { at: 'spec', field: 'strategy.type', value: 'RollingUpdate' },
    { at: 'spec.strategy', field: 'rollingUpdate.maxUnavailable', value: '25%', when: isRollingUpdate },
    { at: 'spec.strategy', field: 'rollingUpdate.maxSurge', value: '25%', when: isRollingUpdate },
  ],
  'apps/StatefulSet': [
    { at: 'spec', field: 'replicas', value: 1 },
    { at: 'spec', field: 'podManagementPolicy', value: 'OrderedReady' },
    { at: 'spec', field: 'updateStrategy.type', value: 'RollingUpdate' },
    { at: 'spec.updateStrategy', field: 'rollingUpdate.partition', value: 0, when: isRollingUpdate },
    { at: 'spec', field: 'revisionHistoryLimit', value: 10 },
    { at: 'spec', field: 'persistentVolumeClaimRetentionPolicy.whenDeleted', value: 'Retain' },
    { at: 'spec', field: 'persistentVolumeClaimRetentionPolicy.whenScaled', value: 'Retain' },
    { at: 'spec.volumeClaimTemplates[]', field: 'apiVersion', value: 'v1' },
    { at: 'spec.volumeClaimTemplates[]', field: 'kind', value: 'PersistentVolumeClaim' },
    { at: 'spec.volumeClaimTemplates[]', field: 'spec.volumeMode', value: 'Filesystem' },
    { at: 'spec.volumeClaimTemplates[]', field: 'status.phase', value: 'Pending' },
  ],
  'apps/DaemonSet': [
    { at: 'spec', field: 'updateStrategy.type', value: 'RollingUpdate' },
    { at: 'spec.updateStrategy', field: 'rollingUpdate.maxUnavailable', value: 1, when: isRollingUpdate },
    { at: 'spec.updateStrategy', field: 'rollingUpdate.maxSurge', value: 0, when: isRollingUpdate },
    { at: 'spec', field: 'revisionHistoryLimit', value: 10 },
  ],
  'apps/ReplicaSet': [{ at: 'spec', field: 'replicas', value: 1 }],
  '/ReplicationController': [{ at: 'spec', field: 'replicas', value: 1 }],
  'batch/Job': [
    { at: 'spec', field: 'completions', value: 1, when: (s) => s['parallelism'] === undefined },
    { at: 'spec', field: 'parallelism', value: 1 },
    { at: 'spec', field: 'backoffLimit', value: 6 },
    { at: 'spec', field: 'completionMode', value: 'NonIndexed' },
    { at: 'spec', field: 'suspend', value: false },
    { at: 'spec', field: 'podReplacementPolicy', value: 'TerminatingOrFailed' },
  ],
  'batch/CronJob': [
    { at: 'spec', field: 'concurrencyPolicy', value: 'Allow' },
    { at: 'spec', field: 'suspend', value: false },
    { at: 'spec', field: 'successfulJobsHistoryLimit', value: 3 },
    { at: 'spec', field: 'failedJobsHistoryLimit', value: 1 },
  ],
  '/Service': [
    { at: 'spec', field: 'type', value: 'ClusterIP' },
    { at: 'spec', field: 'sessionAffinity', value: 'None' },
    {
      at: 'spec',
      field: 'internalTrafficPolicy',
      value: 'Cluster',
      when: (s) => s['type'] !== 'ExternalName',
    },
    { at: 'spec.ports[]', field: 'protocol', value: 'TCP' },
    { at: 'spec.ports[]', field: 'targetPort', value: (p) => p['port'] },
  ],
  '/Secret': [{ at: '', field: 'type', value: 'Opaque' }],
  '/PersistentVolumeClaim': [{ at: 'spec', field: 'volumeMode', value: 'Filesystem' }],
  '/Endpoints': [{ at: 'subsets[].ports[]', field: 'protocol', value: 'TCP' }],
  '/Pod': [
    { at: 'spec', field: 'enableServiceLinks', value: true },
    { at: 'spec', field: 'preemptionPolicy', value: 'PreemptLowerPriority' },
  ],
  'networking.k8s.io/NetworkPolicy': [
    { at: 'spec.ingress[].ports[]', field: 'protocol', value: 'TCP' },
    { at: 'spec.egress[].ports[]', field: 'protocol', value: 'TCP' },
  ],
};

function prefix(base: string, rel: string): string {
  return rel === '' ? base : `${base}.${rel}`;
}

/** The default rules of a kind (pod spec rules included), rooted at the object. Not for custom kinds. */
export function defaultsFor(gk: string): DefaultRule[] {
  const rules = [...(KIND_DEFAULTS[gk] ?? [])];
  const pod = POD_SPEC_PATHS[gk];
  if (pod && gk !== 'argoproj.io/Rollout') {
    for (const r of POD_SPEC_DEFAULTS) rules.push({ ...r, at: prefix(pod, r.at) });
  }
  return rules;
}

const POD_SPEC_QUANTITIES: readonly string[] = [
  ...CONTAINER_LISTS.flatMap((l) => [`${l}[].resources.limits.*`, `${l}[].resources.requests.*`]),
  'resources.limits.*',
  'resources.requests.*',
  'overhead.*',
  'volumes[].emptyDir.sizeLimit',
  'volumes[].ephemeral.volumeClaimTemplate.spec.resources.requests.*',
  'volumes[].ephemeral.volumeClaimTemplate.spec.resources.limits.*',
];

const KIND_QUANTITIES: Readonly<Record<string, readonly string[]>> = {
  '/PersistentVolumeClaim': ['spec.resources.requests.*', 'spec.resources.limits.*'],
  '/PersistentVolume': ['spec.capacity.*'],
  '/ResourceQuota': ['spec.hard.*'],
  '/LimitRange': ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'].map(
    (f) => `spec.limits[].${f}.*`,
  ),
  'apps/StatefulSet': [
    'spec.volumeClaimTemplates[].spec.resources.requests.*',
    'spec.volumeClaimTemplates[].spec.resources.limits.*',
  ],
  'autoscaling/HorizontalPodAutoscaler': [
    'resource',
    'pods',
    'object',
    'external',
    'containerResource',
  ].flatMap((m) => [`spec.metrics[].${m}.target.value`, `spec.metrics[].${m}.target.averageValue`]),
};

function withPodSpec(
  gk: string,
  kindPaths: readonly string[] | undefined,
  podPaths: readonly string[],
): string[] {
  const out = [...(kindPaths ?? [])];
  const pod = POD_SPEC_PATHS[gk];
  if (pod) for (const p of podPaths) out.push(prefix(pod, p));
  return out;
}

/** Quantity fields of a kind, rooted at the object. */
export function quantityFieldsFor(gk: string): string[] {
  return withPodSpec(gk, KIND_QUANTITIES[gk], POD_SPEC_QUANTITIES);
}

const mergeKeyCache = new Map<string, string | null>();

/**
 * The merge key of the list at `path` (dotted, list steps written `[]`, from the object root) in kind `gk`,
 * if it is merged by key: the list's `x-kubernetes-patch-strategy` includes "merge" and it has an
 * `x-kubernetes-patch-merge-key`, in Kubernetes' published OpenAPI (src/schema). Only for built-in kinds:
 * Argo CD merges custom resources with JSON merge patch, where every list is atomic.
 */
export function mergeKeyFor(gk: string, path: string): string | undefined {
  const cacheKey = `${gk}|${path}`;
  const cached = mergeKeyCache.get(cacheKey);
  if (cached !== undefined) return cached ?? undefined;
  const slash = gk.indexOf('/');
  const group = gk.slice(0, slash);
  let key: string | undefined;
  if (BUILT_IN_GROUPS.has(group)) {
    const schemas = builtinCatalog();
    const root = schemas.schemaForGroupKind(group, gk.slice(slash + 1));
    const facts = schemas.factsOf(schemas.fieldAt(root, path.split('.')));
    if (facts.patchStrategies.includes('merge')) key = facts.patchMergeKey;
  }
  mergeKeyCache.set(cacheKey, key ?? null);
  return key;
}

/** How server-side apply identifies the items of a list (structured-merge-diff's schema reading). */
export type ListShape = { kind: 'map'; keys: readonly string[] } | { kind: 'set' } | { kind: 'atomic' };

const listShapeCache = new Map<string, ListShape>();

/**
 * The server-side-apply shape of the list at `path` (as for mergeKeyFor) in kind `gk`: `x-kubernetes-list-type`
 * map with its `x-kubernetes-list-map-keys` (Service ports by port and protocol), set, or atomic; lists with
 * only a strategic-merge key are maps by that key, as structured-merge-diff reads the published OpenAPI. Built-in
 * kinds only; every list of other kinds is atomic (no schema here).
 */
export function listShapeFor(gk: string, path: string): ListShape {
  const cacheKey = `${gk}|${path}`;
  const cached = listShapeCache.get(cacheKey);
  if (cached) return cached;
  const slash = gk.indexOf('/');
  const group = gk.slice(0, slash);
  let shape: ListShape = { kind: 'atomic' };
  if (BUILT_IN_GROUPS.has(group)) {
    const schemas = builtinCatalog();
    const root = schemas.schemaForGroupKind(group, gk.slice(slash + 1));
    const f = schemas.factsOf(schemas.fieldAt(root, path.split('.')));
    if (f.listType === 'map' && f.listMapKeys?.length) shape = { kind: 'map', keys: f.listMapKeys };
    else if (f.listType === 'set') shape = { kind: 'set' };
    else if (f.listType !== 'atomic' && f.patchStrategies.includes('merge')) {
      shape = f.patchMergeKey ? { kind: 'map', keys: [f.patchMergeKey] } : { kind: 'set' };
    }
  }
  listShapeCache.set(cacheKey, shape);
  return shape;
}

/** The identity of a map-list item (keys sorted, omitted keys at their schema default); undefined without one. */
export function listItemKey(item: Json, keys: readonly string[]): string | undefined {
  if (!isMap(item)) return undefined;
  const id: JsonMap = {};
  for (const k of [...keys].sort()) {
    const v = item[k] ?? listKeyDefault(k);
    if (v === undefined || v === null) return undefined;
    id[k] = v;
  }
  return JSON.stringify(id);
}
