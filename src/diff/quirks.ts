/**
 * Verdicts where Argo CD is known to be wrong, reproduced so our report matches its UI, each with a short
 * note naming the upstream issue (shown next to the verdict: text output and the `note` field of JSON).
 *
 * - Empty `metadata.labels` in Git on a kind outside the typed scheme (custom resources, CRDs, APIService:
 *   not a built-in group) in a three-way or two-way diff: the API server stores no empty map, so live has
 *   no `labels`; Argo CD's remarshal cannot drop the empty map for such kinds (no Go type, gitops-engine
 *   `diff.go remarshal`) and the three-way JSON merge patch (`threeWayMergePatch`,
 *   `CreateThreeWayJSONMergePatch`) carries `labels: {}` into the predicted live, so the resource is
 *   OutOfSync for good (argo-cd#15898). Built-in kinds are remarshalled (omitempty drops the map): Synced.
 *   An empty `annotations` map is not affected: `removeNamespaceAnnotation` deletes it from the target and
 *   the original before the patch. Server-side and structured-merge diff are not affected either.
 */
import { isMap } from './paths.js';
import type { DiffStrategy, JsonMap } from './types.js';

export const EMPTY_LABELS_NOTE =
  'OutOfSync as Argo CD reports it: Git has an empty metadata.labels, which the API server does not store, so no sync clears it (argo-cd#15898)';

/** Whether the (tracking-stamped, not yet normalized) target hits argo-cd#15898 against `live`. */
export function keepsEmptyLabels(
  target: JsonMap,
  live: JsonMap,
  strategy: DiffStrategy,
  builtIn: boolean,
): boolean {
  if (builtIn || (strategy !== 'three-way' && strategy !== 'two-way')) return false;
  const labels = isMap(target['metadata']) ? target['metadata']['labels'] : undefined;
  if (!isMap(labels) || Object.keys(labels).length > 0) return false;
  const liveLabels = isMap(live['metadata']) ? live['metadata']['labels'] : undefined;
  return !isMap(liveLabels) || Object.keys(liveLabels).length === 0;
}

/** Puts the empty map back into the normalized predicted live (normalization removed it), as Argo CD's has it. */
export function restoreEmptyLabels(predicted: JsonMap): void {
  const metadata = isMap(predicted['metadata']) ? predicted['metadata'] : (predicted['metadata'] = {});
  (metadata as JsonMap)['labels'] = {};
}
