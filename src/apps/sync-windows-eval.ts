/**
 * Sync windows at a given time: which are active and whether a sync may run, as Argo CD 3.5 decides
 * (argo-cd v3.5.1 `pkg/apis/application/v1alpha1/types.go`: `SyncWindow.active`, `SyncWindows.active`,
 * `inactiveAllows`, `CanSync`, `canSyncAtTime`; `controller/sync.go` `syncWindowPreventsSync`;
 * `server/application/application.go` Sync). Time is always passed in (`now`): nothing here reads a clock.
 *
 * Active: Argo CD takes the window zone's UTC offset *now* (`scheduleOffsetByTimeZone` reads
 * `time.Now()`), shifts the current UTC time by it, and asks robfig/cron for the first start strictly
 * after (shifted time - duration); the window is active when that start is before the shifted time. So a
 * window is open strictly between a start and start + duration (closed at both instants), the schedule
 * is read as the zone's wall clock at today's offset (a window keeps its wall-clock hours across a DST
 * change; in a fall-back night a window inside the repeated hour is open twice), and a schedule that never
 * fires within five years (`0 0 30 2 *`) makes its window always active (robfig returns Go's zero time,
 * which is before any time). An unknown time zone is UTC, with a warning.
 *
 * CanSync (for the windows that apply to the app; none: allowed):
 * 1. an invalid schedule or duration in any of them: not allowed, error "invalid sync windows: ...";
 * 2. an active deny: allowed only for a manual sync when every active deny has `manualSync`, or when the
 *    operation started earlier at a time it was allowed and every active deny has `syncOverrun`;
 * 3. else an active allow: allowed;
 * 4. else inactive allows: allowed only for a manual sync when every one has `manualSync`, or when the
 *    operation started at a time it was allowed and every allow window has `syncOverrun`;
 * 5. else (no allow windows, denies inactive): allowed.
 * Kinds other than allow/deny count as neither (Argo CD's controller reads them so).
 * A CLI sync is a manual sync (`argocd app sync` asks `CanSync(true, nil)`); the controller's auto-sync
 * asks `CanSync(false, nil)`.
 */
import { GitopsError, ExitCode } from '../common/index.js';
import { nextAfter, parseCron, type CronSchedule } from './cron.js';
import { parseGoDuration } from './duration.js';
import {
  matchingWindows,
  parseSyncWindows,
  validateSyncWindows,
  type SyncWindow,
  type WindowApp,
} from './sync-windows.js';
import { loadTimeZone, offsetSeconds } from './time-zone.js';

/** One window at one time. */
export interface WindowState {
  window: SyncWindow;
  active: boolean;
  /** Active: when the current opening began and ends; inactive: when it next opens (undefined: never). */
  since?: Date;
  until?: Date;
  next?: Date;
}

interface Compiled {
  schedule: CronSchedule;
  durationMs: number;
}

/** The window's schedule and duration, or Argo CD's error for the first that does not parse. */
function compile(w: SyncWindow): Compiled {
  let schedule: CronSchedule;
  try {
    schedule = parseCron(w.schedule);
  } catch (err) {
    throw new Error(`cannot parse schedule '${w.schedule}': ${(err as Error).message}`);
  }
  let ns: bigint;
  try {
    ns = parseGoDuration(w.duration);
  } catch (err) {
    throw new Error(`cannot parse duration '${w.duration}': ${(err as Error).message}`);
  }
  return { schedule, durationMs: Number(ns) / 1e6 };
}

/**
 * `SyncWindow.active(at)` with the zone offset of `offsetAt` (Argo CD: the real now, also when it asks
 * about an operation's start time). Throws Argo CD's parse errors.
 */
export function windowState(w: SyncWindow, at: Date, offsetAt: Date = at): WindowState {
  const { schedule, durationMs } = compile(w);
  const offsetMs = offsetSeconds(loadTimeZone(w.timeZone), offsetAt) * 1000;
  const shifted = at.getTime() + offsetMs;
  const start = nextAfter(schedule, new Date(shifted - durationMs));
  if (start === undefined) return { window: w, active: true }; // Go's zero time: before anything
  if (start.getTime() < shifted) {
    return {
      window: w,
      active: true,
      since: new Date(start.getTime() - offsetMs),
      until: new Date(start.getTime() + durationMs - offsetMs),
    };
  }
  const next = nextAfter(schedule, new Date(shifted));
  return { window: w, active: false, ...(next ? { next: new Date(next.getTime() - offsetMs) } : {}) };
}

export interface CanSyncOptions {
  /** A manual sync (the CLI's, `argocd app sync`); false: the controller's auto-sync. */
  manual: boolean;
  now: Date;
  /** When the running operation started (sync overrun); unset for a sync about to start. */
  operationStartedAt?: Date | undefined;
}

export interface SyncDecision {
  allowed: boolean;
  /** Set when a window does not parse: Argo CD's "invalid sync windows: ..." (never allowed then). */
  error?: string;
  /** Why not: `deny` (active deny windows) or `allow` (outside every allow window). */
  blockedBy?: 'deny' | 'allow';
  /** The windows that block it: active denies, or the inactive allows (without `manualSync` for a manual sync). */
  blocking: WindowState[];
  /** The states of the given windows at `now` (empty after an error). */
  states: WindowState[];
  /** It is allowed only because the operation started when it was (`syncOverrun`). */
  overrun?: boolean;
}

function statesAt(windows: readonly SyncWindow[], at: Date, offsetAt: Date): WindowState[] {
  return windows.map((w) => windowState(w, at, offsetAt));
}

/** `canSyncAtTime` (CanSync without overrun), on states already computed. */
function allowedIn(states: readonly WindowState[], manual: boolean): boolean {
  const activeDeny = states.filter((s) => s.active && s.window.kind === 'deny');
  if (activeDeny.length > 0) return manual && activeDeny.every((s) => s.window.manualSync);
  if (states.some((s) => s.active && s.window.kind === 'allow')) return true;
  const inactiveAllow = states.filter((s) => !s.active && s.window.kind === 'allow');
  if (inactiveAllow.length > 0) return manual && inactiveAllow.every((s) => s.window.manualSync);
  return true;
}

/** `SyncWindows.CanSync` over the windows that apply to one app (`matchingWindows`). */
export function canSync(windows: readonly SyncWindow[], options: CanSyncOptions): SyncDecision {
  if (windows.length === 0) return { allowed: true, blocking: [], states: [] };
  const { manual, now } = options;
  let states: WindowState[];
  try {
    states = statesAt(windows, now, now);
  } catch (err) {
    return {
      allowed: false,
      error: `invalid sync windows: ${(err as Error).message}`,
      blocking: [],
      states: [],
    };
  }
  const started = options.operationStartedAt;
  const wasAllowed = (): boolean =>
    started !== undefined && allowedIn(statesAt(windows, started, now), manual);
  const activeDeny = states.filter((s) => s.active && s.window.kind === 'deny');
  if (activeDeny.length > 0) {
    if (manual && activeDeny.every((s) => s.window.manualSync))
      return { allowed: true, blocking: [], states };
    // denyAllowsOverrun: every active deny has syncOverrun.
    if (activeDeny.every((s) => s.window.syncOverrun) && wasAllowed()) {
      return { allowed: true, overrun: true, blocking: [], states };
    }
    const blocking = manual ? activeDeny.filter((s) => !s.window.manualSync) : activeDeny;
    return { allowed: false, blockedBy: 'deny', blocking, states };
  }
  if (states.some((s) => s.active && s.window.kind === 'allow'))
    return { allowed: true, blocking: [], states };
  const inactiveAllow = states.filter((s) => !s.active && s.window.kind === 'allow');
  if (inactiveAllow.length > 0) {
    if (manual && inactiveAllow.every((s) => s.window.manualSync))
      return { allowed: true, blocking: [], states };
    // inactiveAllowsAllowOverrun: every allow window has syncOverrun.
    if (inactiveAllow.every((s) => s.window.syncOverrun) && wasAllowed()) {
      return { allowed: true, overrun: true, blocking: [], states };
    }
    const blocking = manual ? inactiveAllow.filter((s) => !s.window.manualSync) : inactiveAllow;
    return { allowed: false, blockedBy: 'allow', blocking, states };
  }
  return { allowed: true, blocking: [], states };
}

/** `deny '0 22 * * *' 8h Europe/Paris (syncWindows[1], "freeze")`. */
export function describeWindow(w: SyncWindow): string {
  const zone = w.timeZone && w.timeZone !== 'UTC' ? ` ${w.timeZone}` : '';
  const description = w.description ? `, ${JSON.stringify(w.description)}` : '';
  return `${w.kind} '${w.schedule}' ${w.duration}${zone} (syncWindows[${w.index}]${description})`;
}

const iso = (d: Date): string => d.toISOString().replace(/\.000Z$/, 'Z');

/** A window state for people: the window and when it closes or next opens. */
export function describeState(s: WindowState): string {
  const base = describeWindow(s.window);
  if (s.active) return s.until ? `${base}, open until ${iso(s.until)}` : `${base}, always open`;
  return s.next ? `${base}, opens ${iso(s.next)}` : `${base}, never opens`;
}

/** The windows of one app's project at one time (the door the sync path and the diff header use). */
export interface AppSyncWindows {
  project: string;
  /** Windows that apply to the app (`Matches`), with their state; empty after `error`. */
  assigned: WindowState[];
  /** The assigned windows active now. */
  active: WindowState[];
  /** The decision for a sync of the given kind (manual by default). */
  decision: SyncDecision;
  /** Set when the sync may not run: one line saying which window blocks it (or which is invalid). */
  blockedMessage?: string;
  /** Invalid time zones, problems Argo CD's API would refuse, dropped fields: one line each. */
  warnings: string[];
}

export interface AppSyncWindowsOptions {
  /** The app's AppProject name. */
  project: string;
  /** Where the project was read (error subject). */
  origin?: string;
  /** Default true: a CLI sync is a manual sync. */
  manual?: boolean;
  operationStartedAt?: Date;
}

/**
 * The sync windows of `rawSyncWindows` (an AppProject's `spec.syncWindows` as read) for `app` at `now`.
 * Throws a UsageError naming the project and window index when the value's shape is wrong.
 */
export function appSyncWindows(
  rawSyncWindows: unknown,
  app: WindowApp,
  now: Date,
  options: AppSyncWindowsOptions,
): AppSyncWindows {
  const windows = parseSyncWindows(rawSyncWindows, {
    project: options.project,
    ...(options.origin ? { origin: options.origin } : {}),
  });
  const warnings = validateSyncWindows(windows).map((p) => `AppProject "${options.project}": ${p}`);
  for (const w of windows) {
    const zone = loadTimeZone(w.timeZone);
    if (zone.error) {
      warnings.push(
        `AppProject "${options.project}": syncWindows[${w.index}]: Invalid time zone ${w.timeZone} specified. Using UTC as default time zone`,
      );
    }
  }
  const decision = canSync(matchingWindows(windows, app), {
    manual: options.manual ?? true,
    now,
    operationStartedAt: options.operationStartedAt,
  });
  const assigned = decision.states;
  const result: AppSyncWindows = {
    project: options.project,
    assigned,
    active: assigned.filter((s) => s.active),
    decision,
    warnings,
  };
  const where = `AppProject "${options.project}"`;
  if (decision.error) result.blockedMessage = `blocked by sync window: ${where}: ${decision.error}`;
  else if (!decision.allowed) {
    const list = decision.blocking.map(describeState).join('; ');
    result.blockedMessage =
      decision.blockedBy === 'deny'
        ? `blocked by sync window: ${where} deny window active: ${list}`
        : `blocked by sync window: ${where} has allow windows and none is open: ${list}`;
  }
  return result;
}

/** The refusal of a sync that `appSyncWindows` found blocked: `app "x": failed to sync: blocked by ...`. */
export function syncWindowRefusal(app: { name: string }, windows: AppSyncWindows): GitopsError | undefined {
  if (!windows.blockedMessage) return undefined;
  return new GitopsError(`failed to sync: ${windows.blockedMessage}`, {
    subject: `app "${app.name}"`,
    exitCode: ExitCode.FAILURE,
    hint: windows.decision.error
      ? 'fix the window in the AppProject (Argo CD refuses syncs while it is invalid)'
      : 'wait for the window, or ask the project owner (a window with manualSync: true lets manual syncs through)',
  });
}

/** One window in a report (plain data, as `-o json` prints it; times in RFC 3339 UTC). */
export interface WindowReport {
  index: number;
  kind: string;
  schedule: string;
  duration: string;
  timeZone?: string;
  description?: string;
  manualSync: boolean;
  syncOverrun: boolean;
  active: boolean;
  /** Active: the current opening's end; absent when it never closes. */
  until?: string;
  /** Inactive: when it next opens; absent when it never does. */
  next?: string;
  /** One line for people (`describeState`). */
  text: string;
}

/** The sync windows of one app at one time, as reports carry them. */
export interface SyncWindowsReport {
  project: string;
  /** Whether the sync asked about (manual for the CLI) may run now. */
  canSync: boolean;
  /** Why not: the one-line reason (names the blocking windows), when `canSync` is false. */
  blockedBy?: string;
  /** Windows that apply to the app, in project order, with their state; `active` the open ones. */
  assigned: WindowReport[];
  active: WindowReport[];
  warnings: string[];
}

function windowReport(s: WindowState): WindowReport {
  const w = s.window;
  return {
    index: w.index,
    kind: w.kind,
    schedule: w.schedule,
    duration: w.duration,
    ...(w.timeZone ? { timeZone: w.timeZone } : {}),
    ...(w.description ? { description: w.description } : {}),
    manualSync: w.manualSync,
    syncOverrun: w.syncOverrun,
    active: s.active,
    ...(s.until ? { until: iso(s.until) } : {}),
    ...(s.next ? { next: iso(s.next) } : {}),
    text: describeState(s),
  };
}

/** Plain data for reports and printers. */
export function syncWindowsReport(windows: AppSyncWindows): SyncWindowsReport {
  const assigned = windows.assigned.map(windowReport);
  return {
    project: windows.project,
    canSync: windows.blockedMessage === undefined,
    ...(windows.blockedMessage ? { blockedBy: windows.blockedMessage } : {}),
    assigned,
    active: assigned.filter((w) => w.active),
    warnings: windows.warnings,
  };
}

/**
 * The diff header line: `sync windows (sync allowed|blocked): <active windows or "none active">`, or the
 * reason an invalid window blocks; undefined when no window applies to the app.
 */
export function activeWindowsLine(report: SyncWindowsReport): string | undefined {
  if (report.assigned.length === 0) return report.blockedBy ? `sync windows: ${report.blockedBy}` : undefined;
  const verdict = report.canSync ? 'sync allowed' : 'sync blocked';
  const active = report.active.map((w) => w.text);
  return `sync windows (${verdict}): ${active.length > 0 ? active.join('; ') : 'none active'}`;
}
