/**
 * What `sync --watch` prints while it runs (issue 22), from its typed events (`WatchEvent`):
 *
 * - `json` (`-o json`): one JSON object per line on stdout, for log shippers: `time` (ISO 8601), `event`,
 *   `app` (absent for events of no single app: watch-start, ref-moved, files-changed, watch-stopped), and
 *   the app's `sync`, `health`, `revision` as known after the event, plus the event's own fields (reason,
 *   phase, message, resources...). Every loop event of an app is printed (refreshes included).
 * - `lines` (stdout not a TTY): one line per event, `HH:MM:SS <app> <what>`; a refresh is printed only when
 *   it changed the app's sync, health or revision, failed, or came from Git, files or the first pass
 *   (a quiet resync every few minutes prints nothing); the apps added at start and the loop's own
 *   "stopping" are left to `watch-start` and `watch-stopped`.
 * - `table` (stdout a TTY): a table redrawn in place (APP, SYNC, HEALTH, REVISION, LAST OPERATION,
 *   LAST EVENT), at most every `redrawMs`; warnings and the events of no single app are printed above it.
 * Per-task sync events and cache progress are not shown (the one-shot `sync` shows those). Nothing here
 * reads an object: events carry names, statuses and messages only, so no Secret value can be printed.
 */
import type { WatchEvent } from '../controller/index.js';
import { printedEventName } from './structured.js';
import { renderTable } from './table.js';

export type WatchOutputMode = 'json' | 'lines' | 'table';

export function watchOutputMode(output: string, stdout: { isTTY?: boolean }): WatchOutputMode {
  if (output === 'json') return 'json';
  return stdout.isTTY === true ? 'table' : 'lines';
}

/** One app as the watch shows it. */
export interface WatchRow {
  app: string;
  sync: string;
  health: string;
  revision: string;
  lastOperation: string;
  lastEvent: string;
}

const short = (rev: string | undefined): string =>
  rev && /^[0-9a-f]{40,64}$/i.test(rev) ? rev.slice(0, 7) : (rev ?? '');

/** The rows, kept up to date from the events (pure: no I/O). */
export class WatchModel {
  readonly rows = new Map<string, WatchRow>();

  row(app: string): WatchRow {
    let row = this.rows.get(app);
    if (!row) {
      row = { app, sync: 'Unknown', health: 'Unknown', revision: '', lastOperation: '', lastEvent: '' };
      this.rows.set(app, row);
    }
    return row;
  }

  /** Applies an event; returns whether it changed the app's sync, health or revision. */
  apply(e: WatchEvent): boolean {
    if (!('app' in e) || typeof e.app !== 'string') return false;
    const row = this.row(e.app);
    const before = `${row.sync}/${row.health}/${row.revision}`;
    switch (e.type) {
      case 'refreshed': {
        if (e.sync) row.sync = e.sync;
        if (e.health) row.health = e.health;
        if (e.revision) row.revision = e.revision;
        // A refresh that changed nothing (a resync, a status update seen live) keeps the last event shown.
        const changed = before !== `${row.sync}/${row.health}/${row.revision}`;
        if (e.error) row.lastEvent = `error: ${e.error}`;
        else if (changed || !row.lastEvent || row.lastEvent.startsWith('error: '))
          row.lastEvent = `refreshed (${reasonLabel(e.reason)})`;
        break;
      }
      case 'drift':
        row.sync = 'OutOfSync';
        row.lastEvent = `drift: ${e.resources.length} resource${e.resources.length === 1 ? '' : 's'}${e.healing ? ', healing' : ''}`;
        break;
      case 'auto-sync-skipped':
        row.lastEvent = `auto-sync skipped: ${e.reason}`;
        break;
      case 'app-operation-start':
        row.lastOperation = `${operationKind(e.request)} running`;
        row.lastEvent = 'sync started';
        break;
      case 'app-operation-done':
        row.lastOperation = `${operationKind(e.request)} ${e.phase}`;
        if (e.revision) row.revision = e.revision;
        row.lastEvent = `sync ${e.phase}`;
        break;
      case 'app-added':
        row.lastEvent = 'added';
        break;
      case 'app-removed':
        this.rows.delete(e.app);
        return true;
      default:
        break;
    }
    return before !== `${row.sync}/${row.health}/${row.revision}`;
  }

  table(): string {
    const rows = [...this.rows.values()].sort((a, b) => a.app.localeCompare(b.app));
    return renderTable(
      ['APP', 'SYNC', 'HEALTH', 'REVISION', 'LAST OPERATION', 'LAST EVENT'],
      rows.map((r) => [r.app, r.sync, r.health, short(r.revision), r.lastOperation, r.lastEvent]),
    );
  }
}

/** The loop's refresh reason as shown: 'drift' is any live change of a tracked object (not always drift). */
const reasonLabel = (reason: string): string => (reason === 'drift' ? 'live change' : reason);

function operationKind(request: { selfHeal?: boolean; initiatedBy: { automated: boolean } }): string {
  if (request.selfHeal) return 'self-heal';
  return request.initiatedBy.automated ? 'auto-sync' : 'sync';
}

/** The JSON object of an event (undefined: not printed), with the app's status after it. */
export function watchJson(
  e: WatchEvent,
  model: WatchModel,
  time: string,
): Record<string, unknown> | undefined {
  const status = (app: string) => {
    const row = model.row(app);
    return { sync: row.sync, health: row.health, ...(row.revision ? { revision: row.revision } : {}) };
  };
  switch (e.type) {
    case 'watch-start':
    case 'ref-moved':
    case 'files-changed':
    case 'watch-stopped':
    case 'loop-stopping': {
      const { type, ...rest } = e;
      return { time, event: type, ...rest };
    }
    case 'refreshed': {
      const { type, key: _k, app, sync: _s, health: _h, revision: _r, ...rest } = e;
      return { time, app, event: type, ...status(app), ...rest };
    }
    case 'drift':
    case 'auto-sync-skipped':
    case 'app-added':
    case 'app-removed': {
      const { type, key: _k, app, ...rest } = e;
      return { time, app, event: type, ...status(app), ...rest };
    }
    case 'app-operation-start':
      return {
        time,
        app: e.app,
        event: printedEventName(e.type),
        ...status(e.app),
        operation: operationKind(e.request),
      };
    case 'app-operation-done':
      return {
        time,
        app: e.app,
        event: printedEventName(e.type),
        ...status(e.app),
        operation: operationKind(e.request),
        phase: e.phase,
        message: e.message,
        durationMs: e.durationMs,
      };
    default:
      return undefined;
  }
}

/** The text line of an event (without the time), or undefined when the event is not shown. */
export function watchLine(e: WatchEvent, changed: boolean): string | undefined {
  switch (e.type) {
    case 'watch-start':
      return `watching ${e.apps.length} app${e.apps.length === 1 ? '' : 's'}: ${
        e.local
          ? `files under ${e.local}`
          : `${e.repositories.length} repositor${e.repositories.length === 1 ? 'y' : 'ies'} every ${seconds(e.pollIntervalMs)}`
      }; Ctrl-C to stop`;
    case 'ref-moved':
      return `git ${e.repoURL} ${e.ref}: ${short(e.from) || '(none)'} -> ${short(e.to) || '(deleted)'}${
        e.apps.length ? ` (refreshing ${e.apps.join(', ')})` : ''
      }`;
    case 'files-changed':
      return `files changed: ${e.paths.slice(0, 5).join(', ')}${e.paths.length > 5 ? ` and ${e.paths.length - 5} more` : ''}`;
    case 'refreshed': {
      if (e.error) return `${e.app} refresh failed (${e.reason}): ${e.error}`;
      const notable = changed || ['initial', 'git', 'files'].includes(e.reason);
      if (!notable) return undefined;
      return `${e.app} ${e.sync ?? 'Unknown'} ${e.health ?? 'Unknown'}${e.revision ? ` at ${short(e.revision)}` : ''} (refresh: ${reasonLabel(e.reason)})`;
    }
    case 'drift':
      return `${e.app} drift: ${e.resources.join(', ')}${e.healing ? ' (healing)' : ' (not healing: no --self-heal)'}`;
    case 'auto-sync-skipped':
      return `${e.app} auto-sync skipped: ${e.reason}`;
    case 'app-operation-start':
      return `${e.app} ${operationKind(e.request)} started`;
    case 'app-operation-done':
      return `${e.app} ${operationKind(e.request)} ${e.phase}${e.revision ? ` at ${short(e.revision)}` : ''}: ${e.message} (${seconds(e.durationMs)})`;
    case 'app-removed':
      return `${e.app} removed`;
    case 'watch-stopped':
      return `stopped (${e.reason})${e.cutOff.length ? `; operations cut off by --shutdown-timeout: ${e.cutOff.join(', ')}` : ''}`;
    case 'cache-sync-done':
      return e.error ? `live state of ${e.cluster}: ${e.error}` : undefined;
    default:
      return undefined;
  }
}

function seconds(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}

const clockTime = (d: Date): string => d.toTimeString().slice(0, 8);

export interface WatchPrinterOptions {
  mode: WatchOutputMode;
  /** Where events go (stdout). */
  out: { write(text: string): unknown };
  /** Where warnings go (stderr). */
  err: { write(text: string): unknown };
  now?: () => Date;
  /** Least time between two redraws of the table (default 200 ms). */
  redrawMs?: number;
  /** Terminal width (table mode): longer table lines are cut, so each is one screen line. */
  columns?: () => number | undefined;
}

const ERASE_DOWN = '\u001B[J';
const up = (n: number) => (n > 0 ? `\u001B[${n}A\r` : '\r');

/** Prints the events of one `sync --watch`. */
export class WatchPrinter {
  readonly model = new WatchModel();
  readonly #o: WatchPrinterOptions;
  readonly #now: () => Date;
  /** Lines of the table drawn last (table mode). */
  #drawn = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(options: WatchPrinterOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => new Date());
  }

  readonly onEvent = (e: WatchEvent): void => {
    if (this.#stopped) return;
    const changed = this.model.apply(e);
    const now = this.#now();
    if (this.#o.mode === 'json') {
      const obj = watchJson(e, this.model, now.toISOString());
      if (obj) this.#o.out.write(`${JSON.stringify(obj)}\n`);
      return;
    }
    const line = watchLine(e, changed);
    if (this.#o.mode === 'lines') {
      if (line) this.#o.out.write(`${clockTime(now)} ${line}\n`);
      return;
    }
    // Table: events of no single app scroll above it; the rest show in the table.
    if (line && !('app' in e)) this.#above(this.#o.out, `${clockTime(now)} ${line}`);
    else this.#scheduleRedraw();
  };

  warn(message: string): void {
    if (this.#o.mode === 'table' && !this.#stopped) this.#above(this.#o.err, `warning: ${message}`);
    else this.#o.err.write(`warning: ${message}\n`);
  }

  /** Draws the last table (it stays on the screen) and stops printing. */
  stop(): void {
    if (this.#stopped) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#o.mode === 'table') this.#redraw();
    this.#stopped = true;
  }

  #above(stream: { write(text: string): unknown }, line: string): void {
    this.#erase();
    stream.write(`${line}\n`);
    this.#redraw();
  }

  #erase(): void {
    if (this.#drawn > 0) this.#o.out.write(`${up(this.#drawn)}${ERASE_DOWN}`);
    this.#drawn = 0;
  }

  #scheduleRedraw(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#redraw();
    }, this.#o.redrawMs ?? 200);
  }

  #redraw(): void {
    this.#erase();
    if (this.model.rows.size === 0) return;
    const width = this.#o.columns?.();
    const lines = this.model
      .table()
      .split('\n')
      .map((l) => (width && l.length >= width ? `${l.slice(0, Math.max(1, width - 2))}…` : l));
    this.#o.out.write(`${lines.join('\n')}\n`);
    this.#drawn = lines.length;
  }
}
