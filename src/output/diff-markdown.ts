/**
 * `kubectl gitops diff -o markdown`: a pull-request comment. A summary table (app, sync, health, changed
 * resources, revision), then one collapsible `<details>` per app with differences holding its unified diffs
 * in a ```diff block. The whole text is at most `maxBytes` (UTF-8) long: diffs are cut at a line boundary,
 * every opened block is closed, and a note says how much was left out. The summary always comes first, so
 * it survives any cap (cut itself only if the cap is smaller than the table).
 */
import type { AppReport, RunReport } from '../controller/index.js';
import { changedResources, resourceLabel } from './diff.js';

export const DEFAULT_MAX_OUTPUT_BYTES = 65_536;

export const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');
export const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

function summaryRow(a: AppReport): string {
  const cmp = a.comparison;
  if (!cmp) return `| ${cell(a.app.name)} | :x: error | | | ${cell(a.error?.message ?? '')} |`;
  const sync = cmp.sync === 'Synced' ? ':white_check_mark: Synced' : `:warning: ${cmp.sync}`;
  return `| ${cell(a.app.name)} | ${sync} | ${cmp.health.status} | ${changedResources(a).length} | \`${cmp.revision.slice(0, 12)}\` |`;
}

function appDiff(a: AppReport): string {
  const parts: string[] = [];
  for (const r of changedResources(a)) {
    parts.push(`===== ${resourceLabel(r)} ======`);
    if (r.message) parts.push(`# ${r.message}`);
    if (r.note) parts.push(`# note: ${r.note}`);
    if (r.diffText) parts.push(r.diffText.replace(/\n$/, ''));
  }
  return parts.join('\n');
}

/** Cuts `text` to at most `budget` bytes at a line boundary. */
export function cutLines(text: string, budget: number): string {
  if (budget <= 0) return '';
  let out = '';
  for (const line of text.split('\n')) {
    const next = out ? `${out}\n${line}` : line;
    if (bytes(next) > budget) break;
    out = next;
  }
  return out;
}

/**
 * `head`, then one collapsible `<details>` per item (its summary, its body in a ```diff block), the whole at
 * most `maxBytes`: the last body that does not fit is cut at a line boundary, every opened block is closed,
 * and a note says how many items were cut or left out. A note's room (sized for `noteCount` items, the most
 * it can say) is kept free throughout, so it always fits. Bodies are made only for the items written.
 */
export function fitDetails<T>(
  head: string,
  items: readonly T[],
  noteCount: number,
  maxBytes: number,
  section: (item: T) => { summary: string; body: string },
): string {
  const truncNote = (left: number): string =>
    `\n> :scissors: Output truncated: ${left} app diff(s) cut or left out (--max-output-bytes ${maxBytes}).\n`;
  const reserve = bytes(truncNote(noteCount));
  if (bytes(head) + reserve > maxBytes) return cutLines(head, maxBytes - reserve) + truncNote(items.length);
  let out = head;
  for (let i = 0; i < items.length; i++) {
    const { summary, body } = section(items[i]!);
    const fence = fenceFor(body);
    const open = `\n<details><summary>${summary}</summary>\n\n${fence}diff\n`;
    const close = `\n${fence}\n\n</details>\n`;
    const full = open + body + close;
    if (bytes(out) + bytes(full) + reserve <= maxBytes) {
      out += full;
      continue;
    }
    const cut = cutLines(body, maxBytes - reserve - bytes(out) - bytes(open) - bytes(close));
    if (cut) out += open + cut + close;
    return out + truncNote(items.length - i);
  }
  return out;
}

export function renderDiffMarkdown(report: RunReport, maxBytes = DEFAULT_MAX_OUTPUT_BYTES): string {
  const differing = report.apps.filter((a) => a.comparison && a.comparison.sync !== 'Synced');
  const errors = report.apps.filter((a) => a.error).length;
  const head = [
    '### kubectl gitops diff',
    '',
    `${report.apps.length} app(s): ${differing.length} differ from Git${errors ? `, ${errors} failed` : ''}.`,
    '',
    '| App | Sync | Health | Changed | Revision |',
    '| --- | --- | --- | ---: | --- |',
    ...report.apps.map(summaryRow),
    '',
  ].join('\n');
  return fitDetails(head, differing, report.apps.length, maxBytes, (a) => ({
    summary: `<b>${a.app.name}</b>: ${changedResources(a).length} resource(s) differ`,
    body: appDiff(a),
  }));
}
