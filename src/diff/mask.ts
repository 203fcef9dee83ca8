/**
 * Secret masking (gitops-engine HideSecretData). For every key of `data` found in any of the objects
 * (Secrets only: core group, kind Secret; `stringData` is expected merged into `data` already), each
 * *distinct* value is replaced by a run of "+": the first distinct value seen (objects in the order given:
 * target, live, original) by 8, the next by 12, then 16... Equal values mask equally, so a diff of masked
 * objects still shows which keys changed and never the values. Annotation keys listed as sensitive are
 * masked the same way in any kind. Objects are masked in place.
 */
import { groupKindOf, isMap } from './paths.js';
import type { Json, JsonMap } from './types.js';

const FIRST_MASK = '++++++++';
const MASK_STEP = '++++';

function valueText(v: Json | undefined): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function maskMaps(maps: Array<JsonMap | undefined>, only?: readonly string[]): void {
  const keys = new Set<string>();
  for (const m of maps) if (m) for (const k of Object.keys(m)) if (!only || only.includes(k)) keys.add(k);
  for (const key of keys) {
    let next = FIRST_MASK;
    const seen = new Map<string, string>();
    for (const m of maps) {
      if (!m || !Object.hasOwn(m, key)) continue;
      const text = valueText(m[key]);
      let mask = seen.get(text);
      if (mask === undefined) {
        mask = next;
        next += MASK_STEP;
        seen.set(text, mask);
      }
      m[key] = mask;
    }
  }
}

function child(obj: JsonMap | null | undefined, ...path: string[]): JsonMap | undefined {
  let cur: Json | undefined = obj ?? undefined;
  for (const p of path) cur = isMap(cur) ? cur[p] : undefined;
  return isMap(cur) ? cur : undefined;
}

/** Whether `obj` is a core Secret. */
export function isSecret(obj: JsonMap | null | undefined): boolean {
  return !!obj && groupKindOf(obj) === '/Secret';
}

/**
 * Masks Secret data and sensitive annotations across `objects` (target, live, original — any may be
 * null), in place.
 */
export function maskSecrets(
  objects: Array<JsonMap | null | undefined>,
  sensitiveAnnotations: readonly string[] = [],
): void {
  if (objects.some(isSecret)) maskMaps(objects.map((o) => (isSecret(o) ? child(o, 'data') : undefined)));
  if (sensitiveAnnotations.length > 0) {
    maskMaps(
      objects.map((o) => child(o, 'metadata', 'annotations')),
      sensitiveAnnotations,
    );
  }
}
