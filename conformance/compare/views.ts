/**
 * What is compared, per phase, as one shape for both sides (docs/conformance.md "What is compared"):
 * - refresh: Argo CD's Application `status` against our `diff -o json` app entry;
 * - sync: Argo CD's `status.operationState` against our `sync -o json` app entry, plus the writes of the
 *   audit log and the final live objects;
 * - controller: Argo CD's `status` against the `status` our controller wrote.
 * Empty values (false, "", null, [], {}) are dropped on both sides, as Go's `omitempty` drops them from
 * what Argo CD writes.
 */
import type { Obj } from './case.js';
import { keyed, normaliseTimes, resourceKey } from './normalise.js';

/** Drops false, '', null, empty lists and maps, recursively (Go's omitempty). */
export function omitEmpty(v: unknown): unknown {
  if (Array.isArray(v)) {
    const out = v.map(omitEmpty);
    return out;
  }
  if (v && typeof v === 'object') {
    const out: Obj = {};
    for (const [k, x] of Object.entries(v)) {
      const y = omitEmpty(x);
      if (y === undefined || y === null || y === false || y === '') continue;
      if (Array.isArray(y) && y.length === 0) continue;
      if (y && typeof y === 'object' && !Array.isArray(y) && Object.keys(y).length === 0) continue;
      out[k] = y;
    }
    return out;
  }
  return v;
}

function conditions(list: Obj[] | undefined): Obj | undefined {
  return keyed(
    (list ?? []).map((c) => ({ type: c.type, message: c.message })),
    (c) => String(c.type),
  );
}

/** Argo CD's Application status as the refresh phase compares it. */
export function refreshViewOfStatus(status: Obj | undefined): Obj {
  const s = status ?? {};
  return omitEmpty({
    sync: s.sync?.status,
    revision: s.sync?.revision,
    revisions: s.sync?.revisions,
    health: s.health?.status,
    healthMessage: s.health?.message,
    conditions: conditions(s.conditions),
    resources: keyed(
      ((s.resources ?? []) as Obj[]).map((r) => ({
        ...r,
        ...(r.health ? { health: { status: r.health.status, message: r.health.message } } : {}),
      })),
      (r) => resourceKey(r),
    ),
  }) as Obj;
}

/** Our `diff -o json` app entry in the same shape. `withResourceHealth`: only when Argo CD wrote it. */
export function refreshViewOfDiff(app: Obj, withResourceHealth: boolean): Obj {
  const revisions = Array.isArray(app.revisions) ? app.revisions : undefined;
  return omitEmpty({
    sync: app.sync,
    revision: revisions ? undefined : (app.revision ?? undefined),
    revisions,
    health: app.health,
    healthMessage: app.healthMessage,
    conditions: conditions(app.conditions),
    resources: keyed(
      ((app.resources ?? []) as Obj[]).map((r) => ({
        group: r.group,
        version: r.version,
        kind: r.kind,
        namespace: r.namespace,
        name: r.name,
        status: r.status,
        ...(withResourceHealth && r.health ? { health: { status: r.health, message: r.healthMessage } } : {}),
        hook: r.hook,
        requiresPruning: r.requiresPruning,
        syncWave: r.syncWave,
      })),
      (r) => resourceKey(r),
    ),
  }) as Obj;
}

/** One sync result entry as compared (Argo CD's `ResourceResult` fields, ours alike). */
export function resultEntry(r: Obj): Obj {
  return {
    group: r.group,
    version: r.version,
    kind: r.kind,
    namespace: r.namespace,
    name: r.name,
    status: r.status,
    message: r.message,
    hookType: r.hookType,
    hookPhase: r.hookPhase,
    syncPhase: r.syncPhase,
    images: r.images,
  };
}

/** Argo CD's operationState as the sync phase compares it. */
export function syncViewOfOperation(op: Obj | undefined): Obj {
  const o = op ?? {};
  return omitEmpty({
    phase: o.phase,
    message: o.message,
    resources: keyed(((o.syncResult?.resources ?? []) as Obj[]).map(resultEntry), (r) =>
      resourceKey(r, true),
    ),
  }) as Obj;
}

/** Our `sync -o json` app entry in the same shape (syncWave, which Argo CD's ResourceResult lacks, left out). */
export function syncViewOfReport(app: Obj): Obj {
  return omitEmpty({
    phase: app.phase,
    message: app.message,
    resources: keyed(((app.resources ?? []) as Obj[]).map(resultEntry), (r) => resourceKey(r, true)),
  }) as Obj;
}

/** A whole Application status as the controller phase compares it: lists keyed, times masked. */
export function controllerView(status: Obj | undefined): Obj {
  const s = structuredClone(status ?? {}) as Obj;
  delete s.reconciledAt;
  delete s.observedAt;
  if (s.resources) s.resources = keyed(s.resources, (r) => resourceKey(r));
  if (s.conditions) s.conditions = keyed(s.conditions, (c) => String(c.type));
  if (s.history) s.history = keyed(s.history, (h) => String(h.id));
  const sr = s.operationState?.syncResult;
  if (sr?.resources) sr.resources = keyed(sr.resources, (r) => resourceKey(r, true));
  return omitEmpty(normaliseTimes(s)) as Obj;
}

/** One audit-log write as compared: verb, resource, name, dry run; runs of the same verb/kind sorted by name. */
export interface Write {
  verb: string;
  resource: string;
  namespace: string;
  name: string;
  dryRun: boolean;
  subresource?: string;
}

export function writeList(writes: readonly Write[]): string[] {
  const lines = writes.map((w) => ({
    group: `${w.verb} ${w.resource}${w.subresource ? '/' + w.subresource : ''}${w.dryRun ? ' (dry run)' : ''}`,
    text: `${w.verb} ${w.resource}${w.subresource ? '/' + w.subresource : ''} ${w.namespace ? w.namespace + '/' : ''}${w.name}${w.dryRun ? ' (dry run)' : ''}`,
  }));
  // Writes of one kind in one step go out in parallel on both sides: their order among themselves is the
  // network's, so a run of the same verb/resource/dry-run is compared sorted.
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    let j = i;
    while (j < lines.length && lines[j]!.group === lines[i]!.group) j++;
    out.push(
      ...lines
        .slice(i, j)
        .map((l) => l.text)
        .sort(),
    );
    i = j;
  }
  return out;
}

/** Audit events (JSON lines of kube-apiserver's log) to writes, for the namespaces/names holding `token`. */
export function auditWrites(lines: readonly string[], user: string, token: string): Write[] {
  const out: Write[] = [];
  for (const line of lines) {
    if (!line.includes(token)) continue;
    let e: Obj;
    try {
      e = JSON.parse(line) as Obj;
    } catch {
      continue;
    }
    if (e.stage !== 'ResponseComplete' || e.user?.username !== user) continue;
    const ref = (e.objectRef ?? {}) as Obj;
    const ns = String(ref.namespace ?? '');
    const name = String(ref.name ?? '');
    if (!ns.startsWith(token) && !name.includes(token) && !(ns === '' && name.startsWith(token))) continue;
    if (ref.resource === 'applications' || ref.resource === 'events') continue;
    const code = e.responseStatus?.code as number | undefined;
    out.push({
      verb: String(e.verb),
      resource: `${ref.apiGroup ? ref.apiGroup + '/' : ''}${ref.resource}`,
      namespace: ns,
      name,
      dryRun: /[?&]dryRun=/.test(String(e.requestURI ?? '')),
      ...(ref.subresource ? { subresource: String(ref.subresource) } : {}),
      ...(code && code >= 400 ? { subresource: `${ref.subresource ?? ''}(${code})` } : {}),
    });
  }
  return out;
}

/**
 * Whether a row of Argo CD's resource tree (its `HEALTH` in `argocd app get`) is compared with our diff's
 * resource health. The tree has a health for every node: a live hook's, and `Missing` (argocd-server's
 * inferResourcesStatusHealth) for a node with no live object, which a `hook: Skip` target always is. Argo
 * CD's controller assesses neither (controller/health.go setApplicationHealth skips hooks and Skip
 * targets), nor does our diff, which gives the health Argo CD's controller assesses (what it persists
 * with --persist-resource-health). Left out: hooks (`hook` in Argo CD's status) and a `Missing` entry
 * with no sync status. `entry`: Argo CD's status.resources entry (none: compared).
 */
export function healthAssessed(entry: Obj | undefined, treeHealth: string | undefined): boolean {
  if (!entry) return true;
  if (entry.hook) return false;
  return Boolean(entry.status) || treeHealth !== 'Missing';
}

/**
 * The resource table of `argocd app get` (GROUP KIND NAMESPACE NAME STATUS HEALTH ...), read by the
 * header's column positions (a tabwriter table: empty cells are blank), keyed group/kind/namespace/name.
 */
export function parseAppGetResources(text: string): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  const lines = text.split('\n');
  const h = lines.findIndex((l) => /^GROUP\s+KIND\s+NAMESPACE\s+NAME\s+STATUS\s+HEALTH/.test(l));
  if (h < 0) return out;
  const header = lines[h]!;
  const cols = [...header.matchAll(/\S+/g)].map((m) => ({ name: m[0], start: m.index }));
  for (const line of lines.slice(h + 1)) {
    if (line.trim() === '') break;
    const row: Record<string, string> = {};
    cols.forEach((c, i) => {
      const end = i + 1 < cols.length ? cols[i + 1]!.start : undefined;
      row[c.name] = line.slice(c.start, end).trim();
    });
    out.set(`${row['GROUP'] ?? ''}/${row['KIND'] ?? ''}/${row['NAMESPACE'] ?? ''}/${row['NAME'] ?? ''}`, row);
  }
  return out;
}
