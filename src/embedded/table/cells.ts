/**
 * What the server-side printers share (the rules: table.ts): apimachinery's HumanDuration and printers.go's
 * timestamp, label and selector formatting, readers of JSON fields, and the column definitions.
 */
import type { Json, JsonMap, KObject } from '../types.js';
import { isMap } from '../types.js';

/** apimachinery's `duration.HumanDuration`, for the Age columns. */
export function humanDuration(ms: number): string {
  if (ms < -1000) return '<invalid>';
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (h < 24 * 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (h < 24 * 365 * 2) return `${d}d`;
  const y = Math.floor(d / 365);
  if (h < 24 * 365 * 8) return d % 365 === 0 ? `${y}y` : `${y}y${d % 365}d`;
  return `${y}y`;
}

/** printers.go `translateTimestampSince`: the age of a timestamp, `<unknown>` when there is none. */
export function since(timestamp: unknown): string {
  const t = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(Date.now() - t);
}

// ---- reading fields of a JSON object ----

export const map = (v: unknown): JsonMap => (isMap(v) ? v : {});
export const list = (v: unknown): Json[] => (Array.isArray(v) ? v : []);
export const maps = (v: unknown): JsonMap[] => list(v).filter(isMap);
export const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** The value at a dotted path of plain keys. */
export const at = (o: unknown, path: string): Json | undefined => {
  let cur: unknown = o;
  for (const key of path.split('.')) cur = isMap(cur) ? cur[key] : undefined;
  return cur as Json | undefined;
};
export const orNone = (s: string): string => (s === '' ? '<none>' : s);

/** apimachinery `labels.FormatLabels`: `k=v` sorted by key, `<none>` when empty. */
export function formatLabels(labels: unknown): string {
  return orNone(
    Object.entries(map(labels))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(','),
  );
}

/**
 * apimachinery `metav1.FormatLabelSelector`: the selector's requirements sorted by key (`k=v`, `k in (a,b)`,
 * `k notin (a,b)`, `k`, `!k`), `<none>` when it selects nothing or is absent.
 */
export function formatLabelSelector(selector: unknown): string {
  if (!isMap(selector)) return '<none>';
  const reqs: Array<[string, string]> = Object.entries(map(selector['matchLabels'])).map(([k, v]) => [
    k,
    `${k}=${String(v)}`,
  ]);
  for (const e of maps(selector['matchExpressions'])) {
    const key = str(e['key']);
    const values = list(e['values']).map(String).sort().join(',');
    const op = str(e['operator']);
    if (op === 'In') reqs.push([key, `${key} in (${values})`]);
    else if (op === 'NotIn') reqs.push([key, `${key} notin (${values})`]);
    else if (op === 'Exists') reqs.push([key, key]);
    else if (op === 'DoesNotExist') reqs.push([key, `!${key}`]);
  }
  reqs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return orNone(reqs.map(([, r]) => r).join(','));
}

/** printers.go `layoutContainerCells`: container names and images, comma-separated. */
export function containerCells(podSpec: unknown): [string, string] {
  const containers = maps(map(podSpec)['containers']);
  return [containers.map((c) => str(c['name'])).join(','), containers.map((c) => str(c['image'])).join(',')];
}

/** The `ip` or `hostname` of each load-balancer ingress point, comma-separated (wide form: not cut). */
export function loadBalancerAddresses(status: unknown): string {
  return maps(map(map(status)['loadBalancer'])['ingress'])
    .map((i) => str(i['ip']) || str(i['hostname']))
    .filter((s) => s !== '')
    .join(',');
}

export const hasTrueCondition = (o: KObject, type: string): boolean =>
  maps(at(o, 'status.conditions')).some((c) => c['type'] === type && c['status'] === 'True');

// ---- column definitions ----

interface Column {
  name: string;
  type: string;
  format?: string;
  priority?: number;
  description: string;
}

export const NAME: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace.',
};
export const AGE: Column = {
  name: 'Age',
  type: 'string',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
};
export const col = (name: string, type: string, description: string, priority = 0): Column => ({
  name,
  type,
  description,
  priority,
});
export const CONTAINERS = col('Containers', 'string', 'Names of each container in the template.', 1);
export const IMAGES = col('Images', 'string', 'Images referenced by each container in the template.', 1);
export const selectorColumn = (description: string): Column => col('Selector', 'string', description, 1);

/** A printer: its columns and the cells of one object, in column order. */
export interface Printer {
  columns: Column[];
  cells(o: KObject): Json[];
}

export const name = (o: KObject): string => o.metadata.name ?? '';
export const age = (o: KObject): string => since(o.metadata.creationTimestamp);
