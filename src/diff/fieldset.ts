/**
 * Field sets: which fields of an object someone set, as a tree. Built from a value (the
 * last-applied-configuration) or from `metadata.managedFields[].fieldsV1` (server-side apply's format:
 * `f:<field>`, `k:<json key>`, `v:<json value>`, `i:<index>`, `.` = the node itself).
 *
 * Used twice: as the "original" of the three-way merge (fields we applied before), and to drop the fields
 * of `managedFieldsManagers` from both sides. Removal semantics: a leaf (`{}`) removes its field; a list
 * element marked `.` is removed whole; a map marked `.` with children only has those children removed.
 */
import { isMap } from './paths.js';
import { mergeKeyFor } from './rules.js';
import type { Json, JsonMap } from './types.js';

export type ItemId = { k: JsonMap } | { v: Json } | { i: number };

export interface FieldTree {
  /** The node itself is a member (a leaf value, or `.` in fieldsV1). */
  self: boolean;
  fields: Map<string, FieldTree>;
  items: Array<{ id: ItemId; tree: FieldTree }>;
}

export function emptyTree(): FieldTree {
  return { self: false, fields: new Map(), items: [] };
}

export function isLeaf(t: FieldTree): boolean {
  return t.fields.size === 0 && t.items.length === 0;
}

/**
 * The tree of a value. Lists merged by key (per rules.ts) get one item per element, identified by its
 * merge key; other lists are leaves (atomic).
 */
export function treeOfValue(value: Json | undefined, gk: string, path = ''): FieldTree {
  const t = emptyTree();
  if (isMap(value)) {
    for (const [k, v] of Object.entries(value)) {
      t.fields.set(k, treeOfValue(v, gk, path === '' ? k : `${path}.${k}`));
    }
    return t;
  }
  t.self = true;
  if (Array.isArray(value)) {
    const key = mergeKeyFor(gk, path);
    if (key) {
      for (const el of value) {
        if (isMap(el) && el[key] !== undefined) {
          t.items.push({ id: { k: { [key]: el[key]! } }, tree: treeOfValue(el, gk, `${path}[]`) });
        }
      }
    }
  }
  return t;
}

/** Parses one fieldsV1 object. Malformed parts are skipped. */
export function treeOfFieldsV1(fields: unknown): FieldTree {
  const t = emptyTree();
  if (!isMap(fields)) return t;
  const entries = Object.entries(fields);
  if (entries.length === 0) t.self = true;
  for (const [name, sub] of entries) {
    if (name === '.') t.self = true;
    else if (name.startsWith('f:')) t.fields.set(name.slice(2), treeOfFieldsV1(sub));
    else {
      const id = parseItemId(name);
      if (id) t.items.push({ id, tree: treeOfFieldsV1(sub) });
    }
  }
  return t;
}

function parseItemId(name: string): ItemId | undefined {
  try {
    if (name.startsWith('k:')) {
      const k: unknown = JSON.parse(name.slice(2));
      return isMap(k) ? { k } : undefined;
    }
    if (name.startsWith('v:')) return { v: JSON.parse(name.slice(2)) as Json };
    if (name.startsWith('i:')) return { i: Number(name.slice(2)) };
  } catch {
    return undefined;
  }
  return undefined;
}

/** The union of the fieldsV1 trees of the managedFields entries whose manager is listed. */
export function treeOfManagers(managedFields: unknown, managers: readonly string[]): FieldTree | undefined {
  return treeOfEntries(managedFields, (manager) => managers.includes(manager));
}

/** The union of the fieldsV1 trees of the managedFields entries `pick(manager, operation)` selects. */
export function treeOfEntries(
  managedFields: unknown,
  pick: (manager: string, operation: string) => boolean,
): FieldTree | undefined {
  if (!Array.isArray(managedFields)) return undefined;
  let out: FieldTree | undefined;
  for (const entry of managedFields) {
    if (!isMap(entry) || typeof entry['manager'] !== 'string') continue;
    const operation = typeof entry['operation'] === 'string' ? entry['operation'] : '';
    if (!pick(entry['manager'], operation)) continue;
    const t = treeOfFieldsV1(entry['fieldsV1']);
    out = out ? union(out, t) : t;
  }
  return out;
}

/**
 * `ours` without what `others` also own, for structured-merge-diff's prune (merge/update.go `prune`,
 * `addBackOwnedItems`: a field the applier applied before and not now is removed only when no other
 * manager owns it). A field or list item others own, or own something below, is left out of the result
 * when either side holds it whole; otherwise the two are subtracted below it.
 */
export function subtract(ours: FieldTree, others: FieldTree): FieldTree {
  const t: FieldTree = { self: ours.self, fields: new Map(), items: [] };
  for (const [k, sub] of ours.fields) {
    const o = others.fields.get(k);
    if (!o) t.fields.set(k, sub);
    else if (!isLeaf(sub) && !isLeaf(o)) t.fields.set(k, subtract(sub, o));
  }
  for (const item of ours.items) {
    const o = others.items.find((x) => sameId(x.id, item.id));
    if (!o) t.items.push(item);
    else if (!o.tree.self && !isLeaf(o.tree))
      t.items.push({ id: item.id, tree: subtract(item.tree, o.tree) });
  }
  return t;
}

export function union(a: FieldTree, b: FieldTree): FieldTree {
  const t: FieldTree = { self: a.self || b.self, fields: new Map(a.fields), items: [...a.items] };
  for (const [k, sub] of b.fields) {
    const mine = t.fields.get(k);
    t.fields.set(k, mine ? union(mine, sub) : sub);
  }
  for (const item of b.items) {
    const i = t.items.findIndex((x) => sameId(x.id, item.id));
    if (i < 0) t.items.push(item);
    else t.items[i] = { id: item.id, tree: union(t.items[i]!.tree, item.tree) };
  }
  return t;
}

function sameId(a: ItemId, b: ItemId): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The item of `tree` that identifies list element `el` at `index`, if any. */
export function findItem(tree: FieldTree | undefined, el: Json, index: number): FieldTree | undefined {
  if (!tree) return undefined;
  for (const { id, tree: sub } of tree.items) {
    if ('k' in id) {
      if (isMap(el) && Object.entries(id.k).every(([k, v]) => looseEqual(el[k], v))) return sub;
    } else if ('v' in id) {
      if (JSON.stringify(id.v) === JSON.stringify(el)) return sub;
    } else if (id.i === index) return sub;
  }
  return undefined;
}

/** Key values compare across int/string forms (a port written "80" in one place and 80 in another). */
function looseEqual(a: Json | undefined, b: Json): boolean {
  return a !== undefined && (a === b || String(a) === String(b));
}

/** Removes the fields of `tree` from `value` (in place); see the header for the semantics. */
export function removeTree(value: Json | undefined, tree: FieldTree): void {
  if (isMap(value)) {
    for (const [k, sub] of tree.fields) {
      if (!Object.hasOwn(value, k)) continue;
      if (isLeaf(sub)) delete value[k];
      else removeTree(value[k], sub);
    }
  } else if (Array.isArray(value)) {
    for (let i = value.length - 1; i >= 0; i--) {
      const sub = findItem(tree, value[i]!, i);
      if (!sub) continue;
      if (sub.self) value.splice(i, 1);
      else removeTree(value[i], sub);
    }
  }
}
