/**
 * The plain-data types that cross modules: Kubernetes objects as JSON (files, API, caches) and JSON values.
 */

/** A JSON value: objects, arrays, strings, numbers, booleans and null. */
export type Json = string | number | boolean | null | Json[] | JsonMap;
export interface JsonMap {
  [key: string]: Json;
}

/** A Kubernetes object as plain JSON whose shape is not yet checked (any `KubeObject` fits). */
export interface Unstructured {
  [key: string]: unknown;
}

/** A Kubernetes object as JSON, as the API server returns it. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller?: boolean;
    }>;
    managedFields?: unknown[];
    deletionTimestamp?: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/**
 * Sets the dotted `field` of `map` to a copy of `value` when it is absent (undefined or null: Go decodes both
 * to nil, so API defaulting fills both), creating intermediate maps; a non-map on the way leaves it alone.
 */
export function setIfAbsent(map: JsonMap, field: string, value: Json): void {
  const parts = field.split('.');
  let cur = map;
  for (const p of parts.slice(0, -1)) {
    const next = cur[p];
    if (next === undefined || next === null) cur = cur[p] = {};
    else if (typeof next === 'object' && !Array.isArray(next)) cur = next;
    else return;
  }
  const last = parts[parts.length - 1]!;
  if (cur[last] === undefined || cur[last] === null) cur[last] = structuredClone(value);
}
