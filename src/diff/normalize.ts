/**
 * Normalization steps applied to target, live and last-applied before comparing (spec §4), each in place
 * on a private copy. The order is compare.ts's; every step here is idempotent.
 */
import { canonicalQuantity } from '../schema/index.js';
import { groupKindOf, isMap, mapsAt, pruneEmpty } from './paths.js';
import {
  BUILT_IN_GROUPS,
  LAST_APPLIED_ANNOTATION,
  SERVER_METADATA,
  TRACKING_ID_ANNOTATION,
} from './rules.js';
import type { KindSchema } from '../schema/index.js';
import type { Json, JsonMap, StatusFieldMode, TrackingMethod } from './types.js';

export function isBuiltIn(gk: string): boolean {
  return BUILT_IN_GROUPS.has(gk.slice(0, gk.indexOf('/')));
}

function metadataOf(obj: JsonMap): JsonMap | undefined {
  const m = obj['metadata'];
  return isMap(m) ? m : undefined;
}

function mapField(parent: JsonMap | undefined, key: string): JsonMap | undefined {
  const v = parent?.[key];
  return isMap(v) ? v : undefined;
}

/** The parsed last-applied-configuration of a live object; undefined when absent or not a JSON object. */
export function lastAppliedOf(live: JsonMap): JsonMap | undefined {
  const text = mapField(metadataOf(live), 'annotations')?.[LAST_APPLIED_ANNOTATION];
  if (typeof text !== 'string') return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return isMap(v) ? (v as JsonMap) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Argo CD's tracking migration (resource_tracking.go Normalize): unless the method is `label`, when live
 * carries the instance label and no tracking-id annotation, live gets the target's (a live tracking-id
 * that differs is a real difference, argo-cd#17965: a chart's own `app.kubernetes.io/instance` label must
 * not hide it), and loses the label if the target has none. CRDs are never stamped, so they are left alone.
 */
export function normalizeTracking(
  target: JsonMap,
  live: JsonMap,
  method: TrackingMethod,
  labelKey: string,
): void {
  if (method === 'label' || live['kind'] === 'CustomResourceDefinition') return;
  const liveMeta = metadataOf(live);
  if (!mapField(liveMeta, 'labels')?.[labelKey]) return;
  const id = mapField(metadataOf(target), 'annotations')?.[TRACKING_ID_ANNOTATION];
  const liveId = mapField(liveMeta, 'annotations')?.[TRACKING_ID_ANNOTATION];
  if (typeof id === 'string' && liveMeta && (liveId === undefined || liveId === '')) {
    const annotations = mapField(liveMeta, 'annotations') ?? (liveMeta['annotations'] = {});
    annotations[TRACKING_ID_ANNOTATION] = id;
  }
  if (!mapField(metadataOf(target), 'labels')?.[labelKey]) {
    const labels = mapField(liveMeta, 'labels');
    if (labels) delete labels[labelKey];
  }
}

/** Drops server-owned metadata, the last-applied annotation and (per `statusMode`) status. */
export function stripServerFields(obj: JsonMap, statusMode: StatusFieldMode): void {
  const meta = metadataOf(obj);
  if (meta) {
    for (const f of SERVER_METADATA) delete meta[f];
    const annotations = mapField(meta, 'annotations');
    if (annotations) delete annotations[LAST_APPLIED_ANNOTATION];
  }
  const isCrd = groupKindOf(obj) === 'apiextensions.k8s.io/CustomResourceDefinition';
  if (statusMode === 'all' || (statusMode === 'crd' && isCrd)) delete obj['status'];
}

function base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

/** Kind fixes of gitops-engine's Normalize: Secret stringData, Role rules, Endpoints order. */
export function kindFixes(obj: JsonMap, ignoreAggregatedRoles: boolean): void {
  const gk = groupKindOf(obj);
  if (gk === '/Secret') {
    const data = mapField(obj, 'data');
    if (data) for (const [k, v] of Object.entries(data)) if (v === null) data[k] = '';
    const stringData = mapField(obj, 'stringData');
    if (stringData) {
      const merged: JsonMap = { ...(data ?? {}) };
      for (const [k, v] of Object.entries(stringData)) merged[k] = base64(v === null ? '' : String(v));
      obj['data'] = merged;
      delete obj['stringData'];
    }
  } else if (gk === 'rbac.authorization.k8s.io/Role' || gk === 'rbac.authorization.k8s.io/ClusterRole') {
    if (ignoreAggregatedRoles && isMap(obj['aggregationRule'])) obj['rules'] = null;
    if (Array.isArray(obj['rules']) && obj['rules'].length === 0) obj['rules'] = null;
  } else if (gk === '/Endpoints' && Array.isArray(obj['subsets'])) {
    for (const s of mapsAt(obj, 'subsets[]')) {
      for (const k of ['addresses', 'notReadyAddresses', 'ports']) {
        const list = s[k];
        if (Array.isArray(list)) list.sort(byJson);
      }
    }
    obj['subsets'].sort(byJson);
  }
}

function byJson(a: Json, b: Json): number {
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/**
 * Quantities in canonical form: every field the kind's schema types as a Quantity (known type fields of
 * custom kinds included), as Argo CD's typed remarshal re-prints them. Numeric strings elsewhere stay
 * strings (see rules.ts).
 */
export function canonicalize(obj: JsonMap, kind: KindSchema): void {
  kind.valuesOf(obj, QUANTITY, (parent, key) => {
    const p = parent as Record<string | number, Json>;
    const v = p[key];
    if (typeof v === 'string' || typeof v === 'number') p[key] = canonicalQuantity(v);
  });
}

/**
 * Fills in the API server's defaults of built-in kinds (src/schema's one table, the fields the schema has),
 * only where absent; the scheme's defaulters only, as gitops-engine's `scheme.Default`.
 */
export function applyDefaults(obj: JsonMap, kind: KindSchema): void {
  kind.applyDefaults(obj, false);
}

/** Three-way preparation (removeNamespaceAnnotation): the namespace is not compared through the original/target. */
export function dropNamespace(obj: JsonMap): void {
  const meta = metadataOf(obj);
  if (meta) delete meta['namespace'];
}

/** Empty vs missing: nulls and empty maps/lists are removed. */
export function pruneEmptyFields(obj: JsonMap): void {
  pruneEmpty(obj);
}
