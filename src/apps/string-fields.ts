/**
 * Which fields of an Application manifest Argo CD types as strings (pkg/apis/application/v1alpha1/types.go:
 * ApplicationSpec, ApplicationSource and its helm/kustomize/directory/plugin parts, ApplicationDestination,
 * SyncPolicy, ResourceIgnoreDifferences, Info; ObjectMeta), so that an unquoted `targetRevision: 1.10`,
 * `chart: 010` or `version: 1e3` in an app file keeps the text as written (`yaml-docs` `keepText`). YAML
 * 1.2 would read them as 1.1, 10 and 1000; a revision or chart version read as a number names another
 * revision. Every leaf under `metadata` and `spec` is a string except the booleans and integers listed
 * here, `helm.valuesObject` (free-form YAML) and kustomize patch `options` (booleans).
 */
const NOT_STRING = new Set([
  // ObjectMeta
  'generation',
  'deletionGracePeriodSeconds',
  // ApplicationSpec, SyncPolicy, RetryStrategy, Backoff
  'revisionHistoryLimit',
  'prune',
  'selfHeal',
  'allowEmpty',
  'enabled',
  'limit',
  'factor',
  'refresh',
  // ApplicationSourceHelm, HelmParameter
  'forceString',
  'ignoreMissingValueFiles',
  'skipCrds',
  'skipSchemaValidation',
  'passCredentials',
  'skipTests',
  // ApplicationSourceKustomize, KustomizeReplica (count is int-or-string)
  'forceCommonLabels',
  'forceCommonAnnotations',
  'commonAnnotationsEnvsubst',
  'labelWithoutSelector',
  'labelIncludeTemplates',
  'ignoreMissingComponents',
  'count',
  // ApplicationSourceDirectory, JsonnetVar
  'recurse',
  'code',
]);

/** Maps of strings whatever their keys are called. */
const STRING_MAPS = new Set(['labels', 'annotations', 'commonLabels', 'commonAnnotations']);

/** Subtrees that are not typed as strings at all. */
const FREE_FORM = new Set(['valuesObject', 'managedFields', 'options']);

/** `KeepScalarText` for app files: Application string fields (see the header). */
export function applicationStringField(kind: string, path: readonly (string | number)[]): boolean {
  if (kind !== 'Application') return false;
  const top = path[0];
  if (path.length === 1) return top === 'apiVersion' || top === 'kind';
  if (top !== 'metadata' && top !== 'spec') return false;
  if (path.some((p) => typeof p === 'string' && FREE_FORM.has(p))) return false;
  const last = [...path].reverse().find((p): p is string => typeof p === 'string');
  const inStringMap = path.some((p) => typeof p === 'string' && STRING_MAPS.has(p));
  return inStringMap || last === undefined || !NOT_STRING.has(last);
}
