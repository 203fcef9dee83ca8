/**
 * The Job controller of the workload simulation, after `kubernetes/pkg/controller/job` (rules:
 * simulate.ts).
 */
import { now } from '../managed-fields.js';
import type { Json, JsonMap, KObject } from '../types.js';
import { clone } from '../types.js';
import type { Simulation } from './shared.js';
import {
  JOB,
  POD,
  path,
  num,
  mapAt,
  conditionsOf,
  isDeleting,
  wantsFailure,
  podPhase,
  podReady,
  setCondition,
  podFrom,
  SIMULATE_FAIL_ANNOTATION,
} from './shared.js';

/** `batch.JobControllerName`: the `spec.managedBy` value that means the built-in Job controller. */
const JOB_CONTROLLER_NAME = 'kubernetes.io/job-controller';

export function reconcileJob(sim: Simulation, job: KObject): void {
  const ns = job.metadata.namespace ?? '';
  const conds = conditionsOf(job);
  if (conds.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')) return;
  if (path(job, 'spec.suspend') === true) return;
  // Another manager named in spec.managedBy: the real Job controller leaves the Job to it (JobManagedBy,
  // on by default since Kubernetes 1.32, job_controller.go `managedByExternalController`).
  const managedBy = path(job, 'spec.managedBy');
  if (typeof managedBy === 'string' && managedBy !== JOB_CONTROLLER_NAME) return;
  const completions = num(job, 'spec.completions', 1);
  const parallelism = num(job, 'spec.parallelism', 1);
  const backoffLimit = num(job, 'spec.backoffLimit', 6);
  const pods = sim.owned(POD, job);
  const active = pods.filter(
    (p) => !isDeleting(p) && podPhase(p) !== 'Succeeded' && podPhase(p) !== 'Failed',
  );
  const succeeded = pods.filter((p) => podPhase(p) === 'Succeeded').length;
  const failed = pods.filter((p) => podPhase(p) === 'Failed').length;
  const old = mapAt(job, 'status');
  const status: JsonMap = { ...clone(old) };
  status['startTime'] ??= now();
  let next = conds;
  if (failed > backoffLimit) {
    for (const p of active) sim.remove(POD, p);
    const failure = {
      status: 'True',
      reason: 'BackoffLimitExceeded',
      message: 'Job has reached the specified backoff limit',
    };
    next = setCondition(next, { type: 'FailureTarget', ...failure }, { probeTime: true });
    next = setCondition(next, { type: 'Failed', ...failure }, { probeTime: true });
    delete status['active'];
  } else if (succeeded >= completions) {
    const success = {
      status: 'True',
      reason: 'CompletionsReached',
      message: 'Reached expected number of succeeded pods',
    };
    next = setCondition(next, { type: 'SuccessCriteriaMet', ...success }, { probeTime: true });
    next = setCondition(next, { type: 'Complete', ...success }, { probeTime: true });
    status['completionTime'] = now();
    delete status['active'];
  } else {
    const want = Math.min(parallelism, completions - succeeded) - active.length;
    const uid = job.metadata.uid ?? '';
    const jobName = job.metadata.name ?? '';
    for (let i = 0; i < want; i++) {
      sim.create(
        POD,
        ns,
        podFrom(job, JOB, mapAt(job, 'spec.template'), {
          labels: {
            'batch.kubernetes.io/controller-uid': uid,
            'batch.kubernetes.io/job-name': jobName,
            'controller-uid': uid,
            'job-name': jobName,
          },
          annotations: wantsFailure(job) ? { [SIMULATE_FAIL_ANNOTATION]: 'true' } : {},
        }),
      );
    }
    const running = sim
      .owned(POD, job)
      .filter((p) => !isDeleting(p) && podPhase(p) !== 'Succeeded' && podPhase(p) !== 'Failed');
    status['active'] = running.length;
    if (running.length === 0) delete status['active'];
  }
  status['ready'] = sim.owned(POD, job).filter(podReady).length;
  status['terminating'] = 0;
  status['uncountedTerminatedPods'] = {};
  if (succeeded > 0) status['succeeded'] = succeeded;
  if (failed > 0) status['failed'] = failed;
  if (next.length > 0) status['conditions'] = next as unknown as Json;
  sim.writeStatus(JOB, job, status);
}
