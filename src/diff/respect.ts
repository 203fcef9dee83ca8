/**
 * `RespectIgnoreDifferences=true`: the target a sync applies keeps the live values of the fields the
 * app's ignoreDifferences leave out (Argo CD controller/sync.go `normalizeTargetResources`, called by
 * SyncAppState before the tasks are built). So an ignored field (a Deployment's `replicas` an autoscaler
 * owns) is neither compared nor written back.
 *
 * As Argo CD, per pair with both a target and a live object:
 * 1. Both are normalized as Argo CD's diff.Normalize does: the fields the matched rules'
 *    `managedFieldsManagers` own (live managedFields) removed from both, then the rules' JSON pointers and
 *    jq paths (its ignore normalizer removes those paths and nothing else: empty maps are kept).
 * 2. The live patch is what that normalization removed from the live object (`status` left out: it is the
 *    resource's controller's, never the sync's): a merge patch from the normalized live to the live, where
 *    a list of a built-in kind merged by key (its `x-kubernetes-patch-merge-key`, as strategic merge
 *    patch) is patched element by element, matched by key, and any other list whole.
 * 3. The patch is applied to the normalized target, and what the patch's whole-list or whole-map copies
 *    overwrote of fields no rule ignores is put back from the target (`restoreNonIgnoredFields`).
 * A target without a live object, or matched by no rule, is applied as it is.
 */
import type { KubeObject } from '../common/index.js';
import { removeTree, treeOfManagers } from './fieldset.js';
import { applyIgnores, identityOf, matchIgnores } from './ignore.js';
import type { CompiledIgnore } from './ignore.js';
import { clone, deepEqual, groupKindOf, isMap } from './paths.js';
import { mergeKeyFor } from './rules.js';
import type { Json, JsonMap } from './types.js';

/** The target with the live values of its ignored fields (see the header); `target` itself when none. */
export function respectIgnoredFields(
  target: KubeObject,
  live: KubeObject,
  ignores: readonly CompiledIgnore[],
): KubeObject {
  const original = target as unknown as JsonMap;
  const liveMap = live as unknown as JsonMap;
  const id = identityOf(original);
  if (!id.namespace) id.namespace = identityOf(liveMap).namespace;
  const matched = matchIgnores(ignores, id);
  if (matched.length === 0) return target;

  const normTarget = clone(original);
  const fullLive = clone(liveMap);
  const normLive = clone(fullLive);
  const liveMeta = isMap(liveMap['metadata']) ? liveMap['metadata'] : {};
  const owned = treeOfManagers(
    liveMeta['managedFields'],
    matched.flatMap((m) => m.managers),
  );
  if (owned) for (const obj of [normTarget, normLive]) removeTree(obj, owned);
  applyIgnores(normTarget, matched, true);
  applyIgnores(normLive, matched, true);
  delete fullLive['status'];
  delete normLive['status'];

  const gk = groupKindOf(fullLive);
  const patched = clone(normTarget);
  patchRemoved(patched, fullLive, normLive, gk, '');
  restoreNonIgnored(patched, original, normTarget, normLive);
  return patched as unknown as KubeObject;
}

/**
 * Puts into `dst` what normalization removed from `full` (`norm` is `full` normalized), as a merge patch
 * from `norm` to `full` applied to `dst` would: a key `norm` lacks is copied whole; maps recurse; a list
 * that differs is merged by key when its kind's schema says so, else copied whole.
 */
function patchRemoved(dst: JsonMap, full: JsonMap, norm: JsonMap, gk: string, path: string): void {
  for (const [key, value] of Object.entries(full)) {
    const at = path ? `${path}.${key}` : key;
    if (!(key in norm)) {
      dst[key] = clone(value);
      continue;
    }
    const before = norm[key];
    if (deepEqual(before, value)) continue;
    if (isMap(value) && isMap(before)) {
      const into = isMap(dst[key]) ? dst[key] : {};
      patchRemoved(into, value, before, gk, at);
      dst[key] = into;
    } else if (Array.isArray(value) && Array.isArray(before)) {
      const mergeKey = mergeKeyFor(gk, at);
      const current = dst[key];
      if (mergeKey && Array.isArray(current)) dst[key] = mergeList(current, value, before, mergeKey, gk, at);
      else dst[key] = clone(value);
    } else {
      dst[key] = clone(value);
    }
  }
}

/** A list merged by `mergeKey`: each live element that normalization changed is patched into its match. */
function mergeList(
  dst: Json[],
  full: Json[],
  norm: Json[],
  mergeKey: string,
  gk: string,
  path: string,
): Json[] {
  const out = dst.map((e) => clone(e));
  const keyOf = (e: Json): Json | undefined => (isMap(e) ? e[mergeKey] : undefined);
  for (const element of full) {
    const k = keyOf(element);
    if (k === undefined || !isMap(element)) continue;
    const before = norm.find((e) => deepEqual(keyOf(e), k));
    if (before !== undefined && deepEqual(before, element)) continue;
    const at = out.findIndex((e) => deepEqual(keyOf(e), k));
    if (at < 0) {
      // Strategic merge patch adds an element the target lacks.
      out.push(clone(element));
      continue;
    }
    const into = out[at]!;
    if (!isMap(into)) continue;
    if (before === undefined || !isMap(before)) Object.assign(into, clone(element));
    else patchRemoved(into, element, before, gk, `${path}[]`);
  }
  return out;
}

/**
 * Argo CD's restoreNonIgnoredFields: where a whole-map or whole-list copy from live overwrote, dropped or
 * added a field no rule ignores (the normalized target still equals the target there; a live-only key the
 * normalization kept), the target's value is put back.
 */
function restoreNonIgnored(
  patched: JsonMap,
  original: JsonMap,
  normalized: JsonMap,
  normLive: JsonMap,
): void {
  for (const [key, originalValue] of Object.entries(original)) {
    const patchedValue = patched[key];
    const normalizedValue = normalized[key];
    if (isMap(patchedValue) && isMap(originalValue) && isMap(normalizedValue)) {
      restoreNonIgnored(
        patchedValue,
        originalValue,
        normalizedValue,
        isMap(normLive[key]) ? normLive[key] : {},
      );
      continue;
    }
    if (
      key in normalized &&
      deepEqual(normalizedValue, originalValue) &&
      (!(key in patched) || !deepEqual(patchedValue, originalValue))
    )
      patched[key] = clone(originalValue);
  }
  for (const key of Object.keys(patched)) {
    if (key in original) continue;
    if (key in normLive) delete patched[key];
  }
}
