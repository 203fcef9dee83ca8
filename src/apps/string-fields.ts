import { registerKeepTextSource } from '../util/yaml-docs.js';

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
  // ObjectMeta, OwnerReference
  'generation',
  'deletionGracePeriodSeconds',
  'controller',
  'blockOwnerDeletion',
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

/**
 * `KeepScalarText` wherever Argo CD manifests are read (app files, manifests rendered from Git for an
 * app-of-apps, ApplicationSet files): Application string fields, and in an ApplicationSet the same fields of
 * its Application templates (`spec.template` and a generator's own `template`, at any depth of matrix and
 * merge generators) and its metadata. Generator parameters (list `elements`, ...) are left as YAML reads
 * them: Argo CD stores them as raw JSON, so `version: 1.10` there is the number 1.1 in Argo CD too.
 */
export function argoCdStringField(
  kind: string,
  path: readonly (string | number)[],
  apiVersion: string,
): boolean {
  // Only Argo CD's kinds: other tools' `Application`s (KubeVela's core.oam.dev, app.k8s.io) keep their
  // numbers and booleans. An object with no apiVersion is judged by its kind (an app file may omit it).
  if (apiVersion !== '' && !apiVersion.startsWith('argoproj.io/')) return false;
  if (kind === 'Application') return applicationFieldIsString(path);
  if (kind !== 'ApplicationSet') return false;
  if (path[0] === 'metadata') return applicationFieldIsString(path);
  if (path[0] !== 'spec') return false;
  // The innermost `template` that is a key of spec or of a generator (not a field inside a template).
  for (let i = path.length - 2; i >= 1; i--) {
    if (path[i] !== 'template') continue;
    const inSpec = i === 1;
    const inGenerator = i >= 3 && typeof path[i - 2] === 'number' && path[i - 3] === 'generators';
    if (inSpec || inGenerator) return applicationFieldIsString(path.slice(i + 1));
  }
  return false;
}

registerKeepTextSource(argoCdStringField, import.meta.url);

/** `KeepScalarText` for a rendered ApplicationSet `templatePatch`: a partial Application with no kind. */
export function applicationPatchStringField(_kind: string, path: readonly (string | number)[]): boolean {
  return applicationFieldIsString(path);
}

/** Is the field at `path` of an Application (from its top: metadata, spec, ...) typed as a string? */
function applicationFieldIsString(path: readonly (string | number)[]): boolean {
  const top = path[0];
  if (path.length === 1) return top === 'apiVersion' || top === 'kind';
  if (top !== 'metadata' && top !== 'spec') return false;
  if (path.some((p) => typeof p === 'string' && FREE_FORM.has(p))) return false;
  const last = [...path].reverse().find((p): p is string => typeof p === 'string');
  const inStringMap = path.some((p) => typeof p === 'string' && STRING_MAPS.has(p));
  return inStringMap || last === undefined || !NOT_STRING.has(last);
}
