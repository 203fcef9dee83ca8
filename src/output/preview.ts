/**
 * Printers for `kubectl gitops diff --base` (a PreviewReport from src/preview; already masked):
 *
 * - default: per app that changed, `===== app <name> (added|removed|modified) =====`, base and head
 *   revisions, the count of changed resources, then each changed resource's unified diff (base "-",
 *   head "+"); unchanged apps are counted in a last line only.
 * - `-o json|yaml`: `diff -o json`'s document (apps[] with name, destination, revision = head revision,
 *   sync, health "Unknown" (no cluster), conditions, error, resources[]) plus top-level `"base"` and
 *   `"head"` (commits; head "local" with --local) and per app `"change"` and `"baseRevision"`.
 * - `-o name`: `<app>:<group>/<Kind>:<namespace>/<name>` per changed resource, as `diff -o name`.
 * - `-o markdown`: a pull-request comment: a summary line (apps added/removed/modified/unchanged,
 *   resources changed), a table of the apps that changed or failed, then one collapsible section per
 *   changed app with its diffs; cut to `maxBytes` keeping the summary (diff-markdown.ts' cutting rules).
 */
import { Chalk } from 'chalk';
import type { AppReport, ResourceStatus, RunReport } from '../controller/index.js';
import type { PreviewApp, PreviewReport } from '../preview/index.js';
import { colorDiffLines, diffDocument, renderDiffNames, resourceLabel, type DiffFormat } from './diff.js';
import { cell, DEFAULT_MAX_OUTPUT_BYTES, fitDetails } from './diff-markdown.js';
import { renderStructured } from './structured.js';

const changed = (a: PreviewApp): ResourceStatus[] => a.resources.filter((r) => r.status !== 'Synced');

/** Whether the change moves any app (exit code 1). */
export function previewHasDifferences(report: PreviewReport): boolean {
  return report.apps.some((a) => !a.error && a.change !== 'unchanged');
}

function asRunReport(report: PreviewReport): RunReport {
  return {
    apps: report.apps.map((a): AppReport => ({
      app: a.app,
      destination: a.destination,
      ...(a.error
        ? { error: a.error }
        : {
            comparison: {
              revision: a.headRevision ?? a.baseRevision ?? '',
              resources: a.resources,
              sync: changed(a).length > 0 ? 'OutOfSync' : 'Synced',
              health: { status: 'Unknown' },
              conditions: a.warnings.map((message) => ({ type: 'RenderWarning' as const, message })),
            },
          }),
    })),
    requests: 0,
    interrupted: false,
    durationMs: report.durationMs,
  };
}

export function previewDocument(report: PreviewReport): Record<string, unknown> {
  const doc = diffDocument(asRunReport(report));
  return {
    base: report.base,
    head: report.head,
    apps: doc.apps.map((a, i) => {
      const p = report.apps[i]!;
      return { ...a, change: p.change, baseRevision: p.baseRevision ?? null };
    }),
  };
}

function counts(report: PreviewReport): Record<string, number> {
  const c: Record<string, number> = {
    added: 0,
    removed: 0,
    modified: 0,
    unchanged: 0,
    failed: 0,
    resources: 0,
  };
  for (const a of report.apps) {
    if (a.error) c['failed']!++;
    else c[a.change]!++;
    c['resources']! += changed(a).length;
  }
  return c;
}

function summaryLine(report: PreviewReport): string {
  const c = counts(report);
  return (
    `${report.apps.length} app(s): ${c['added']} added, ${c['removed']} removed, ${c['modified']} modified, ` +
    `${c['unchanged']} unchanged${c['failed'] ? `, ${c['failed']} failed` : ''}; ${c['resources']} resource(s) changed.`
  );
}

const short = (rev: string | undefined): string => (rev ? rev.slice(0, 12) : '-');

function resourceCounts(a: PreviewApp): string {
  const rs = changed(a);
  const n = (d: string) => rs.filter((r) => r.difference === d).length;
  return `${rs.length} (+${n('missing')} ~${n('modified')} -${n('extra')})`;
}

export function renderPreviewText(report: PreviewReport, options: { color?: boolean } = {}): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const out: string[] = [];
  for (const a of report.apps) {
    if (a.error || a.change === 'unchanged') continue;
    const changeColor = a.change === 'added' ? c.green : a.change === 'removed' ? c.red : c.yellow;
    out.push(c.bold(`===== app ${a.app.name} (${changeColor(a.change)}) =====`));
    out.push(`revisions:   ${short(a.baseRevision)} -> ${short(a.headRevision)}`);
    out.push(`resources:   ${resourceCounts(a)} of ${a.resources.length} differ`);
    for (const w of a.warnings) out.push(c.yellow(`warning:     ${w}`));
    for (const r of changed(a)) {
      out.push('');
      const what = r.difference === 'missing' ? ' (added)' : r.difference === 'extra' ? ' (removed)' : '';
      out.push(c.bold(`===== ${resourceLabel(r)} ======${what}`));
      out.push(...colorDiffLines(c, r.diffText ?? ''));
    }
    out.push('');
  }
  out.push(
    `${summaryLine(report)} (base ${short(report.base)} ${report.baseRef}, head ${short(report.head)} ${report.headRef})`,
  );
  return `${out.join('\n')}\n`;
}

const ICON: Record<string, string> = { added: ':new:', removed: ':wastebasket:', modified: ':pencil2:' };

export function renderPreviewMarkdown(report: PreviewReport, maxBytes = DEFAULT_MAX_OUTPUT_BYTES): string {
  const shown = report.apps.filter((a) => a.error || a.change !== 'unchanged');
  const differing = shown.filter((a) => !a.error);
  const head = [
    '### kubectl gitops diff --base',
    '',
    `Base \`${short(report.base)}\` (${cell(report.baseRef)}) -> head \`${short(report.head)}\` (${cell(report.headRef)}): ${summaryLine(report)}`,
    '',
    ...(shown.length > 0
      ? [
          '| App | Change | Resources changed (+added ~modified -removed) |',
          '| --- | --- | --- |',
          ...shown.map((a) =>
            a.error
              ? `| ${cell(a.app.name)} | :x: error | ${cell(a.error.message)} |`
              : `| ${cell(a.app.name)} | ${ICON[a.change]} ${a.change} | ${resourceCounts(a)} |`,
          ),
          '',
        ]
      : []),
  ].join('\n');
  return fitDetails(head, differing, report.apps.length, maxBytes, (a) => ({
    summary: `<b>${cell(a.app.name)}</b> (${a.change}): ${changed(a).length} resource(s)`,
    body: changed(a)
      .map((r) => [`===== ${resourceLabel(r)} ======`, (r.diffText ?? '').replace(/\n$/, '')].join('\n'))
      .join('\n'),
  }));
}

export function renderPreview(
  report: PreviewReport,
  format: DiffFormat,
  options: { color?: boolean; maxBytes?: number } = {},
): string {
  switch (format) {
    case 'json':
    case 'yaml':
      return renderStructured(previewDocument(report), format);
    case 'name':
      return renderDiffNames(asRunReport(report));
    case 'markdown':
      return renderPreviewMarkdown(report, options.maxBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
    default:
      return renderPreviewText(report, { color: options.color ?? false });
  }
}
