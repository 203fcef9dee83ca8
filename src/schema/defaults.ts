/**
 * The one table of API-server defaults for built-in kinds, keyed by the OpenAPI definition (the Go type)
 * whose defaulting sets them, as Kubernetes does: `SetDefaults_<Type>` in `pkg/apis/<group>/<version>/
 * defaults.go` runs for every value of that type wherever it appears (a Container in a Deployment's pod
 * template as in a Pod), so a rule keyed by type reaches every place the type is used without a list of
 * paths per kind. Read by the embedded API server (every write) and by the diff's normalization (the
 * predicted and the live object after the merge, as gitops-engine's `applyPatch` runs `scheme.Default`).
 *
 * Kubernetes' OpenAPI v2 does not publish defaults (v3 does from 1.27, later than the spec we carry, see
 * docs/schema.md), so the values are written here, each with its upstream function. What the schema
 * decides is whether a rule applies at all: a rule is applied only when the served schema has its field
 * (`rulesFor`), so a default for a field newer than the served release (Job `podReplacementPolicy`,
 * 1.28) is never set by a server that would then reject the field as unknown. Every rule's field is
 * checked against the published schema by test/schema/defaults.test.ts.
 *
 * `by`: 'defaulter' (the default) is the scheme's `SetDefaults_*`; Argo CD's diff applies those too.
 * 'server' rules are what the API server's answers carry for other reasons (its registry strategy or an
 * admission plugin on create, or what Go serializes for a struct: `resources: {}`, a template's
 * `creationTimestamp: null`): the embedded server sets them, the diff
 * does not predict them (Argo CD's `scheme.Default` does not).
 */
import { setIfAbsent } from '../common/index.js';
import type { Json, JsonMap } from '../common/index.js';
import type { Schema, SchemaCatalog } from './catalog.js';

/** A default: at every map reached by `at` under a value of the rule's type ("" = the value itself), set
 * the dotted `field` when absent (undefined or null), creating intermediate maps. */
export interface DefaultRule {
  at: string;
  field: string;
  /** The value, or computed from the receiving map (undefined = no default). */
  value: Json | ((m: JsonMap) => Json | undefined);
  /** Only when this holds for the receiving map. */
  when?: (m: JsonMap) => boolean;
  /** Who sets it (see the module header); absent = 'defaulter'. */
  by?: 'defaulter' | 'server';
  /** The Kubernetes release that added the field, when later than the published OpenAPI's (1.22). */
  since?: string;
}

/**
 * SetDefaults_Container's pull policy: Always when the tag `parsers.ParseImageName` finds is `latest`
 * (which it assumes when there is neither tag nor digest), else IfNotPresent. `name:latest@sha256:...` is
 * Always (the tag is latest); a digest alone is IfNotPresent; an image the docker reference grammar
 * refuses (an uppercase repository path) has no tag, so IfNotPresent.
 */
export function defaultPullPolicy(image: string): string {
  const at = image.indexOf('@');
  const named = at < 0 ? image : image.slice(0, at);
  const colon = named.lastIndexOf(':');
  const tagged = colon > named.lastIndexOf('/');
  const repo = tagged ? named.slice(0, colon) : named;
  const tag = tagged ? named.slice(colon + 1) : '';
  // docker/distribution reference splitDockerDomain: the first component is a registry when it has a
  // "." or ":", is "localhost", or has uppercase letters; the rest must be lowercase.
  const slash = repo.indexOf('/');
  const first = slash < 0 ? '' : repo.slice(0, slash);
  const isDomain =
    slash >= 0 && (/[.:]/.test(first) || first === 'localhost' || first !== first.toLowerCase());
  const path = isDomain ? repo.slice(slash + 1) : repo;
  if (path !== path.toLowerCase()) return 'IfNotPresent';
  if (tag === 'latest' || (!tag && at < 0)) return 'Always';
  return 'IfNotPresent';
}

const isRollingUpdate = (m: JsonMap): boolean => m['type'] === 'RollingUpdate';

const CORE = 'io.k8s.api.core.v1.';
const APPS = 'io.k8s.api.apps.v1.';
const BATCH = 'io.k8s.api.batch.v1.';

/** SetDefaults_Container / SetDefaults_EphemeralContainer (same fields). */
const CONTAINER: readonly DefaultRule[] = [
  { at: '', field: 'terminationMessagePath', value: '/dev/termination-log' },
  { at: '', field: 'terminationMessagePolicy', value: 'File' },
  {
    at: '',
    field: 'imagePullPolicy',
    value: (m) => (typeof m['image'] === 'string' ? defaultPullPolicy(m['image']) : undefined),
  },
  // Not a default: a struct field Go always serializes (`resources: {}`); servers answer with it.
  { at: '', field: 'resources', value: {}, by: 'server' },
];

const VOLUME_MODE: DefaultRule = { at: '', field: 'defaultMode', value: 420 };

/**
 * Defaults by OpenAPI definition name. Sources: core `pkg/apis/core/v1/defaults.go`, apps
 * `pkg/apis/apps/v1/defaults.go`, batch `pkg/apis/batch/v1/defaults.go`, networking
 * `pkg/apis/networking/v1/defaults.go`; 'server' rules name their strategy or admission plugin.
 */
export const DEFAULTS: Readonly<Record<string, readonly DefaultRule[]>> = {
  // SetDefaults_PodSpec
  [`${CORE}PodSpec`]: [
    { at: '', field: 'restartPolicy', value: 'Always' },
    { at: '', field: 'dnsPolicy', value: 'ClusterFirst' },
    { at: '', field: 'terminationGracePeriodSeconds', value: 30 },
    { at: '', field: 'schedulerName', value: 'default-scheduler' },
    { at: '', field: 'securityContext', value: {} },
  ],
  // SetDefaults_Pod (a Pod only, not a pod template); priority: the Priority admission plugin.
  [`${CORE}Pod`]: [
    { at: 'spec', field: 'enableServiceLinks', value: true },
    { at: 'spec', field: 'preemptionPolicy', value: 'PreemptLowerPriority' },
    { at: 'spec', field: 'priority', value: 0, by: 'server' },
    { at: '', field: 'status.phase', value: 'Pending', by: 'server' },
  ],
  [`${CORE}Container`]: CONTAINER,
  [`${CORE}EphemeralContainer`]: CONTAINER,
  [`${CORE}ContainerPort`]: [{ at: '', field: 'protocol', value: 'TCP' }],
  // SetDefaults_Probe
  [`${CORE}Probe`]: [
    { at: '', field: 'timeoutSeconds', value: 1 },
    { at: '', field: 'periodSeconds', value: 10 },
    { at: '', field: 'successThreshold', value: 1 },
    { at: '', field: 'failureThreshold', value: 3 },
  ],
  // SetDefaults_HTTPGetAction
  [`${CORE}HTTPGetAction`]: [
    { at: '', field: 'path', value: '/' },
    { at: '', field: 'scheme', value: 'HTTP' },
  ],
  // SetDefaults_ObjectFieldSelector
  [`${CORE}ObjectFieldSelector`]: [{ at: '', field: 'apiVersion', value: 'v1' }],
  [`${CORE}SecretVolumeSource`]: [VOLUME_MODE],
  [`${CORE}ConfigMapVolumeSource`]: [VOLUME_MODE],
  [`${CORE}ProjectedVolumeSource`]: [VOLUME_MODE],
  [`${CORE}DownwardAPIVolumeSource`]: [VOLUME_MODE],
  // SetDefaults_HostPathVolumeSource
  [`${CORE}HostPathVolumeSource`]: [{ at: '', field: 'type', value: '' }],
  // SetDefaults_Service
  [`${CORE}ServiceSpec`]: [
    { at: '', field: 'type', value: 'ClusterIP' },
    { at: '', field: 'sessionAffinity', value: 'None' },
    {
      at: '',
      field: 'internalTrafficPolicy',
      value: 'Cluster',
      when: (s) => s['type'] !== 'ExternalName',
    },
  ],
  [`${CORE}ServicePort`]: [
    { at: '', field: 'protocol', value: 'TCP' },
    { at: '', field: 'targetPort', value: (p) => p['port'] },
  ],
  // SetDefaults_Endpoints
  [`${CORE}EndpointPort`]: [{ at: '', field: 'protocol', value: 'TCP' }],
  // SetDefaults_Secret
  [`${CORE}Secret`]: [{ at: '', field: 'type', value: 'Opaque' }],
  // SetDefaults_PersistentVolumeClaim
  [`${CORE}PersistentVolumeClaim`]: [
    { at: 'spec', field: 'volumeMode', value: 'Filesystem' },
    { at: '', field: 'status.phase', value: 'Pending' },
  ],
  // SetDefaults_NamespaceStatus; spec.finalizers: the namespace strategy's PrepareForCreate.
  [`${CORE}Namespace`]: [
    { at: '', field: 'status.phase', value: 'Active' },
    { at: '', field: 'spec.finalizers', value: ['kubernetes'], by: 'server' },
  ],
  // Not defaults: a template's ObjectMeta serializes `creationTimestamp: null` (a struct, not a pointer).
  [`${CORE}PodTemplateSpec`]: [{ at: 'metadata', field: 'creationTimestamp', value: null, by: 'server' }],
  [`${BATCH}JobTemplateSpec`]: [{ at: 'metadata', field: 'creationTimestamp', value: null, by: 'server' }],
  // SetDefaults_ReplicationController
  [`${CORE}ReplicationControllerSpec`]: [{ at: '', field: 'replicas', value: 1 }],
  // apps/v1 SetDefaults_Deployment
  [`${APPS}DeploymentSpec`]: [
    { at: '', field: 'replicas', value: 1 },
    { at: '', field: 'revisionHistoryLimit', value: 10 },
    { at: '', field: 'progressDeadlineSeconds', value: 600 },
    { at: '', field: 'strategy.type', value: 'RollingUpdate' },
    { at: 'strategy', field: 'rollingUpdate.maxUnavailable', value: '25%', when: isRollingUpdate },
    { at: 'strategy', field: 'rollingUpdate.maxSurge', value: '25%', when: isRollingUpdate },
  ],
  // SetDefaults_StatefulSet
  [`${APPS}StatefulSetSpec`]: [
    { at: '', field: 'replicas', value: 1 },
    { at: '', field: 'podManagementPolicy', value: 'OrderedReady' },
    // partition only when the type was unset (upstream then creates rollingUpdate) or rollingUpdate is
    // there: `updateStrategy: {type: RollingUpdate}` stays as written. Before the type rule, which sets it.
    {
      at: '',
      field: 'updateStrategy.rollingUpdate.partition',
      value: 0,
      when: (s) => {
        const u = s['updateStrategy'];
        if (u == null || typeof u !== 'object' || Array.isArray(u)) return true;
        return u['type'] == null || (u['type'] === 'RollingUpdate' && u['rollingUpdate'] != null);
      },
    },
    { at: '', field: 'updateStrategy.type', value: 'RollingUpdate' },
    { at: '', field: 'revisionHistoryLimit', value: 10 },
    {
      at: '',
      field: 'persistentVolumeClaimRetentionPolicy.whenDeleted',
      value: 'Retain',
      since: '1.23',
    },
    {
      at: '',
      field: 'persistentVolumeClaimRetentionPolicy.whenScaled',
      value: 'Retain',
      since: '1.23',
    },
    // The templates come back as full PersistentVolumeClaim objects (the PVC rules reach them by type).
    { at: 'volumeClaimTemplates[]', field: 'apiVersion', value: 'v1' },
    { at: 'volumeClaimTemplates[]', field: 'kind', value: 'PersistentVolumeClaim' },
  ],
  // SetDefaults_DaemonSet
  [`${APPS}DaemonSetSpec`]: [
    { at: '', field: 'updateStrategy.type', value: 'RollingUpdate' },
    { at: 'updateStrategy', field: 'rollingUpdate.maxUnavailable', value: 1, when: isRollingUpdate },
    { at: 'updateStrategy', field: 'rollingUpdate.maxSurge', value: 0, when: isRollingUpdate },
    { at: '', field: 'revisionHistoryLimit', value: 10 },
  ],
  // SetDefaults_ReplicaSet
  [`${APPS}ReplicaSetSpec`]: [{ at: '', field: 'replicas', value: 1 }],
  // batch/v1 SetDefaults_Job: completions only when parallelism is unset too. Keyed by Job, not JobSpec:
  // the function takes a *Job, so a CronJob's jobTemplate.spec gets none of these (SetObjectDefaults_CronJob
  // never calls it).
  [`${BATCH}Job`]: [
    { at: 'spec', field: 'completions', value: 1, when: (s) => s['parallelism'] == null },
    { at: 'spec', field: 'parallelism', value: 1 },
    { at: 'spec', field: 'backoffLimit', value: 6 },
    { at: 'spec', field: 'completionMode', value: 'NonIndexed' },
    { at: 'spec', field: 'suspend', value: false },
    {
      at: 'spec',
      field: 'podReplacementPolicy',
      value: (s) => (s['podFailurePolicy'] != null ? 'Failed' : 'TerminatingOrFailed'),
      since: '1.28',
    },
  ],
  // SetDefaults_CronJob
  [`${BATCH}CronJobSpec`]: [
    { at: '', field: 'concurrencyPolicy', value: 'Allow' },
    { at: '', field: 'suspend', value: false },
    { at: '', field: 'successfulJobsHistoryLimit', value: 3 },
    { at: '', field: 'failedJobsHistoryLimit', value: 1 },
  ],
  // networking/v1 SetDefaults_NetworkPolicyPort
  ['io.k8s.api.networking.v1.NetworkPolicyPort']: [{ at: '', field: 'protocol', value: 'TCP' }],
};

/** The dotted path of a rule's field under its type (`[]` list steps), as `SchemaCatalog.fieldAt` reads it. */
export function ruleFieldPath(rule: DefaultRule): string[] {
  return [...(rule.at === '' ? [] : rule.at.split('.')), ...rule.field.split('.')];
}

const applicable = new WeakMap<SchemaCatalog, Map<string, readonly DefaultRule[]>>();

/** The rules of definition `name` whose field the catalog's schema has (cached per catalog). */
export function rulesFor(catalog: SchemaCatalog, name: string): readonly DefaultRule[] {
  let byName = applicable.get(catalog);
  if (!byName) applicable.set(catalog, (byName = new Map()));
  let rules = byName.get(name);
  if (!rules) {
    const def = catalog.definition(name);
    rules = (DEFAULTS[name] ?? []).filter((r) => def && catalog.fieldAt(def, ruleFieldPath(r)));
    byName.set(name, rules);
  }
  return rules;
}

function isMap(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every map reached by `at` under `node` ("" = the node itself; `x[]` steps into the items of list x). */
function mapsAt(node: JsonMap, at: string): JsonMap[] {
  let cur: JsonMap[] = [node];
  if (at === '') return cur;
  for (const raw of at.split('.')) {
    const each = raw.endsWith('[]');
    const key = each ? raw.slice(0, -2) : raw;
    const next: JsonMap[] = [];
    for (const m of cur) {
      const v = m[key];
      if (each && Array.isArray(v)) next.push(...v.filter(isMap));
      else if (!each && isMap(v)) next.push(v);
    }
    cur = next;
  }
  return cur;
}

/** The definition a field schema names by `$ref` (the last one of a chain), if any. */
export function refName(catalog: SchemaCatalog, field: Schema | undefined): string | undefined {
  let name: string | undefined;
  let cur = field;
  for (let hops = 0; cur && hops < 8; hops++) {
    const ref = cur['$ref'];
    if (typeof ref !== 'string') break;
    name = ref.slice(ref.lastIndexOf('/') + 1);
    cur = catalog.definition(name);
  }
  return name;
}

function defaultValue(node: JsonMap, name: string, catalog: SchemaCatalog, server: boolean): void {
  for (const rule of rulesFor(catalog, name)) {
    if (!server && rule.by === 'server') continue;
    for (const m of mapsAt(node, rule.at)) {
      if (rule.when && !rule.when(m)) continue;
      const value = typeof rule.value === 'function' ? rule.value(m) : rule.value;
      if (value !== undefined) setIfAbsent(m, rule.field, value);
    }
  }
}

/** Per catalog and `server`: whether a schema node can hold, at any depth, a value some rule applies to. */
const holdsDefaults = new WeakMap<SchemaCatalog, [Map<Schema, boolean>, Map<Schema, boolean>]>();

/**
 * Whether a value of schema `field` can hold, at any depth, a value of a definition with a rule (for
 * `server` or not): `walk` skips the subtrees that cannot (metadata, a ConfigMap's data, most of a Secret
 * or a ServiceAccount), which were most of its visits. Memoized per schema node; a node met again while it
 * is being decided (a recursive definition) counts as "can", so a subtree is only ever skipped when no rule
 * is reachable from it.
 */
function mayHoldDefaults(catalog: SchemaCatalog, field: Schema, server: boolean): boolean {
  let memos = holdsDefaults.get(catalog);
  if (!memos) holdsDefaults.set(catalog, (memos = [new Map(), new Map()]));
  const memo = memos[server ? 1 : 0];
  const known = memo.get(field);
  if (known !== undefined) return known;
  memo.set(field, true);
  const name = refName(catalog, field);
  let result = name !== undefined && rulesFor(catalog, name).some((r) => server || r.by !== 'server');
  const schema = result ? undefined : catalog.resolve(field);
  if (schema) {
    const props = schema['properties'];
    const children: unknown[] = [
      ...(isMap(props) ? Object.values(props) : []),
      schema['additionalProperties'],
      schema['items'],
    ];
    result = children.some((c) => isMap(c) && mayHoldDefaults(catalog, c as Schema, server));
  }
  memo.set(field, result);
  return result;
}

function walk(
  value: Json | undefined,
  field: Schema | undefined,
  catalog: SchemaCatalog,
  server: boolean,
): void {
  if (!field || !mayHoldDefaults(catalog, field, server)) return;
  if (Array.isArray(value)) {
    const items = catalog.items(field);
    for (const el of value) walk(el, items, catalog, server);
    return;
  }
  if (!isMap(value)) return;
  const name = refName(catalog, field);
  if (name) defaultValue(value, name, catalog, server);
  const schema = catalog.resolve(field);
  const props = schema?.['properties'];
  if (!isMap(props)) return;
  for (const [k, v] of Object.entries(value)) {
    const sub = props[k];
    if (isMap(sub)) walk(v, sub as Schema, catalog, server);
  }
}

/**
 * Fills in the defaults of a built-in object in place, only where absent, walking the object along its
 * kind's schema in `catalog` (`definitionName`: its root definition; a kind the catalog does not define
 * gets none). `server`: also the 'server' rules (the embedded API server; the diff passes false).
 * Idempotent.
 */
export function applyDefaults(
  obj: JsonMap,
  catalog: SchemaCatalog,
  definitionName: string,
  server: boolean,
): void {
  let root = roots.get(definitionName);
  if (!root) roots.set(definitionName, (root = Object.freeze({ $ref: `#/definitions/${definitionName}` })));
  walk(obj, root, catalog, server);
}

/** The root schema of each definition, one object each (the key of `mayHoldDefaults`'s memo). */
const roots = new Map<string, Schema>();
