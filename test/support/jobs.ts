/**
 * A finished Job's status as the Job controller writes it, which kube-apiserver requires of any writer
 * (src/embedded/job-status.ts): Complete comes with SuccessCriteriaMet, `startTime` and `completionTime`;
 * Failed with FailureTarget and `startTime`. For tests that play the Job controller themselves.
 */
export function finishedJobStatus(
  type: 'Complete' | 'Failed',
  message = `job ${type.toLowerCase()}`,
): { startTime: string } & Record<string, unknown> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const cond = (t: string) => ({ type: t, status: 'True', message, lastTransitionTime: now });
  return type === 'Complete'
    ? { startTime: now, completionTime: now, conditions: [cond('SuccessCriteriaMet'), cond('Complete')] }
    : { startTime: now, conditions: [cond('FailureTarget'), cond('Failed')] };
}
