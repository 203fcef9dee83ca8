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

/** The field's path with case-specific keys folded (`resources[...]`, `live[...]`), to group differences. */
export function fieldPattern(field: string): string {
  return field.replace(/\[[^\]]*\]/g, '[*]').replace(/\.\d+\b/g, '.N');
}

/**
 * A Markdown summary for docs/conformance.md: totals per family, then each kind of difference (phase and
 * field pattern) with the cases that show it and one example.
 */
export function formatMarkdown(
  outcomes: readonly CaseOutcome[],
  head: { date: string; versions: Record<string, string>; wallSeconds: number },
): string {
  const lines: string[] = [];
  const s = summary(outcomes, true);
  lines.push(
    `Run of ${head.date.slice(0, 10)}: ${Object.entries(head.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; wall time ${head.wallSeconds} s.`,
  );
  lines.push('');
  lines.push(
    `Cases ${s.cases} (run ${s.casesRun}, not run ${s.casesNotRun}; all fields identical in ${s.casesIdentical}); fields compared ${s.fieldsCompared}, identical ${s.identical}, different ${s.different}.`,
  );
  lines.push('');
  lines.push('| family | cases | fields | identical | different |');
  lines.push('|---|---|---|---|---|');
  const families = [...new Set(outcomes.map((o) => o.family))];
  for (const f of families) {
    const os = outcomes.filter((o) => o.family === f);
    const rows = os.flatMap((o) => o.rows);
    const same = rows.filter((r) => r.same).length;
    lines.push(`| ${f} | ${os.length} | ${rows.length} | ${same} | ${rows.length - same} |`);
  }
  lines.push('');
  const groups = new Map<string, { cases: Set<string>; example: string }>();
  for (const o of outcomes)
    for (const r of o.rows) {
      if (r.same) continue;
      const k = `${r.phase} ${fieldPattern(r.field)}`;
      const g = groups.get(k) ?? {
        cases: new Set<string>(),
        example: `${o.id} ${r.field}: Argo CD ${r.argocd ?? '(absent)'}, ours ${r.ours ?? '(absent)'}`,
      };
      g.cases.add(o.id);
      groups.set(k, g);
    }
  lines.push('| phase and field | cases | example |');
  lines.push('|---|---|---|');
  for (const [k, g] of [...groups].sort((a, b) => b[1].cases.size - a[1].cases.size))
    lines.push(`| \`${k}\` | ${g.cases.size} | ${g.example.replace(/\|/g, '\\|').slice(0, 200)} |`);
  return lines.join('\n') + '\n';
}
