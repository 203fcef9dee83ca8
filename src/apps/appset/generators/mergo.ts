/**
 * mergo's merge rules as Argo CD applies them to ApplicationSets: a generator's own template over the set's
 * (mergeGeneratorTemplate, Go's empty values filled) and the merge generator's deep override (deepMerge).
 */
import type { Json } from './params.js';
import { isMap } from './params.js';

/**
 * Fields of an Application template that are pointers in Argo CD's Go types: set to false or 0 they are
 * not empty, so a generator's own template keeps them (SyncPolicyAutomated.Enabled *bool,
 * ApplicationSpec.RevisionHistoryLimit *int64, Backoff.Factor *int64).
 */
export const POINTER_FIELDS = new Set(['enabled', 'revisionHistoryLimit', 'factor']);

/** Go's zero value as mergo's isEmptyValue sees a template field: false, 0, "", null, an empty list or map. */
export function isGoEmpty(key: string, v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isMap(v)) return Object.keys(v).length === 0;
  if (POINTER_FIELDS.has(key)) return false;
  return v === false || v === 0;
}

/**
 * Argo CD's mergeGeneratorTemplate: `mergo.Merge(generator's own template, the set's template)` without
 * override, so the generator's template wins where it sets a value, and every field it leaves empty in
 * Go's sense (false, 0, "", an empty list; nested structs and maps field by field) is filled from the
 * set's template. `automated: {prune: false}` in a generator's template over `prune: true` in the set's
 * gives true, as in Argo CD.
 */
export function mergeGeneratorTemplate(own: Json, setTemplate: Json): Json {
  const out: Json = { ...own };
  for (const [k, v] of Object.entries(setTemplate)) {
    const cur = out[k];
    if (isMap(cur) && isMap(v)) out[k] = mergeGeneratorTemplate(cur, v);
    else if (isGoEmpty(k, cur)) out[k] = v;
  }
  return out;
}

/** mergo.Merge(dst, src, WithOverride): maps merged deeply, src's non-empty values win. */
export function deepMerge(dst: Json, src: Json): Json {
  const out: Json = { ...dst };
  for (const [k, v] of Object.entries(src)) {
    const cur = out[k];
    if (isMap(cur) && isMap(v)) out[k] = deepMerge(cur, v);
    else if (v !== undefined && v !== null && v !== '') out[k] = v;
    else if (!(k in out)) out[k] = v;
  }
  return out;
}
