// Over 400 lines: one algorithm kept whole, following apimachinery strategicpatch/patch.go function by function.
/**
 * Strategic merge patch (`application/strategic-merge-patch+json`, built-in kinds only), as the embedded
 * server applies it, following apimachinery `pkg/util/strategicpatch/patch.go` (`mergeMap`, `mergeSlice`,
 * `normalizeElementOrder`): each field's patch strategy and merge key come from the kind's published
 * OpenAPI schema (src/schema); the directives `$patch: replace|delete|merge`, `$retainKeys`,
 * `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>` are honoured, and merged lists come out
 * in the real server's order (patch items in patch order, server-only items placed among them by their
 * live order). Bad directive formats are 400, failures apiserver passes through unmapped are 500
 * (see `badFormat` / `mergeFailure`). JSON merge patch and JSON patch are patch.ts.
 *
 * `strategicMergePatch` is pure: it returns a new value and never changes its inputs.
 */
import type { Schema, SchemaCatalog } from '../schema/index.js';
import { ApiError } from './errors.js';
import type { Json, JsonMap } from './types.js';
import { clone, isMap } from './types.js';

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const ORDER = '$setElementOrder/';
const DELETE_PRIMITIVE = '$deleteFromPrimitiveList/';

/** Errors apiserver maps to 400 (interpretStrategicMergePatchError: bad directive formats). */
function badFormat(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

/** Errors apiserver passes through unmapped: they reach the client as 500 InternalError. */
function mergeFailure(message: string): ApiError {
  return new ApiError(500, 'InternalError', message);
}

/** Where the merge stands in the kind's schema. */
interface Cursor {
  schemas: SchemaCatalog;
  schema: Schema | undefined;
}

type ElemKind = 'map' | 'array' | 'string' | 'number' | 'boolean';

function kindOf(v: Json): ElemKind | 'null' {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (isMap(v)) return 'map';
  return typeof v as ElemKind;
}

/**
 * Applies a strategic merge patch to `target` (a stored object) with the field facts of `root` (the kind's
 * schema in `schemas`; undefined: no facts, so maps merge and lists replace).
 */
export function strategicMergePatch(
  target: Json | undefined,
  patch: Json,
  schemas: SchemaCatalog,
  root: Schema | undefined,
): Json {
  if (!isMap(patch))
    throw badRequestBody('json: cannot unmarshal into Go value of type map[string]interface {}');
  const original = isMap(target) ? (clone(target) as JsonMap) : {};
  return mergeMap(original, clone(patch) as JsonMap, { schemas, schema: root });
}

function badRequestBody(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

/** Unknown fields never reach storage: the typed decode after the merge drops directive keys left over. */
function stripDirectives(v: Json): Json {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isMap(v)) return v;
  const out: JsonMap = {};
  for (const [k, child] of Object.entries(v)) {
    if (k === DIRECTIVE || k === RETAIN_KEYS || k.startsWith(ORDER) || k.startsWith(DELETE_PRIMITIVE))
      continue;
    out[k] = stripDirectives(child);
  }
  return out;
}

/** Null values inside a value added whole are dropped (discardNullValuesFromPatch). */
function discardNulls(v: Json): Json {
  if (Array.isArray(v)) return v.map(discardNulls);
  if (!isMap(v)) return v;
  const out: JsonMap = {};
  for (const [k, child] of Object.entries(v)) if (child !== null) out[k] = discardNulls(child);
  return out;
}

function fieldCursor(
  cur: Cursor,
  name: string,
): { field: Schema | undefined; facts: ReturnType<SchemaCatalog['factsOf']> } {
  const field = cur.schema ? cur.schemas.property(cur.schema, name) : undefined;
  return { field, facts: cur.schemas.factsOf(field) };
}

function mergeMap(original: JsonMap, patch: JsonMap, cur: Cursor): JsonMap {
  if (Object.hasOwn(patch, DIRECTIVE)) {
    const d = patch[DIRECTIVE];
    if (d === 'replace') {
      delete patch[DIRECTIVE];
      return stripDirectives(patch) as JsonMap;
    }
    if (d === 'delete') return {};
    throw mergeFailure(`Unknown patch type: ${String(d)} in map: ${JSON.stringify(patch)}`);
  }
  applyRetainKeys(original, patch);
  mergeOrderedLists(original, patch, cur);
  for (const [rawKey, patchV] of Object.entries(patch)) {
    let k = rawKey;
    let isDeleteList = false;
    if (k.startsWith(DELETE_PRIMITIVE)) {
      k = k.slice(DELETE_PRIMITIVE.length);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete original[k];
      continue;
    }
    if (!Object.hasOwn(original, k)) {
      if (!isDeleteList) original[k] = stripDirectives(discardNulls(patchV));
      continue;
    }
    const origV = original[k]!;
    if (kindOf(origV) !== kindOf(patchV)) {
      original[k] = stripDirectives(patchV);
      continue;
    }
    const { field, facts } = fieldCursor(cur, k);
    if (isMap(origV) && isMap(patchV)) {
      const type = cur.schemas.resolve(field);
      const merged = facts.patchStrategies.includes('replace')
        ? (stripDirectives(patchV) as JsonMap)
        : mergeMap(origV, patchV, { schemas: cur.schemas, schema: type });
      // A Go map field with omitempty (labels, nodeSelector...) is not serialized when empty.
      if (Object.keys(merged).length === 0 && type?.['additionalProperties'] && !type['properties'])
        delete original[k];
      else original[k] = merged;
    } else if (Array.isArray(origV) && Array.isArray(patchV)) {
      original[k] = facts.patchStrategies.includes('merge')
        ? mergeSlice(origV, patchV, itemCursor(cur, field), facts.patchMergeKey ?? '', isDeleteList)
        : (stripDirectives(patchV) as Json[]);
    } else {
      original[k] = patchV;
    }
  }
  return original;
}

function itemCursor(cur: Cursor, field: Schema | undefined): Cursor {
  return { schemas: cur.schemas, schema: cur.schemas.resolve(cur.schemas.items(field)) };
}

/** `$retainKeys`: keys of the original missing from the list are cleared (applyRetainKeysDirective). */
function applyRetainKeys(original: JsonMap, patch: JsonMap): void {
  if (!Object.hasOwn(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw badFormat('invalid patch format for retainKeys');
  const keep = new Set(list.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_PRIMITIVE) || k.startsWith(ORDER)) continue;
    if (!keep.has(k)) throw badFormat('invalid patch format for retainKeys');
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/** The merge key value of an item, compared as Go compares interface values (type and value). */
function keyOf(item: Json, mergeKey: string): Json | undefined {
  return mergeKey && isMap(item) ? item[mergeKey] : item;
}

function sameValue(a: Json | undefined, b: Json | undefined): boolean {
  return (
    a !== undefined &&
    b !== undefined &&
    (a === b || (typeof a === 'object' && JSON.stringify(a) === JSON.stringify(b)))
  );
}

function indexIn(list: readonly Json[], item: Json, mergeKey: string): number {
  const want = keyOf(item, mergeKey);
  return list.findIndex((x) => sameValue(keyOf(x, mergeKey), want));
}

function noMergeKey(item: Json, mergeKey: string): ApiError {
  return mergeFailure(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
}

/** The element kind of one or more lists; mixed kinds and lists of lists fail as in sliceElementType. */
function elementKind(...lists: Json[][]): ElemKind | undefined {
  let kind: ElemKind | 'null' | undefined;
  for (const l of lists) {
    for (const v of l) {
      const k = kindOf(v);
      if (kind === undefined) {
        if (k === 'array') throw new ApiError(422, 'Invalid', 'lists of lists are not supported');
        kind = k;
      } else if (k !== kind) {
        throw mergeFailure(`list element types are not identical: ${JSON.stringify(lists)}`);
      }
    }
  }
  return kind === 'null' ? 'string' : kind;
}

/** Merges a list whose patch strategy is "merge" (mergeSlice). */
function mergeSlice(
  original: Json[],
  patch: Json[],
  items: Cursor,
  mergeKey: string,
  isDeleteList: boolean,
): Json[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);
  let merged: Json[];
  let serverOrder = original;
  let patchList = patch;
  if (kind !== 'map') {
    if (isDeleteList) return original.filter((v) => !patch.some((d) => sameValue(d, v)));
    merged = dedupe([...original, ...patch]);
    mergeKey = '';
  } else {
    if (!mergeKey) throw mergeFailure('cannot merge lists without merge key for type map');
    [serverOrder, patchList] = specialElements(original, patch, mergeKey);
    merged = [...serverOrder];
    for (const item of patchList) {
      const m = item as JsonMap;
      if (!Object.hasOwn(m, mergeKey)) throw noMergeKey(m, mergeKey);
      const at = indexIn(merged, m, mergeKey);
      if (at >= 0) merged[at] = mergeMap(merged[at] as JsonMap, m, items);
      else merged.push(stripDirectives(m));
    }
  }
  const [patchItems, serverOnly] = partition(merged, patchList, mergeKey);
  return normalizeElementOrder(patchItems, serverOnly, patchList, serverOrder, mergeKey, kind);
}

function dedupe(list: Json[]): Json[] {
  const out: Json[] = [];
  for (const v of list) if (!out.some((x) => sameValue(x, v))) out.push(v);
  return out;
}

/** `$patch` items of a merged list: delete by key, replace the whole list (mergeSliceWithSpecialElements). */
function specialElements(original: Json[], patch: Json[], mergeKey: string): [Json[], Json[]] {
  const plain: Json[] = [];
  let replace = false;
  let orig = original;
  for (const v of patch) {
    const m = v as JsonMap;
    if (!Object.hasOwn(m, DIRECTIVE)) {
      plain.push(v);
      continue;
    }
    const d = m[DIRECTIVE];
    if (d === 'delete') {
      if (!Object.hasOwn(m, mergeKey)) throw noMergeKey(m, mergeKey);
      orig = orig.filter((x) => !(isMap(x) && sameValue(x[mergeKey], m[mergeKey])));
    } else if (d === 'replace') replace = true;
    else if (d === 'merge') throw mergeFailure('merging lists cannot yet be specified in the patch');
    else throw mergeFailure(`Unknown patch type: ${String(d)} in map: ${JSON.stringify(m)}`);
  }
  return replace ? [plain.map(stripDirectives), []] : [orig, plain];
}

/** Items of `list` present in `by` (by merge key or value), and the rest. */
function partition(list: Json[], by: readonly Json[], mergeKey: string): [Json[], Json[]] {
  const inPatch: Json[] = [];
  const serverOnly: Json[] = [];
  for (const v of list) {
    if (mergeKey && !(isMap(v) && Object.hasOwn(v, mergeKey))) throw noMergeKey(v, mergeKey);
    (indexIn(by, v, mergeKey) >= 0 ? inPatch : serverOnly).push(v);
  }
  return [inPatch, serverOnly];
}

/**
 * The order the real server gives a merged list (normalizeElementOrder): patch items sorted by the patch
 * order, server-only items by the live order, then the server-only items inserted among the patch items
 * before the first patch item that comes later in the live list.
 */
function normalizeElementOrder(
  patchItems: Json[],
  serverOnly: Json[],
  patchOrder: readonly Json[],
  serverOrder: readonly Json[],
  mergeKey: string,
  kind: ElemKind | undefined,
): Json[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]!);
    else if (j >= right.length) out.push(left[i++]!);
    else {
      const li = indexIn(serverOrder, left[i]!, mergeKey);
      const ri = indexIn(serverOrder, right[j]!, mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]!);
      else out.push(right[j++]!);
    }
  }
  return out;
}

/** normalizeSliceOrder: a stable insertion sort by position in `order` ($patch: delete items last). */
function sortByOrder(
  toSort: Json[],
  order: readonly Json[],
  mergeKey: string,
  kind: ElemKind | undefined,
): Json[] {
  let items = toSort;
  let deletes: Json[] = [];
  if (kind === 'map') {
    for (const v of [...toSort, ...order]) {
      if (!isMap(v) || !Object.hasOwn(v, mergeKey)) throw noMergeKey(v, mergeKey);
    }
    items = toSort.filter((v) => (v as JsonMap)[DIRECTIVE] !== 'delete');
    deletes = toSort.filter((v) => (v as JsonMap)[DIRECTIVE] === 'delete');
  }
  const a = [...items];
  const pos = a.map((v) => indexIn(order, v, mergeKey));
  // Go's sort.SliceStable is an insertion sort for short lists; "less" is true unless both are found.
  const less = (x: number, y: number): boolean => (pos[x]! >= 0 && pos[y]! >= 0 ? pos[x]! < pos[y]! : true);
  for (let i = 1; i < a.length; i++) {
    for (let j = i; j > 0 && less(j, j - 1); j--) {
      [a[j], a[j - 1]] = [a[j - 1]!, a[j]!];
      [pos[j], pos[j - 1]] = [pos[j - 1]!, pos[j]!];
    }
  }
  return [...a, ...deletes];
}

/**
 * `$setElementOrder/<list>` (mergePatchIntoOriginal): merges the list with its patch, then orders it by
 * the directive's list (patch items) and the live list (server-only items).
 */
function mergeOrderedLists(original: JsonMap, patch: JsonMap, cur: Cursor): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    const name = key.slice(ORDER.length);
    if (!name) throw badFormat('invalid patch format for $setElementOrder list');
    if (!Array.isArray(order)) throw mergeFailure(`expected []interface{}, but got ${JSON.stringify(order)}`);
    const origList = original[name];
    const patchList = patch[name];
    if (origList !== undefined && !Array.isArray(origList))
      throw mergeFailure(`expected []interface{} at ${name}`);
    if (patchList !== undefined && patchList !== null && !Array.isArray(patchList))
      throw mergeFailure(`expected []interface{} at ${name}`);
    const { field, facts } = fieldCursor(cur, name);
    const mergeKey = facts.patchMergeKey ?? '';
    const origArr = (origList as Json[] | undefined) ?? [];
    const patchArr = (patchList as Json[] | undefined | null) ?? [];
    validateOrder(patchArr, order, mergeKey);
    let merged: Json[];
    if (origList !== undefined && Array.isArray(patchList)) {
      merged = facts.patchStrategies.includes('merge')
        ? mergeSlice(origArr, patchArr, itemCursor(cur, field), mergeKey, false)
        : (stripDirectives(patchArr) as Json[]);
    } else if (origList !== undefined) merged = origArr;
    else if (Array.isArray(patchList)) merged = stripDirectives(patchArr) as Json[];
    else continue;
    const kind = elementKind(origArr, patchArr);
    const [patchItems, serverOnly] = partition(merged, order, mergeKey);
    original[name] = normalizeElementOrder(patchItems, serverOnly, order, origArr, mergeKey, kind);
    delete patch[name];
  }
}

/** The patch list's items (deletions aside) must appear in the directive's list in the same order. */
function validateOrder(patchList: Json[], order: Json[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey ? patchList.filter((v) => !(isMap(v) && v[DIRECTIVE] === 'delete')) : patchList;
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    if (isMap(items[p]) && Object.hasOwn(items[p] as JsonMap, DIRECTIVE)) {
      p++;
      continue;
    }
    if (mergeKey && (!isMap(items[p]) || !Object.hasOwn(items[p] as JsonMap, mergeKey)))
      throw noMergeKey(items[p]!, mergeKey);
    if (mergeKey && (!isMap(order[o]) || !Object.hasOwn(order[o] as JsonMap, mergeKey)))
      throw noMergeKey(order[o]!, mergeKey);
    if (sameValue(keyOf(items[p]!, mergeKey), keyOf(order[o]!, mergeKey))) p++;
    o++;
  }
  if (p < items.length) {
    throw mergeFailure(
      `The order in patch list:\n${JSON.stringify(patchList)}\n doesn't match $setElementOrder list:\n${JSON.stringify(order)}\n`,
    );
  }
}
