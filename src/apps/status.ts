/**
 * The Application's `status`, written as Argo CD's application controller writes it (Argo CD 3.6,
 * pkg/apis/application/v1alpha1/types.go `ApplicationStatus`; rules in docs/controller.md), from the
 * continuous loop's view of the app (structurally the controller's `AppLoopState`: this module sits below
 * the controller and names only the fields it reads).
 *
 * `buildStatus` is pure: previous status + loop state + clock in, new status + merge patch out.
 * - Fields it owns are recomputed; every other field of the previous status (`observedAt`, which Argo CD
 *   no longer writes, `sourceHydrator`...) is kept as it was.
 * - `sync`, `resources`, `sourceType(s)`, `summary`, `controllerNamespace`: from the last successful
 *   comparison (processAppRefreshQueueItem). `comparedTo` holds the spec's source(s), destination and
 *   ignoreDifferences as written in the Application (`BuildComparedToStatus`).
 * - `health`: the app's health; `lastTransitionTime` is set to now only when the status code changes, else
 *   kept, and with `resourceHealthSource: appTree` (Argo CD 3.x's default, resources' health not persisted)
 *   the previous message is kept too (persistAppStatus). `persistResourceHealth` writes each resource's
 *   health inline instead (`--persist-resource-health`).
 * - `conditions`: `ApplicationStatus.SetConditions`: the types a step evaluates are replaced by what it
 *   found, a condition whose type and message are unchanged keeps its `lastTransitionTime`, others get
 *   now; other types are kept; sorted by type, message, time. A refresh that failed sets sync and health
 *   Unknown (health message "") with an InvalidSpecError (exit code 2: spec, project) or ComparisonError.
 *   `syncError` sets or clears the SyncError condition auto-sync writes (a failed revision not retried,
 *   a sync that would delete every resource).
 * - `reconciledAt`: set on the first reconcile and on every refresh of level 2 or more (a level-1 refresh,
 *   from a watch event, leaves it).
 * - `operationState`: the running operation (phase Running; Terminating once asked to terminate), else the last finished one with its sync
 *   result (operation.ts). `history`: a successful, non-dry-run sync of the whole app (no `resources`
 *   filter) appends a RevisionHistory with the next id, truncated to `spec.revisionHistoryLimit`
 *   (default 10; state.go persistRevisionHistory). The caller says when the operation just ended
 *   (`appendHistory`); without it, an entry with the operation's start and revision is not added twice.
 *
 * The patch is an RFC 7386 merge patch of the Application (`{status: ...}`, plus `operation: null` when a
 * finished operation clears the request), undefined when nothing changed: at most one write per reconcile,
 * none for a no-op one.
 */
import type { Application } from './types.js';
import { compact, deepEqual, isObject, kubeTime, mergePatch, plain, type JsonObject } from './status-json.js';
import { EMPTY_SOURCE } from './operation.js';
import { appendHistory, operationStatus, type OperationSource } from './status-operation.js';
export type { RunningOperationProgress } from './status-operation.js';

export { DEFAULT_REVISION_HISTORY_LIMIT } from './status-operation.js';

/** One resource of a comparison, as the status reads it (the controller's `ResourceStatus`). */
export interface StatusResource {
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
  status: string;
  health?: { status: string; message?: string } | undefined;
  requiresPruning: boolean;
  hook?: boolean | undefined;
  /** The target's wave (Argo CD's ResourceStatus.syncWave), when the comparison knows it. */
  syncWave?: number | undefined;
}

/** The comparison as the status reads it (the controller's `ComparisonResult`). */
export interface StatusComparison {
  revision: string;
  resources: readonly StatusResource[];
  sync: string;
  health: { status: string; message?: string | undefined };
  conditions: ReadonlyArray<{ type: string; message: string }>;
}

/** The loop's view of one app (the controller's `AppLoopState`). */
export interface StatusSource {
  app: Application;
  comparison?: StatusComparison | undefined;
  /** `conditions`: Argo CD's conditions for this failure (a project refusal), written as they are. */
  error?:
    | { message: string; exitCode: number; conditions?: ReadonlyArray<{ type: string; message: string }> }
    | undefined;
  reconciledAt?: string | undefined;
  running?: OperationSource['running'];
  lastOperation?: OperationSource['lastOperation'];
}

/** What each rendered source resolved to (src/source `RenderedSource`). */
export interface StatusRenderedSource {
  revision: string;
  type?: string | undefined;
}

/** Argo CD's ApplicationSummary (summary.ts `applicationSummary`). */
export interface AppSummary {
  externalURLs: string[];
  images: string[];
  isAppOfApps: boolean;
}

export interface BuildStatusOptions {
  /** `status` of the Application as last read (undefined: none yet). */
  previous: unknown;
  state: StatusSource;
  /** The clock: when transitions happen (ISO 8601 or epoch ms). */
  now: string | number;
  /** `--argocd-namespace`: Argo CD writes its namespace as `controllerNamespace`. */
  controllerNamespace: string;
  /** The comparison level of the refresh just made (reconciledAt rule). Default 2. */
  level?: number | undefined;
  /** Persist each resource's health in `status.resources` (Argo CD's `--persist-resource-health`). */
  persistResourceHealth?: boolean | undefined;
  /** Per source, in spec order: resolved revision and source type. */
  sources?: readonly StatusRenderedSource[] | undefined;
  summary?: AppSummary | undefined;
  /**
   * Auto-sync's verdict (autoSync's SyncError condition): a message sets it, null clears it, undefined
   * leaves the condition as it was.
   */
  syncError?: string | null | undefined;
  /**
   * Whether the last operation still has to be recorded in `history`: true (it just ended), false (it is
   * recorded). Undefined: recorded unless an entry with its start time and revision is there already.
   */
  appendHistory?: boolean | undefined;
  /** Also clear the Application's `operation` (the request finished). */
  clearOperation?: boolean | undefined;
}

export interface BuiltStatus {
  status: JsonObject;
  /** Merge patch of the Application; undefined when nothing changed. */
  patch: JsonObject | undefined;
}

/** Condition types a successful comparison evaluates (state.go CompareAppState and refreshAppConditions). */
const COMPARISON_TYPES = [
  'ComparisonError',
  'SharedResourceWarning',
  'RepeatedResourceWarning',
  'ExcludedResourceWarning',
  'OrphanedResourceWarning',
  'InvalidSpecError',
  'UnknownError',
  // Ours (src/controller ConditionType): evaluated, so that older ones are cleared, never written.
  'UnknownKind',
  'RenderWarning',
];
/** Condition types of ours, not Argo CD's: shown by `diff`, never written into an Application's status. */
export const OWN_TYPES: readonly string[] = ['UnknownKind', 'RenderWarning'];
/** Types a failed refresh evaluates: its error replaces them, warnings stay. */
const ERROR_TYPES = ['ComparisonError', 'InvalidSpecError', 'UnknownError'];

export function buildStatus(options: BuildStatusOptions): BuiltStatus {
  const previous: JsonObject = isObject(options.previous) ? (plain(options.previous) as JsonObject) : {};
  const now = kubeTime(options.now);
  const { state } = options;
  const spec = isObject(state.app.manifest['spec']) ? (state.app.manifest['spec'] as JsonObject) : {};
  const status: JsonObject = structuredClone(previous);

  if (state.error) {
    const type = state.error.exitCode === 2 ? 'InvalidSpecError' : 'ComparisonError';
    // A project refusal carries Argo CD's own conditions (refreshAppConditions: one per rule, typed).
    const found = state.error.conditions?.length
      ? state.error.conditions
      : [{ type, message: state.error.message }];
    status['conditions'] = setConditions(previous['conditions'], found, ERROR_TYPES, now);
    const sync = isObject(previous['sync']) ? { ...previous['sync'] } : {};
    sync['status'] = 'Unknown';
    status['sync'] = sync;
    setHealth(status, previous, { status: 'Unknown' }, now, options.persistResourceHealth === true, false);
    if (state.reconciledAt && (previous['reconciledAt'] === undefined || (options.level ?? 2) >= 2))
      status['reconciledAt'] = kubeTime(state.reconciledAt);
  } else if (state.comparison) {
    const c = state.comparison;
    status['sync'] = syncStatus(state.app, spec, c, options.sources);
    const resources = c.resources.map((r) => resourceJson(r, options.persistResourceHealth === true));
    if (resources.length > 0) status['resources'] = resources;
    else delete status['resources'];
    setHealth(status, previous, c.health, now, options.persistResourceHealth === true);
    // Our own notices (a kind not served, a render warning) are not Argo CD conditions: the status Argo CD's
    // UI and CLI read carries Argo CD's alone (their types stay evaluated, so older ones are cleared).
    const argoConditions = c.conditions.filter((x) => !OWN_TYPES.includes(x.type));
    status['conditions'] = setConditions(previous['conditions'], argoConditions, COMPARISON_TYPES, now);
    if (state.reconciledAt && (previous['reconciledAt'] === undefined || (options.level ?? 2) >= 2))
      status['reconciledAt'] = kubeTime(state.reconciledAt);
    setSourceTypes(status, state.app.multiSource, options.sources);
    status['controllerNamespace'] = options.controllerNamespace;
  }
  if (options.summary) status['summary'] = compact(options.summary) ?? {};
  // Struct fields Go's encoding/json always writes (omitempty does not apply to structs).
  if (status['summary'] === undefined) status['summary'] = {};
  if (status['sourceHydrator'] === undefined) status['sourceHydrator'] = {};
  if (options.syncError !== undefined) {
    const found = options.syncError === null ? [] : [{ type: 'SyncError', message: options.syncError }];
    status['conditions'] = setConditions(status['conditions'], found, ['SyncError'], now);
  }
  if (Array.isArray(status['conditions']) && status['conditions'].length === 0) delete status['conditions'];

  const op = operationStatus(state, spec);
  if (op) status['operationState'] = op;
  const history =
    options.appendHistory === false
      ? undefined
      : appendHistory(previous['history'], state, spec, options.appendHistory === true);
  if (history) status['history'] = history;

  const patch: JsonObject = {};
  const statusPatch = mergePatch(previous, status);
  if (statusPatch !== undefined) patch['status'] = statusPatch;
  if (options.clearOperation) patch['operation'] = null;
  return { status, patch: Object.keys(patch).length > 0 ? patch : undefined };
}

/** SyncStatus: status, comparedTo (spec as written), revision or revisions (multi-source). */
function syncStatus(
  app: Application,
  spec: JsonObject,
  c: StatusComparison,
  sources: readonly StatusRenderedSource[] | undefined,
): JsonObject {
  const comparedTo: JsonObject = {};
  comparedTo['source'] = app.multiSource ? EMPTY_SOURCE : (plain(spec['source']) ?? EMPTY_SOURCE);
  if (app.multiSource) comparedTo['sources'] = plain(spec['sources']) ?? [];
  comparedTo['destination'] = plain(spec['destination']) ?? {};
  const ignore = compact(spec['ignoreDifferences']);
  if (ignore !== undefined) comparedTo['ignoreDifferences'] = plain(spec['ignoreDifferences']) ?? [];
  const out: JsonObject = { status: c.sync, comparedTo };
  if (app.multiSource) {
    // None known when no source rendered (CompareAppState writes the repo-server's revisions only).
    const revisions = sources ? sources.map((s) => s.revision) : [c.revision];
    if (revisions.some((r) => r !== '')) out['revisions'] = revisions;
  } else if (c.revision) out['revision'] = c.revision;
  return out;
}

function resourceJson(r: StatusResource, persistHealth: boolean): JsonObject {
  const out: JsonObject = {};
  if (r.group) out['group'] = r.group;
  if (r.version) out['version'] = r.version;
  out['kind'] = r.kind;
  if (r.namespace) out['namespace'] = r.namespace;
  out['name'] = r.name;
  if (r.status) out['status'] = r.status;
  if (persistHealth && r.health) {
    out['health'] = { status: r.health.status, ...(r.health.message ? { message: r.health.message } : {}) };
  }
  if (r.hook) out['hook'] = true;
  if (r.requiresPruning) out['requiresPruning'] = true;
  if (r.syncWave) out['syncWave'] = r.syncWave;
  return out;
}

/** persistAppStatus's health rule (see the header). */
function setHealth(
  status: JsonObject,
  previous: JsonObject,
  health: { status: string; message?: string | undefined },
  now: string,
  persistHealth: boolean,
  /** False for a failed refresh: `resourceHealthSource` is set by a comparison only (setApplicationHealth). */
  healthSource = true,
): void {
  const prev = isObject(previous['health']) ? previous['health'] : {};
  const out: JsonObject = { status: health.status };
  if (health.message) out['message'] = health.message;
  if (prev['status'] !== health.status) out['lastTransitionTime'] = now;
  else {
    if (prev['lastTransitionTime'] !== undefined) out['lastTransitionTime'] = prev['lastTransitionTime'];
    if (!persistHealth) {
      if (prev['message'] !== undefined) out['message'] = prev['message'];
      else delete out['message'];
    }
  }
  status['health'] = out;
  if (!healthSource) return;
  if (persistHealth) delete status['resourceHealthSource'];
  else status['resourceHealthSource'] = 'appTree';
}

/** ApplicationStatus.SetConditions (types.go). */
export function setConditions(
  previous: unknown,
  found: ReadonlyArray<{ type: string; message: string }>,
  evaluated: readonly string[],
  now: string,
): JsonObject[] {
  const prev = (Array.isArray(previous) ? previous : []).filter(isObject);
  const out: JsonObject[] = [];
  for (const c of prev) {
    if (evaluated.includes(String(c['type']))) continue;
    out.push({ ...c, lastTransitionTime: c['lastTransitionTime'] ?? now });
  }
  for (const c of found) {
    const same = prev.find((p) => p['type'] === c.type);
    if (same && same['message'] === c.message) out.push(same);
    else out.push({ type: c.type, message: c.message, lastTransitionTime: now });
  }
  const key = (c: JsonObject) =>
    `${String(c['type'])}/${String(c['message'])}/${String(c['lastTransitionTime'])}`;
  return out.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function setSourceTypes(
  status: JsonObject,
  multiSource: boolean,
  sources: readonly StatusRenderedSource[] | undefined,
): void {
  if (!sources) return; // unknown here: kept as it was
  if (multiSource) {
    delete status['sourceType'];
    const types = sources.map((s) => s.type ?? '');
    if (types.some((t) => t !== '')) status['sourceTypes'] = types;
    else delete status['sourceTypes'];
  } else {
    delete status['sourceTypes'];
    const type = sources[0]?.type;
    if (type) status['sourceType'] = type;
    else delete status['sourceType'];
  }
}

/** True when the two statuses would read the same (tests, callers skipping work). */
export function sameStatus(a: unknown, b: unknown): boolean {
  return deepEqual(plain(a), plain(b));
}
