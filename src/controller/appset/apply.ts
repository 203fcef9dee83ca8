/**
 * One generated Application against the one in the cluster, as Argo CD's ApplicationSet controller writes
 * it (argo-cd `applicationset/controllers/applicationset_controller.go` createOrUpdateInCluster,
 * `applicationset/utils/createOrUpdate.go` CreateOrUpdate, `util/argo/argo.go` NormalizeApplicationSpec):
 *
 * - What is written: the generated spec; `operation` when the template sets one; labels, annotations and
 *   finalizers replaced by the generated ones, except the annotations kept from the live app (the set's
 *   `preservedFields.annotations`, the global list, and `notified.notifications.argoproj.io`,
 *   `argocd.argoproj.io/refresh`, `argocd.argoproj.io/hydrate`), the labels kept (`preservedFields.labels`,
 *   the global list) and the live PreDelete / PostDelete finalizers (prefix match); and the ApplicationSet
 *   as the controller owner reference (controllerutil.SetControllerReference: an app controlled by another
 *   owner is an error "Object <ns>/<name> is already owned by another ApplicationSet controller <name>").
 * - Compared after NormalizeApplicationSpec on both sides (project "" -> "default"; an empty syncPolicy,
 *   and empty kustomize / helm / directory of a source, dropped) and after the set's
 *   `ignoreApplicationDifferences` (jsonPointers / jqPathExpressions removed from both, for every app or the
 *   one named), with Go's zero-value equality (a field absent equals it at "", false, 0 or empty; nil
 *   equals empty for maps and lists). Equal: no write. Otherwise one JSON merge patch from the live object
 *   to the desired one, so ignored fields keep their live values.
 */
import { applyIgnores, compileIgnoreDifferences } from '../../diff/index.js';
import type { IgnoreDifference } from '../../diff/index.js';
import { finalizersOf, mergePatch, POST_DELETE_FINALIZER, PRE_DELETE_FINALIZER } from '../../apps/index.js';
import type { KubeObject } from '../../cluster/index.js';

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export const APPSET_API_VERSION = 'argoproj.io/v1alpha1';

export const DEFAULT_PRESERVED_ANNOTATIONS = [
  'notified.notifications.argoproj.io',
  'argocd.argoproj.io/refresh',
  'argocd.argoproj.io/hydrate',
];

export interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The name of the ApplicationSet that controls an Application (its controller owner reference), if any. */
export function controllerOwner(app: KubeObject): string | undefined {
  const refs = (app.metadata?.ownerReferences ?? []) as OwnerRef[];
  const c = refs.find((r) => r.controller === true);
  if (!c || c.apiVersion !== APPSET_API_VERSION || c.kind !== 'ApplicationSet') return undefined;
  return c.name;
}

/** Pointer fields of the Application type: their false / 0 is a value, not Go's zero (absent). */
const POINTER_FIELDS = new Set(['enabled', 'revisionHistoryLimit', 'factor']);

/** Drops Go zero values ("" / false / 0 / empty lists; empty maps only where Go has maps) for comparison. */
function zeroFree(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map((x) => zeroFree(x) ?? null);
  if (isMap(v)) {
    // Go maps (labels, annotations, helm values objects...) keep their "" values; nil equals empty.
    if (key === 'labels' || key === 'annotations') return Object.keys(v).length === 0 ? undefined : v;
    const out: Json = {};
    for (const [k, x] of Object.entries(v)) {
      const z = zeroFree(x, k);
      if (z !== undefined) out[k] = z;
    }
    return out;
  }
  if ((v === false || v === 0) && POINTER_FIELDS.has(key)) return v;
  if (v === '' || v === false || v === 0 || v === null || v === undefined) return undefined;
  return v;
}

const deepEmpty = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  v === '' ||
  v === false ||
  v === 0 ||
  (Array.isArray(v) && v.length === 0) ||
  (isMap(v) && Object.values(v).every(deepEmpty));

function normalizeSource(src: Json): Json {
  const out = { ...src };
  for (const k of ['kustomize', 'helm']) if (isMap(out[k]) && deepEmpty(out[k])) delete out[k];
  // ApplicationSourceDirectory.IsZero looks at recurse and jsonnet only: then include/exclude alone stay.
  const dir = out['directory'];
  if (isMap(dir) && !dir['recurse'] && deepEmpty(dir['jsonnet'])) {
    const kept: Json = {};
    if (dir['exclude']) kept['exclude'] = dir['exclude'];
    if (dir['include']) kept['include'] = dir['include'];
    if (Object.keys(kept).length === 0) delete out['directory'];
    else out['directory'] = kept;
  }
  return out;
}

/** NormalizeApplicationSpec. */
export function normalizeSpec(spec: unknown): Json {
  const out: Json = isMap(spec) ? structuredClone(spec) : {};
  if (!out['project']) out['project'] = 'default';
  // SyncPolicy.IsZero: no automated, syncOptions, retry or managedNamespaceMetadata.
  const sp = out['syncPolicy'];
  if (
    'syncPolicy' in out &&
    (!isMap(sp) ||
      (!isMap(sp['automated']) &&
        deepEmpty(sp['syncOptions']) &&
        !isMap(sp['retry']) &&
        !isMap(sp['managedNamespaceMetadata'])))
  )
    delete out['syncPolicy'];
  if (Array.isArray(out['sources']) && out['sources'].length > 0)
    out['sources'] = out['sources'].map((s) => (isMap(s) ? normalizeSource(s) : s));
  else if (isMap(out['source'])) out['source'] = normalizeSource(out['source']);
  return out;
}

export interface DesiredOptions {
  appset: KubeObject;
  preservedAnnotations: readonly string[];
  preservedLabels: readonly string[];
}

/**
 * The Application to write: the live one (or a new one) with the generated fields, as the mutate function
 * of createOrUpdateInCluster sets them. Throws when another controller owns the live app.
 */
export function desiredApplication(
  found: KubeObject | undefined,
  generated: KubeObject,
  o: DesiredOptions,
): KubeObject {
  const gmeta = generated.metadata ?? {};
  const fmeta = found?.metadata ?? {};
  const annotations: Record<string, string> = { ...(gmeta.annotations ?? {}) };
  const labels: Record<string, string> = { ...(gmeta.labels ?? {}) };
  const finalizers = [...finalizersOf(generated)];
  for (const key of [...o.preservedAnnotations, ...DEFAULT_PRESERVED_ANNOTATIONS]) {
    const v = fmeta.annotations?.[key];
    if (v !== undefined) annotations[key] = v;
  }
  for (const key of o.preservedLabels) {
    const v = fmeta.labels?.[key];
    if (v !== undefined) labels[key] = v;
  }
  for (const prefix of [PRE_DELETE_FINALIZER, POST_DELETE_FINALIZER])
    for (const f of found ? finalizersOf(found) : []) if (f.startsWith(prefix)) finalizers.push(f);
  const name = String(o.appset.metadata?.name ?? '');
  const ref: OwnerRef = {
    apiVersion: APPSET_API_VERSION,
    kind: 'ApplicationSet',
    name,
    uid: String(o.appset.metadata?.uid ?? ''),
    controller: true,
    blockOwnerDeletion: true,
  };
  const refs = [...((fmeta.ownerReferences ?? []) as OwnerRef[])];
  const current = refs.find((r) => r.controller === true);
  const same = (r: OwnerRef): boolean =>
    r.apiVersion.split('/')[0] === 'argoproj.io' && r.kind === 'ApplicationSet' && r.name === name;
  if (current && !same(current))
    throw new Error(
      `Object ${fmeta.namespace ?? gmeta.namespace}/${fmeta.name ?? gmeta.name} is already owned by another ${current.kind} controller ${current.name}`,
    );
  const at = refs.findIndex(same);
  if (at >= 0) refs[at] = ref;
  else refs.push(ref);
  const metadata: Json = {
    ...(found ? fmeta : { name: gmeta.name, namespace: gmeta.namespace }),
    ownerReferences: refs,
  };
  // Replaced, not merged (found.Annotations = generatedApp.Annotations, ...): empty ones go away.
  for (const [k, v] of [
    ['labels', labels],
    ['annotations', annotations],
  ] as const) {
    if (Object.keys(v).length > 0) metadata[k] = v;
    else delete metadata[k];
  }
  if (finalizers.length > 0) metadata['finalizers'] = finalizers;
  else delete metadata['finalizers'];
  const out: Json = {
    ...(found ?? { apiVersion: APPSET_API_VERSION, kind: 'Application' }),
    metadata,
    // As Go serializes the typed spec: zero values of omitempty fields are not written.
    spec: zeroFree(normalizeSpec((generated as Json)['spec'])) ?? {},
  };
  if ((generated as Json)['operation'] !== undefined) out['operation'] = (generated as Json)['operation'];
  return out as KubeObject;
}

/** `spec.ignoreApplicationDifferences` as Argo CD builds it (ToApplicationIgnoreDifferences). */
export function ignoreRules(appset: KubeObject): IgnoreDifference[] {
  const spec = (appset as Json)['spec'];
  const list =
    isMap(spec) && Array.isArray(spec['ignoreApplicationDifferences'])
      ? spec['ignoreApplicationDifferences']
      : [];
  return list.filter(isMap).map((r) => ({
    group: 'argoproj.io',
    kind: 'Application',
    ...(typeof r['name'] === 'string' && r['name'] ? { name: r['name'] } : {}),
    ...(Array.isArray(r['jsonPointers']) ? { jsonPointers: r['jsonPointers'].map(String) } : {}),
    ...(Array.isArray(r['jqPathExpressions'])
      ? { jqPathExpressions: r['jqPathExpressions'].map(String) }
      : {}),
  }));
}

/** The fields the ApplicationSet controller owns, zero values dropped, ignored differences removed. */
function comparable(obj: KubeObject, rules: readonly IgnoreDifference[]): Json {
  const m = obj.metadata ?? {};
  const doc: Json = {
    metadata: {
      labels: m.labels,
      annotations: m.annotations,
      finalizers: finalizersOf(obj),
      ownerReferences: m.ownerReferences,
    },
    spec: normalizeSpec((obj as Json)['spec']),
    operation: (obj as Json)['operation'],
  };
  const name = String(m.name ?? '');
  const matched = compileIgnoreDifferences(rules, 'spec.ignoreApplicationDifferences').filter(
    (r) => !r.rule.name || r.rule.name === name,
  );
  if (matched.length > 0) applyIgnores(doc as never, matched);
  return (zeroFree(doc) as Json | undefined) ?? {};
}

/** The merge patch from the live Application to the desired one, or undefined when they are equivalent. */
export function applicationPatch(
  live: KubeObject,
  desired: KubeObject,
  rules: readonly IgnoreDifference[],
): Json | undefined {
  return mergePatch(comparable(live, rules), comparable(desired, rules)) as Json | undefined;
}

/** Whether the specs are equivalent (utils.SpecsEquivalent: normalized, ignored differences removed). */
export function specsEquivalent(
  live: KubeObject,
  desired: KubeObject,
  rules: readonly IgnoreDifference[],
): boolean {
  const a = comparable(live, rules)['spec'];
  const b = comparable(desired, rules)['spec'];
  return mergePatch(a ?? {}, b ?? {}) === undefined;
}
