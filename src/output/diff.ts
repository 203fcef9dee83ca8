/**
 * Printers for `kubectl gitops diff`: the human report (per app a header, then a unified diff per changed
 * resource, Git "+" and live "-", like `kubectl diff` / `argocd app diff`), `-o name`, and the stable
 * `-o json|yaml` document. Markdown lives in diff-markdown.ts. Everything printed comes from the
 * controller's RunReport, which is already masked: no printer sees a Secret value.
 *
 * JSON/YAML shape (documented in docs/usage/diff.md; change it only compatibly):
 *   {"apps": [{"name", "namespace", "destination": {"server"|"name", "namespace", "context"},
 *     "revision", "revisions"? (multi-source: each source's, in spec order), "sync", "health", "healthMessage"?,
 *     "conditions": [{"type", "message"}] (Argo CD's),
 *     "warnings"?: [{"type", "message"}] (ours: UnknownKind, RenderWarning),
 *     "syncWindows"?: {"project", "canSync", "blockedBy"?, "assigned": [window], "active": [window],
 *       "warnings"} (a window: "index", "kind", "schedule", "duration", "timeZone"?, "description"?,
 *       "manualSync", "syncOverrun", "active", "until"?, "next"?, "text"), "error"?,
 *     "resources": [{"group", "version", "kind", "namespace", "name", "status", "difference", "health",
 *       "requiresPruning", "hook"?, "sharedWith"?, "message"?, "note"?, "changes": [json-diff-ts changes]}]}]}
 * "note" is set where the verdict is Argo CD's and Argo CD is known to be wrong, naming the upstream issue
 * (docs/diff.md); the text report prints it next to the verdict.
 * An app that failed has "error", sync and health "Unknown", revision null and no resources; when Argo CD
 * records the failure as conditions (a project refusal: InvalidSpecError or UnknownError; a destination
 * that does not resolve: InvalidSpecError), "conditions" holds them, and the text report prints the app's
 * header with them (the error line still goes to stderr).
 * `-o name` prints one changed resource per line as `<app>:<group>/<Kind>:<namespace>/<name>` (the
 * tracking-id form; group empty for core kinds, namespace empty for cluster-scoped kinds).
 */
import { Chalk } from 'chalk';
import { OWN_TYPES, activeWindowsLine } from '../apps/index.js';
import type { AppReport, ResourceStatus, RunReport } from '../controller/index.js';
import { healthReason } from '../health/index.js';
import { jsonListChunks, renderStructured } from './structured.js';
import type { StructuredFormat } from './structured.js';

export type DiffFormat = 'diff' | 'json' | 'yaml' | 'name' | 'markdown';

export interface DiffPrintOptions {
  /** ANSI colours (the command decides: TTY, NO_COLOR, --no-color). */
  color?: boolean;
}

/** The resources a diff shows: OutOfSync or Unknown (not Synced, nor listed with no status). */
export function changedResources(app: AppReport): ResourceStatus[] {
  return app.comparison?.resources.filter((r) => r.status === 'OutOfSync' || r.status === 'Unknown') ?? [];
}

/** Whether any app differs from Git (decides exit code 1). */
export function hasDifferences(report: RunReport): boolean {
  return report.apps.some((a) => a.comparison && a.comparison.sync !== 'Synced');
}

export function resourceLabel(r: Pick<ResourceStatus, 'group' | 'kind' | 'namespace' | 'name'>): string {
  return `${r.group ? `${r.group}/` : ''}${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
}

export function destinationLabel(app: AppReport): string {
  const d = app.destination;
  const cluster = d.server ?? d.name ?? '';
  return `${cluster}${d.context ? ` (context ${d.context})` : ''}, namespace ${d.namespace}`;
}

/** A row the app's AppProject does not permit (src/controller/refresh/projects.ts): sync refuses it. */
const NOT_PERMITTED = / is not permitted in project /;

function note(r: ResourceStatus): string {
  const notes: string[] = [];
  const refused = r.status === 'Unknown' && NOT_PERMITTED.test(r.message ?? '');
  if (refused) notes.push(`${r.message}: sync refuses it`);
  else if (r.difference === 'missing') notes.push('missing: sync would create it');
  if (r.difference === 'extra')
    notes.push(r.requiresPruning ? 'extra: sync with prune would delete it' : 'extra');
  if (r.ignoreExtraneous) notes.push('IgnoreExtraneous');
  if (r.sharedWith) notes.push(`shared with app ${r.sharedWith}`);
  if (r.status === 'Unknown' && !refused) notes.push('comparison failed');
  if (r.note) notes.push(r.note);
  return notes.length ? ` (${notes.join('; ')})` : '';
}

/** A unified diff's lines, coloured (headers bold, "+" green, "-" red, hunks cyan); empty lines dropped. */
export function colorDiffLines(c: InstanceType<typeof Chalk>, text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('+++') || line.startsWith('---')) out.push(c.bold(line));
    else if (line.startsWith('+')) out.push(c.green(line));
    else if (line.startsWith('-')) out.push(c.red(line));
    else if (line.startsWith('@@')) out.push(c.cyan(line));
    else out.push(line);
  }
  return out;
}

/**
 * One line per resource whose health check left a message, `<group/Kind ns/name>: <status>: <message>`,
 * as `argocd app get` shows a resource's health message (the diff's and sync's text reports), and per
 * Progressing or Degraded resource without one, `<status>: <why>` (what a sync waits for).
 */
export function resourceHealthLines(
  resources: readonly Pick<ResourceStatus, 'group' | 'kind' | 'namespace' | 'name' | 'health'>[],
): string[] {
  // A Progressing or Degraded resource is listed even when its check gives no message (a LoadBalancer
  // Service waiting for its load balancer): with why, in words (src/health healthReason).
  return resources.flatMap((r) =>
    r.health?.message || r.health?.status === 'Progressing' || r.health?.status === 'Degraded'
      ? [
          `${resourceLabel(r)}: ${r.health.status}: ${healthReason({ group: r.group, kind: r.kind, ...r.health })}`,
        ]
      : [],
  );
}

/** The default report: header per app, then each changed resource's unified diff. */
export function renderDiffText(report: RunReport, options: DiffPrintOptions = {}): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const syncColor = (s: string): string =>
    s === 'Synced' ? c.green(s) : s === 'OutOfSync' ? c.yellow(s) : c.red(s);
  const healthColor = (s: string): string =>
    s === 'Healthy' ? c.green(s) : s === 'Degraded' || s === 'Unknown' ? c.red(s) : c.yellow(s);
  const out: string[] = [];
  for (const app of report.apps) {
    const cmp = app.comparison;
    if (!cmp) {
      // The error line goes to stderr; an app refused with Argo CD's conditions (its project, its
      // destination) gets its header here too, with them.
      if (app.error?.conditions?.length) out.push(...refusedHeader(c, app, app.error.conditions), '');
      continue;
    }
    const changed = changedResources(app);
    out.push(c.bold(`===== app ${app.app.name} =====`));
    out.push(`destination: ${destinationLabel(app)}`);
    out.push(`revision:    ${cmp.revision}`);
    out.push(
      `sync:        ${syncColor(cmp.sync)} (${changed.length} of ${cmp.resources.length} resources differ)`,
    );
    out.push(
      `health:      ${healthColor(cmp.health.status)}${cmp.health.message ? ` (${cmp.health.message})` : ''}`,
    );
    // argocd app get's MESSAGE column: each resource's health message ("Waiting for rollout to finish...").
    for (const line of resourceHealthLines(cmp.resources)) out.push(`  ${line}`);
    const windows = app.syncWindows ? activeWindowsLine(app.syncWindows) : undefined;
    if (windows) out.push(app.syncWindows?.canSync ? windows : c.yellow(windows));
    for (const cond of cmp.conditions) out.push(c.yellow(`condition:   ${cond.type}: ${cond.message}`));
    // Resources not shown below whose verdict carries a note (a live hook's requiresPruning).
    for (const r of cmp.resources)
      if (r.note && !changed.includes(r))
        out.push(`note:        ${resourceLabel(r)}${r.hook ? ' (hook)' : ''}: ${r.note}`);
    for (const r of changed) {
      out.push('');
      out.push(c.bold(`===== ${resourceLabel(r)} ======${note(r)}`));
      if (r.message) out.push(`# ${r.message}`);
      out.push(...colorDiffLines(c, r.diffText ?? ''));
    }
    out.push('');
  }
  return out.join('\n');
}

/** The header of an app that was never compared: sync and health Unknown, and the conditions. */
function refusedHeader(
  c: InstanceType<typeof Chalk>,
  app: AppReport,
  conditions: readonly { type: string; message: string }[],
): string[] {
  return [
    c.bold(`===== app ${app.app.name} =====`),
    `destination: ${destinationLabel(app)}`,
    `sync:        ${c.red('Unknown')} (not compared)`,
    `health:      ${c.red('Unknown')}`,
    ...conditions.map((cond) => c.yellow(`condition:   ${cond.type}: ${cond.message}`)),
  ];
}

/** `-o name`: one changed resource per line, `<app>:<group>/<Kind>:<namespace>/<name>`. */
export function renderDiffNames(report: RunReport): string {
  return report.apps
    .flatMap((app) =>
      changedResources(app).map((r) => `${app.app.name}:${r.group}/${r.kind}:${r.namespace}/${r.name}\n`),
    )
    .join('');
}

/** The stable machine-readable document (see the header). */
export function diffDocument(report: RunReport): { apps: Record<string, unknown>[] } {
  return { apps: report.apps.map(diffDocumentApp) };
}

/** One app of the machine-readable document. */
export function diffDocumentApp(a: AppReport): Record<string, unknown> {
  const cmp = a.comparison;
  const base: Record<string, unknown> = {
    name: a.app.name,
    ...(a.app.namespace ? { namespace: a.app.namespace } : {}),
    destination: a.destination,
    revision: cmp?.revision ?? null,
    // A multi-source app: each source's revision in spec order, as Argo CD's status.sync.revisions.
    ...(a.app.multiSource && cmp ? { revisions: cmp.revisions ?? [cmp.revision] } : {}),
    sync: cmp?.sync ?? 'Unknown',
    health: cmp?.health.status ?? 'Unknown',
    ...(cmp?.health.message ? { healthMessage: cmp.health.message } : {}),
    // Argo CD's conditions as its status carries them; our own notices (a kind not served, a render
    // warning) apart, under "warnings".
    conditions: (cmp?.conditions ?? a.error?.conditions ?? []).filter((x) => !OWN_TYPES.includes(x.type)),
    ...(cmp?.conditions.some((x) => OWN_TYPES.includes(x.type))
      ? { warnings: cmp.conditions.filter((x) => OWN_TYPES.includes(x.type)) }
      : {}),
    ...(a.syncWindows ? { syncWindows: a.syncWindows } : {}),
    ...(a.error ? { error: a.error.message } : {}),
    resources: (cmp?.resources ?? []).map((r) => ({
      group: r.group,
      version: r.version,
      kind: r.kind,
      namespace: r.namespace,
      name: r.name,
      status: r.status,
      difference: r.difference,
      health: r.health?.status ?? null,
      ...(r.health?.message ? { healthMessage: r.health.message } : {}),
      requiresPruning: r.requiresPruning,
      ...(r.hook ? { hook: true } : {}),
      ...(r.sharedWith ? { sharedWith: r.sharedWith } : {}),
      ...(r.message ? { message: r.message } : {}),
      ...(r.note ? { note: r.note } : {}),
      ...(r.syncWave ? { syncWave: r.syncWave } : {}),
      changes: r.changes,
    })),
  };
  return base;
}

export function renderDiffStructured(report: RunReport, format: StructuredFormat): string {
  return renderStructured(diffDocument(report), format);
}

/**
 * `-o json`, streamed: the same bytes as `renderDiffStructured(report, 'json')`, one app at a time, so the
 * document of a big run is never built whole (structured.ts `jsonListChunks`).
 */
export function diffJsonChunks(report: RunReport): Generator<string> {
  return jsonListChunks('apps', report.apps, diffDocumentApp);
}
