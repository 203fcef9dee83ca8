/**
 * Diff: the pure comparison of one (target, live) pair, as Argo CD's controller does it (spec §3-4), plus
 * its helpers (ignoreDifferences, Secret masking, unified diff text). No I/O except the
 * `--ignore-differences-file` loader.
 *
 * Guarantees
 * - Two steps, never mutating their inputs: `compareObjects` (the comparison: status Synced | OutOfSync,
 *   difference none | modified | missing | extra, the unmasked normalizedTarget (= predicted live) and
 *   normalizedLive, for the controller's reconciliation, which sync and health read), then
 *   `reportComparison` (the report: json-diff-ts `changes` live -> target and `diffText`, unified, live
 *   "-", Git "+", built from masked copies). `compareResource` is both in one call.
 * - A report never holds a Secret value: Secret `data` (with `stringData` merged in as base64) and
 *   sensitive annotations are masked with runs of "+" (8, 12, 16... per distinct value of a key across
 *   target and live) before `changes` and `diffText` are built. The last-applied annotation (which may
 *   hold Secret values) is always dropped from both.
 * - Missing live: OutOfSync/missing, normalizedTarget = normalized target. Missing target: OutOfSync/extra
 *   (the caller decides about pruning, IgnoreExtraneous and self-reference).
 *
 * Normalization (both sides): server-owned metadata (uid, resourceVersion, generation, creationTimestamp,
 * managedFields, selfLink, deletionTimestamp, deletionGracePeriodSeconds), the last-applied annotation,
 * `status` (option ignoreResourceStatusField: all (default) | crd | none); Secret stringData -> data, null
 * data -> ""; Role/ClusterRole empty rules; Endpoints order; tracking migration (live carrying the
 * instance label takes the target's tracking-id; the label goes when the target lacks it; not in `label`
 * mode); quantities canonical (`1000m` = `1`, `1024Mi` = `1Gi`; every field the schema types as a
 * Quantity); numeric strings stay strings (`containerPort: "8080"` differs from 8080, as in Argo CD);
 * null and empty maps/lists = missing (except argo-cd#15898, quirks.ts: an empty `metadata.labels` in Git on
 * a kind outside the typed scheme stays OutOfSync in a three-/two-way diff, with a `note`); API-server defaults of built-in
 * kinds (src/schema's defaults table) applied to both after the merge.
 *
 * Strategy (Argo CD's `Diff`, `diffStrategy`): structured-merge when `structuredMergeDiff` (the app's
 * ServerSideApply=true) or the target's `argocd.argoproj.io/sync-options` says ServerSideApply=true:
 * original = the fields owned by the managedFields entries of `fieldManagers` (default
 * `argocd-controller`); else three-way: original = the last-applied-configuration annotation; else
 * two-way: original = target. With `predictedLive` (a server-side dry-run answer) the strategy is
 * server-side: that answer, without what mutating webhooks added unless `includeMutationWebhook`
 * (webhook.ts), is compared with live as it is. `CompareResult.strategy` names the one used. A field present live but absent from the target is a difference only when the original has
 * it (we or kubectl applied it, and Git no longer has it); otherwise it was added by the server or
 * another controller and is kept on both sides. In three- and two-way diff, list elements of built-in
 * kinds merge by their strategic-merge key (containers by name, ports by containerPort/port, env by
 * name, ...) with the same rule; in structured-merge diff, every list the kind's schema makes a map
 * (`x-kubernetes-list-map-keys`, custom resources included: the `schemas` option) merges by those keys;
 * other lists are atomic and equal when the live list minus the fields the original's elements lack
 * equals the target list. The target's namespace is not compared (removeNamespaceAnnotation).
 *
 * Schema facts (list shapes, quantity fields, defaults) come from src/schema through the `schemas` option
 * (a `SchemaLookup`: the cluster's schemas with its CRDs and argocd-cm knownTypeFields; default Kubernetes'
 * published schemas alone).
 *
 * ignoreDifferences: rules match by group/kind glob and exact name/namespace; jsonPointers and
 * jqPathExpressions (jq.ts subset; unsupported syntax is a UsageError naming the expression) are removed
 * from target, live and last-applied; managedFieldsManagers' fields are removed from all three.
 * Callers concatenate the app's rules and the file's (`loadIgnoreDifferencesFile`) into one list.
 *
 * Caller duties: targets are already namespaced and tracking-stamped as sync would apply them; live
 * objects are at the target's apiVersion (the live cache converts); pass the same rules array for every
 * resource of an app (compiled rules are cached per array).
 */
export {
  compareObjects,
  compareResource,
  describeResource,
  diffStrategy,
  reportComparison,
  resolveOptions,
} from './compare.js';
export {
  IGNORE_DIFFERENCES_ANNOTATION,
  annotationIgnores,
  applyIgnores,
  compileIgnoreDifferences,
  loadIgnoreDifferencesFile,
  matchIgnores,
  parseIgnoreDifferences,
  validateIgnoreDifferences,
} from './ignore.js';
export { parseJq, jqDelete, jqPaths } from './jq.js';
export { respectIgnoredFields } from './respect.js';
export { maskSecrets } from './mask.js';
export { ServerSideDiffError } from './webhook.js';
export { EMPTY_LABELS_NOTE } from './quirks.js';
export { BUILT_IN_GROUPS, LAST_APPLIED_ANNOTATION, mergeKeyFor } from './rules.js';
export { isMap, deepEqual, sortKeys } from './paths.js';
export { canonicalQuantity, formatQuantity, parseQuantity } from '../schema/index.js';
export { toYaml, unifiedDiff } from './unified.js';
export type { UnifiedOptions } from './unified.js';
export type { JqProgram } from './jq.js';
export type { CompiledIgnore, ResourceIdentity } from './ignore.js';
export type {
  CompareInput,
  CompareOptions,
  CompareResult,
  Difference,
  DiffStrategy,
  IChange,
  IgnoreDifference,
  Json,
  JsonMap,
  ReportOptions,
  ResourceComparison,
  StatusFieldMode,
  SyncStatus,
  TrackingMethod,
} from './types.js';
