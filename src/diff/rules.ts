/**
 * The normalization rules of the diff module as data (design practice 7). Schema facts (merge keys, list
 * shapes, quantity fields, defaults) are not here: they come from src/schema, the one source the embedded
 * API server reads too, through the `SchemaLookup` the caller passes (compare.ts).
 *
 * - SERVER_METADATA: metadata fields the API server owns; dropped from both sides.
 * - BUILT_IN_GROUPS: the groups whose kinds are Kubernetes' own (typed: strategic merge, defaults).
 * - mergeKeyFor: lists merged element by element by a strategic-merge patch (three-way diff and
 *   kubectl-style apply) in built-in kinds, from Kubernetes' published OpenAPI; every other list is atomic
 *   (Argo CD merges custom resources with a JSON merge patch).
 *
 * Numeric strings in integer or int-or-string fields (`containerPort: "8080"`) are never turned into
 * numbers: Argo CD's typed remarshal fails on them and keeps the object as written, so they differ from
 * the live integer (and the API server would reject most of them), as gitops-engine `diff.go remarshal`.
 */
import { builtinCatalog } from '../schema/index.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
import { INSTANCE_LABEL, OWN_FIELD_MANAGERS } from '../common/index.js';

export { TRACKING_ID_ANNOTATION } from '../common/index.js';
export const DEFAULT_INSTANCE_LABEL = INSTANCE_LABEL;
/** The managers the comparison counts as ours unless told otherwise (the controller's, as in a run). */
export const DEFAULT_FIELD_MANAGERS: readonly string[] = OWN_FIELD_MANAGERS;

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
