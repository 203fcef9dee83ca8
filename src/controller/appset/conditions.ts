/**
 * An ApplicationSet's `status.conditions` and `status.health`, as Argo CD's ApplicationSet controller
 * writes them (argo-cd `applicationset/controllers/applicationset_controller.go`
 * setApplicationSetStatusCondition, getParametersGeneratedCondition; `pkg/apis/application/v1alpha1/
 * applicationset_types.go` SetConditions, CalculateHealth):
 *
 * - Every write evaluates ParametersGenerated (True "All parameters have been generated successfully",
 *   the v3.6.1 wording, once parameters were generated, else False with reason ErrorOccurred and the error's
 *   message, or "progressive sync"), the conditions given, and what they imply: ResourcesUpToDate True
 *   implies ErrorOccurred False (same reason and message); ErrorOccurred True implies ResourcesUpToDate
 *   False (reason ErrorOccurred). Without a RollingSync strategy RolloutProgressing and
 *   InvalidRolloutConfig are always evaluated, so they are removed.
 * - A condition whose type is not evaluated is kept; an evaluated one keeps its lastTransitionTime when
 *   its status, reason and message are unchanged; the list is sorted by type, status, reason, message.
 * - health: Degraded with the message of a True ErrorOccurred, else Progressing for a True
 *   RolloutProgressing, Healthy for a True ResourcesUpToDate, else Unknown (no conditions: "No status
 *   conditions found for ApplicationSet", else "Waiting for health status to be determined").
 */

export interface AppSetCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime?: string | undefined;
}

export const COND = {
  ErrorOccurred: 'ErrorOccurred',
  ParametersGenerated: 'ParametersGenerated',
  ResourcesUpToDate: 'ResourcesUpToDate',
  RolloutProgressing: 'RolloutProgressing',
  InvalidRolloutConfig: 'InvalidRolloutConfig',
} as const;

export const REASON = {
  ErrorOccurred: 'ErrorOccurred',
  ApplicationSetUpToDate: 'ApplicationSetUpToDate',
  ParametersGenerated: 'ParametersGenerated',
  UpdateApplicationError: 'UpdateApplicationError',
  CreateApplicationError: 'CreateApplicationError',
  DeleteApplicationError: 'DeleteApplicationError',
  RefreshApplicationError: 'RefreshApplicationError',
  ApplicationValidationError: 'ApplicationValidationError',
  ApplicationSetModified: 'ApplicationSetModified',
  ApplicationSetRolloutComplete: 'ApplicationSetRolloutComplete',
  ApplicationSetRolloutError: 'ApplicationSetRolloutError',
  InvalidRolloutConfig: 'ApplicationSetInvalidRolloutConfig',
  ValidRolloutConfig: 'ApplicationSetValidRolloutConfig',
} as const;

/** SetConditions: the new list from the previous one, the conditions given and which types are evaluated. */
export function setConditions(
  previous: readonly AppSetCondition[],
  conditions: readonly AppSetCondition[],
  evaluated: ReadonlyMap<string, boolean>,
  now: string,
): AppSetCondition[] {
  const out: AppSetCondition[] = [];
  for (const c of previous) {
    if (evaluated.get(c.type) !== true) out.push({ ...c, lastTransitionTime: c.lastTransitionTime ?? now });
  }
  for (const c of conditions) {
    if (evaluated.get(c.type) !== true) continue;
    const existing = previous.find((p) => p.type === c.type);
    if (
      existing &&
      existing.message === c.message &&
      existing.reason === c.reason &&
      existing.status === c.status
    )
      out.push(existing);
    else out.push({ ...c, lastTransitionTime: c.lastTransitionTime ?? now });
  }
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  out.sort(
    (a, b) =>
      cmp(a.type, b.type) ||
      cmp(a.status, b.status) ||
      cmp(a.reason, b.reason) ||
      cmp(a.message, b.message) ||
      cmp(a.lastTransitionTime ?? '', b.lastTransitionTime ?? ''),
  );
  return out;
}

/** The conditions and evaluated types one write of setApplicationSetStatusCondition computes. */
export function evaluateConditions(
  given: readonly AppSetCondition[],
  parametersGenerated: boolean,
  rollingSync: boolean,
): { conditions: AppSetCondition[]; evaluated: Map<string, boolean> } {
  const evaluated = new Map<string, boolean>([
    [COND.ParametersGenerated, true],
    [COND.ErrorOccurred, false],
    [COND.ResourcesUpToDate, false],
    [COND.RolloutProgressing, false],
    [COND.InvalidRolloutConfig, false],
  ]);
  if (!rollingSync) {
    evaluated.set(COND.InvalidRolloutConfig, true);
    evaluated.set(COND.RolloutProgressing, true);
  }
  const conditions: AppSetCondition[] = [];
  let hasParams = false;
  let paramsMsg = 'progressive sync';
  for (const c of given) {
    if (c.type === COND.ParametersGenerated) {
      hasParams = true;
      break;
    }
    if (c.type === COND.ErrorOccurred) paramsMsg = c.message;
  }
  if (!hasParams)
    conditions.push(
      parametersGenerated
        ? {
            type: COND.ParametersGenerated,
            message: 'All parameters have been generated successfully',
            reason: REASON.ParametersGenerated,
            status: 'True',
          }
        : {
            type: COND.ParametersGenerated,
            message: paramsMsg,
            reason: REASON.ErrorOccurred,
            status: 'False',
          },
    );
  for (const c of given) {
    evaluated.set(c.type, true);
    conditions.push(c);
    if (c.type === COND.ResourcesUpToDate && c.status === 'True') {
      evaluated.set(COND.ErrorOccurred, true);
      conditions.push({ type: COND.ErrorOccurred, status: 'False', reason: c.reason, message: c.message });
    } else if (c.type === COND.ErrorOccurred && c.status === 'True') {
      evaluated.set(COND.ResourcesUpToDate, true);
      conditions.push({
        type: COND.ResourcesUpToDate,
        status: 'False',
        reason: REASON.ErrorOccurred,
        message: c.message,
      });
    } else if ((c.type === COND.RolloutProgressing || c.type === COND.InvalidRolloutConfig) && !rollingSync) {
      evaluated.set(c.type, false);
    }
  }
  return { conditions, evaluated };
}

export interface AppSetHealth {
  status: string;
  message: string;
}

export function calculateHealth(conditions: readonly AppSetCondition[]): AppSetHealth {
  if (conditions.length === 0)
    return { status: 'Unknown', message: 'No status conditions found for ApplicationSet' };
  let progressing: AppSetCondition | undefined;
  let healthy: AppSetCondition | undefined;
  for (const c of conditions) {
    if (c.status !== 'True') continue;
    if (c.type === COND.ErrorOccurred) return { status: 'Degraded', message: c.message };
    if (c.type === COND.RolloutProgressing) progressing = c;
    if (c.type === COND.ResourcesUpToDate) healthy = c;
  }
  if (progressing) return { status: 'Progressing', message: progressing.message };
  if (healthy) return { status: 'Healthy', message: healthy.message };
  return { status: 'Unknown', message: 'Waiting for health status to be determined' };
}

/** Whether a write would change anything Argo CD compares (type, reason, status, message, in order). */
export function conditionsChanged(a: readonly AppSetCondition[], b: readonly AppSetCondition[]): boolean {
  if (a.length !== b.length) return true;
  return a.some(
    (c, i) =>
      c.type !== b[i]!.type ||
      c.reason !== b[i]!.reason ||
      c.status !== b[i]!.status ||
      c.message !== b[i]!.message,
  );
}
