/**
 * apps/v1 Deployment, StatefulSet, DaemonSet and ReplicaSet, as gitops-engine `health_deployment.go`,
 * `health_statefulset.go`, `health_daemonset.go` and `health_replicaset.go` judge them (rules borrowed
 * from `kubectl rollout status`). Absent integers read as 0 (Go zero values); `spec.replicas` absent
 * means "not set" and skips the checks that compare against it.
 */
import { bool, conditions, int, map, result, str } from './fields.js';
import type { CheckInput, HealthResult } from './types.js';

/** Go's %q for the names in messages. */
const quote = (s: string): string => JSON.stringify(s);

export function deploymentHealth({ obj }: CheckInput): HealthResult {
  if (bool(obj, 'spec.paused') === true) return { status: 'Suspended', message: 'Deployment is paused' };
  const generation = int(obj, 'metadata.generation') ?? 0;
  const observed = int(obj, 'status.observedGeneration') ?? 0;
  if (generation > observed) {
    return {
      status: 'Progressing',
      message: 'Waiting for rollout to finish: observed deployment generation less than desired generation',
    };
  }
  const name = str(obj, 'metadata.name') ?? '';
  const replicas = int(obj, 'spec.replicas');
  const statusReplicas = int(obj, 'status.replicas') ?? 0;
  const updated = int(obj, 'status.updatedReplicas') ?? 0;
  const available = int(obj, 'status.availableReplicas') ?? 0;
  // The first Progressing condition; only its reason is read.
  const progressing = conditions(obj).find((c) => c.type === 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') {
    return { status: 'Degraded', message: `Deployment ${quote(name)} exceeded its progress deadline` };
  }
  if (replicas !== undefined && updated < replicas) {
    return {
      status: 'Progressing',
      message: `Waiting for rollout to finish: ${updated} out of ${replicas} new replicas have been updated...`,
    };
  }
  if (statusReplicas > updated) {
    return {
      status: 'Progressing',
      message: `Waiting for rollout to finish: ${statusReplicas - updated} old replicas are pending termination...`,
    };
  }
  if (available < updated) {
    return {
      status: 'Progressing',
      message: `Waiting for rollout to finish: ${available} of ${updated} updated replicas are available...`,
    };
  }
  return { status: 'Healthy' };
}

export function statefulSetHealth({ obj }: CheckInput): HealthResult {
  const generation = int(obj, 'metadata.generation') ?? 0;
  const observed = int(obj, 'status.observedGeneration') ?? 0;
  if (observed === 0 || generation > observed) {
    return { status: 'Progressing', message: 'Waiting for statefulset spec update to be observed...' };
  }
  const replicas = int(obj, 'spec.replicas');
  const ready = int(obj, 'status.readyReplicas') ?? 0;
  if (replicas !== undefined && ready < replicas) {
    return { status: 'Progressing', message: `Waiting for ${replicas - ready} pods to be ready...` };
  }
  const strategy = str(obj, 'spec.updateStrategy.type') ?? '';
  const updated = int(obj, 'status.updatedReplicas') ?? 0;
  if (strategy === 'RollingUpdate' && map(obj, 'spec.updateStrategy.rollingUpdate') !== undefined) {
    const partition = int(obj, 'spec.updateStrategy.rollingUpdate.partition');
    if (replicas !== undefined && partition !== undefined && updated < replicas - partition) {
      return {
        status: 'Progressing',
        message: `Waiting for partitioned roll out to finish: ${updated} out of ${replicas - partition} new pods have been updated...`,
      };
    }
    return {
      status: 'Healthy',
      message: `partitioned roll out complete: ${updated} new pods have been updated...`,
    };
  }
  if (strategy === 'OnDelete') {
    return { status: 'Healthy', message: `statefulset has ${ready} ready pods` };
  }
  const updateRevision = str(obj, 'status.updateRevision') ?? '';
  const currentRevision = str(obj, 'status.currentRevision') ?? '';
  if (updateRevision !== currentRevision) {
    return {
      status: 'Progressing',
      message: `waiting for statefulset rolling update to complete ${updated} pods at revision ${updateRevision}...`,
    };
  }
  const current = int(obj, 'status.currentReplicas') ?? 0;
  return {
    status: 'Healthy',
    message: `statefulset rolling update complete ${current} pods at revision ${currentRevision}...`,
  };
}

export function daemonSetHealth({ obj }: CheckInput): HealthResult {
  const generation = int(obj, 'metadata.generation') ?? 0;
  const observed = int(obj, 'status.observedGeneration') ?? 0;
  if (generation > observed) {
    return {
      status: 'Progressing',
      message: 'Waiting for rollout to finish: observed daemon set generation less than desired generation',
    };
  }
  const updated = int(obj, 'status.updatedNumberScheduled') ?? 0;
  const desired = int(obj, 'status.desiredNumberScheduled') ?? 0;
  const available = int(obj, 'status.numberAvailable') ?? 0;
  if (str(obj, 'spec.updateStrategy.type') === 'OnDelete') {
    return {
      status: 'Healthy',
      message: `daemon set ${updated} out of ${desired} new pods have been updated`,
    };
  }
  const name = quote(str(obj, 'metadata.name') ?? '');
  if (updated < desired) {
    return {
      status: 'Progressing',
      message: `Waiting for daemon set ${name} rollout to finish: ${updated} out of ${desired} new pods have been updated...`,
    };
  }
  if (available < desired) {
    return {
      status: 'Progressing',
      message: `Waiting for daemon set ${name} rollout to finish: ${available} of ${desired} updated pods are available...`,
    };
  }
  return { status: 'Healthy' };
}

export function replicaSetHealth({ obj }: CheckInput): HealthResult {
  const generation = int(obj, 'metadata.generation') ?? 0;
  const observed = int(obj, 'status.observedGeneration') ?? 0;
  if (generation > observed) {
    return {
      status: 'Progressing',
      message: 'Waiting for rollout to finish: observed replica set generation less than desired generation',
    };
  }
  const failure = conditions(obj).find((c) => c.type === 'ReplicaFailure');
  if (failure?.status === 'True') return result('Degraded', failure.message);
  const replicas = int(obj, 'spec.replicas');
  const available = int(obj, 'status.availableReplicas') ?? 0;
  if (replicas !== undefined && available < replicas) {
    return {
      status: 'Progressing',
      message: `Waiting for rollout to finish: ${available} out of ${replicas} new replicas are available...`,
    };
  }
  return { status: 'Healthy' };
}
