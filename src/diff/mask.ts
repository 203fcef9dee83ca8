/**
 * Secret masking (gitops-engine HideSecretData). For every key of `data` found in any of the objects
 * (Secrets: kind Secret; `stringData` is expected merged into `data` already, and masked too if not), each
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

/**
 * Whether `obj` is masked as a Secret: kind Secret in any group. Argo CD masks the core group's only;
 * we also mask a Secret whose apiVersion is wrong (`core/v1`, a typo): such a manifest is still printed
 * (as an unknown kind, or invalid), and its values must not be.
 */
export function isSecret(obj: JsonMap | null | undefined): boolean {
  return !!obj && groupKindOf(obj).endsWith('/Secret');
}

/**
 * Masks Secret data and sensitive annotations across `objects` (target, live, original — any may be
 * null), in place. `data` and `stringData` are masked per key when they are maps; a value of any other
 * shape (a string, a list: a manifest the API server would refuse, still shown in a diff) is masked
 * whole.
 */
export function maskSecrets(
  objects: Array<JsonMap | null | undefined>,
  sensitiveAnnotations: readonly string[] = [],
): void {
  if (objects.some(isSecret)) {
    const secrets = objects.map((o) => (isSecret(o) ? (o ?? undefined) : undefined));
    for (const field of ['data', 'stringData']) {
      maskMaps(secrets.map((o) => child(o, field)));
      maskMaps(
        secrets.map((o) =>
          o && Object.hasOwn(o, field) && o[field] !== null && !isMap(o[field]) ? o : undefined,
        ),
        [field],
      );
    }
  }
  if (sensitiveAnnotations.length > 0) {
    maskMaps(
      objects.map((o) => child(o, 'metadata', 'annotations')),
      sensitiveAnnotations,
    );
  }
}
