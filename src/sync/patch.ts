/**
 * Client-side apply computed locally, as `kubectl apply` does it (k8s.io/apimachinery
 * pkg/util/strategicpatch CreateThreeWayMergePatch, pkg/util/jsonmergepatch CreateThreeWayJSONMergePatch,
 * kubectl pkg/cmd/apply/patcher.go):
 *
 * - original = the live object's `kubectl.kubernetes.io/last-applied-configuration` (what we applied last),
 *   modified = the target with that annotation set to the target's own JSON (keys sorted, as Go's encoder
 *   writes maps), current = the live object.
 * - The patch = deletions (fields of original that modified no longer has: `null`) merged with the delta
 *   (fields of modified whose value differs from current). Fields only the server or others set are kept.
 * - Built-in kinds get a strategic merge patch: lists with a merge key (src/diff/rules.ts MERGE_KEYS) are
 *   patched per element (`{key, ...changes}`, removed elements as `{key, "$patch": "delete"}`); other lists
 *   are replaced whole. Custom resources get a JSON merge patch (every list replaced whole).
 * - An empty patch means nothing to do: the engine sends no request at all.
 * A Secret's `stringData` is compared as the `data` the server stores it as.
 * Primitive lists are replaced whole in both forms (kubectl would send `$deleteFromPrimitiveList` for the
 * few merge-strategy primitive lists such as `finalizers`; replacing is what the object ends up with too).
 */
import { deepEqual, isMap, LAST_APPLIED_ANNOTATION, mergeKeyFor, sortKeys } from '../diff/index.js';
import type { Json, JsonMap } from '../diff/index.js';
import type { KubeObject } from '../common/index.js';

export { LAST_APPLIED_ANNOTATION };

export type PatchType = 'application/strategic-merge-patch+json' | 'application/merge-patch+json';

/** The target as kubectl apply writes it: carrying its own JSON in last-applied-configuration. */
export function withLastApplied(target: KubeObject): KubeObject {
  const copy = structuredClone(target) as KubeObject;
  const annotations = { ...(copy.metadata?.annotations ?? {}) };
  delete annotations[LAST_APPLIED_ANNOTATION];
  // kubectl's GetModifiedConfiguration sets the annotations map before encoding, so the text always holds
  // `"annotations":{}` at least (measured against Argo CD 3.6.1's kubectl apply, conformance c130).
  const bare = { ...copy, metadata: { ...copy.metadata, annotations } } as KubeObject;
  const text = JSON.stringify(sortKeys(bare as unknown as Json)) + '\n';
  copy.metadata = { ...copy.metadata, annotations: { ...annotations, [LAST_APPLIED_ANNOTATION]: text } };
  return copy;
}

/** The last-applied configuration of a live object, if it has a parsable one. */
export function lastApplied(live: KubeObject | undefined): JsonMap | undefined {
  const text = live?.metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isMap(parsed as Json) ? (parsed as JsonMap) : undefined;
  } catch {
    return undefined;
  }
}

export interface ApplyPatch {
  type: PatchType;
  /** `{}` when the live object already matches: send nothing. */
  patch: JsonMap;
  empty: boolean;
}

/** The three-way patch that turns `live` into the applied `target` (`target` without last-applied yet). */
export function applyPatch(target: KubeObject, live: KubeObject, builtIn: boolean): ApplyPatch {
  const modified = secretData(withLastApplied(target) as unknown as JsonMap);
  const original = secretData(lastApplied(live) ?? {});
  const current = live as unknown as JsonMap;
  const gk = `${groupOf(String(modified['apiVersion'] ?? ''))}/${String(modified['kind'] ?? '')}`;
  const ctx: Ctx = { gk, strategic: builtIn };
  const deletions = deletionsOf(original, modified, ctx, '');
  const delta = deltaOf(current, modified, ctx, '');
  const patch = combine(deletions, delta, ctx, '');
  return {
    type: builtIn ? 'application/strategic-merge-patch+json' : 'application/merge-patch+json',
    patch,
    empty: Object.keys(patch).length === 0,
  };
}

/**
 * A core Secret's `stringData` as the server stores it: merged into `data` (base64) and dropped, on both
 * original and modified, so an unchanged Secret written with stringData patches nothing.
 */
function secretData(obj: JsonMap): JsonMap {
  if (obj['kind'] !== 'Secret' || obj['apiVersion'] !== 'v1' || !isMap(obj['stringData'] as Json)) return obj;
  const { stringData, ...rest } = obj;
  const data: JsonMap = { ...(isMap(rest['data'] as Json) ? (rest['data'] as JsonMap) : {}) };
  for (const [k, v] of Object.entries(stringData as JsonMap)) {
    data[k] = Buffer.from(typeof v === 'string' ? v : '').toString('base64');
  }
  return { ...rest, data };
}

interface Ctx {
  gk: string;
  strategic: boolean;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

function join(path: string, field: string): string {
  return path === '' ? field : `${path}.${field}`;
}

function mergeKey(ctx: Ctx, path: string, ...lists: Json[][]): string | undefined {
  if (!ctx.strategic) return undefined;
  const key = mergeKeyFor(ctx.gk, path);
  if (key === undefined) return undefined;
  return lists.every((l) => l.every((e) => isMap(e) && e[key] !== undefined)) ? key : undefined;
}

function byKey(list: Json[], key: string): Map<string, JsonMap> {
  return new Map(list.map((e) => [JSON.stringify((e as JsonMap)[key]), e as JsonMap]));
}

/** Fields `original` has and `modified` lost, as `null` (or `$patch: delete` list elements). */
function deletionsOf(original: JsonMap, modified: JsonMap, ctx: Ctx, path: string): JsonMap {
  const out: JsonMap = {};
  for (const [field, was] of Object.entries(original)) {
    const now = modified[field];
    const sub = join(path, field);
    if (now === undefined) {
      out[field] = null;
    } else if (isMap(was) && isMap(now)) {
      const d = deletionsOf(was, now, ctx, sub);
      if (Object.keys(d).length > 0) out[field] = d;
    } else if (Array.isArray(was) && Array.isArray(now)) {
      const key = mergeKey(ctx, sub, was, now);
      if (key === undefined) continue;
      const nowByKey = byKey(now, key);
      const items: Json[] = [];
      for (const [id, element] of byKey(was, key)) {
        const still = nowByKey.get(id);
        if (still === undefined) items.push({ [key]: element[key]!, $patch: 'delete' });
        else {
          const d = deletionsOf(element, still, ctx, `${sub}[]`);
          if (Object.keys(d).length > 0) items.push({ [key]: element[key]!, ...d });
        }
      }
      if (items.length > 0) out[field] = items;
    }
  }
  return out;
}

/** Fields of `modified` whose value differs from `current`. */
function deltaOf(current: JsonMap, modified: JsonMap, ctx: Ctx, path: string): JsonMap {
  const out: JsonMap = {};
  for (const [field, want] of Object.entries(modified)) {
    const have = current[field];
    const sub = join(path, field);
    if (isMap(want) && isMap(have)) {
      const d = deltaOf(have, want, ctx, sub);
      if (Object.keys(d).length > 0) out[field] = d;
    } else if (Array.isArray(want) && Array.isArray(have)) {
      const key = mergeKey(ctx, sub, want, have);
      if (key === undefined) {
        if (!deepEqual(want, have)) out[field] = want;
        continue;
      }
      const haveByKey = byKey(have, key);
      const items: Json[] = [];
      for (const element of want as JsonMap[]) {
        const existing = haveByKey.get(JSON.stringify(element[key]));
        if (existing === undefined) items.push(element);
        else {
          const d = deltaOf(existing, element, ctx, `${sub}[]`);
          if (Object.keys(d).length > 0) items.push({ [key]: element[key]!, ...d });
        }
      }
      if (items.length > 0) out[field] = items;
    } else if (!deepEqual(want, have)) {
      out[field] = want;
    }
  }
  return out;
}

/** Deletions and delta in one patch (delta wins where both touch a scalar). */
function combine(deletions: JsonMap, delta: JsonMap, ctx: Ctx, path: string): JsonMap {
  const out: JsonMap = { ...deletions };
  for (const [field, value] of Object.entries(delta)) {
    const prior = out[field];
    const sub = join(path, field);
    if (isMap(prior) && isMap(value)) out[field] = combine(prior, value, ctx, sub);
    else if (Array.isArray(prior) && Array.isArray(value)) {
      const key = mergeKey(ctx, sub, prior, value);
      if (key === undefined) {
        out[field] = value;
        continue;
      }
      const merged = byKey(prior, key);
      for (const element of value as JsonMap[]) {
        const id = JSON.stringify(element[key]);
        const before = merged.get(id);
        merged.set(id, before ? combine(before, element, ctx, `${sub}[]`) : element);
      }
      out[field] = [...merged.values()];
    } else out[field] = value;
  }
  return out;
}
