/**
 * JSON helpers of the status writer (status.ts, operation.ts): RFC 3339 times as Kubernetes writes them
 * (`metav1.Time`: seconds, UTC), Go durations as Argo CD prints them, dropping JSON nulls and empty values the
 * way Go's `omitempty` does, deep equality, and RFC 7386 JSON merge patches (Argo CD's `createMergePatch`,
 * controller/appcontroller.go, built with evanphx/json-patch `CreateMergePatch`).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `metav1.Time` as JSON: RFC 3339 with whole seconds in UTC ("2026-11-25T20:48:32Z"). */
export function kubeTime(time: string | number | Date): string {
  const d = time instanceof Date ? time : new Date(time);
  if (Number.isNaN(d.getTime())) throw new Error(`invalid time ${String(time)}`);
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** A duration in milliseconds as Go's `time.Duration.String()` prints it ("5s", "3m0s", "1h0m0s", "1.5s"). */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  const sec = `${Number.isInteger(s) ? s : Number(s.toFixed(3))}s`;
  if (h > 0) return `${h}h${m}m${sec}`;
  if (m > 0) return `${m}m${sec}`;
  return sec;
}

/**
 * A copy of `value` without what Go's `omitempty` leaves out of Argo CD's JSON: nulls, undefined, "",
 * false, 0, empty arrays and objects (recursively). Only for fields whose Go type has `omitempty`.
 */
export function compact(value: unknown): Json | undefined {
  if (value === undefined || value === null || value === '' || value === false || value === 0)
    return undefined;
  if (Array.isArray(value)) {
    const items = value.map((v) => compact(v) ?? null).filter((v) => v !== null);
    return items.length > 0 ? items : undefined;
  }
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      const c = compact(v);
      if (c !== undefined) out[k] = c;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return undefined;
}

/** A copy of `value` as JSON, with null and undefined object members dropped (arrays kept as they are). */
export function plain(value: unknown): Json | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (Array.isArray(value)) return value.map((v) => plain(v) ?? null);
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === null || v === undefined) continue;
      const c = plain(v);
      if (c !== undefined) out[k] = c;
    }
    return out;
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return undefined;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * The RFC 7386 merge patch turning `from` into `to`: members removed become null, objects are patched member
 * by member, anything else (arrays included) is replaced whole. Undefined when nothing changed.
 */
export function mergePatch(from: unknown, to: unknown): Json | undefined {
  if (isObject(from) && isObject(to)) {
    const patch: JsonObject = {};
    for (const k of Object.keys(from)) if (!(k in to)) patch[k] = null;
    for (const [k, v] of Object.entries(to)) {
      if (!(k in from)) {
        patch[k] = v;
        continue;
      }
      const sub = mergePatch(from[k], v);
      if (sub !== undefined) patch[k] = sub;
    }
    return Object.keys(patch).length > 0 ? patch : undefined;
  }
  return deepEqual(from, to) ? undefined : (to as Json);
}
