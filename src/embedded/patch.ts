/**
 * Two of the three patch formats a real server accepts besides apply (the third, strategic merge patch,
 * is strategic-merge-patch.ts):
 * - JSON merge patch (RFC 7386, `application/merge-patch+json`): maps merge, null deletes, lists replace.
 * - JSON patch (`application/json-patch+json`) as kube-apiserver applies it with evanphx/json-patch (v4):
 *   RFC 6902 operations with these library behaviours: `replace` of a missing object key adds it (the
 *   library's map `get` never fails), `test` of a missing path passes when the expected value is null,
 *   negative array indexes count from the end, and an unknown `op` fails at apply time. Failures are 422
 *   (apiserver `patch.go` wraps every apply error with StatusUnprocessableEntity); a body that is not a
 *   list of operations is 400.
 *
 * All functions are pure: they return a new value and never change their inputs.
 */
import { ApiError } from './errors.js';
import type { Json, JsonMap } from './types.js';
import { clone, isMap } from './types.js';

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

/** An array index as evanphx/json-patch reads it: "-" appends (add only), negatives count from the end. */
function arrayIndex(arr: Json[], last: string, forAdd: boolean): number {
  if (forAdd && last === '-') return arr.length;
  const bad = (): ApiError =>
    invalidPatch(
      `the server rejected our request due to an error in our request: Unable to access invalid index: ${last}`,
    );
  if (!/^-?\d+$/.test(last)) throw bad();
  let i = Number(last);
  const size = forAdd ? arr.length + 1 : arr.length;
  if (i < 0) {
    if (i < -size) throw bad();
    i += size;
  }
  if (i >= size) throw bad();
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

/** Deep equality of JSON values, object key order aside (the library compares decoded values). */
function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]!));
  if (isMap(a) && isMap(b)) {
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k]!, b[k]!))
    );
  }
  return false;
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
      case 'replace': {
        if (path.length === 0) {
          doc = clone(raw['value'] ?? null);
          break;
        }
        // evanphx/json-patch: an object key need not exist (its map get never fails); an index must.
        const { parent, last } = parentOf(doc, path, op);
        if (Array.isArray(parent)) parent[arrayIndex(parent, last, false)] = clone(raw['value'] ?? null);
        else (parent as JsonMap)[last] = clone(raw['value'] ?? null);
        break;
      }
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
        const expected = raw['value'] ?? null;
        // A missing value equals an expected null (the library compares a nil node to a null raw value).
        if (actual === undefined ? expected !== null : !jsonEqual(actual, expected)) {
          throw invalidPatch(
            `the server rejected our request due to an error in our request: testing value /${path.join('/')} failed`,
          );
        }
        break;
      }
      default:
        throw invalidPatch(
          `the server rejected our request due to an error in our request: Unexpected kind: ${op}`,
        );
    }
  }
  return doc;
}
