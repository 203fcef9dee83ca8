/**
 * `kubectl auth reconcile`, which Argo CD runs before the client-side apply of every
 * `rbac.authorization.k8s.io/v1` object (gitops-engine pkg/utils/kube/resource_ops.go `ApplyResource` and
 * `rbacReconcile`; kubectl pkg/cmd/auth/reconcile.go; k8s.io/component-helpers auth/rbac/reconciliation
 * and auth/rbac/validation `Covers`). Not with server-side apply, nor with `Replace=true` (Argo CD creates
 * or replaces those), nor in a dry run. This module decides; the sync client (cluster-client.ts) writes.
 *
 * - Role and ClusterRole: absent, the target is created as it is (no last-applied-configuration: the apply
 *   that follows adds it with a patch); present, the live object keeps what it has and gains the target's
 *   labels and annotations it lacks (the live value wins a shared key) and the rules it does not cover yet
 *   (each rule broken down to one group, resource, verb and name; extra permissions are kept), and a
 *   ClusterRole the aggregation selectors it lacks (its aggregation rule removed when the target has
 *   none); written with an update (PUT) when anything changed.
 * - RoleBinding and ClusterRoleBinding: absent, created; a different `roleRef` (immutable) is deleted (uid
 *   precondition) and created again; else labels and annotations as above and the missing subjects added.
 * - Live annotated `rbac.authorization.kubernetes.io/autoupdate: "false"`: nothing written, the output says
 *   it opted out.
 * - The output, which Argo CD keeps in front of the apply's in the result message: kubectl's stdout line
 *   (`role.rbac.authorization.k8s.io/r reconciled`) and, when something had to change, ". " and its stderr
 *   lines trimmed (`reconciliation required create`, `\tmissing rules added:`, each rule as Go's `%+v`
 *   prints it: `{Verbs:[get] APIGroups:[] Resources:[pods] ResourceNames:[] NonResourceURLs:[]}`).
 */
import type { KubeObject } from '../common/index.js';

export const RBAC_API_VERSION = 'rbac.authorization.k8s.io/v1';
const AUTO_UPDATE = 'rbac.authorization.kubernetes.io/autoupdate';
const ROLE_KINDS = new Set(['Role', 'ClusterRole']);
const BINDING_KINDS = new Set(['RoleBinding', 'ClusterRoleBinding']);

export type ReconcileOperation = 'none' | 'create' | 'update' | 'recreate';

interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

interface Subject {
  kind?: string;
  apiGroup?: string;
  name?: string;
  namespace?: string;
}

export interface ReconcilePlan {
  operation: ReconcileOperation;
  /** The live object opted out (`autoupdate: "false"`): nothing is written. */
  protected: boolean;
  /** What to create or update (for `recreate`: what to create after the delete). */
  object: KubeObject;
  missingRules: PolicyRule[];
  missingSubjects: Subject[];
}

/** Whether Argo CD reconciles the object before applying it (its apiVersion and kind). */
export function isReconciled(obj: KubeObject | undefined): boolean {
  return (
    obj?.apiVersion === RBAC_API_VERSION &&
    (ROLE_KINDS.has(obj.kind ?? '') || BINDING_KINDS.has(obj.kind ?? ''))
  );
}

/** The target as kubectl decodes it into its typed object: metadata and the kind's own fields. */
function typed(target: KubeObject): KubeObject {
  const t = target as KubeObject & Record<string, unknown>;
  const out: Record<string, unknown> = {
    apiVersion: t.apiVersion,
    kind: t.kind,
    metadata: structuredClone(t.metadata ?? {}),
  };
  for (const field of ['rules', 'aggregationRule', 'subjects', 'roleRef'])
    if (t[field] !== undefined) out[field] = structuredClone(t[field]);
  return out as KubeObject;
}

/** What `kubectl auth reconcile` does with `target` given the live object (`existing`, or none). */
export function planReconcile(target: KubeObject, existing: KubeObject | undefined): ReconcilePlan {
  const expected = typed(target);
  const role = ROLE_KINDS.has(target.kind ?? '');
  const e = expected as Record<string, unknown>;
  if (!existing)
    return {
      operation: 'create',
      protected: false,
      object: expected,
      missingRules: role ? ((e['rules'] as PolicyRule[] | undefined) ?? []) : [],
      missingSubjects: role ? [] : ((e['subjects'] as Subject[] | undefined) ?? []),
    };
  const isProtected = existing.metadata?.annotations?.[AUTO_UPDATE] === 'false';
  const live = existing as Record<string, unknown>;
  if (!role && !sameRoleRef(e['roleRef'], live['roleRef']))
    return {
      operation: 'recreate',
      protected: isProtected,
      object: expected,
      missingRules: [],
      missingSubjects: [],
    };
  const object = structuredClone(existing) as KubeObject & Record<string, unknown>;
  let operation: ReconcileOperation = 'none';
  const metadata = { ...(object.metadata ?? {}) } as NonNullable<KubeObject['metadata']> &
    Record<string, unknown>;
  for (const field of ['annotations', 'labels'] as const) {
    const merged = mergeMaps(expected.metadata?.[field], existing.metadata?.[field]);
    if (!sameMap(merged, existing.metadata?.[field])) operation = 'update';
    if (merged === undefined) delete metadata[field];
    else metadata[field] = merged;
  }
  object.metadata = metadata;
  let missingRules: PolicyRule[] = [];
  const missingSubjects: Subject[] = [];
  if (role) {
    missingRules = uncovered(
      (live['rules'] as PolicyRule[] | undefined) ?? [],
      (e['rules'] as PolicyRule[] | undefined) ?? [],
    );
    if (missingRules.length > 0) {
      object['rules'] = [...((live['rules'] as PolicyRule[] | undefined) ?? []), ...missingRules];
      operation = 'update';
    }
    const want = e['aggregationRule'] as { clusterRoleSelectors?: unknown[] } | undefined;
    const have = live['aggregationRule'] as { clusterRoleSelectors?: unknown[] } | undefined;
    if (want === undefined && have !== undefined) {
      delete object['aggregationRule'];
      operation = 'update';
    } else if (want !== undefined && have !== undefined) {
      const missing = (want.clusterRoleSelectors ?? []).filter(
        (s) => !(have.clusterRoleSelectors ?? []).some((h) => semanticEqual(h, s)),
      );
      if (missing.length > 0) {
        object['aggregationRule'] = {
          ...have,
          clusterRoleSelectors: [...(have.clusterRoleSelectors ?? []), ...missing],
        };
        operation = 'update';
      }
    }
  } else {
    const want = (e['subjects'] as Subject[] | undefined) ?? [];
    const have = (live['subjects'] as Subject[] | undefined) ?? [];
    for (const s of want)
      if (!have.some((h) => sameSubject(h, s)) && !missingSubjects.some((m) => sameSubject(m, s)))
        missingSubjects.push(s);
    if (missingSubjects.length > 0) {
      object['subjects'] = [...have, ...missingSubjects];
      operation = 'update';
    }
  }
  return { operation, protected: isProtected, object, missingRules, missingSubjects };
}

/**
 * The text Argo CD keeps in front of the apply's output: `<kind>.<group>/<name> reconciled`, then, when
 * something had to change, ". " and kubectl's stderr lines (trimmed as gitops-engine `handleLogOutput`
 * trims each stream).
 */
export function reconcileOutput(
  key: { group: string; kind: string; name: string },
  plan: ReconcilePlan,
): string {
  const stdout = `${key.kind.toLowerCase()}.${key.group}/${key.name} reconciled`;
  if (plan.operation === 'none') return stdout;
  const caveat = plan.protected
    ? ', but object opted out (rbac.authorization.kubernetes.io/autoupdate: false)'
    : '';
  const lines = [`\treconciliation required ${plan.operation}${caveat}`];
  if (plan.missingSubjects.length > 0) {
    lines.push('\tmissing subjects added:');
    for (const s of plan.missingSubjects)
      lines.push(
        `\t\t{Kind:${s.kind ?? ''} APIGroup:${s.apiGroup ?? ''} Name:${s.name ?? ''} Namespace:${s.namespace ?? ''}}`,
      );
  }
  if (plan.missingRules.length > 0) {
    lines.push('\tmissing rules added:');
    for (const r of plan.missingRules) lines.push(`\t\t${formatRule(r)}`);
  }
  return `${stdout}. ${lines.join('\n').trim()}`;
}

/** A PolicyRule as Go's `%+v` prints it (a slice as `[a b]`, an empty string as nothing). */
export function formatRule(r: PolicyRule): string {
  const list = (v: string[] | undefined) => `[${(v ?? []).join(' ')}]`;
  return (
    `{Verbs:${list(r.verbs)} APIGroups:${list(r.apiGroups)} Resources:${list(r.resources)} ` +
    `ResourceNames:${list(r.resourceNames)} NonResourceURLs:${list(r.nonResourceURLs)}}`
  );
}

/** The rules of `servant`, broken down, that `owner` does not cover (validation `Covers`). */
export function uncovered(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): PolicyRule[] {
  return servant.flatMap(breakdown).filter((sub) => !owner.some((o) => ruleCovers(o, sub)));
}

function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? [])
    for (const resource of rule.resources ?? [])
      for (const verb of rule.verbs ?? []) {
        if ((rule.resourceNames ?? []).length > 0)
          for (const name of rule.resourceNames!)
            out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
  for (const url of rule.nonResourceURLs ?? [])
    for (const verb of rule.verbs ?? []) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const hasAll = (set: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean =>
  (wanted ?? []).every((w) => (set ?? []).includes(w));

function resourcesCover(set: readonly string[], wanted: readonly string[]): boolean {
  if (set.includes('*') || hasAll(set, wanted)) return true;
  return wanted.every((path) => {
    if (set.includes(path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && set.includes(`*/${path.slice(slash + 1)}`);
  });
}

function urlsCover(set: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((path) =>
    set.some(
      (owner) => owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, ''))),
    ),
  );
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = (owner.verbs ?? []).includes('*') || hasAll(owner.verbs, sub.verbs);
  const groups = (owner.apiGroups ?? []).includes('*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourcesCover(owner.resources ?? [], sub.resources ?? []);
  const urls = urlsCover(owner.nonResourceURLs ?? [], sub.nonResourceURLs ?? []);
  const names =
    (sub.resourceNames ?? []).length === 0
      ? (owner.resourceNames ?? []).length === 0
      : (owner.resourceNames ?? []).length === 0 || hasAll(owner.resourceNames, sub.resourceNames);
  return verbs && groups && resources && urls && names;
}

/** reconciliation `merge`: the later map wins a shared key; undefined when both are absent. */
function mergeMaps(
  first: Record<string, string> | undefined,
  later: Record<string, string> | undefined,
): Record<string, string> | undefined {
  if (first === undefined && later === undefined) return undefined;
  return { ...(first ?? {}), ...(later ?? {}) };
}

/** Go's reflect.DeepEqual of two label/annotation maps (a nil map differs from an empty one). */
function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => b[k] === a[k]);
}

function sameSubject(a: Subject, b: Subject): boolean {
  return (
    (a.kind ?? '') === (b.kind ?? '') &&
    (a.apiGroup ?? '') === (b.apiGroup ?? '') &&
    (a.name ?? '') === (b.name ?? '') &&
    (a.namespace ?? '') === (b.namespace ?? '')
  );
}

function sameRoleRef(a: unknown, b: unknown): boolean {
  const x = (a ?? {}) as Record<string, unknown>;
  const y = (b ?? {}) as Record<string, unknown>;
  return ['apiGroup', 'kind', 'name'].every((k) => (x[k] ?? '') === (y[k] ?? ''));
}

/** apimachinery's `equality.Semantic.DeepEqual`: empty and absent lists and maps are equal. */
function semanticEqual(a: unknown, b: unknown): boolean {
  const empty = (v: unknown) =>
    v === undefined ||
    v === null ||
    (Array.isArray(v) && v.length === 0) ||
    (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);
  if (empty(a) && empty(b)) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((k) =>
      semanticEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    );
  }
  return a === b;
}
