/**
 * What the operations phase compares (operations.ts): an Application after a step, and a step's writes
 * from the audit log.
 */
import type { Obj } from './case.js';
import { keyed, normaliseTimes, resourceKey } from './normalise.js';
import { omitEmpty, resultEntry, writeList, type Write } from './views.js';

/** RFC 3339 times inside longer strings (a retry's "Retrying attempt #1 at <time>.") masked. */
function maskInnerTimes(v: unknown): unknown {
  return JSON.parse(
    JSON.stringify(normaliseTimes(v)).replace(
      /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g,
      '<time>',
    ),
  );
}

/** What is compared of an Application after a step (`final`: at the end, with history). */
export function operationsView(a: Obj | undefined, what: 'ready' | 'step' | 'delete' | 'final'): Obj {
  if (!a) return { gone: true };
  const s = (a.status ?? {}) as Obj;
  const op = s.operationState as Obj | undefined;
  const base: Obj = {
    finalizers: [...((a.metadata?.finalizers ?? []) as string[])].sort(),
    conditions: keyed(
      ((s.conditions ?? []) as Obj[]).map((c) => ({ type: c.type, message: c.message })),
      (c) => String(c.type),
    ),
  };
  if (what === 'ready') Object.assign(base, { sync: s.sync?.status });
  if (what === 'step' && op)
    base.operationState = {
      phase: op.phase,
      message: op.message,
      operation: op.operation,
      retryCount: op.retryCount,
      syncResult: op.syncResult && {
        revision: op.syncResult.revision,
        revisions: op.syncResult.revisions,
        source: op.syncResult.source,
        sources: op.syncResult.sources,
        resources: keyed(((op.syncResult.resources ?? []) as Obj[]).map(resultEntry), (r) =>
          resourceKey(r, true),
        ),
      },
    };
  if (what === 'final')
    Object.assign(base, {
      sync: { status: s.sync?.status, revision: s.sync?.revision },
      health: s.health?.status,
      history: keyed(s.history as Obj[] | undefined, (h) => String(h.id)),
    });
  return omitEmpty(maskInnerTimes(base)) as Obj;
}

/**
 * One step's writes as compared: a write refused because the writer's cache lagged behind its own writes
 * (a delete of an object already gone, 404; a create of one already there, 409) and a delete sent again
 * for an object the step already deleted are left out (counted in the notes: Argo CD's cluster cache lags
 * so); runs of writes of one kind, and runs of deletes, are sorted (they go out in parallel).
 */
export function stepWrites(all: readonly Write[], note: (what: string) => void): string[] {
  const deleted = new Set<string>();
  const kept: Write[] = [];
  const left: Write[] = [];
  for (const w of all) {
    const id = `${w.resource}/${w.namespace}/${w.name}`;
    if (/\((404|409)\)$/.test(w.subresource ?? '') || (w.verb === 'delete' && deleted.has(id))) left.push(w);
    else kept.push(w);
    if (w.verb === 'delete') deleted.add(id);
  }
  if (left.length > 0)
    note(`${left.length} write(s) of a lagging cache not compared: ${writeList(left).join('; ')}`);
  // gitops-engine writes one kind's tasks of a wave in parallel (processCreateTasks), and a cascade deletes
  // everything at once (RunAllAsync): such runs are compared sorted.
  const group = (w: Write): string => (w.verb === 'delete' ? 'delete' : `write ${w.resource}`);
  const out: string[] = [];
  for (let i = 0; i < kept.length;) {
    let j = i;
    while (j < kept.length && group(kept[j]!) === group(kept[i]!)) j++;
    out.push(...writeList(kept.slice(i, j)).sort());
    i = j;
  }
  return out;
}
