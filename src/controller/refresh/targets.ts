/**
 * Desired-state normalization before pairing with live (spec §2.1-2.2, Argo CD `NormalizeTargetObjects`):
 * - hooks (`argocd.argoproj.io/hook`, Helm hooks) and ignored hook objects are set aside (gitops-engine
 *   `splitHooks`); `hook: Skip` targets stay, marked `skip`: they are listed with no sync status and never
 *   affect the app;
 * - excluded kinds are dropped with an ExcludedResourceWarning;
 * - namespaced objects (and objects of a kind the cluster does not serve, scope unknown) without a
 *   namespace get the destination namespace; cluster-scoped objects lose any namespace; the tracking is
 *   stamped again after either change; a namespaced object (of a served kind) left with no namespace, because
 *   the app has no destination namespace either, gets Argo CD's InvalidSpecError condition
 *   "Namespace for <name> <group>/<version>, Kind=<kind> is missing." (`controller/state.go CompareAppState`)
 *   and stays listed;
 * - a managed namespace (`CreateNamespace=true` with `managedNamespaceMetadata`) whose live Namespace is
 *   tracked by the app is added as a target Namespace carrying that metadata (and the server-side apply
 *   sync option), unless Git has it, so it is not extra;
 * - tracking follows the method: `annotation` keeps the tracking-id the renderer stamped, `label` replaces
 *   it by the instance label, `annotation+label` adds the label (value cut to 63 characters); with the
 *   annotation methods, argocd-cm's `installationID` is stamped as `argocd.argoproj.io/installation-id`
 *   (and a Git copy of that annotation removed when none is set), as Argo CD's `SetAppInstance`.
 */
import { INSTALLATION_ID_ANNOTATION, parseApiVersion } from '../../cluster/index.js';
import type { Application } from '../../apps/index.js';
import type { KubeObject, ResourceKey, TrackingMethod } from '../../cluster/index.js';
import { isHook, isIgnored, isSkip } from '../../health/index.js';
import { TRACKING_ANNOTATION, trackingId } from '../../source/index.js';
import type { ClusterState, ServedKind } from './cluster.js';
import type { AppCondition } from './types.js';
import { SYNC_OPTIONS_ANNOTATION } from '../../sync/index.js';

export interface Target {
  obj: KubeObject;
  key: ResourceKey;
  version: string;
  /** Undefined when the cluster does not serve the kind. */
  served: ServedKind | undefined;
  /** `argocd.argoproj.io/hook: Skip`: listed, never compared, applied or pruned. */
  skip?: boolean;
}

export interface TargetOptions {
  destNamespace: string;
  instance: string;
  trackingMethod: TrackingMethod;
  instanceLabelKey: string;
  /** argocd-cm `installationID`: stamped as `argocd.argoproj.io/installation-id` with the tracking-id. */
  installationId?: string | undefined;
  cluster: ClusterState;
  signal?: AbortSignal | undefined;
}

/** Argo CD's label value: at most 63 characters, trailing non-alphanumerics cut. */
export function instanceLabelValue(instance: string): string {
  return instance.length <= 63 ? instance : instance.slice(0, 63).replace(/[^A-Za-z0-9]+$/, '');
}

/** The object with the app's tracking (annotation and/or label) stamped; CRDs are left unstamped. */
export function withTracking(
  obj: KubeObject,
  o: Pick<
    TargetOptions,
    'instance' | 'destNamespace' | 'trackingMethod' | 'instanceLabelKey' | 'installationId'
  >,
): KubeObject {
  const isCRD =
    obj.kind === 'CustomResourceDefinition' && obj.apiVersion?.startsWith('apiextensions.k8s.io/');
  if (isCRD) return obj;
  const meta = { ...(obj.metadata ?? {}) };
  const annotations = { ...(meta.annotations ?? {}) };
  const labels = { ...(meta.labels ?? {}) };
  delete annotations[TRACKING_ANNOTATION];
  if (o.trackingMethod !== 'label') {
    annotations[TRACKING_ANNOTATION] = trackingId(o.instance, obj, o.destNamespace);
    // SetAppInstance: the installation id goes with the tracking-id, and is removed when none is set.
    if (o.installationId) annotations[INSTALLATION_ID_ANNOTATION] = o.installationId;
    else delete annotations[INSTALLATION_ID_ANNOTATION];
  }
  if (o.trackingMethod !== 'annotation') labels[o.instanceLabelKey] = instanceLabelValue(o.instance);
  meta.annotations = annotations;
  if (Object.keys(labels).length > 0) meta.labels = labels;
  return { ...obj, metadata: meta };
}

export async function prepareTargets(
  objects: readonly KubeObject[],
  o: TargetOptions,
): Promise<{ targets: Target[]; conditions: AppCondition[] }> {
  const conditions: AppCondition[] = [];
  const targets: Target[] = [];
  for (const original of objects) {
    if (isHook(original) || isIgnored(original)) continue;
    const { group, version } = parseApiVersion(original.apiVersion ?? '');
    const kind = original.kind ?? '';
    if (o.cluster.isExcluded({ group, kind })) {
      conditions.push({
        type: 'ExcludedResourceWarning',
        // Argo CD's text (controller/state.go): "Resource <group>/<kind> <name> is excluded in the settings".
        message: `Resource ${group}/${kind} ${original.metadata?.name ?? ''} is excluded in the settings`,
      });
      continue;
    }
    const served = await o.cluster.kind({ group, version, kind }, o.signal);
    const namespaced = served ? served.info.namespaced : true;
    const namespace = namespaced ? original.metadata?.namespace || o.destNamespace : '';
    const placed: KubeObject = { ...original, metadata: { ...(original.metadata ?? {}) } };
    if (namespace) placed.metadata!.namespace = namespace;
    else delete placed.metadata!.namespace;
    if (!namespace && served?.info.namespaced) {
      // Go's GroupVersionKind.String(): "<group>/<version>, Kind=<kind>" (the core group leaves "/v1").
      conditions.push({
        type: 'InvalidSpecError',
        message: `Namespace for ${original.metadata?.name ?? ''} ${group}/${version}, Kind=${kind} is missing.`,
      });
    }
    const obj = withTracking(placed, o);
    targets.push({
      obj,
      key: { group, kind, namespace, name: obj.metadata?.name ?? '' },
      version,
      served,
      ...(isSkip(original) ? { skip: true } : {}),
    });
  }
  return { targets, conditions };
}

/** The rendered objects plus the managed namespace of the app, when it has one (see the header). */
export function withManagedNamespace(
  app: Application,
  objects: readonly KubeObject[],
  /** Whether the live Namespace of that name is tracked by this app. */
  trackedLive: (name: string) => boolean,
): KubeObject[] {
  const meta = app.syncPolicy.managedNamespaceMetadata;
  const name = app.destination.namespace;
  if (!meta || app.syncPolicy.options['CreateNamespace'] !== 'true' || !name) return [...objects];
  // Argo CD compares a managed namespace only when its live Namespace is tracked by the app (controller/
  // state.go isManagedNamespace): the sync does not stamp tracking on it (argo-cd issue 11196), so it is
  // usually neither listed nor extra.
  if (!trackedLive(name)) return [...objects];
  const inGit = objects.some(
    (o) =>
      o.kind === 'Namespace' && parseApiVersion(o.apiVersion ?? '').group === '' && o.metadata?.name === name,
  );
  if (inGit) return [...objects];
  const metadata: KubeObject['metadata'] = { name };
  if (Object.keys(meta.labels).length > 0) metadata.labels = { ...meta.labels };
  // syncNamespace (controller/sync_namespace.go): the metadata, applied server-side.
  metadata.annotations = { ...meta.annotations, [SYNC_OPTIONS_ANNOTATION]: 'ServerSideApply=true' };
  return [...objects, { apiVersion: 'v1', kind: 'Namespace', metadata }];
}

/**
 * The rendered hooks (any hook type but `Skip`; ignored hook objects left out) placed in the destination
 * namespace when their kind is namespaced. Tracking is stamped by the sync planner once a `generateName`
 * hook has its final name.
 */
export async function prepareHooks(objects: readonly KubeObject[], o: TargetOptions): Promise<Target[]> {
  const hooks: Target[] = [];
  for (const original of objects) {
    if (!isHook(original) || isIgnored(original)) continue;
    const { group, version } = parseApiVersion(original.apiVersion ?? '');
    const kind = original.kind ?? '';
    const served = await o.cluster.kind({ group, version, kind }, o.signal);
    const namespaced = served ? served.info.namespaced : true;
    const namespace = namespaced ? original.metadata?.namespace || o.destNamespace : '';
    const obj: KubeObject = { ...original, metadata: { ...(original.metadata ?? {}) } };
    if (namespace) obj.metadata!.namespace = namespace;
    else delete obj.metadata!.namespace;
    hooks.push({ obj, key: { group, kind, namespace, name: obj.metadata?.name ?? '' }, version, served });
  }
  return hooks;
}
