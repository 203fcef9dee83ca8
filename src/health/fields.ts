/**
 * Typed reads of plain JSON for the health checks. Argo CD converts an object to its typed Go struct
 * before judging it, and a field of the wrong type fails that conversion (health Unknown with the error).
 * These readers give the same outcome for the fields a check reads: absent or `null` reads as
 * `undefined` (Go's zero value is up to the caller), a present value of the wrong type throws `SchemaError`.
 *
 * Paths are dotted (`status.loadBalancer.ingress`); `where` prefixes the path in error messages when
 * reading inside a list item.
 */
import type { HealthResult, HealthStatus, Obj } from './types.js';

/** A check cannot judge the object; the message is the whole explanation (health becomes Unknown). */
export class CheckError extends Error {
  override name = 'CheckError';
}

/**
 * A field does not fit the typed schema. The message names the field (`.spec.replicas: expected ...`);
 * the dispatcher prefixes it the way Argo CD does ("failed to convert unstructured Deployment to typed: ").
 */
export class SchemaError extends CheckError {
  override name = 'SchemaError';
}

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  return typeof value;
}

function fail(path: string, expected: string, value: unknown): never {
  throw new SchemaError(`.${path}: expected ${expected}, got ${describe(value)}`);
}

/** Dotted paths split once (the checks read the same few dozen paths of every object). */
const PATHS = new Map<string, readonly string[]>();

/** Walks to the leaf; `undefined` if any step is absent or null. Intermediate steps must be objects. */
function leaf(root: Obj, path: string, where: string | undefined): unknown {
  let parts = PATHS.get(path);
  if (!parts) PATHS.set(path, (parts = path.split('.')));
  let current: unknown = root;
  for (let i = 0; i < parts.length; i++) {
    if (current === undefined || current === null) return undefined;
    if (!isObj(current)) fail(full(parts.slice(0, i).join('.'), where), 'object', current);
    current = current[parts[i]!];
  }
  return current === null ? undefined : current;
}

/** The path as an error names it (built only when a read fails). */
function full(path: string, where: string | undefined): string {
  return where ? `${where}.${path}` : path;
}

export function str(root: Obj, path: string, where?: string): string | undefined {
  const value = leaf(root, path, where);
  if (value === undefined || typeof value === 'string') return value;
  return fail(full(path, where), 'string', value);
}

/** An integer field (Go int32/int64). */
export function int(root: Obj, path: string, where?: string): number | undefined {
  const value = leaf(root, path, where);
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  return fail(full(path, where), 'integer', value);
}

export function bool(root: Obj, path: string, where?: string): boolean | undefined {
  const value = leaf(root, path, where);
  if (value === undefined || typeof value === 'boolean') return value;
  return fail(full(path, where), 'boolean', value);
}

export function map(root: Obj, path: string, where?: string): Obj | undefined {
  const value = leaf(root, path, where);
  if (value === undefined || isObj(value)) return value;
  return fail(full(path, where), 'object', value);
}

export function list(root: Obj, path: string, where?: string): unknown[] | undefined {
  const value = leaf(root, path, where);
  if (value === undefined || Array.isArray(value)) return value;
  return fail(full(path, where), 'array', value);
}

/** A list of objects; `[]` when absent. Items that are not objects fail the schema. */
export function objects(root: Obj, path: string, where?: string): { item: Obj; at: string }[] {
  const items = list(root, path, where) ?? [];
  const base = where ? `${where}.${path}` : path;
  return items.map((item, i) => {
    if (!isObj(item)) fail(`${base}[${i}]`, 'object', item);
    return { item, at: `${base}[${i}]` };
  });
}

/** A Kubernetes condition as the checks read it; absent strings read as ''. */
export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

export function toCondition(item: Obj, at: string): Condition {
  return {
    type: str(item, 'type', at) ?? '',
    status: str(item, 'status', at) ?? '',
    reason: str(item, 'reason', at) ?? '',
    message: str(item, 'message', at) ?? '',
  };
}

/** `status.conditions` (or another path) as typed conditions, in order. */
export function conditions(root: Obj, path = 'status.conditions'): Condition[] {
  return objects(root, path).map(({ item, at }) => toCondition(item, at));
}

/** `metadata.annotations` as strings (a non-string value fails the schema, as in Go). */
export function annotations(root: Obj): Record<string, string> {
  const all = map(root, 'metadata.annotations') ?? {};
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(all)) {
    if (value === null || value === undefined) continue;
    if (typeof value !== 'string') fail(`metadata.annotations.${key}`, 'string', value);
    out[key] = value;
  }
  return out;
}

/** A result whose message is left out when empty (Argo CD's `message,omitempty`). */
export function result(status: HealthStatus, message?: string): HealthResult {
  return message ? { status, message } : { status };
}
