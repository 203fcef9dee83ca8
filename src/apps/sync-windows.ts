/**
 * AppProject sync windows: reading, validating and assigning them, as Argo CD 3.5 does
 * (argo-cd v3.5.1 `pkg/apis/application/v1alpha1/types.go`: `SyncWindow`, `SyncWindows.Matches`,
 * `SyncWindow.Validate`; `app_project_types.go` `ValidateProject`). When they are active and whether they
 * let a sync run is sync-windows-eval.ts; docs/sync-windows.md states the rules.
 *
 * - `parseSyncWindows(raw, {project})` reads `spec.syncWindows` as the manifest holds it. A shape the
 *   AppProject CRD's schema refuses (not a list, an item not an object, `applications` not a list of
 *   strings, `manualSync` not a boolean...) is a UsageError naming the project and the window index.
 *   Values are kept as written: a bad kind, schedule or duration is not a read error (Argo CD's controller
 *   reads such a project too), it is reported by `validateSyncWindows` and, for a window that applies to an
 *   app, blocks that app's sync (sync-windows-eval.ts).
 * - `validateSyncWindows(windows)` lists what Argo CD's API server refuses when the project is created or
 *   updated through it (`ValidateProject`), in its words, prefixed by `syncWindows[i]: `: a duplicate
 *   window (same kind, schedule, duration, applications, namespaces, clusters, timeZone, andOperator), a
 *   kind other than allow/deny, an unparsable schedule or duration, a description over 255 bytes, a window
 *   with no applications, namespaces or clusters. An unknown time zone is no error there (UTC is used, with
 *   a warning), nor here; fields the API server would drop are listed too.
 * - `matchingWindows(windows, app)` is `SyncWindows.Matches`: without `andOperator` a window applies when
 *   any of its lists has a glob (argo-cd `util/glob`) matching the app's name, its destination cluster
 *   (`name` or `server`) or its destination namespace; with `andOperator` every list it sets must match.
 *   `*` matches everything, an empty destination name or server matches nothing.
 */
import { UsageError, globMatch } from '../common/index.js';
import { parseCron } from './cron.js';
import { parseGoDuration } from './duration.js';

export interface SyncWindow {
  /** Position in `spec.syncWindows` (messages name it). */
  index: number;
  /** As written: "allow" and "deny" mean something, any other value is inert at run time. */
  kind: string;
  /** Cron schedule of the window's start (robfig/cron syntax, cron.ts). */
  schedule: string;
  /** How long the window stays open (Go duration, e.g. "1h30m"). */
  duration: string;
  applications: string[];
  namespaces: string[];
  clusters: string[];
  /** Manual syncs may run while this window would block them. */
  manualSync: boolean;
  /** IANA zone of the schedule; "" = UTC. */
  timeZone: string;
  /** `andOperator`: every list set must match (default: any). */
  andOperator: boolean;
  description: string;
  /** Let a sync that was allowed when it started go on across the window's edge (Argo CD 3.5). */
  syncOverrun: boolean;
  /** Fields of the manifest the API server would drop (unknown to the CRD). */
  unknownFields: string[];
}

/** What `Matches` reads of an app. */
export interface WindowApp {
  name: string;
  destination: { server?: string | undefined; name?: string | undefined; namespace: string };
}

export interface ParseSyncWindowsOptions {
  /** The AppProject's name (messages name it). */
  project: string;
  /** Where the project was read (the error subject); default `AppProject "<project>"`. */
  origin?: string;
}

const STRING_FIELDS = ['kind', 'schedule', 'duration', 'timeZone', 'description'] as const;
const LIST_FIELDS = ['applications', 'namespaces', 'clusters'] as const;
const BOOL_FIELDS = ['manualSync', 'andOperator', 'syncOverrun'] as const;
const KNOWN_FIELDS = new Set<string>([...STRING_FIELDS, ...LIST_FIELDS, ...BOOL_FIELDS]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads `spec.syncWindows` as written (undefined or null: no windows). */
export function parseSyncWindows(raw: unknown, options: ParseSyncWindowsOptions): SyncWindow[] {
  const subject = options.origin ?? `AppProject "${options.project}"`;
  const fail = (where: string, why: string): never => {
    throw new UsageError(`failed to read ${where}: ${why}`, {
      subject,
      hint: 'fix the AppProject manifest: the AppProject CRD schema refuses this shape',
    });
  };
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) return fail('spec.syncWindows', 'must be a list of windows');
  return raw.map((item: unknown, index): SyncWindow => {
    const where = `spec.syncWindows[${index}]`;
    if (!isObject(item)) return fail(where, 'must be an object (kind, schedule, duration, ...)');
    const str = (key: (typeof STRING_FIELDS)[number]): string => {
      const v = item[key];
      if (v === undefined || v === null) return '';
      return typeof v === 'string'
        ? v
        : fail(`${where}.${key}`, `must be a string, not ${JSON.stringify(v)}`);
    };
    const list = (key: (typeof LIST_FIELDS)[number]): string[] => {
      const v = item[key];
      if (v === undefined || v === null) return [];
      if (!Array.isArray(v) || v.some((e) => typeof e !== 'string')) {
        return fail(`${where}.${key}`, 'must be a list of strings');
      }
      return [...(v as string[])];
    };
    const bool = (key: (typeof BOOL_FIELDS)[number]): boolean => {
      const v = item[key];
      if (v === undefined || v === null) return false;
      return typeof v === 'boolean'
        ? v
        : fail(`${where}.${key}`, `must be true or false, not ${JSON.stringify(v)}`);
    };
    return {
      index,
      kind: str('kind'),
      schedule: str('schedule'),
      duration: str('duration'),
      applications: list('applications'),
      namespaces: list('namespaces'),
      clusters: list('clusters'),
      manualSync: bool('manualSync'),
      timeZone: str('timeZone'),
      andOperator: bool('andOperator'),
      description: str('description'),
      syncOverrun: bool('syncOverrun'),
      unknownFields: Object.keys(item).filter((k) => !KNOWN_FIELDS.has(k)),
    };
  });
}

/** The fields `SyncWindow.HashIdentity` hashes (two windows equal on them are duplicates). */
function identityOf(w: SyncWindow): string {
  return JSON.stringify([
    w.kind,
    w.schedule,
    w.duration,
    w.applications,
    w.namespaces,
    w.clusters,
    w.timeZone,
    w.andOperator,
  ]);
}

/** `SyncWindow.Validate`'s checks after the time zone: undefined when the window is valid. */
export function windowProblem(w: SyncWindow): string | undefined {
  if (w.kind !== 'allow' && w.kind !== 'deny') return `kind '${w.kind}' mismatch: can only be allow or deny`;
  try {
    parseCron(w.schedule);
  } catch (err) {
    return `cannot parse schedule '${w.schedule}': ${(err as Error).message}`;
  }
  try {
    parseGoDuration(w.duration);
  } catch (err) {
    return `cannot parse duration '${w.duration}': ${(err as Error).message}`;
  }
  if (Buffer.byteLength(w.description, 'utf8') > 255) return 'description must not exceed 255 characters';
  return undefined;
}

/**
 * What Argo CD's `ValidateProject` refuses in these windows (it stops at the first; all are listed here),
 * each as `syncWindows[i]: <Argo CD's message>`, plus fields the API server would drop.
 */
export function validateSyncWindows(windows: readonly SyncWindow[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const w of windows) {
    const at = `syncWindows[${w.index}]`;
    const id = identityOf(w);
    if (seen.has(id)) {
      problems.push(
        `${at}: sync window with kind '${w.kind}', schedule '${w.schedule}', and duration '${w.duration}' already exists (duplicate detected)`,
      );
      continue;
    }
    seen.add(id);
    const problem = windowProblem(w);
    if (problem) problems.push(`${at}: ${problem}`);
    else if (w.applications.length === 0 && w.namespaces.length === 0 && w.clusters.length === 0) {
      problems.push(
        `${at}: window '${w.kind}':'${w.schedule}':'${w.duration}' requires one of application, cluster or namespace`,
      );
    }
    for (const field of w.unknownFields) {
      problems.push(`${at}: unknown field "${field}" (the API server drops it, so it has no effect)`);
    }
  }
  return problems;
}

/** argo-cd `globMatch(pattern, val, false)`: `*` matches anything, else util/glob. */
function glob(pattern: string, value: string): boolean {
  return pattern === '*' || globMatch(pattern, value);
}

function clusterMatches(w: SyncWindow, app: WindowApp): boolean {
  const { name, server } = app.destination;
  return w.clusters.some((c) => (!!name && glob(c, name)) || (!!server && glob(c, server)));
}

/** `SyncWindows.Matches`: the windows that apply to `app`, in project order. */
export function matchingWindows(windows: readonly SyncWindow[], app: WindowApp): SyncWindow[] {
  return windows.filter((w) => {
    const checks: boolean[] = [];
    if (w.applications.length > 0) checks.push(w.applications.some((a) => glob(a, app.name)));
    if (w.clusters.length > 0) checks.push(clusterMatches(w, app));
    if (w.namespaces.length > 0) checks.push(w.namespaces.some((n) => glob(n, app.destination.namespace)));
    return w.andOperator ? checks.length > 0 && checks.every(Boolean) : checks.some(Boolean);
  });
}
