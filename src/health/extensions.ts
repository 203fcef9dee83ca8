/**
 * API extension and Argo kinds:
 * - apiregistration.k8s.io APIService (v1, v1beta1; gitops-engine `health_apiservice.go`): the first
 *   Available condition decides, True Healthy else Progressing, message "reason: message"; none gives
 *   Progressing "Waiting to be processed". Never Degraded.
 * - apiextensions.k8s.io CustomResourceDefinition (Argo CD's built-in Lua script
 *   `resource_customizations/apiextensions.k8s.io/CustomResourceDefinition/health.lua`, ported): terminating
 *   Progressing; NamesAccepted=False Degraded; not Established Degraded, except while the API server is still
 *   installing it (Established=False, reason Installing: Progressing, as upstream's newer test data
 *   `crd-v1-installing-progressing.yaml` asserts; the message text is ours); NonStructuralSchema=True
 *   Degraded; else Healthy "CRD is healthy". A live CRD always carries `status`; an absent one reads as
 *   empty.
 * - argoproj.io Workflow (any version; `health_argo.go`): phase ''/Pending/Running Progressing, Succeeded
 *   Healthy, Failed/Error Degraded, other Unknown; message = `status.message`.
 * - argoproj.io Application: no health (Argo CD dropped it in 1.8). Opt-in `applicationHealth` reproduces
 *   the override Argo CD documents for app-of-apps: `status.health` as is, Progressing while absent.
 */
import { isDeleting } from './annotations.js';
import { conditions, map, result, str } from './fields.js';
import { HEALTH_ORDER, type CheckInput, type HealthResult, type HealthStatus } from './types.js';

export function apiServiceHealth({ obj }: CheckInput): HealthResult {
  const available = conditions(obj).find((c) => c.type === 'Available');
  if (!available) return result('Progressing', 'Waiting to be processed');
  return result(
    available.status === 'True' ? 'Healthy' : 'Progressing',
    `${available.reason}: ${available.message}`,
  );
}

export function crdHealth({ obj }: CheckInput): HealthResult {
  if (isDeleting(obj)) return result('Progressing', 'CRD is terminating');
  const list = conditions(obj);
  if (list.length === 0) return result('Progressing', 'Status conditions not found');
  // As the script: each matching condition overwrites the one message, so the last match's message is kept.
  let message = '';
  let terminating = false;
  let namesNotAccepted = false;
  let established = false;
  let installing = false;
  let violations = false;
  for (const c of list) {
    if (c.type === 'Terminating' && c.status === 'True') [terminating, message] = [true, c.message];
    if (c.type === 'NamesAccepted' && c.status === 'False') [namesNotAccepted, message] = [true, c.message];
    if (c.type === 'Established' && c.status === 'True') [established, message] = [true, c.message];
    if (c.type === 'Established' && c.status === 'False' && c.reason === 'Installing') installing = true;
    if (c.type === 'NonStructuralSchema' && c.status === 'True') [violations, message] = [true, c.message];
  }
  if (terminating) return result('Progressing', `CRD is terminating: ${message}`);
  if (namesNotAccepted) return result('Degraded', `CRD names have not been accepted: ${message}`);
  if (!established && installing) return result('Progressing', 'CRD is being established');
  if (!established) return result('Degraded', 'CRD is not established');
  if (violations) return result('Degraded', `Schema violations found: ${message}`);
  return result('Healthy', 'CRD is healthy');
}

const WORKFLOW_PHASES: ReadonlyMap<string, HealthStatus> = new Map([
  ['', 'Progressing'],
  ['Pending', 'Progressing'],
  ['Running', 'Progressing'],
  ['Succeeded', 'Healthy'],
  ['Failed', 'Degraded'],
  ['Error', 'Degraded'],
]);

export function workflowHealth({ obj }: CheckInput): HealthResult {
  const phase = str(obj, 'status.phase') ?? '';
  return result(WORKFLOW_PHASES.get(phase) ?? 'Unknown', str(obj, 'status.message'));
}

/** Opt-in (`applicationHealth`): the child Application's own `status.health`. */
export function applicationHealth({ obj }: CheckInput): HealthResult {
  const health = map(obj, 'status.health');
  if (health === undefined) return { status: 'Progressing' };
  const status = str(health, 'status', 'status.health') ?? '';
  const message = str(health, 'message', 'status.health');
  if (!(HEALTH_ORDER as readonly string[]).includes(status)) {
    return result('Unknown', `invalid health status ${JSON.stringify(status)} in status.health`);
  }
  return result(status as HealthStatus, message);
}
