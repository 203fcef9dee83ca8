/**
 * Copies of an object as a write sends them: for server-side apply, without the metadata the server owns;
 * for `Force=true`'s re-create (`kubectl apply --force`'s restore), without what the server sets on create.
 */
import type { KubeObject } from '../common/index.js';

/** Server-side apply takes the object without server-owned metadata. */
export function stripForApply(target: KubeObject): KubeObject {
  const copy = structuredClone(target);
  if (copy.metadata) {
    delete copy.metadata.resourceVersion;
    delete copy.metadata.managedFields;
  }
  return copy;
}

/** A live object as it can be created again: without what the server sets (`kubectl apply --force`'s restore). */
export function restorable(live: KubeObject): KubeObject {
  const metadata = { ...live.metadata };
  for (const k of [
    'uid',
    'resourceVersion',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'generation',
    'managedFields',
    'selfLink',
  ])
    delete (metadata as Record<string, unknown>)[k];
  const { status: _status, ...rest } = live;
  const restored: KubeObject = { ...rest, metadata };
  // A Job's selector and its template's controller-uid labels were generated for the old object; a create
  // that carries them is refused (422 "`selector` not auto-generated") unless manualSelector is set.
  const spec = restored['spec'] as Record<string, unknown> | undefined;
  if (live.apiVersion === 'batch/v1' && live.kind === 'Job' && spec && spec['manualSelector'] !== true) {
    const { selector: _selector, ...jobSpec } = spec;
    const template = jobSpec['template'] as { metadata?: { labels?: Record<string, string> } } | undefined;
    const labels = { ...template?.metadata?.labels };
    for (const k of ['controller-uid', 'batch.kubernetes.io/controller-uid']) delete labels[k];
    restored['spec'] = {
      ...jobSpec,
      ...(template ? { template: { ...template, metadata: { ...template.metadata, labels } } } : {}),
    };
  }
  return restored;
}
