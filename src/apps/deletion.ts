/**
 * Cascading deletion of an Application's resources (Argo CD 3.6 controller/appcontroller.go
 * finalizeApplicationDeletion, shouldBeDeleted; controller/sort_delete.go FilterObjectsForDeletion).
 *
 * An Application being deleted (`metadata.deletionTimestamp`) with one of the propagation finalizers
 * `resources-finalizer.argocd.argoproj.io` (foreground), `.../foreground` or `.../background` has its
 * managed live resources deleted before the finalizer is removed; without one it is just forgotten.
 * `deletionStep(app, live)` decides one step, pure, from the app's managed live objects (tracked by the app,
 * no ownerReferences, permitted by its project: the caller's to gather):
 * - any of them already terminating (deletionTimestamp): wait (`waiting`), delete nothing;
 * - those that should be deleted: not a CustomResourceDefinition, not the Application itself (an app that
 *   manages itself), no `Delete=false` sync option (the object's `argocd.argoproj.io/sync-options`
 *   annotation, else the app's `spec.syncPolicy.syncOptions`), no `helm.sh/resource-policy: keep`;
 *   `Delete=confirm` or `Prune=confirm` (object, else app; isObjRequiresDeletionConfirmation) on one of them
 *   without `argocd.argoproj.io/deletion-approved` at or after the
 *   deletion time: wait for approval;
 * - of those, the highest sync wave goes first (`delete`), with propagation Foreground, or Background for
 *   the `/background` finalizer; the caller deletes them and asks again later;
 * - none left to delete: `done`, the propagation finalizer comes off (`finalizers` is what remains).
 */
import type { KubeObject } from '../util/yaml-docs.js';

export const RESOURCES_FINALIZER = 'resources-finalizer.argocd.argoproj.io';
export const FOREGROUND_FINALIZER = 'resources-finalizer.argocd.argoproj.io/foreground';
export const BACKGROUND_FINALIZER = 'resources-finalizer.argocd.argoproj.io/background';
const PROPAGATION_FINALIZERS = [RESOURCES_FINALIZER, FOREGROUND_FINALIZER, BACKGROUND_FINALIZER];
const SYNC_OPTIONS_ANNOTATION = 'argocd.argoproj.io/sync-options';
const DELETION_APPROVED_ANNOTATION = 'argocd.argoproj.io/deletion-approved';
const HELM_RESOURCE_POLICY = 'helm.sh/resource-policy';
const SYNC_WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';

export type DeletionStep =
  | { kind: 'not-cascading'; finalizers: string[] }
  | { kind: 'waiting'; reason: string }
  | { kind: 'delete'; objects: KubeObject[]; propagation: 'Foreground' | 'Background' }
  | { kind: 'done'; finalizers: string[] }
  /** A stage of PreDelete / PostDelete hooks ran (delete-hooks.ts): what it did or waits for. */
  | { kind: 'hooks'; stage: string; reason: string };

/** The app as this step reads it: its manifest (metadata, spec) and parsed app-level sync options. */
export interface DeletingApp {
  manifest: KubeObject;
  /** `spec.syncPolicy.syncOptions` parsed (Key -> value). */
  syncOptions: Readonly<Record<string, string>>;
}

export function isDeleting(manifest: KubeObject): boolean {
  return Boolean(manifest.metadata?.deletionTimestamp);
}

export function cascades(manifest: KubeObject): boolean {
  return finalizersOf(manifest).some((f) => PROPAGATION_FINALIZERS.includes(f));
}

export function finalizersOf(manifest: KubeObject): string[] {
  const f = manifest.metadata?.['finalizers'];
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === 'string') : [];
}

function optionOf(obj: KubeObject, key: string): string | undefined {
  const csv = obj.metadata?.annotations?.[SYNC_OPTIONS_ANNOTATION] ?? '';
  for (const entry of csv.split(',')) {
    const eq = entry.indexOf('=');
    if (eq > 0 && entry.slice(0, eq).trim() === key) return entry.slice(eq + 1).trim();
  }
  return undefined;
}

function waveOf(obj: KubeObject): number {
  const n = Number.parseInt(obj.metadata?.annotations?.[SYNC_WAVE_ANNOTATION] ?? '', 10);
  return Number.isFinite(n) ? n : 0;
}

function isSelf(app: DeletingApp, obj: KubeObject): boolean {
  return (
    obj.kind === 'Application' &&
    (obj.apiVersion ?? '').startsWith('argoproj.io/') &&
    obj.metadata?.name === app.manifest.metadata?.name &&
    obj.metadata?.namespace === app.manifest.metadata?.namespace
  );
}

/** shouldBeDeleted (appcontroller.go). */
export function shouldBeDeleted(app: DeletingApp, obj: KubeObject): boolean {
  const isCRD =
    obj.kind === 'CustomResourceDefinition' && (obj.apiVersion ?? '').startsWith('apiextensions.k8s.io/');
  const del = optionOf(obj, 'Delete') ?? app.syncOptions['Delete'];
  const keep = (obj.metadata?.annotations?.[HELM_RESOURCE_POLICY] ?? '')
    .split(',')
    .some((v) => v.trim() === 'keep');
  return !isCRD && !isSelf(app, obj) && del !== 'false' && !keep;
}

/** One step of the cascading deletion (see the header). */
export function deletionStep(app: DeletingApp, live: readonly KubeObject[]): DeletionStep {
  const finalizers = finalizersOf(app.manifest);
  const policy = finalizers.find((f) => PROPAGATION_FINALIZERS.includes(f));
  const rest = finalizers.filter((f) => !PROPAGATION_FINALIZERS.includes(f));
  if (!policy) return { kind: 'not-cascading', finalizers };
  const terminating = live.filter((o) => o.metadata?.deletionTimestamp);
  if (terminating.length > 0)
    return { kind: 'waiting', reason: `${terminating.length} objects remaining for deletion` };
  const doomed = live.filter((o) => shouldBeDeleted(app, o));
  if (doomed.length === 0) return { kind: 'done', finalizers: rest };
  const approved = app.manifest.metadata?.annotations?.[DELETION_APPROVED_ANNOTATION];
  const deletedAt = Date.parse(app.manifest.metadata?.deletionTimestamp ?? '');
  const isApproved = approved !== undefined && Date.parse(approved) >= deletedAt;
  const needsConfirm = doomed.find(
    (o) =>
      (optionOf(o, 'Delete') ?? app.syncOptions['Delete']) === 'confirm' ||
      (optionOf(o, 'Prune') ?? app.syncOptions['Prune']) === 'confirm',
  );
  if (needsConfirm && !isApproved)
    return {
      kind: 'waiting',
      reason: `${needsConfirm.kind} ${needsConfirm.metadata?.name ?? ''} requires manual confirmation to delete (annotate the Application ${DELETION_APPROVED_ANNOTATION})`,
    };
  const top = Math.max(...doomed.map(waveOf));
  return {
    kind: 'delete',
    objects: doomed.filter((o) => waveOf(o) === top),
    propagation: policy === BACKGROUND_FINALIZER ? 'Background' : 'Foreground',
  };
}
