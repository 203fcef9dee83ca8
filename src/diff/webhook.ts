/**
 * Server-side diff without the changes of mutating admission webhooks (gitops-engine `pkg/diff/diff.go
 * removeWebhookMutation`; Argo CD does this unless the app's compare-options say
 * `IncludeMutationWebhook=true`). The dry-run answer ("predicted") holds everything the server would store:
 * our applied fields, defaults, and whatever webhooks added. Only the fields our manager owns in the
 * predicted object's `managedFields` are taken from it; the rest comes from live:
 *  1. kept = predicted restricted to the fields owned by `managers` (list items by their key; the key
 *     fields of an owned item are always kept, as upstream keeps composite-key fields);
 *  2. merged = kept merged onto live as server-side apply merges (maps by key; lists by their
 *     `x-kubernetes-list-map-keys`, sets by value, other lists replaced whole);
 *  3. every field live has and predicted lacks (the apply removed it) is removed from merged again.
 * A predicted object in which `managers` own nothing is an error (upstream: "no managed fields found for
 * manager"), which the caller reports as that resource's comparison error.
 */
import { findItem, treeOfManagers } from './fieldset.js';
import type { FieldTree } from './fieldset.js';
import { clone, deepEqual, isMap } from './paths.js';
import { listItemKey } from '../schema/index.js';
import type { KindSchema, ListShape } from '../schema/index.js';

type MapShape = Extract<ListShape, { kind: 'map' }>;
import type { Json, JsonMap } from './types.js';

/** A server-side diff that cannot be computed: that resource's comparison error, not the app's. */
export class ServerSideDiffError extends Error {
  override name = 'ServerSideDiffError';
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function isLeaf(t: FieldTree): boolean {
  return t.fields.size === 0 && t.items.length === 0;
}

/** The predicted live object without the fields that no manager in `managers` set. */
export function removeWebhookMutation(
  predicted: JsonMap,
  live: JsonMap,
  managers: readonly string[],
  kind: KindSchema,
): JsonMap {
  const meta = isMap(predicted['metadata']) ? predicted['metadata'] : {};
  const owned = treeOfManagers(meta['managedFields'], managers);
  if (!owned || isLeaf(owned)) {
    throw new ServerSideDiffError(
      `failed to remove mutating webhook changes: the dry-run answer has no managed fields of ${managers.join(', ')}`,
    );
  }
  const kept = keepOwned(predicted, owned, kind, '');
  const merged = mergeOnto(live, kept, kind, '');
  removeDropped(merged, live, predicted, kind, '');
  return merged as JsonMap;
}

function keepOwned(value: Json, tree: FieldTree, kind: KindSchema, path: string): Json {
  if (isLeaf(tree)) return clone(value);
  if (isMap(value)) {
    const out: JsonMap = {};
    for (const [k, sub] of tree.fields) {
      const v = value[k];
      if (v !== undefined) out[k] = keepOwned(v, sub, kind, join(path, k));
    }
    return out;
  }
  if (Array.isArray(value)) {
    const shape = kind.listShape(path);
    const out: Json[] = [];
    value.forEach((el, i) => {
      const sub = findItem(tree, el, i);
      if (!sub) return;
      const kept = keepOwned(el, sub, kind, `${path}[]`);
      if (shape.kind === 'map' && isMap(el) && isMap(kept)) {
        for (const k of shape.keys) if (el[k] !== undefined) kept[k] = clone(el[k]!);
      }
      out.push(kept);
    });
    return out;
  }
  return clone(value);
}

function keyed(list: Json[], shape: MapShape): Map<string, number> {
  const out = new Map<string, number>();
  list.forEach((el, i) => {
    const id = listItemKey(el, shape);
    if (id !== undefined && !out.has(id)) out.set(id, i);
  });
  return out;
}

function mergeOnto(live: Json, kept: Json, kind: KindSchema, path: string): Json {
  if (isMap(live) && isMap(kept)) {
    const out = clone(live) as JsonMap;
    for (const [k, v] of Object.entries(kept)) {
      const l = live[k];
      out[k] = l === undefined ? clone(v) : mergeOnto(l, v, kind, join(path, k));
    }
    return out;
  }
  if (Array.isArray(live) && Array.isArray(kept)) {
    const shape = kind.listShape(path);
    if (shape.kind === 'map') {
      const out = live.map((el) => clone(el));
      const index = keyed(live, shape);
      for (const el of kept) {
        const id = listItemKey(el, shape);
        const at = id === undefined ? undefined : index.get(id);
        if (at === undefined) out.push(clone(el));
        else out[at] = mergeOnto(live[at]!, el, kind, `${path}[]`);
      }
      return out;
    }
    if (shape.kind === 'set') {
      const out = live.map((el) => clone(el));
      for (const el of kept) if (!out.some((x) => deepEqual(x, el))) out.push(clone(el));
      return out;
    }
  }
  return clone(kept);
}

/** Removes from `merged` what `live` has and `predicted` lacks (map keys, map-list items, set values). */
function removeDropped(merged: Json, live: Json, predicted: Json, kind: KindSchema, path: string): void {
  if (isMap(merged) && isMap(live) && isMap(predicted)) {
    for (const [k, l] of Object.entries(live)) {
      const p = predicted[k];
      if (p === undefined) delete merged[k];
      else if (merged[k] !== undefined) removeDropped(merged[k]!, l, p, kind, join(path, k));
    }
    return;
  }
  if (Array.isArray(merged) && Array.isArray(live) && Array.isArray(predicted)) {
    const shape = kind.listShape(path);
    if (shape.kind === 'map') {
      const inPredicted = keyed(predicted, shape);
      const inLive = keyed(live, shape);
      for (let i = merged.length - 1; i >= 0; i--) {
        const id = listItemKey(merged[i]!, shape);
        if (id === undefined) continue;
        const li = inLive.get(id);
        const pi = inPredicted.get(id);
        if (li === undefined) continue;
        if (pi === undefined) merged.splice(i, 1);
        else removeDropped(merged[i]!, live[li]!, predicted[pi]!, kind, `${path}[]`);
      }
    } else if (shape.kind === 'set') {
      for (let i = merged.length - 1; i >= 0; i--) {
        const el = merged[i]!;
        if (live.some((x) => deepEqual(x, el)) && !predicted.some((x) => deepEqual(x, el)))
          merged.splice(i, 1);
      }
    }
  }
}
