/**
 * core/v1 Service and PersistentVolumeClaim, and Ingress (`extensions` and `networking.k8s.io`, any version),
 * as gitops-engine `health_service.go`, `health_pvc.go` and `health_ingress.go` judge them.
 *
 * - Service: type LoadBalancer is Healthy once `status.loadBalancer.ingress` has an entry (even an empty
 *   one), else Progressing; every other type is Healthy. No message.
 * - Ingress: the same list decides (Healthy / Progressing); it is read leniently (a malformed list counts
 *   as empty, as upstream ignores the read error).
 * - PVC: phase Bound Healthy, Pending Progressing, Lost Degraded, anything else (or none) Unknown.
 */
import { isObj, list, str } from './fields.js';
import type { CheckInput, HealthResult, HealthStatus } from './types.js';

export function serviceHealth({ obj }: CheckInput): HealthResult {
  if (str(obj, 'spec.type') !== 'LoadBalancer') return { status: 'Healthy' };
  const ingress = list(obj, 'status.loadBalancer.ingress') ?? [];
  return { status: ingress.length > 0 ? 'Healthy' : 'Progressing' };
}

export function ingressHealth({ obj }: CheckInput): HealthResult {
  const status = obj['status'];
  const loadBalancer = isObj(status) ? status['loadBalancer'] : undefined;
  const ingress = isObj(loadBalancer) ? loadBalancer['ingress'] : undefined;
  return { status: Array.isArray(ingress) && ingress.length > 0 ? 'Healthy' : 'Progressing' };
}

const PVC_PHASES: ReadonlyMap<string, HealthStatus> = new Map([
  ['Bound', 'Healthy'],
  ['Pending', 'Progressing'],
  ['Lost', 'Degraded'],
]);

export function pvcHealth({ obj }: CheckInput): HealthResult {
  return { status: PVC_PHASES.get(str(obj, 'status.phase') ?? '') ?? 'Unknown' };
}
