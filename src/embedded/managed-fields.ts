// Over 400 lines: one algorithm, managedFields and server-side apply over field sets, kept whole as structured-merge-diff does.
/**
 * `metadata.managedFields` and server-side apply.
 *
 * Field sets are sets of paths; a path is a list of elements joined by "\n": `f:<field>` for a map key and
 * `k:{"<key>":<value>,...}` for an item of an associative list and `v:<value>` for an item of a set, with the
 * list shapes of the kind's schema (src/schema: `x-kubernetes-list-type`/`-list-map-keys`, else a patch
 * strategy "merge" with its merge key, as structured-merge-diff's schema conversion reads them; CRD
 * schemas the same way; no schema: every list atomic). A set holds leaves (scalars, atomic lists, atomic
 * and empty maps), list items and granular maps (labels, annotations, data: written as "." in FieldsV1
 * when they also have children), as the real server's FieldsV1 does.
 *
 * Ownership rules (a faithful subset of structured-merge-diff):
 * - Update (create/update/patch): the manager gains the fields whose value it changed; other managers lose
 *   them. Fields that no longer exist are dropped from every set; empty entries are dropped.
 * - Apply: the manager's set becomes exactly the fields of its applied configuration. A field another
 *   manager owns with a different live value is a conflict (409) unless `force`, which takes it over.
 *   Fields the manager applied before but not now are removed from the object unless another manager
 *   still owns them (or something below them).
 * - Managers are identified by (manager, operation, subresource), like the real server.
 * - Main-resource writes do not track `status` for kinds with a status subresource; `/status` writes track
 *   only `status`.
 */
import { ApiError } from './errors.js';
import type { ListShape, Schema, SchemaCatalog } from '../schema/index.js';
import { listShapeAt } from '../schema/index.js';
import type { Json, JsonMap, KObject, ManagedFieldsEntry } from './types.js';
import { clone, isMap } from './types.js';

const SEP = '\n';
/** Metadata fields that are owned like user fields; the rest (name, uid, resourceVersion...) are not. */
const OWNED_METADATA = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences', 'generateName']);

export interface TrackOptions {
  /** The schemas of the kind (undefined: no schema, every list is atomic). */
  schemas?: SchemaCatalog;
  /** The kind's root schema in `schemas`. */
  root?: Schema;
  /** The kind has a status subresource. */
  statusSubresource: boolean;
  /** The write went to the `/status` subresource. */
  subresource?: 'status';
  /**
   * Count granular maps (labels, data) as members themselves: true for Update sets, which come from
   * comparing old and new objects (an added map is itself added); Apply sets hold leaves and list items.
   */
  mapNodes?: boolean;
}

/** How structured-merge-diff identifies the items of a list field (no schema: atomic). */
function listShape(opts: TrackOptions, field: Schema | undefined): ListShape {
  return opts.schemas && field ? listShapeAt(opts.schemas, field) : { kind: 'atomic' };
}

type MapShape = Extract<ListShape, { kind: 'map' }>;

/** The `k:` element of a map-list item, keys sorted; undefined when the item lacks a key without default. */
function itemKey(item: Json, shape: MapShape): string | undefined {
  if (!isMap(item)) return undefined;
  const key: JsonMap = {};
  for (const k of [...shape.keys].sort()) {
    const v = item[k] ?? shape.keyDefaults?.[k];
    if (v === undefined) return undefined;
    key[k] = v;
  }
  return `k:${JSON.stringify(key)}`;
}

function child(opts: TrackOptions, parent: Schema | undefined, name: string): Schema | undefined {
  return opts.schemas && parent ? opts.schemas.property(parent, name) : undefined;
}

function collect(
  v: Json | undefined,
  path: string[],
  field: Schema | undefined,
  opts: TrackOptions,
  out: Set<string>,
): void {
  // Nulls are never owned (e.g. the `creationTimestamp: null` of pod templates).
  if (v === undefined || v === null) return;
  const type = opts.schemas?.resolve(field);
  if (isMap(v) && Object.keys(v).length > 0) {
    const facts = opts.schemas?.factsOf(field);
    if (facts?.mapType === 'atomic' || type?.['x-kubernetes-map-type'] === 'atomic') {
      out.add(path.join(SEP));
      return;
    }
    // A granular map (no named properties) is itself a member of the set, its entries below it.
    if (opts.mapNodes && type && type['additionalProperties'] && !type['properties']) out.add(path.join(SEP));
    for (const [k, c] of Object.entries(v)) collect(c, [...path, `f:${k}`], child(opts, type, k), opts, out);
    return;
  }
  if (Array.isArray(v) && v.length > 0) {
    const shape = listShape(opts, field);
    const items = opts.schemas?.items(field);
    const itemType = opts.schemas?.resolve(items);
    if (shape.kind === 'map') {
      const els = v.map((i) => itemKey(i, shape));
      if (els.every((e) => e !== undefined)) {
        v.forEach((item, i) => {
          const p = [...path, els[i]!];
          out.add(p.join(SEP));
          for (const [k, c] of Object.entries(item as JsonMap))
            collect(c, [...p, `f:${k}`], child(opts, itemType, k), opts, out);
        });
        return;
      }
    } else if (shape.kind === 'set' && v.every((i) => !isMap(i) && !Array.isArray(i))) {
      for (const item of v) out.add([...path, `v:${JSON.stringify(item)}`].join(SEP));
      return;
    }
  }
  out.add(path.join(SEP));
}

/** The field paths an object sets, as the fieldManager would own them. */
export function fieldPaths(obj: KObject, opts: TrackOptions): Set<string> {
  const out = new Set<string>();
  const o = obj as unknown as JsonMap;
  if (opts.subresource === 'status') {
    collect(o['status'], ['f:status'], child(opts, opts.root, 'status'), opts, out);
    return out;
  }
  for (const [k, v] of Object.entries(o)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if (k === 'status' && opts.statusSubresource) continue;
    if (k === 'metadata') {
      if (!isMap(v)) continue;
      const meta = opts.schemas?.resolve(child(opts, opts.root, 'metadata'));
      for (const [mk, mv] of Object.entries(v)) {
        if (OWNED_METADATA.has(mk)) collect(mv, ['f:metadata', `f:${mk}`], child(opts, meta, mk), opts, out);
      }
      continue;
    }
    collect(v, [`f:${k}`], child(opts, opts.root, k), opts, out);
  }
  return out;
}

export function toFieldsV1(set: Set<string>): JsonMap {
  const tree: JsonMap = {};
  const nodeAt = (p: string): JsonMap => {
    let node = tree;
    for (const el of p.split(SEP)) node = (node[el] ??= {}) as JsonMap;
    return node;
  };
  const sorted = [...set].sort();
  for (const p of sorted) nodeAt(p);
  // A member that also has members below it is written as "." inside its node.
  for (const p of sorted) {
    const node = nodeAt(p);
    if (Object.keys(node).some((k) => k !== '.')) node['.'] = {};
  }
  return tree;
}

export function fromFieldsV1(
  tree: Json | undefined,
  path: string[] = [],
  out = new Set<string>(),
): Set<string> {
  if (!isMap(tree)) return out;
  for (const [k, child] of Object.entries(tree)) {
    if (k === '.') {
      out.add(path.join(SEP));
      continue;
    }
    if (isMap(child) && Object.keys(child).length > 0) fromFieldsV1(child, [...path, k], out);
    else out.add([...path, k].join(SEP));
  }
  return out;
}

function step(
  cur: Json | undefined,
  el: string,
  field: Schema | undefined,
  opts?: TrackOptions,
): Json | undefined {
  if (el.startsWith('f:')) return isMap(cur) ? cur[el.slice(2)] : undefined;
  if (el.startsWith('v:') && Array.isArray(cur)) {
    const want = el.slice(2);
    return cur.find((i) => JSON.stringify(i) === want);
  }
  if (el.startsWith('k:') && Array.isArray(cur)) {
    const key = JSON.parse(el.slice(2)) as JsonMap;
    const shape = opts ? listShape(opts, field) : undefined;
    const defaults = shape?.kind === 'map' ? shape.keyDefaults : undefined;
    return cur.find(
      (i) =>
        isMap(i) &&
        Object.entries(key).every(([k, v]) => JSON.stringify(i[k] ?? defaults?.[k]) === JSON.stringify(v)),
    );
  }
  return undefined;
}

/**
 * The values along a field-set path from `obj` (the first is `obj`; shorter when the path ends early).
 * `opts` (the kind's schema) gives omitted list-map keys their defaults, as in `itemKey`.
 */
function valuesAlong(obj: Json, els: readonly string[], opts: TrackOptions | undefined): Json[] {
  const chain: Json[] = [obj];
  let field: Schema | undefined = opts?.root;
  for (const el of els) {
    const next = step(chain[chain.length - 1], el, field, opts);
    if (next === undefined) break;
    chain.push(next);
    if (opts) field = el.startsWith('f:') ? child(opts, field, el.slice(2)) : opts.schemas?.items(field);
  }
  return chain;
}

/** The value at a field-set path (see `valuesAlong`). */
export function valueAt(obj: Json, path: string, opts?: TrackOptions): Json | undefined {
  const els = path.split(SEP);
  const chain = valuesAlong(obj, els, opts);
  return chain.length === els.length + 1 ? chain[els.length] : undefined;
}

/** Removes the value at path; then removes maps left empty on the way up. */
function removePath(obj: JsonMap, path: string, opts: TrackOptions): void {
  const els = path.split(SEP);
  const all = valuesAlong(obj, els, opts);
  if (all.length !== els.length + 1) return;
  const chain = all.slice(0, -1);
  const parent = chain[chain.length - 1];
  const last = els[els.length - 1]!;
  const target = all[all.length - 1]!;
  if (Array.isArray(parent)) parent.splice(parent.indexOf(target), 1);
  else if (isMap(parent)) delete parent[last.slice(2)];
  for (let i = chain.length - 1; i > 0; i--) {
    const node = chain[i]!;
    if (!isMap(node) || Object.keys(node).length > 0) break;
    const up = chain[i - 1];
    const el = els[i - 1]!;
    if (isMap(up)) delete up[el.slice(2)];
    else if (Array.isArray(up)) up.splice(up.indexOf(node), 1);
  }
}

/** ".spec.template.spec.containers[name="nginx"].image", as conflict messages print paths. */
export function prettyPath(path: string): string {
  return path
    .split(SEP)
    .map((el) => {
      if (el.startsWith('f:')) return `.${el.slice(2)}`;
      if (el.startsWith('v:')) return `[=${el.slice(2)}]`;
      const key = JSON.parse(el.slice(2)) as JsonMap;
      return `[${Object.entries(key)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(',')}]`;
    })
    .join('');
}

function isNode(v: Json | undefined): boolean {
  return isMap(v) && Object.keys(v).length > 0;
}

function isItem(path: string): boolean {
  const last = path.slice(path.lastIndexOf(SEP) + 1);
  return last.startsWith('k:');
}

export function now(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

interface Owner {
  entry: ManagedFieldsEntry;
  set: Set<string>;
}

function owners(obj: KObject | undefined): Owner[] {
  return (obj?.metadata.managedFields ?? []).map((entry) => ({ entry, set: fromFieldsV1(entry.fieldsV1) }));
}

function sameManager(e: ManagedFieldsEntry, manager: string, op: string, sub: string | undefined): boolean {
  return e.manager === manager && e.operation === op && (e.subresource ?? undefined) === sub;
}

/** Builds the final entry list: sets restricted to fields that exist in `obj`, empty entries dropped. */
function finish(list: Owner[], obj: KObject, opts: TrackOptions): ManagedFieldsEntry[] {
  const out: ManagedFieldsEntry[] = [];
  for (const o of list) {
    const set = new Set([...o.set].filter((p) => valueAt(obj as unknown as Json, p, opts) !== undefined));
    if (set.size === 0) continue;
    out.push({ ...o.entry, fieldsType: 'FieldsV1', fieldsV1: toFieldsV1(set) });
  }
  return out;
}

function newEntry(
  manager: string,
  op: 'Apply' | 'Update',
  obj: KObject,
  opts: TrackOptions,
): ManagedFieldsEntry {
  const e: ManagedFieldsEntry = {
    manager,
    operation: op,
    apiVersion: obj.apiVersion,
    time: now(),
    fieldsType: 'FieldsV1',
    fieldsV1: {},
  };
  if (opts.subresource) e.subresource = opts.subresource;
  return e;
}

/** managedFields after a create/update/patch by `manager` (operation Update). */
export function trackUpdate(
  old: KObject | undefined,
  next: KObject,
  manager: string,
  opts: TrackOptions,
): ManagedFieldsEntry[] {
  const byCompare = { ...opts, mapNodes: true };
  const newPaths = fieldPaths(next, byCompare);
  const oldPaths = old ? fieldPaths(old, byCompare) : new Set<string>();
  const changed = new Set<string>();
  for (const p of newPaths) {
    if (!oldPaths.has(p)) changed.add(p);
    // A map or list item that stays is not modified by changes below it (only leaves are compared).
    else if (isItem(p) || isNode(valueAt(next as unknown as Json, p, opts))) continue;
    else if (
      JSON.stringify(valueAt(old as unknown as Json, p, opts)) !==
      JSON.stringify(valueAt(next as unknown as Json, p, opts))
    ) {
      changed.add(p);
    }
  }
  const list = owners(old);
  const sub = opts.subresource;
  let mine = list.find((o) => sameManager(o.entry, manager, 'Update', sub));
  for (const o of list) if (o !== mine) for (const p of changed) o.set.delete(p);
  if (changed.size > 0) {
    if (!mine) list.push((mine = { entry: newEntry(manager, 'Update', next, opts), set: new Set() }));
    for (const p of changed) mine.set.add(p);
    mine.entry = { ...mine.entry, time: now(), apiVersion: next.apiVersion };
  }
  return finish(list, next, opts);
}

/** Structural merge of an applied configuration into the live object (list shapes from the schema). */
function applyMerge(
  live: Json | undefined,
  applied: Json,
  field: Schema | undefined,
  opts: TrackOptions,
): Json {
  const type = opts.schemas?.resolve(field);
  if (isMap(applied)) {
    const out: JsonMap = isMap(live) ? { ...live } : {};
    for (const [k, v] of Object.entries(applied)) {
      if (v === null) delete out[k];
      else out[k] = applyMerge(out[k], v, child(opts, type, k), opts);
    }
    return out;
  }
  if (Array.isArray(applied) && Array.isArray(live)) {
    const shape = listShape(opts, field);
    const itemType = opts.schemas?.items(field);
    if (shape.kind === 'map') {
      const keyOf = (i: Json): string | undefined => itemKey(i, shape);
      if (applied.every((i) => keyOf(i) !== undefined)) {
        const out = [...live];
        for (const item of applied) {
          const idx = out.findIndex((x) => keyOf(x) === keyOf(item));
          if (idx >= 0) out[idx] = applyMerge(out[idx], item, itemType, opts);
          else out.push(clone(item));
        }
        return out;
      }
    } else if (shape.kind === 'set') {
      const seen = new Set(live.map((x) => JSON.stringify(x)));
      return [...live, ...applied.filter((x) => !seen.has(JSON.stringify(x)))];
    }
  }
  return clone(applied);
}

export interface ApplyResult {
  /** The merged object (before defaulting); the caller finishes it and then calls `managedFields`. */
  obj: KObject;
  managedFields(final: KObject): ManagedFieldsEntry[];
}

/**
 * Server-side apply of `applied` by `manager` onto `live` (undefined: the object is created).
 * Throws 409 Conflict naming each conflicting field and manager when `force` is false.
 */
export function serverSideApply(
  live: KObject | undefined,
  applied: KObject,
  manager: string,
  force: boolean,
  opts: TrackOptions,
): ApplyResult {
  const appliedSet = fieldPaths(applied, opts);
  const list = owners(live);
  const sub = opts.subresource;
  let mine = list.find((o) => sameManager(o.entry, manager, 'Apply', sub));
  const conflicts: Array<{ manager: string; path: string; owner: Owner }> = [];
  if (live) {
    for (const o of list) {
      if (o === mine) continue;
      for (const p of appliedSet) {
        // List items and granular maps are owned for their existence only: their fields conflict, the
        // node itself never does (structured-merge-diff compares leaves).
        if (!o.set.has(p) || isItem(p) || isNode(valueAt(applied as unknown as Json, p, opts))) continue;
        if (
          JSON.stringify(valueAt(live as unknown as Json, p, opts)) ===
          JSON.stringify(valueAt(applied as unknown as Json, p, opts))
        )
          continue;
        conflicts.push({ manager: o.entry.manager, path: p, owner: o });
      }
    }
  }
  if (conflicts.length > 0 && !force) {
    const causes = conflicts.map((c) => ({
      reason: 'FieldManagerConflict',
      message: `conflict with "${c.manager}"${c.owner.entry.operation === 'Update' ? ` using ${c.owner.entry.apiVersion}` : ''}`,
      field: prettyPath(c.path),
    }));
    const lines = causes.map((c) => `- ${c.message}: ${c.field}`).join('\n');
    const msg =
      conflicts.length === 1
        ? `Apply failed with 1 conflict: ${causes[0]!.message}: ${causes[0]!.field}`
        : `Apply failed with ${conflicts.length} conflicts: conflicts with ${[...new Set(conflicts.map((c) => `"${c.manager}"`))].join(', ')}:\n${lines}`;
    throw new ApiError(409, 'Conflict', msg, { causes });
  }
  for (const c of conflicts) c.owner.set.delete(c.path);

  let merged = clone(live ?? applied) as unknown as JsonMap;
  if (live && mine) {
    const stillOwned = (p: string): boolean =>
      list.some((o) => o !== mine && [...o.set].some((q) => q === p || q.startsWith(p + SEP)));
    const gone = [...mine.set].filter((p) => !appliedSet.has(p)).sort((a, b) => b.length - a.length);
    for (const p of gone) if (!stillOwned(p)) removePath(merged, p, opts);
  }
  if (live) merged = applyMerge(merged, applied as unknown as Json, opts.root, opts) as JsonMap;
  if (!mine) list.push((mine = { entry: newEntry(manager, 'Apply', applied, opts), set: new Set() }));
  mine.set = appliedSet;
  mine.entry = { ...mine.entry, time: now(), apiVersion: applied.apiVersion };
  const obj = merged as unknown as KObject;
  return { obj, managedFields: (final) => finish(list, final, opts) };
}
