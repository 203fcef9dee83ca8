/**
 * `toReport(reconciliation)`: the one step from a refresh's reconciliation (real objects and values, what
 * sync consumes) to its report (`ComparisonResult`, what printers and `-o json` get). Every resource's diff
 * (`changes`, `diffText`) is built here from masked copies of its normalized pair (src/diff
 * `reportComparison`): Secret `data` and argocd-cm's sensitive annotations appear only as runs of "+". The
 * report holds no target, live or normalized object; the reconciliation is left as it is.
 */
import { reportComparison } from '../../diff/index.js';
import type { ComparisonResult, Reconciliation, ResourceStatus } from './types.js';

export function toReport(reconciliation: Reconciliation): ComparisonResult {
  const { revision, status, conditions, reportOptions } = reconciliation;
  const resources = reconciliation.resources.map((r): ResourceStatus => {
    const row: ResourceStatus = {
      group: r.group,
      version: r.version,
      kind: r.kind,
      namespace: r.namespace,
      name: r.name,
      status: r.status,
      difference: r.difference,
      ...(r.health ? { health: { ...r.health } } : {}),
      requiresPruning: r.requiresPruning,
      ...(r.hook ? { hook: r.hook } : {}),
      ...(r.sharedWith ? { sharedWith: r.sharedWith } : {}),
      ...(r.ignoreExtraneous ? { ignoreExtraneous: r.ignoreExtraneous } : {}),
      ...(r.message ? { message: r.message } : {}),
      ...(r.note ? { note: r.note } : {}),
      ...(r.syncWave ? { syncWave: r.syncWave } : {}),
      changes: [],
    };
    // An unchanged resource has no changes and no diff text: its pair is neither copied nor masked.
    if (r.comparison && r.comparison.difference !== 'none') {
      const reported = reportComparison(r.comparison, reportOptions);
      row.changes = reported.changes;
      if (reported.diffText) row.diffText = reported.diffText;
    }
    return row;
  });
  return {
    revision,
    ...(reconciliation.sources.length > 0
      ? { revisions: reconciliation.sources.map((s) => s.revision) }
      : {}),
    resources,
    sync: status.sync,
    health: { ...status.health },
    conditions: conditions.map((c) => ({ ...c })),
  };
}
