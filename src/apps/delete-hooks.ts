/**
 * PreDelete and PostDelete hooks: which objects they are, the finalizers Argo CD puts on the Application
 * for them, and the order of the deletion stages (Argo CD 3.6 controller/hook.go, appcontroller.go
 * processAppRefreshQueueItem and finalizeApplicationDeletion; pkg/apis/application/v1alpha1/types.go).
 *
 * - A PreDelete hook is an object whose `argocd.argoproj.io/hook` lists `PreDelete` (or `helm.sh/hook`
 *   lists `pre-delete`); PostDelete likewise (`PostDelete`, `post-delete`). They are never synced (unless
 *   they also name a sync phase) and never compared.
 * - `deleteHookFinalizers(finalizers, has)`: after a refresh of an app not being deleted, an app whose
 *   render has PreDelete hooks carries `pre-delete-finalizer.argocd.argoproj.io` and
 *   `pre-delete-finalizer.argocd.argoproj.io/cleanup` (PostDelete: `post-delete-finalizer...` and its
 *   `/cleanup`); one whose render has none carries neither. Returns the new list (appended at the end, as
 *   setFinalizer does), or undefined when nothing changes.
 * - `deletionStage(finalizers)`: what finalizeApplicationDeletion does next, in its order: `pre-delete`
 *   (run the PreDelete hooks; when done the finalizer comes off and the cascade follows in the same
 *   step), `cascade` (delete the resources: deletion.ts), `post-delete` (run the PostDelete hooks),
 *   `pre-delete-cleanup`, `post-delete-cleanup` (delete the hooks by their delete policies), or `none`.
 */
import type { KubeObject } from '../util/yaml-docs.js';
import { cascades, finalizersOf } from './deletion.js';

export const PRE_DELETE_FINALIZER = 'pre-delete-finalizer.argocd.argoproj.io';
export const POST_DELETE_FINALIZER = 'post-delete-finalizer.argocd.argoproj.io';
export const CLEANUP_STAGE = 'cleanup';

export type DeleteHookType = 'PreDelete' | 'PostDelete';

const HOOK_ANNOTATION = 'argocd.argoproj.io/hook';
const HELM_HOOK_ANNOTATION = 'helm.sh/hook';
const HELM_VALUE: Record<DeleteHookType, string> = { PreDelete: 'pre-delete', PostDelete: 'post-delete' };

/** hook.go isHookOfType: the Argo CD or Helm hook annotation lists the type. */
export function isDeleteHook(obj: KubeObject, type: DeleteHookType): boolean {
  const a = obj.metadata?.annotations ?? {};
  const has = (key: string, value: string): boolean =>
    (a[key] ?? '')
      .split(',')
      .map((v) => v.trim())
      .includes(value);
  return has(HOOK_ANNOTATION, type) || has(HELM_HOOK_ANNOTATION, HELM_VALUE[type]);
}

/** Whether the rendered objects hold PreDelete / PostDelete hooks (partitionTargetObjsForSync). */
export function deleteHooksOf(objects: readonly KubeObject[]): { pre: boolean; post: boolean } {
  return {
    pre: objects.some((o) => isDeleteHook(o, 'PreDelete')),
    post: objects.some((o) => isDeleteHook(o, 'PostDelete')),
  };
}

/** The finalizers after a refresh (see the header); undefined when unchanged. */
export function deleteHookFinalizers(
  finalizers: readonly string[],
  has: { pre: boolean; post: boolean },
): string[] | undefined {
  let out = [...finalizers];
  for (const [name, wanted] of [
    [PRE_DELETE_FINALIZER, has.pre],
    [POST_DELETE_FINALIZER, has.post],
  ] as const) {
    const names = [name, `${name}/${CLEANUP_STAGE}`];
    if (names.every((n) => out.includes(n) === wanted)) continue;
    if (wanted) for (const n of names) if (!out.includes(n)) out.push(n);
    if (!wanted) out = out.filter((f) => !names.includes(f));
  }
  return out.length === finalizers.length && out.every((f, i) => f === finalizers[i]) ? undefined : out;
}

export type DeletionStage =
  'pre-delete' | 'cascade' | 'post-delete' | 'pre-delete-cleanup' | 'post-delete-cleanup' | 'none';

/** The next stage of finalizeApplicationDeletion (see the header). */
export function deletionStage(manifest: KubeObject): DeletionStage {
  const f = finalizersOf(manifest);
  if (f.includes(PRE_DELETE_FINALIZER)) return 'pre-delete';
  if (cascades(manifest)) return 'cascade';
  if (f.includes(POST_DELETE_FINALIZER)) return 'post-delete';
  if (f.includes(`${PRE_DELETE_FINALIZER}/${CLEANUP_STAGE}`)) return 'pre-delete-cleanup';
  if (f.includes(`${POST_DELETE_FINALIZER}/${CLEANUP_STAGE}`)) return 'post-delete-cleanup';
  return 'none';
}

/** Whether this controller has deletion work on the Application (a propagation or delete-hook finalizer). */
export function finalizes(manifest: KubeObject): boolean {
  return deletionStage(manifest) !== 'none';
}

/**
 * The finalizers without those of the controller's deletion (propagation, pre- and post-delete, all
 * stages): what is left when the destination cluster cannot be found.
 */
export function withoutDeletionFinalizers(manifest: KubeObject): string[] {
  return finalizersOf(manifest).filter(
    (f) =>
      !f.startsWith('resources-finalizer.argocd.argoproj.io') &&
      !f.startsWith(PRE_DELETE_FINALIZER) &&
      !f.startsWith(POST_DELETE_FINALIZER),
  );
}
