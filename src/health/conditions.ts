/**
 * The opt-in `status.conditions` fallback (`HealthOptions.conditionsFallback`) for kinds with no built-in
 * check. Argo CD itself has no generic fallback (such kinds get no health, and the upstream vectors assert
 * that), so this is off by default; it follows the conventions most controllers publish (kstatus, Knative,
 * Flux, Crossplane):
 *
 * 1. `status.observedGeneration` present and behind `metadata.generation`: Progressing.
 * 2. The first rule of `CONDITION_RULES` that matches a condition decides (rules in table order).
 * 3. No rule matches (or no conditions): no health, exactly as without the fallback.
 */
import { conditions, int, result } from './fields.js';
import type { CheckInput, HealthResult, HealthStatus } from './types.js';

interface ConditionRule {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  health: HealthStatus;
}

export const CONDITION_RULES: readonly ConditionRule[] = [
  { type: 'Stalled', status: 'True', health: 'Degraded' },
  { type: 'Reconciling', status: 'True', health: 'Progressing' },
  { type: 'Ready', status: 'True', health: 'Healthy' },
  { type: 'Ready', status: 'False', health: 'Degraded' },
  { type: 'Ready', status: 'Unknown', health: 'Progressing' },
  { type: 'Available', status: 'True', health: 'Healthy' },
  { type: 'Available', status: 'False', health: 'Degraded' },
  { type: 'Available', status: 'Unknown', health: 'Progressing' },
];

export function conditionsHealth({ obj }: CheckInput): HealthResult | undefined {
  const observed = int(obj, 'status.observedGeneration');
  const generation = int(obj, 'metadata.generation') ?? 0;
  if (observed !== undefined && observed < generation) {
    return result(
      'Progressing',
      `Waiting for generation ${generation} to be observed (observed ${observed})`,
    );
  }
  const list = conditions(obj);
  for (const rule of CONDITION_RULES) {
    const match = list.find((c) => c.type === rule.type && c.status === rule.status);
    if (match) return result(rule.health, match.message || match.reason);
  }
  return undefined;
}
