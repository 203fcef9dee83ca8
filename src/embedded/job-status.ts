/**
 * kube-apiserver's rules for a Job's status on update (k8s.io/kubernetes pkg/apis/batch/validation
 * `ValidateJobUpdateStatus`, options chosen in pkg/registry/batch/job/strategy.go `getStatusValidationOptions`):
 * each rule applies when the fields it reads changed, so a status the Job controller wrote long ago is not
 * re-judged. A client that marks a Job Complete must also set `completionTime`, `startTime` and the
 * SuccessCriteriaMet condition (the controller does, in that order) and leave no Pod active; Failed needs
 * FailureTarget first.
 */
import type { StatusCause } from './errors.js';
import type { Json, KObject } from './types.js';
import { isMap } from './types.js';

interface JobStatus {
  active?: number;
  conditions?: Array<{ type?: string; status?: string }>;
  startTime?: string;
  completionTime?: string;
}

const statusOf = (obj: KObject): JobStatus =>
  isMap(obj['status'] as Json) ? (obj['status'] as JobStatus) : {};
const isTrue = (s: JobStatus, type: string): boolean =>
  (s.conditions ?? []).some((c) => c.type === type && c.status === 'True');

export function jobStatusCauses(obj: KObject, old: KObject): StatusCause[] {
  const now = statusOf(obj);
  const was = statusOf(old);
  const changed = (type: string): boolean => isTrue(now, type) !== isTrue(was, type);
  const complete = isTrue(now, 'Complete');
  const failed = isTrue(now, 'Failed');
  const finishedChanged = complete || failed ? !(isTrue(was, 'Complete') || isTrue(was, 'Failed')) : false;
  const completionTimeChanged = now.completionTime !== was.completionTime;
  const startTimeChanged = now.startTime !== was.startTime;
  const spec = (isMap(obj['spec'] as Json) ? obj['spec'] : {}) as { suspend?: boolean; completions?: number };
  const suspendedWithZeroCompletions = spec.suspend === true && spec.completions === 0;
  const causes: StatusCause[] = [];
  const conditions = (message: string): void => {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${message}`,
      field: 'status.conditions',
    });
  };
  if ((changed('Complete') || changed('Failed')) && complete && failed)
    conditions('cannot set Complete=True and Failed=true conditions');
  if ((changed('Complete') || completionTimeChanged) && now.completionTime !== undefined && !complete)
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${now.completionTime}": cannot set completionTime when there is no Complete=True condition`,
      field: 'status.completionTime',
    });
  if ((changed('Complete') || completionTimeChanged) && now.completionTime === undefined && complete)
    causes.push({
      reason: 'FieldValueRequired',
      message: 'Required value: completionTime is required for Complete jobs',
      field: 'status.completionTime',
    });
  if (changed('Failed') && failed && !isTrue(now, 'FailureTarget'))
    conditions('cannot set Failed=True condition without the FailureTarget=true condition');
  if (
    (changed('Complete') || changed('SuccessCriteriaMet')) &&
    complete &&
    !isTrue(now, 'SuccessCriteriaMet')
  )
    conditions('cannot set Complete=True condition without the SuccessCriteriaMet=true condition');
  if ((finishedChanged || now.active !== was.active) && (complete || failed) && (now.active ?? 0) > 0)
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${now.active}: active>0 is invalid for finished job`,
      field: 'status.active',
    });
  if (
    (finishedChanged || startTimeChanged) &&
    !suspendedWithZeroCompletions &&
    (complete || failed) &&
    now.startTime === undefined
  )
    causes.push({
      reason: 'FieldValueRequired',
      message: 'Required value: startTime is required for finished job',
      field: 'status.startTime',
    });
  return causes;
}
