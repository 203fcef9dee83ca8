/**
 * batch Job (Go-coded, gitops-engine `health_job.go`) and CronJob (Argo CD's built-in Lua script
 * `resource_customizations/batch/CronJob/health.lua`, ported).
 *
 * Job: only `status.conditions` is read (`spec.suspend` is not). Failed (any status) gives Degraded with its
 * message; otherwise a Complete or Suspended condition (any status) means "finished": Suspended=True gives
 * Suspended with that condition's message, anything else Healthy. No such condition: Progressing.
 * FailureTarget and SuccessCriteriaMet are ignored.
 *
 * CronJob: `spec.suspend` gives Healthy "CronJob is Suspended" (Argo CD reports Healthy, not Suspended,
 * until argo-cd#24428 is fixed). With a `lastScheduleTime`: never succeeded, or jobs active, is Healthy
 * with a caveat; `lastSuccessfulTime` before `lastScheduleTime` is Degraded; else Healthy. Times compare
 * as RFC 3339 strings, as the Lua script does. No status at all: Progressing "Waiting for CronJob".
 */
import { hasHookFinalizer, finalizers, isDeleting } from './annotations.js';
import { bool, conditions, list, map, result, str } from './fields.js';
import type { CheckInput, HealthResult } from './types.js';

export function jobHealth({ obj }: CheckInput): HealthResult {
  let failed = false;
  let failMessage = '';
  let finished = false;
  let message = '';
  let suspended = false;
  let suspendMessage = '';
  for (const c of conditions(obj)) {
    switch (c.type) {
      case 'Failed':
        failed = true;
        finished = true;
        failMessage = c.message;
        break;
      case 'Complete':
        finished = true;
        message = c.message;
        break;
      case 'Suspended':
        finished = true;
        message = c.message;
        if (c.status === 'True') {
          suspended = true;
          suspendMessage = c.message;
        }
        break;
    }
  }
  if (!finished) return result('Progressing', message);
  if (failed) return result('Degraded', failMessage);
  if (suspended) return result('Suspended', suspendMessage);
  return result('Healthy', message);
}

export function cronJobHealth({ obj }: CheckInput): HealthResult {
  // The script's own deletion branch; reached only when the generic "Pending deletion" rule stood aside,
  // i.e. a hook holding the hook finalizer (so the finalizer list is never empty here).
  if (isDeleting(obj) && hasHookFinalizer(obj)) {
    return result('Progressing', `Pending deletion; blocked by finalizers: ${finalizers(obj).join(', ')}`);
  }
  if (bool(obj, 'spec.suspend') === true) return result('Healthy', 'CronJob is Suspended');
  if (map(obj, 'status') === undefined) return result('Progressing', 'Waiting for CronJob');

  const lastSchedule = str(obj, 'status.lastScheduleTime');
  if (lastSchedule === undefined) return result('Healthy', 'CronJob has not been scheduled yet');
  const lastSuccess = str(obj, 'status.lastSuccessfulTime');
  if (lastSuccess === undefined) {
    return result('Healthy', 'The CronJob never completed successfully. It may not be healthy');
  }
  if ((list(obj, 'status.active') ?? []).length > 0) {
    return result('Healthy', 'The job is running. Its last execution may not have been successful');
  }
  if (lastSuccess < lastSchedule) {
    return result('Degraded', 'CronJob has not completed its last execution successfully');
  }
  return result('Healthy', 'CronJob has completed its last execution successfully');
}
