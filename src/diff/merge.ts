/**
 * The three-way merge: what the live object would look like after applying the target ("predicted live",
 * Argo CD's PredictedLive). Inputs are normalized; nothing is mutated.
 *
 * Rule, per map key of live and target:
 * - in the target: merged recursively (scalars and type changes: the target wins);
 * - only live: kept, unless the original (fields we applied before: the last-applied-configuration, or
 *   our managedFields in structured-merge diff, or the target itself in two-way diff) has it: then it was
 *   removed from Git and is dropped;
 * - only in the target: added.
 * Lists merged per element by key, with the same rule (live-only elements kept unless the original lists
 * them): in three- and two-way diff, lists of built-in kinds with a strategic-merge key (rules.ts
 * mergeKeyFor; custom resources are JSON-merge-patched, every list atomic, as Argo CD does); in
 * structured-merge diff, every list the kind's schema makes a map (`x-kubernetes-list-map-keys`, else the
 * strategic-merge key; CRD schemas included), as server-side apply merges. Other lists are
 * atomic: the live list is kept when, with the fields the original's (else the target's) element at the
 * same index lacks removed (Argo CD's RemoveListFields), it equals the target list; else the target list
 * replaces it. Element order: target order, live-only elements after the target element they followed.
 */
import { findItem, isLeaf, removeTree } from './fieldset.js';
import type { FieldTree } from './fieldset.js';
import { clone, deepEqual, isMap } from './paths.js';
import { mergeKeyFor } from './rules.js';
import type { KindSchema, ListShape } from '../schema/index.js';

type MapShape = Extract<ListShape, { kind: 'map' }>;
import type { Json, JsonMap } from './types.js';

export interface MergeContext {
  /** "group/Kind" of the object (selects strategic merge keys). */
  gk: string;
  /** The object's schema facts (list shapes of structured-merge). */
  schema: KindSchema;
  /**
   * Structured-merge: a live-only map or list item the original holds only in part (we own some fields
   * below it, others own the rest) loses just our fields, as server-side apply prunes; otherwise (three-
   * and two-way, as a JSON/strategic merge patch deletes a key) it goes whole.
   */
  granular?: boolean;
}

/** The predicted live object. `orig` is the original's value (last-applied), `tree` its field tree. */
export function predictLive(
  live: JsonMap,
  target: JsonMap,
  orig: Json | undefined,
  tree: FieldTree | undefined,
  ctx: MergeContext,
): JsonMap {
  return mergeMap(live, target, isMap(orig) ? orig : undefined, tree, ctx, '');
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function mergeValue(
  live: Json,
  target: Json,
  orig: Json | undefined,
  tree: FieldTree | undefined,
  ctx: MergeContext,
  path: string,
): Json {
  if (isMap(live) && isMap(target))
    return mergeMap(live, target, isMap(orig) ? orig : undefined, tree, ctx, path);
  if (Array.isArray(live) && Array.isArray(target)) {
    const keys = listKeys(ctx, path);
    if (keys && hasKeys(live, keys) && hasKeys(target, keys)) {
      return mergeKeyed(live, target, keys, Array.isArray(orig) ? orig : undefined, tree, ctx, path);
    }
    const shape = Array.isArray(orig) ? orig : target;
    return deepEqual(removeFields(shape, live), target) ? clone(live) : clone(target);
  }
  return clone(target);
}

function mergeMap(
  live: JsonMap,
  target: JsonMap,
  orig: JsonMap | undefined,
  tree: FieldTree | undefined,
  ctx: MergeContext,
  path: string,
): JsonMap {
  const out: JsonMap = {};
  for (const [k, lv] of Object.entries(live)) {
    const tv = target[k];
    const sub = tree?.fields.get(k);
    if (tv !== undefined) out[k] = mergeValue(lv, tv, orig?.[k], sub, ctx, join(path, k));
    else if (!sub) out[k] = clone(lv);
    else if (ctx.granular && !isLeaf(sub)) out[k] = withoutTree(lv, sub);
  }
  for (const [k, tv] of Object.entries(target)) if (!Object.hasOwn(live, k)) out[k] = clone(tv);
  return out;
}

function withoutTree(value: Json, tree: FieldTree): Json {
  const rest = clone(value);
  removeTree(rest, tree);
  return rest;
}

/** How the items of the list at `path` are identified, when it merges by key (see the header). */
function listKeys(ctx: MergeContext, path: string): MapShape | undefined {
  if (ctx.granular) {
    const shape = ctx.schema.listShape(path);
    return shape.kind === 'map' ? shape : undefined;
  }
  const key = mergeKeyFor(ctx.gk, path);
  return key ? { kind: 'map', keys: [key] } : undefined;
}

/** A key value; an omitted key at its schema default. */
function keyValue(el: JsonMap, k: string, shape: MapShape): Json | undefined {
  const v = el[k];
  return v === undefined || v === null ? shape.keyDefaults?.[k] : v;
}

/** Every element is a map with unique, non-null key values (else the list is compared atomically). */
function hasKeys(list: Json[], shape: MapShape): boolean {
  const seen = new Set<string>();
  for (const el of list) {
    if (!isMap(el) || shape.keys.some((k) => keyValue(el, k, shape) === undefined)) return false;
    seen.add(keyOf(el, shape));
  }
  return seen.size === list.length;
}

/** Ints and strings alike ("80" and 80), as the strategic merge of a key written both ways. */
function keyOf(el: Json, shape: MapShape): string {
  return shape.keys.map((k) => String(keyValue(el as JsonMap, k, shape))).join('\u0000');
}

function mergeKeyed(
  live: Json[],
  target: Json[],
  keys: MapShape,
  orig: Json[] | undefined,
  tree: FieldTree | undefined,
  ctx: MergeContext,
  path: string,
): Json[] {
  const elPath = `${path}[]`;
  const targetIndex = new Map(target.map((el, i) => [keyOf(el, keys), i]));
  const liveByKey = new Map(live.map((el) => [keyOf(el, keys), el]));
  const origByKey = new Map((orig ?? []).filter(isMap).map((el) => [keyOf(el, keys), el as Json]));
  const merged = (i: number): Json => {
    const t = target[i]!;
    const k = keyOf(t, keys);
    const l = liveByKey.get(k);
    if (l === undefined) return clone(t);
    return mergeValue(l, t, origByKey.get(k), findItem(tree, l, -1), ctx, elPath);
  };
  const out: Json[] = [];
  let next = 0;
  live.forEach((l, li) => {
    const ti = targetIndex.get(keyOf(l, keys));
    if (ti === undefined) {
      const sub = findItem(tree, l, li);
      if (!sub) out.push(clone(l));
      else if (ctx.granular && !sub.self) out.push(withoutTree(l, sub));
      return;
    }
    for (; next <= ti; next++) out.push(merged(next));
  });
  for (; next < target.length; next++) out.push(merged(next));
  return out;
}

/**
 * `live` without the map fields `config` lacks, recursively; lists element by element by index, extra live
 * elements kept (Argo CD's RemoveMapFields / RemoveListFields).
 */
export function removeFields(config: Json | undefined, live: Json): Json {
  if (isMap(config) && isMap(live)) {
    const out: JsonMap = {};
    for (const [k, c] of Object.entries(config)) {
      const l = live[k];
      if (l !== undefined) out[k] = removeFields(c, l);
    }
    return out;
  }
  if (Array.isArray(config) && Array.isArray(live)) {
    return live.map((l, i) => (i < config.length ? removeFields(config[i], l) : l));
  }
  return live;
}
