/**
 * Defaults, filled in one place (design.md practice 4). Each is Argo CD's own default; flags and
 * options objects override them, and nothing else spells these values.
 */
import type { TrackingMethod } from './names.js';

/** The control-plane namespace (Argo CD's install manifests; `--argocd-namespace`). */
export const DEFAULT_ARGOCD_NAMESPACE = 'argocd';
/** argocd-cm `application.resourceTrackingMethod` when unset (Argo CD 3.x). */
export const DEFAULT_TRACKING_METHOD: TrackingMethod = 'annotation';
/** The field manager Argo CD's controller applies with (gitops-engine `sync_context.go`). */
export const DEFAULT_FIELD_MANAGER = 'argocd-controller';
/** The field manager of our own writes that are not a sync (the cluster client's default). */
export const CLIENT_FIELD_MANAGER = 'kubectl-gitops';
/**
 * Managers whose managedFields entries mean "we applied this field" (the diff's three-way and
 * structured-merge semantics): Argo CD's controller, whose manager sync writes with, and our client's.
 */
export const OWN_FIELD_MANAGERS: readonly string[] = [DEFAULT_FIELD_MANAGER, CLIENT_FIELD_MANAGER];
/** Refresh workers (`--status-processors`); Argo CD's controller flag default is 20, ours fits one process. */
export const DEFAULT_STATUS_PROCESSORS = 4;
/** Operation (sync) workers (`--operation-processors`). */
export const DEFAULT_OPERATION_PROCESSORS = 2;
