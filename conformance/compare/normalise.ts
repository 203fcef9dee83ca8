/**
 * The comparison: each side's values are normalised to one shape, flattened to `path -> value`, and
 * compared field by field. A row is one field: the case, the phase, the field's path, Argo CD's value and
 * ours (JSON text; absent = `undefined`).
 *
 * Normalising: each side's own names (its namespace/app `<id>-a` or `<id>-o`, its repository URLs, its
 * commit SHAs) become the case's placeholders; times (RFC 3339 strings) become `<time>`; what Kubernetes
 * assigns (uid, resourceVersion, creationTimestamp, managedFields times) is dropped. Lists of resources are
 * keyed by group/kind/namespace/name so a field reads `resources[apps/Deployment/${NS}/web].status`.
 */
import type { Obj } from './case.js';

export interface Row {
  case: string;
  phase: string;
  field: string;
  argocd: string | undefined;
  ours: string | undefined;
  same: boolean;
}

/** Replaces each `from` string by its `to` in every string of `v` (longest first), returning a copy. */
export function replaceTokens<T>(v: T, tokens: ReadonlyMap<string, string>): T {
  const keys = [...tokens.keys()].filter((k) => k !== '').sort((a, b) => b.length - a.length);
  if (keys.length === 0 || v === undefined) return v;
  const re = new RegExp(keys.map((k) => k.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'), 'g');
  return JSON.parse(maskGeneratedNames(JSON.stringify(v).replace(re, (m) => tokens.get(m)!))) as T;
}

/**
 * The operation's start in a generated hook name (`<generateName><rev7>-<phase>-<Unix seconds>`,
 * gitops-engine sync_context.go) as `<unix>`: each side's sync starts at its own second.
 */
export function maskGeneratedNames(text: string): string {
  return text.replace(
    /(<rev7:[^>]+>-(?:presync|sync|postsync|syncfail|predelete|postdelete)-)\d{9,11}\b/g,
    '$1<unix>',
  );
}

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const DROP_META = new Set(['uid', 'resourceVersion', 'creationTimestamp', 'selfLink', 'deletionTimestamp']);

/** Times to `<time>` everywhere; a Kubernetes object's assigned metadata dropped. Returns a copy. */
export function normaliseTimes(v: unknown): unknown {
  if (typeof v === 'string') return TIME.test(v) ? '<time>' : v;
  if (Array.isArray(v)) return v.map(normaliseTimes);
  if (v && typeof v === 'object') {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) out[k] = normaliseTimes(x);
    return out;
  }
  return v;
}

/** A live object as compared: metadata Kubernetes assigns dropped, managedFields without times, times masked. */
export function normaliseObject(obj: Obj): Obj {
  const o = structuredClone(obj);
  const md = (o.metadata ?? {}) as Obj;
  for (const k of DROP_META) delete md[k];
  if (Array.isArray(md.managedFields))
    md.managedFields = (md.managedFields as Obj[]).map((m) => {
      const { time: _t, ...rest } = m;
      return rest;
    });
  // Allocated by the server per object: a Service's cluster IPs and node ports.
  if (o.kind === 'Service' && o.spec) {
    delete o.spec.clusterIP;
    delete o.spec.clusterIPs;
    for (const p of (o.spec.ports ?? []) as Obj[]) delete p.nodePort;
  }
  // Allocated per object: a Job's controller uid, in its labels, selector and Pod template labels.
  if (o.kind === 'Job') {
    const dropUid = (labels: Obj | undefined) => {
      if (!labels) return;
      for (const k of ['controller-uid', 'batch.kubernetes.io/controller-uid'])
        if (k in labels) labels[k] = '<uid>';
    };
    dropUid(md.labels);
    dropUid(o.spec?.selector?.matchLabels);
    dropUid(o.spec?.template?.metadata?.labels);
  }
  return normaliseTimes(o) as Obj;
}

/** The key of a resource entry: group/kind/namespace/name (plus hook phase when `withPhase`). */
export function resourceKey(r: Obj, withPhase = false): string {
  const base = `${r.group ?? ''}/${r.kind ?? ''}/${r.namespace ?? ''}/${r.name ?? ''}`;
  return withPhase && r.syncPhase ? `${base}@${r.syncPhase}` : base;
}

/** A list turned into a map by `key` (a repeated key gets `#2`, `#3`...), so fields are named by key. */
export function keyed(list: readonly Obj[] | undefined, key: (o: Obj) => string): Obj | undefined {
  if (!list) return undefined;
  const out: Obj = {};
  for (const o of list) {
    let k = key(o);
    for (let n = 2; k in out; n++) k = `${key(o)}#${n}`;
    out[k] = o;
  }
  return out;
}

/**
 * Flattens to leaf paths: `a.b`, `a[0]`, a keyed map's keys with characters outside [A-Za-z0-9_-] as
 * `a[key]`. Empty objects and lists are leaves (`{}`, `[]`). Values are JSON text.
 */
export function flatten(v: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(v)) {
    if (v.length === 0) out.set(prefix, '[]');
    v.forEach((x, i) => flatten(x, `${prefix}[${i}]`, out));
  } else if (v && typeof v === 'object') {
    const entries = Object.entries(v).filter(([, x]) => x !== undefined);
    if (entries.length === 0) out.set(prefix, '{}');
    for (const [k, x] of entries) {
      const part = /^[A-Za-z_][A-Za-z0-9_-]*$/.test(k) ? (prefix ? `${prefix}.${k}` : k) : `${prefix}[${k}]`;
      flatten(x, part, out);
    }
  } else if (v !== undefined) out.set(prefix, JSON.stringify(v));
  return out;
}

/** Field-by-field rows of two values (already normalised); fields are the union of both sides' leaves. */
export function compareFields(
  caseId: string,
  phase: string,
  subject: string,
  argocd: unknown,
  ours: unknown,
): Row[] {
  const a = flatten(argocd);
  const o = flatten(ours);
  const fields = [...new Set([...a.keys(), ...o.keys()])].sort();
  return fields.map((f) => {
    const av = a.get(f);
    const ov = o.get(f);
    return {
      case: caseId,
      phase,
      field: subject ? (f ? `${subject}.${f}` : subject) : f,
      argocd: av,
      ours: ov,
      same: av === ov,
    };
  });
}

/** Totals of a set of rows. */
export function totals(rows: readonly Row[]): { fields: number; identical: number; different: number } {
  const identical = rows.filter((r) => r.same).length;
  return { fields: rows.length, identical, different: rows.length - identical };
}
