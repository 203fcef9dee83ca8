/**
 * autoscaling HorizontalPodAutoscaler (v1 and v2; other versions are unsupported and give Unknown), as
 * gitops-engine `health_hpa.go` judges it.
 *
 * v2 reads `status.conditions`. v1 reads the JSON list in annotation
 * `autoscaling.alpha.kubernetes.io/conditions`: absent, `null` or `[]` gives Progressing "Waiting to
 * Autoscale"; JSON that does not parse into a list of conditions gives Unknown. Then two passes: any
 * condition whose (type, reason) is a failure pair gives Degraded whatever its status; else
 * AbleToScale=True or ScalingLimited=True gives Healthy; else Progressing.
 */
import { CheckError, annotations, conditions, isObj, result, toCondition, type Condition } from './fields.js';
import type { CheckInput, HealthResult } from './types.js';

export const HPA_CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';

/** (type, reasons) pairs that mean the autoscaler is failing, whatever the condition's status. */
const DEGRADED_PAIRS: Readonly<Record<string, readonly string[]>> = {
  AbleToScale: ['FailedGetScale', 'FailedUpdateScale'],
  ScalingActive: [
    'FailedGetResourceMetric',
    'FailedGetObjectMetric',
    'FailedGetPodsMetric',
    'FailedGetExternalMetric',
    'FailedComputeMetricsReplicas',
    'InvalidSelector',
  ],
};

/** Condition types that mean healthy when their status is True. */
const HEALTHY_TYPES: readonly string[] = ['AbleToScale', 'ScalingLimited'];

const WAITING: HealthResult = { status: 'Progressing', message: 'Waiting to Autoscale' };

function judge(list: readonly Condition[]): HealthResult {
  const degraded = list.find(
    (c) => Object.hasOwn(DEGRADED_PAIRS, c.type) && DEGRADED_PAIRS[c.type]?.includes(c.reason),
  );
  if (degraded) return result('Degraded', degraded.message);
  const healthy = list.find((c) => HEALTHY_TYPES.includes(c.type) && c.status === 'True');
  if (healthy) return result('Healthy', healthy.message);
  return { ...WAITING };
}

function v1Conditions(raw: string): Condition[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new CheckError(`failed to convert conditions annotation to typed: ${(err as Error).message}`);
  }
  if (parsed === null) return [];
  if (!Array.isArray(parsed)) {
    throw new CheckError('failed to convert conditions annotation to typed: expected a JSON array');
  }
  return parsed.map((item, i) => {
    if (item === null) return { type: '', status: '', reason: '', message: '' };
    if (!isObj(item)) {
      throw new CheckError(`failed to convert conditions annotation to typed: item ${i} is not an object`);
    }
    return toCondition(item, `conditions[${i}]`);
  });
}

export function hpaHealth({ obj, version }: CheckInput): HealthResult {
  if (version === 'v1') {
    const raw = annotations(obj)[HPA_CONDITIONS_ANNOTATION];
    if (raw === undefined) return { ...WAITING };
    const list = v1Conditions(raw);
    return list.length === 0 ? { ...WAITING } : judge(list);
  }
  return judge(conditions(obj));
}
