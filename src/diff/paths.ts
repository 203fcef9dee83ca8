/**
 * JSON helpers of the diff module: type guards, deep copy and equality, and path patterns.
 *
 * Path patterns (used by the rule tables in rules.ts): dotted map keys from a root; `*` matches every key
 * of a map; a `[]` suffix steps into every element of a list (`spec.containers[].ports[].protocol`).
 * Walking never creates anything and silently skips values of the wrong type.
 */
import type { Json, JsonMap } from './types.js';

export function isMap(value: unknown): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deep copy of a JSON value (plain maps, lists, scalars), by hand: several times faster than
 * `structuredClone` on the small objects compared here (no serialization, no transfer bookkeeping).
 */
export function clone<T>(value: T): T {
  return copyJson(value as unknown) as T;
}

function copyJson(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyJson(value[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const k in value)
    if (Object.hasOwn(value, k)) out[k] = copyJson((value as Record<string, unknown>)[k]);
  return out;
}

/** Deep equality of JSON values (map key order ignored, list order significant). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isMap(a)) {
    if (!isMap(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** Group of an apiVersion ("apps/v1" -> "apps", "v1" -> ""). */
export function groupOf(apiVersion: unknown): string {
  if (typeof apiVersion !== 'string') return '';
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** "group/Kind" of an object ("/Service" for the core group): the key of every per-kind table. */
export function groupKindOf(obj: JsonMap): string {
  return `${groupOf(obj['apiVersion'])}/${typeof obj['kind'] === 'string' ? obj['kind'] : ''}`;
}

interface Step {
  key: string;
  each: boolean;
}

const compiled = new Map<string, Step[]>();

function steps(pattern: string): Step[] {
  let s = compiled.get(pattern);
  if (!s) {
    s = pattern
      .split('.')
      .filter((p) => p !== '')
      .map((p) => (p.endsWith('[]') ? { key: p.slice(0, -2), each: true } : { key: p, each: false }));
    compiled.set(pattern, s);
  }
  return s;
}

/**
 * Calls `fn(parent, key)` for every existing map entry matched by `pattern` (the last step names the
 * entry; with `[]` on the last step, `fn(list, index)` per element). An empty pattern visits nothing.
 */
export function visit(
  root: Json | undefined,
  pattern: string,
  fn: (parent: JsonMap | Json[], key: string | number) => void,
): void {
  const s = steps(pattern);
  if (s.length === 0) return;
  walk(root, s, 0, fn);
}

function walk(
  node: Json | undefined,
  s: Step[],
  i: number,
  fn: (parent: JsonMap | Json[], key: string | number) => void,
): void {
  const step = s[i]!;
  if (!isMap(node)) return;
  const keys = step.key === '*' ? Object.keys(node) : Object.hasOwn(node, step.key) ? [step.key] : [];
  const last = i === s.length - 1;
  for (const k of keys) {
    const child = node[k];
    if (step.each) {
      if (!Array.isArray(child)) continue;
      child.forEach((el, idx) => {
        if (last) fn(child, idx);
        else walk(el, s, i + 1, fn);
      });
    } else if (last) fn(node, k);
    else walk(child, s, i + 1, fn);
  }
}

/** Every map reached by `pattern` ("" = the root itself). */
export function mapsAt(root: Json | undefined, pattern: string): JsonMap[] {
  if (pattern === '') return isMap(root) ? [root] : [];
  const out: JsonMap[] = [];
  visit(root, pattern, (parent, key) => {
    const v = (parent as Record<string | number, Json>)[key];
    if (isMap(v)) out.push(v);
  });
  return out;
}

/** Removes null values and empty maps/lists from maps, recursively (list elements are kept in place). */
export function pruneEmpty(value: Json): Json {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = pruneEmpty(value[i]!);
    return value;
  }
  if (!isMap(value)) return value;
  // for-in and `hasNoKeys`, not Object.entries/Object.keys: no arrays made per map (issue 31's profile).
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    const p = pruneEmpty(value[k]!);
    if (p === null || (Array.isArray(p) ? p.length === 0 : isMap(p) && hasNoKeys(p))) delete value[k];
  }
  return value;
}

function hasNoKeys(map: JsonMap): boolean {
  for (const k in map) if (Object.hasOwn(map, k)) return false;
  return true;
}

/** Returns a copy with map keys sorted, recursively (stable output for YAML, JSON and hashing). */
export function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isMap(value)) return value;
  const out: JsonMap = {};
  for (const k of Object.keys(value).sort()) out[k] = sortKeys(value[k]!);
  return out;
}
