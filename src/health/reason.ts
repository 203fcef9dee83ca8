/**
 * `healthReason`: why a resource is not Healthy, in words, for the lines that say what a sync waits for
 * (issue 34: `Service shop/web: Progressing: waiting for load balancer`). Argo CD's own health message
 * when its check gives one (the verdict and message are never changed here); else what the kind's check
 * waits for, read from the same rule (core.ts: a LoadBalancer Service and an Ingress are Progressing until
 * `status.loadBalancer.ingress` has an entry; a PersistentVolumeClaim is Progressing while Pending; batch.ts:
 * a Job is Progressing, without a message, until it completes or fails); else a
 * plain statement that the check gave no reason.
 */
import type { HealthStatus } from './types.js';

export interface ReasonInput {
  group: string;
  kind: string;
  status: HealthStatus;
  /** The health check's message (Argo CD's), when it gave one. */
  message?: string | undefined;
}

export function healthReason(r: ReasonInput): string {
  if (r.message) return r.message;
  if (r.status === 'Missing') return 'not in the cluster';
  if (r.status === 'Progressing') {
    if (r.group === '' && r.kind === 'Service') return 'waiting for load balancer';
    if ((r.group === 'networking.k8s.io' || r.group === 'extensions') && r.kind === 'Ingress')
      return 'waiting for load balancer';
    if (r.group === '' && r.kind === 'PersistentVolumeClaim') return 'waiting for the claim to be bound';
    if (r.group === 'batch' && r.kind === 'Job') return 'waiting for the job to complete';
  }
  return 'its health check gives no reason';
}

/** A resource as reports list it (src/controller `ResourceStatus`): identity and, when it has one, health. */
export interface ReportedResource {
  group: string;
  kind: string;
  namespace: string;
  name: string;
  health?: { status: HealthStatus; message?: string | undefined } | undefined;
}

/** Every resource that has health and is not Healthy, with its health and why (`healthReason`). */
export function notHealthy(resources: readonly ReportedResource[]): Array<{
  group: string;
  kind: string;
  namespace: string;
  name: string;
  health: HealthStatus;
  reason: string;
}> {
  return resources.flatMap((r) =>
    r.health && r.health.status !== 'Healthy'
      ? [
          {
            group: r.group,
            kind: r.kind,
            namespace: r.namespace,
            name: r.name,
            health: r.health.status,
            reason: healthReason({ group: r.group, kind: r.kind, ...r.health }),
          },
        ]
      : [],
  );
}
