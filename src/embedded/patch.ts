/**
 * The three patch formats a real server accepts besides apply:
 * - JSON merge patch (RFC 7386, `application/merge-patch+json`): maps merge, null deletes, lists replace.
 * - JSON patch (RFC 6902, `application/json-patch+json`): add/remove/replace/move/copy/test with JSON
 *   pointers; a failed `test` or a missing path is 422.
 * - Strategic merge patch (`application/strategic-merge-patch+json`, built-in kinds only): like merge
 *   patch, but the lists in LIST_MERGE_KEYS merge item by item on their key, and the directives
 *   `$patch: delete|replace|merge`, `$setElementOrder/<list>`, `$deleteFromPrimitiveList/<list>` and
 *   `$retainKeys` are honoured.
 *
 * All functions are pure: they return a new value and never change their inputs.
 */
import { ApiError } from './errors.js';
import type { Json, JsonMap } from './types.js';
import { clone, isMap } from './types.js';

/**
 * Merge keys of the built-in kinds' associative lists (patchMergeKey in the Kubernetes API types), by field
 * name. Where one field name has different keys in different places (container `ports` by containerPort,
 * Service `ports` by port), the first key that the list's items carry wins.
 */
export const LIST_MERGE_KEYS: Record<string, string[]> = {
  containers: ['name'],
  initContainers: ['name'],
  ephemeralContainers: ['name'],
  ports: ['containerPort', 'port'],
  env: ['name'],
  volumes: ['name'],
  volumeMounts: ['mountPath'],
  volumeDevices: ['devicePath'],
  imagePullSecrets: ['name'],
  hostAliases: ['ip'],
  ownerReferences: ['uid'],
  conditions: ['type'],
  topologySpreadConstraints: ['topologyKey'],
  resourceClaims: ['name'],
};

/** Primitive lists merged as sets by strategic merge (patchStrategy "merge" on a list of strings). */
export const SET_LISTS = new Set(['finalizers']);

/** The merge key for a list under `field`, or undefined when the list is atomic. */
export function listMergeKey(field: string, ...lists: Json[][]): string | undefined {
  const keys = LIST_MERGE_KEYS[field];
  if (!keys) return undefined;
  for (const k of keys) if (lists.some((l) => l.some((i) => isMap(i) && i[k] !== undefined))) return k;
  return keys[0];
}

function invalidPatch(message: string): ApiError {
  return new ApiError(422, 'Invalid', message);
}

// ---- JSON merge patch ----------------------------------------------------------------------------

export function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isMap(patch)) return clone(patch);
  const out: JsonMap = isMap(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

// ---- JSON patch ------------------------------------------------------------------------------------

function parsePointer(p: string): string[] {
  if (p === '') return [];
  if (!p.startsWith('/')) throw invalidPatch(`invalid JSON pointer: ${JSON.stringify(p)}`);
  return p
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function getAt(doc: Json, path: string[]): Json | undefined {
  let cur: Json | undefined = doc;
  for (const part of path) {
    if (Array.isArray(cur)) cur = cur[Number(part)];
    else if (isMap(cur)) cur = cur[part];
    else return undefined;
  }
  return cur;
}

function parentOf(doc: Json, path: string[], op: string): { parent: Json; last: string } {
  const parent = getAt(doc, path.slice(0, -1));
  if (parent === undefined || (!Array.isArray(parent) && !isMap(parent))) {
    throw invalidPatch(
      `the server rejected our request due to an error in our request: ${op} operation does not apply: doc is missing path: "/${path.join('/')}"`,
    );
  }
  return { parent, last: path[path.length - 1]! };
}

function arrayIndex(arr: Json[], last: string, forAdd: boolean): number {
  if (forAdd && last === '-') return arr.length;
  const i = Number(last);
  if (!/^\d+$/.test(last) || i > arr.length || (!forAdd && i === arr.length)) {
    throw invalidPatch(
      `the server rejected our request due to an error in our request: index out of range: ${last}`,
    );
  }
  return i;
}

function addAt(doc: Json, path: string[], value: Json, op: string): Json {
  if (path.length === 0) return clone(value);
  const { parent, last } = parentOf(doc, path, op);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true), 0, clone(value));
  else (parent as JsonMap)[last] = clone(value);
  return doc;
}

function removeAt(doc: Json, path: string[], op: string): Json | undefined {
  const { parent, last } = parentOf(doc, path, op);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, last, false), 1)[0];
  const m = parent as JsonMap;
  if (!Object.hasOwn(m, last)) {
    throw invalidPatch(
      `the server rejected our request due to an error in our request: ${op} operation does not apply: doc is missing key: /${path.join('/')}`,
    );
  }
  const old = m[last];
  delete m[last];
  return old;
}

export function jsonPatch(target: Json, ops: Json): Json {
  if (!Array.isArray(ops)) throw new ApiError(400, 'BadRequest', 'json patch must be an array of operations');
  let doc = clone(target);
  for (const raw of ops) {
    if (!isMap(raw)) throw new ApiError(400, 'BadRequest', 'json patch operation must be an object');
    const op = String(raw['op'] ?? '');
    const path = parsePointer(String(raw['path'] ?? ''));
    switch (op) {
      case 'add':
        doc = addAt(doc, path, raw['value'] ?? null, op);
        break;
      case 'remove':
        removeAt(doc, path, op);
        break;
      case 'replace':
        if (path.length === 0) doc = clone(raw['value'] ?? null);
        else {
          removeAt(doc, path, op);
          doc = addAt(doc, path, raw['value'] ?? null, op);
        }
        break;
      case 'move':
      case 'copy': {
        const from = parsePointer(String(raw['from'] ?? ''));
        const value = getAt(doc, from);
        if (value === undefined)
          throw invalidPatch(
            `the server rejected our request due to an error in our request: ${op} operation does not apply: doc is missing from path: "${String(raw['from'])}"`,
          );
        if (op === 'move') removeAt(doc, from, op);
        doc = addAt(doc, path, value, op);
        break;
      }
      case 'test': {
        const actual = getAt(doc, path);
        if (JSON.stringify(actual) !== JSON.stringify(raw['value'] ?? null)) {
          throw invalidPatch(
            `the server rejected our request due to an error in our request: testing value /${path.join('/')} failed`,
          );
        }
        break;
      }
      default:
        throw new ApiError(400, 'BadRequest', `unexpected json patch operation: ${JSON.stringify(op)}`);
    }
  }
  return doc;
}

// ---- Strategic merge patch ------------------------------------------------------------------------

const ORDER = '$setElementOrder/';
const DELETE_PRIMITIVE = '$deleteFromPrimitiveList/';

export function strategicMergePatch(target: Json | undefined, patch: Json): Json {
  if (!isMap(patch)) return clone(patch);
  const directive = patch['$patch'];
  if (directive === 'delete') return null;
  if (directive === 'replace') {
    const copy = { ...patch };
    delete copy['$patch'];
    return clone(copy);
  }
  const out: JsonMap = isMap(target) ? { ...target } : {};
  const retain = patch['$retainKeys'];
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith(ORDER)) continue;
    if (k.startsWith(DELETE_PRIMITIVE)) {
      const field = k.slice(DELETE_PRIMITIVE.length);
      const cur = out[field];
      if (Array.isArray(cur) && Array.isArray(v)) {
        const del = new Set(v.map((x) => JSON.stringify(x)));
        out[field] = cur.filter((x) => !del.has(JSON.stringify(x)));
      }
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    if (isMap(v) && v['$patch'] === 'delete') {
      delete out[k];
      continue;
    }
    if (Array.isArray(v)) out[k] = mergeList(k, out[k], v);
    else if (isMap(v)) out[k] = strategicMergePatch(out[k], v);
    else out[k] = v;
  }
  if (Array.isArray(retain)) {
    const keep = new Set(retain.map(String));
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith(ORDER) && Array.isArray(v)) {
      const field = k.slice(ORDER.length);
      const cur = out[field];
      if (Array.isArray(cur)) out[field] = reorder(field, cur, v);
    }
  }
  return out;
}

function mergeList(field: string, target: Json | undefined, patch: Json[]): Json[] {
  const cur = Array.isArray(target) ? target : [];
  if (patch.some((i) => isMap(i) && i['$patch'] === 'replace')) {
    return clone(patch.filter((i) => !(isMap(i) && i['$patch'] === 'replace')));
  }
  if (SET_LISTS.has(field)) {
    const seen = new Set(cur.map((x) => JSON.stringify(x)));
    return [...cur, ...patch.filter((x) => !seen.has(JSON.stringify(x)))];
  }
  const key = listMergeKey(field, cur, patch);
  if (!key || !patch.every(isMap)) return clone(patch);
  const out: Json[] = [...cur];
  for (const item of patch as JsonMap[]) {
    const id = JSON.stringify(item[key] ?? null);
    const idx = out.findIndex((x) => isMap(x) && JSON.stringify(x[key] ?? null) === id);
    if (item['$patch'] === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
    } else if (idx >= 0) out[idx] = strategicMergePatch(out[idx], item);
    else out.push(strategicMergePatch(undefined, item));
  }
  return out;
}

/** `$setElementOrder`: listed items first in the given order, the rest after in their current order. */
function reorder(field: string, cur: Json[], order: Json[]): Json[] {
  const key = listMergeKey(field, cur, order);
  const id = (x: Json): string => JSON.stringify(key && isMap(x) ? (x[key] ?? null) : x);
  const rank = new Map(order.map((x, i) => [id(x), i]));
  const listed = cur.filter((x) => rank.has(id(x))).sort((a, b) => rank.get(id(a))! - rank.get(id(b))!);
  return [...listed, ...cur.filter((x) => !rank.has(id(x)))];
}
