/**
 * What Argo CD does to rendered objects before comparing them (spec 1 and 2):
 * - `dedupe`: objects with the same group/kind/namespace/name (namespace = object namespace or the app's
 *   destination namespace; name = `metadata.name`, else `generateName` + index) keep the LAST occurrence,
 *   at its position, with one RepeatedResourceWarning per key.
 * - `stampTracking`: annotation `argocd.argoproj.io/tracking-id` =
 *   `<instance>:<group>/<kind>:<namespace>/<name>` (group empty for core kinds; namespace = object
 *   namespace or the destination namespace, also for cluster-scoped kinds) on every object except
 *   CustomResourceDefinitions. Objects are copied, never mutated in place (they may come from the cache).
 * - `untrackable`: why an object cannot be stamped, as Argo CD's repo-server fails the whole source then
 *   (reposerver/repository/repository.go: "failed to set app instance tracking info on manifest: ...";
 *   util/kube `SetAppInstanceAnnotation` reads the annotations as a map of strings): an annotation whose
 *   value is not a string (YAML 1.1 `yes`, a number). The words are apimachinery's `NestedStringMap`.
 */
import type { KubeObject } from '../util/yaml-docs.js';

import { TRACKING_ID_ANNOTATION } from '../common/index.js';

export const TRACKING_ANNOTATION = TRACKING_ID_ANNOTATION;

export function groupOf(obj: KubeObject): string {
  const apiVersion = obj.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function isCRD(obj: KubeObject): boolean {
  return obj.kind === 'CustomResourceDefinition' && groupOf(obj) === 'apiextensions.k8s.io';
}

export function resourceKey(obj: KubeObject, destNamespace: string, index = 0): string {
  const name = obj.metadata?.name || `${String(obj.metadata?.['generateName'] ?? '')}${index}`;
  return `${groupOf(obj)}/${obj.kind ?? ''}/${obj.metadata?.namespace || destNamespace}/${name}`;
}

export function trackingId(instance: string, obj: KubeObject, destNamespace: string): string {
  const ns = obj.metadata?.namespace || destNamespace;
  return `${instance}:${groupOf(obj)}/${obj.kind ?? ''}:${ns}/${obj.metadata?.name ?? ''}`;
}

export function dedupe(
  objects: readonly KubeObject[],
  destNamespace: string,
): { objects: KubeObject[]; warnings: string[] } {
  const keys = objects.map((o, i) => resourceKey(o, destNamespace, i));
  const last = new Map<string, number>();
  const count = new Map<string, number>();
  keys.forEach((k, i) => {
    last.set(k, i);
    count.set(k, (count.get(k) ?? 0) + 1);
  });
  const warnings = [...count]
    .filter(([, n]) => n > 1)
    // Argo CD's RepeatedResourceWarning words (controller/state.go); the last one is kept, as Argo CD keeps it.
    .map(([k, n]) => `Resource ${k} appeared ${n} times among application resources.`);
  return { objects: objects.filter((_, i) => last.get(keys[i]!) === i), warnings };
}

/** Go's `%T` and `%v` of a JSON value, as apimachinery's accessor errors print them. */
function goTyped(v: unknown): [type: string, value: string] {
  if (v === null || v === undefined) return ['<nil>', '<nil>'];
  if (typeof v === 'boolean') return ['bool', String(v)];
  if (typeof v === 'number') return [Number.isInteger(v) ? 'int64' : 'float64', String(v)];
  if (Array.isArray(v)) return ['[]interface {}', `[${v.map((x) => goTyped(x)[1]).join(' ')}]`];
  if (typeof v === 'object') return ['map[string]interface {}', 'map[...]'];
  return ['string', String(v)];
}

/** Why Argo CD's repo-server could not stamp one of `objects` (see the header), or undefined. */
export function untrackable(objects: readonly KubeObject[]): string | undefined {
  for (const obj of objects) {
    if (isCRD(obj)) continue;
    const annotations = obj.metadata?.annotations as unknown;
    if (annotations === undefined || annotations === null) continue;
    let error: string | undefined;
    if (typeof annotations !== 'object' || Array.isArray(annotations)) {
      const [type, value] = goTyped(annotations);
      error = `.metadata.annotations accessor error: ${value} is of the type ${type}, expected map[string]interface{}`;
    } else {
      const bad = Object.entries(annotations as Record<string, unknown>).find(
        ([, v]) => typeof v !== 'string',
      );
      if (bad) {
        const [type, value] = goTyped(bad[1]);
        error = `.metadata.annotations accessor error: contains non-string value in the map under key "${bad[0]}": ${value} is of the type ${type}, expected string`;
      }
    }
    if (!error) continue;
    const [group, version] = String(obj.apiVersion ?? '').includes('/')
      ? String(obj.apiVersion).split('/')
      : ['', String(obj.apiVersion ?? '')];
    return (
      `failed to set app instance tracking info on manifest: failed to get annotations from target object ` +
      `${group}/${version}, Kind=${obj.kind ?? ''} ${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}: ${error}`
    );
  }
  return undefined;
}

export function stampTracking(
  objects: readonly KubeObject[],
  instance: string,
  destNamespace: string,
): KubeObject[] {
  return objects.map((obj) => {
    if (isCRD(obj)) return obj;
    const metadata = obj.metadata ?? {};
    return {
      ...obj,
      metadata: {
        ...metadata,
        annotations: {
          ...(metadata.annotations ?? {}),
          [TRACKING_ANNOTATION]: trackingId(instance, obj, destNamespace),
        },
      },
    };
  });
}
