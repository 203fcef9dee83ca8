/** The result table (case, field, Argo CD, ours) and the totals. */
import type { CaseOutcome } from './batch.js';

export interface Summary {
  cases: number;
  casesRun: number;
  casesNotRun: number;
  casesIdentical: number;
  fieldsCompared: number;
  identical: number;
  different: number;
  /** Phases that did not run, by reason. */
  notRun: Record<string, number>;
}

export function summary(outcomes: readonly CaseOutcome[], compared: boolean): Summary {
  const rows = outcomes.flatMap((o) => o.rows);
  const identical = compared ? rows.filter((r) => r.same).length : 0;
  const notRun: Record<string, number> = {};
  for (const o of outcomes) for (const n of o.notRun) notRun[n] = (notRun[n] ?? 0) + 1;
  const run = outcomes.filter((o) => !o.notRun.some((n) => n.startsWith('case:')));
  return {
    cases: outcomes.length,
    casesRun: run.length,
    casesNotRun: outcomes.length - run.length,
    casesIdentical: compared
      ? run.filter((o) => o.rows.length > 0 && o.rows.every((r) => r.same) && o.notes.length === 0).length
      : 0,
    fieldsCompared: compared ? rows.length : 0,
    identical,
    different: compared ? rows.length - identical : 0,
    notRun,
  };
}

function cell(v: string | undefined, width: number): string {
  const s = v === undefined ? '(absent)' : v;
  return s.length > width ? `${s.slice(0, width - 1)}…` : s;
}

/**
 * Text table: per case a header line (id, name, fields identical/compared, or why not run), its notes,
 * then the differing fields (all fields with `all`). Without Argo CD (`compared` false) our values only.
 */
export function formatTable(
  outcomes: readonly CaseOutcome[],
  opts: { all: boolean; compared: boolean },
): string {
  const lines: string[] = [];
  lines.push(
    opts.compared ? 'CASE  FIELD | ARGO CD | OURS' : 'CASE  FIELD | OURS   (our side only: no Argo CD rig)',
  );
  for (const o of outcomes) {
    const same = o.rows.filter((r) => r.same).length;
    const head = o.notRun.some((n) => n.startsWith('case:'))
      ? `not run: ${o.notRun.join('; ')}`
      : opts.compared
        ? `${same}/${o.rows.length} identical`
        : `${o.rows.length} fields (ours)`;
    lines.push(`${o.id} ${o.name} [${o.family}]: ${head}`);
    for (const n of o.notes) lines.push(`  note: ${n}`);
    for (const r of o.rows) {
      if (opts.compared && r.same && !opts.all) continue;
      if (!opts.compared && !opts.all) continue;
      lines.push(
        opts.compared
          ? `  ${r.phase} ${r.field} | ${cell(r.argocd, 60)} | ${cell(r.ours, 60)}`
          : `  ${r.phase} ${r.field} | ${cell(r.ours, 80)}`,
      );
    }
  }
  return lines.join('\n') + '\n';
}
