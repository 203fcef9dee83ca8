/**
 * API extension and Argo kinds:
 * - apiregistration.k8s.io APIService (v1, v1beta1; gitops-engine `health_apiservice.go`): the first
 *   Available condition decides, True Healthy else Progressing, message "reason: message"; none gives
 *   Progressing "Waiting to be processed". Never Degraded.
 * - apiextensions.k8s.io CustomResourceDefinition (Argo CD's built-in Lua script
 *   `resource_customizations/apiextensions.k8s.io/CustomResourceDefinition/health.lua` at 3.6.0, ported and
 *   checked against its test data in test/fixtures/lua-health-scripts): conditions in order, the first
 *   decisive one returns: Terminating=True Progressing "CRD is terminating: <message>"; NamesAccepted=False
 *   Degraded; NonStructuralSchema=True Degraded "Schema violations found: <message>"; Established=False with
 *   reason Installing Progressing "CRD is being installed"; then not Established Degraded, else Healthy
 *   "CRD is healthy". A live CRD always carries `status`; an absent one reads as empty.
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
  // As the script: conditions in order, the first decisive one returns.
  let established = false;
  for (const c of list) {
    if (c.type === 'Terminating' && c.status === 'True')
      return result('Progressing', `CRD is terminating: ${c.message}`);
    if (c.type === 'NamesAccepted' && c.status === 'False')
      return result('Degraded', `CRD names have not been accepted: ${c.message}`);
    if (c.type === 'NonStructuralSchema' && c.status === 'True')
      return result('Degraded', `Schema violations found: ${c.message}`);
    if (c.type === 'Established') {
      if (c.status === 'True') established = true;
      else if (c.reason === 'Installing') return result('Progressing', 'CRD is being installed');
    }
  }
  if (!established) return result('Degraded', 'CRD is not established');
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
