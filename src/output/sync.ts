/**
 * Printers of a sync run: `-o json` (Argo CD's operation state names, so `jq` habits carry over) and the
 * plain text summary (one line per app, then one line per task). Built from the RunReport only.
 */
import type { AppReport, RunReport } from '../controller/index.js';
import { notHealthy } from '../health/index.js';
import { resourceHealthLines } from './diff.js';
import { waitingLine } from './progress-lines.js';
import { jsonListChunks } from './structured.js';

/**
 * `resourceHealth`: the health messages of the app's resources after the sync (only when there are any),
 * as argocd app get shows them ("Waiting for rollout to finish: ...").
 */
function resourceHealthOf(a: RunReport['apps'][number]): {
  resourceHealth?: {
    group: string;
    kind: string;
    namespace: string;
    name: string;
    health: string;
    message: string;
  }[];
} {
  const entries = (a.comparison?.resources ?? []).flatMap((r) =>
    r.health?.message
      ? [
          {
            group: r.group,
            kind: r.kind,
            namespace: r.namespace,
            name: r.name,
            health: r.health.status,
            message: r.health.message,
          },
        ]
      : [],
  );
  return entries.length > 0 ? { resourceHealth: entries } : {};
}

export function syncJson(report: RunReport): string {
  return `${JSON.stringify({ apps: report.apps.map(syncJsonApp) }, null, 2)}\n`;
}

/** `syncJson` streamed: the same bytes, one app at a time (structured.ts `jsonListChunks`). */
export function syncJsonChunks(report: RunReport): Generator<string> {
  return jsonListChunks('apps', report.apps, syncJsonApp);
}

/** One app of `syncJson`'s document. */
export function syncJsonApp(a: AppReport): Record<string, unknown> {
  const op = a.operation;
  return {
    name: a.app.name,
    revision: op?.revision ?? a.comparison?.revision ?? '',
    phase: op?.phase ?? 'Error',
    message: op?.message ?? a.error?.message ?? '',
    startedAt: op?.startedAt ?? '',
    finishedAt: op?.finishedAt ?? '',
    sync: a.comparison?.sync ?? 'Unknown',
    health: a.comparison?.health.status ?? 'Unknown',
    ...(a.comparison?.health.message ? { healthMessage: a.comparison.health.message } : {}),
    // Health messages of the app's resources after the sync, as argocd app get shows them.
    ...resourceHealthOf(a),
    ...(op?.dryRun ? { dryRun: true } : {}),
    ...(a.syncWindows ? { syncWindows: a.syncWindows } : {}),
    ...(op && op.retries > 0 ? { retries: op.retries } : {}),
    resources: (op?.resources ?? []).filter((r) => r.status !== '' || r.hookPhase !== ''),
  };
}

export function syncText(report: RunReport): string {
  const lines: string[] = [];
  for (const a of report.apps) {
    const op = a.operation;
    if (!op) {
      lines.push(`${a.app.name}: Error: ${a.error?.message ?? 'not synced'}`);
      continue;
    }
    const sync = a.comparison?.sync ?? 'Unknown';
    const health = a.comparison?.health.status ?? 'Unknown';
    lines.push(
      `${a.app.name}: ${op.dryRun ? 'dry run ' : ''}${op.phase}: ${op.message} (revision ${op.revision.slice(0, 12)}, sync ${sync}, health ${health}${op.retries ? `, ${op.retries} retries` : ''})`,
    );
    for (const line of resourceHealthLines(a.comparison?.resources ?? [])) lines.push(`  health: ${line}`);
    if (op.dryRun) {
      // A dry run plans even when the project's sync windows would refuse the sync.
      if (a.syncWindows?.blockedBy) lines.push(`  a sync would be refused: ${a.syncWindows.blockedBy}`);
      for (const t of op.plan) {
        lines.push(
          `  ${t.syncPhase.padEnd(8)} wave ${String(t.syncWave).padStart(3)}  ${t.action.padEnd(10)} ${t.group ? `${t.group}/` : ''}${t.kind} ${t.namespace ? `${t.namespace}/` : ''}${t.name}${t.hookType ? ` (hook)` : ''}`,
        );
      }
      continue;
    }
    for (const r of op.resources) {
      if (r.status === '' && r.hookPhase === '') continue;
      lines.push(
        `  ${r.syncPhase.padEnd(8)} wave ${String(r.syncWave).padStart(3)}  ${(r.hookPhase === 'Failed' && r.status === 'Synced' ? 'Failed' : r.status || r.hookPhase).padEnd(12)} ${r.group ? `${r.group}/` : ''}${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}${r.message ? `  ${r.message}` : ''}`,
      );
    }
    const skipped = op.resources.filter((r) => r.status === 'PruneSkipped').length;
    if (skipped > 0) lines.push(`  ${skipped} resource(s) not pruned: pass --prune to delete them`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * What a stopped run was still waiting for, one entry per app (for the `--timeout` line): an operation cut
 * short (its tasks still running), or with `--health` an app not Healthy (its first resource not Healthy,
 * with why, and how many more).
 */
export function stillWaitedFor(report: RunReport, health: boolean): string[] {
  return report.apps.flatMap((a) => {
    const op = a.operation;
    if (!op || op.dryRun) return [];
    const running = /; still running: (.*)$/.exec(op.message)?.[1];
    if (op.phase !== 'Succeeded') return running ? [`${a.app.name}: its operation (${running})`] : [];
    const c = a.comparison;
    if (!health || !c || c.health.status === 'Healthy') return [];
    const waiting = notHealthy(c.resources);
    const first = waiting[0];
    if (!first) return [`${a.app.name}: health ${c.health.status}`];
    const more = waiting.length > 1 ? ` (and ${waiting.length - 1} more)` : '';
    return [`${a.app.name}: ${waitingLine(first)}${more}`];
  });
}
