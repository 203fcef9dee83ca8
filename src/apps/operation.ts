/**
 * Application operations (Argo CD 3.6 pkg/apis/application/v1alpha1/types.go `Operation`, `SyncOperation`,
 * `OperationState`, `SyncOperationResult`; controller/sync.go, appcontroller.go).
 *
 * - `parseOperation(app)`: the Application's `operation` field (what `argocd app sync`, the UI or
 *   `kubectl patch` write) as the loop's request (structurally the controller's `OperationRequest`), or
 *   undefined when there is none. Bad input throws a UsageError naming the app and the field, one line:
 *   `app argocd/web: failed to read operation: operation.sync.prune must be a boolean`. Rules:
 *   - `sync` is required (Argo CD: "Invalid operation request: no operation specified");
 *   - `revision` / `revisions` (multi-source), `prune`, `dryRun`, `syncOptions` (known `Key=Value` options,
 *     as spec.syncPolicy.syncOptions), `resources` (`{group, kind, name, namespace}`; hooks are then
 *     skipped, as Argo CD), `syncStrategy` (`apply` or `hook`, default hook; `force: true` adds
 *     `Force=true`), `retry` (limit, backoff durations as Argo CD parses them, factor, refresh; absent:
 *     no retry, Argo CD's zero RetryStrategy), `initiatedBy`;
 *   - `source`/`sources` (a rollback) and `manifests` (a local sync): operation-override.ts (refused
 *     while auto-sync is enabled, as Argo CD's API server does);
 * - `operationJson(request, app)`: the request as Argo CD's `Operation` JSON (what `operationState.operation`
 *   holds). An automated sync is written as autoSync builds it: the spec's source(s), `syncOptions` of the
 *   spec, `initiatedBy.automated`, the retry of the spec or `{limit: 5}`.
 * - `operationStateJson(request, report, app)`: a finished operation as Argo CD's `OperationState`:
 *   phase, message, syncResult {resources (group, version, kind, namespace, name, status, message,
 *   hookType, hookPhase, syncPhase, images), revision(s), source(s), managedNamespaceMetadata}, startedAt,
 *   finishedAt, retryCount.
 */
import { UsageError } from '../common/index.js';
import { parseDuration } from './duration.js';
import { readSyncOverride } from './operation-override.js';
import type { SyncOverride } from './operation-override.js';
import { RETRY_DEFAULTS, SYNC_OPTIONS, writtenBackoff } from './parse.js';
import { compact, goDuration, isObject, kubeTime, plain, type Json, type JsonObject } from './status-json.js';
import type { Application, RetryStrategy } from './types.js';

/** A sync the loop runs (structurally the controller's `OperationRequest`, src/controller/loop/types.ts). */
export interface AppOperationRequest extends SyncOverride {
  initiatedBy: { automated: boolean; username?: string | undefined };
  revision?: string | undefined;
  revisions?: string[] | undefined;
  prune: boolean;
  dryRun: boolean;
  allowEmpty?: boolean | undefined;
  selfHeal?: boolean | undefined;
  strategy?: 'apply' | 'hook' | undefined;
  syncOptions?: Record<string, string> | undefined;
  resources?:
    Array<{ group: string; kind: string; namespace?: string | undefined; name: string }> | undefined;
  retry?: RetryStrategy | undefined;
}

/** One task's outcome (src/sync `TaskResult`). */
export interface AppTaskResult {
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
  status: string;
  message: string;
  hookType: string;
  hookPhase: string;
  syncPhase: string;
  images?: readonly string[] | undefined;
}

/** A finished operation (src/sync `OperationReport`). */
export interface AppOperationReport {
  phase: string;
  message: string;
  revision: string;
  /** Multi-source: one revision per source. */
  revisions?: string[] | undefined;
  startedAt: string;
  finishedAt: string;
  dryRun: boolean;
  retries: number;
  resources: readonly AppTaskResult[];
}

/** Go's zero ApplicationSource as JSON (`repoURL` has no omitempty). */
export const EMPTY_SOURCE: JsonObject = { repoURL: '' };

const fail = (app: Application, field: string, why: string): never => {
  throw new UsageError(`failed to read operation: ${field} ${why}`, { subject: `app ${appKeyOf(app)}` });
};

function appKeyOf(app: Application): string {
  return app.namespace ? `${app.namespace}/${app.name}` : app.name;
}

/** The Application's `operation` as a request; undefined when it has none. */
export function parseOperation(app: Application): AppOperationRequest | undefined {
  const raw = app.manifest['operation'];
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) return fail(app, 'operation', 'must be an object');
  const sync = raw['sync'];
  if (sync === undefined || sync === null)
    return fail(app, 'operation.sync', 'is required (no operation specified)');
  if (!isObject(sync)) return fail(app, 'operation.sync', 'must be an object');
  const bool = (v: unknown, field: string): boolean => {
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') return fail(app, field, 'must be a boolean');
    return v;
  };
  const str = (v: unknown, field: string): string | undefined => {
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') return fail(app, field, 'must be a string');
    return v;
  };

  const request: AppOperationRequest = {
    initiatedBy: initiatedBy(app, raw['initiatedBy']),
    prune: bool(sync['prune'], 'operation.sync.prune'),
    dryRun: bool(sync['dryRun'], 'operation.sync.dryRun'),
  };
  const revision = str(sync['revision'], 'operation.sync.revision');
  if (revision) request.revision = revision;
  if (sync['revisions'] !== undefined && sync['revisions'] !== null) {
    const revs = sync['revisions'];
    if (!Array.isArray(revs) || revs.some((r) => typeof r !== 'string'))
      return fail(app, 'operation.sync.revisions', 'must be a list of strings');
    if (revs.length > 0) {
      if (!app.multiSource)
        return fail(app, 'operation.sync.revisions', 'is only for apps with spec.sources');
      if (revs.length !== app.sources.length)
        return fail(
          app,
          'operation.sync.revisions',
          `has ${revs.length} entries for ${app.sources.length} sources`,
        );
      request.revisions = revs as string[];
    }
  }

  const options: Record<string, string> = {};
  if (sync['syncOptions'] !== undefined && sync['syncOptions'] !== null) {
    const list = sync['syncOptions'];
    if (!Array.isArray(list))
      return fail(app, 'operation.sync.syncOptions', 'must be a list of Key=Value strings');
    for (const entry of list) {
      if (typeof entry !== 'string')
        return fail(app, 'operation.sync.syncOptions', 'must be a list of Key=Value strings');
      const eq = entry.indexOf('=');
      const key = eq < 0 ? entry : entry.slice(0, eq);
      const value = eq < 0 ? '' : entry.slice(eq + 1);
      const allowed = SYNC_OPTIONS[key];
      if (!allowed) return fail(app, 'operation.sync.syncOptions', `has unknown option "${entry}"`);
      if (!allowed.includes(value.toLowerCase()))
        return fail(app, 'operation.sync.syncOptions', `has "${entry}": ${key} takes ${allowed.join(', ')}`);
      // Force=true among syncOptions does nothing in Argo CD, which takes force from syncStrategy only
      // (and the resource's annotation): controller/sync.go WithOperationSettings.
      if (key === 'Force') continue;
      options[key] = value.toLowerCase() === value ? value : value.toLowerCase();
    }
  }

  const strategy = sync['syncStrategy'];
  if (strategy !== undefined && strategy !== null) {
    if (!isObject(strategy)) return fail(app, 'operation.sync.syncStrategy', 'must be an object');
    const which = isObject(strategy['apply']) ? 'apply' : isObject(strategy['hook']) ? 'hook' : undefined;
    if (which) {
      request.strategy = which;
      const sub = strategy[which] as JsonObject;
      if (bool(sub['force'], `operation.sync.syncStrategy.${which}.force`)) options['Force'] = 'true';
    }
  }
  if (Object.keys(options).length > 0) request.syncOptions = options;

  if (sync['resources'] !== undefined && sync['resources'] !== null) {
    const list = sync['resources'];
    if (!Array.isArray(list)) return fail(app, 'operation.sync.resources', 'must be a list');
    const resources: NonNullable<AppOperationRequest['resources']> = [];
    list.forEach((r, i) => {
      const field = `operation.sync.resources[${i}]`;
      if (!isObject(r)) return fail(app, field, 'must be an object');
      const kind = str(r['kind'], `${field}.kind`);
      const name = str(r['name'], `${field}.name`);
      if (!kind || !name) return fail(app, field, 'needs kind and name');
      const namespace = str(r['namespace'], `${field}.namespace`);
      resources.push({
        group: str(r['group'], `${field}.group`) ?? '',
        kind,
        name,
        ...(namespace ? { namespace } : {}),
      });
      return undefined;
    });
    if (resources.length > 0) request.resources = resources;
  }

  const override = readSyncOverride(app, sync, request.dryRun, (field, why) => fail(app, field, why));
  for (const [k, v] of Object.entries(override)) if (v !== undefined) Object.assign(request, { [k]: v });

  request.retry = retryStrategy(app, raw['retry']);
  return request;
}

function initiatedBy(app: Application, raw: unknown): AppOperationRequest['initiatedBy'] {
  if (raw === undefined || raw === null) return { automated: false };
  if (!isObject(raw)) return fail(app, 'operation.initiatedBy', 'must be an object');
  const automated = raw['automated'] === true;
  const username = typeof raw['username'] === 'string' && raw['username'] ? raw['username'] : undefined;
  return { automated, ...(username ? { username } : {}) };
}

/** `operation.retry` (Argo CD's RetryStrategy; absent: limit 0, no retry). */
function retryStrategy(app: Application, raw: unknown): RetryStrategy {
  const out: RetryStrategy = { limit: 0, backoff: { ...RETRY_DEFAULTS }, refresh: false };
  if (raw === undefined || raw === null) return out;
  if (!isObject(raw)) return fail(app, 'operation.retry', 'must be an object');
  const limit = raw['limit'];
  if (limit !== undefined && limit !== null) {
    if (typeof limit !== 'number' || !Number.isInteger(limit))
      return fail(app, 'operation.retry.limit', 'must be an integer');
    out.limit = limit;
  }
  out.refresh = raw['refresh'] === true;
  const backoff = raw['backoff'];
  if (isObject(backoff)) {
    for (const [field, key] of [
      ['duration', 'durationMs'],
      ['maxDuration', 'maxDurationMs'],
    ] as const) {
      const v = backoff[field];
      if (v === undefined || v === null || v === '') continue;
      const ms = typeof v === 'string' ? parseDuration(v) : undefined;
      if (ms === undefined)
        return fail(app, `operation.retry.backoff.${field}`, `is not a duration: ${JSON.stringify(v)}`);
      out.backoff[key] = ms;
    }
    const factor = backoff['factor'];
    if (factor !== undefined && factor !== null) {
      if (typeof factor !== 'number' || !Number.isInteger(factor))
        return fail(app, 'operation.retry.backoff.factor', 'must be an integer');
      out.backoff.factor = factor;
    }
    const written = writtenBackoff(backoff);
    if (written) out.written = written;
  }
  return out;
}

function retryJson(retry: RetryStrategy | undefined): Json | undefined {
  if (!retry) return undefined;
  const out: JsonObject = {};
  if (retry.limit) out['limit'] = retry.limit;
  const b = retry.backoff;
  const d = RETRY_DEFAULTS;
  // As written (Argo CD copies the struct); a strategy built here (no text) in Go's duration format.
  if (retry.written) out['backoff'] = { ...retry.written };
  else if (b.durationMs !== d.durationMs || b.factor !== d.factor || b.maxDurationMs !== d.maxDurationMs) {
    out['backoff'] = {
      duration: goDuration(b.durationMs),
      factor: b.factor,
      maxDuration: goDuration(b.maxDurationMs),
    };
  }
  if (retry.refresh) out['refresh'] = true;
  return out;
}

/** The request as Argo CD's `Operation` JSON (see the header). */
export function operationJson(request: AppOperationRequest, app: Application, spec?: JsonObject): JsonObject {
  const s = spec ?? (isObject(app.manifest['spec']) ? (app.manifest['spec'] as JsonObject) : {});
  const sync: JsonObject = {};
  if (request.revision) sync['revision'] = request.revision;
  if (request.prune) sync['prune'] = true;
  if (request.dryRun) sync['dryRun'] = true;
  const options = { ...(request.syncOptions ?? {}) };
  const force = options['Force'] === 'true';
  if (request.strategy) sync['syncStrategy'] = { [request.strategy]: force ? { force: true } : {} };
  if (request.resources && request.resources.length > 0)
    sync['resources'] = request.resources.map((r) => compact(r) ?? {});
  const initiated: JsonObject = {};
  if (request.initiatedBy.username) initiated['username'] = request.initiatedBy.username;
  if (request.initiatedBy.automated) initiated['automated'] = true;
  let retry = retryJson(request.retry);
  if (request.initiatedBy.automated) {
    // autoSync: the spec's sources and sync options; the spec's retry, else {limit: 5}.
    if (app.multiSource) sync['sources'] = plain(s['sources']) ?? [];
    else sync['source'] = plain(s['source']) ?? {};
    const specOptions = isObject(s['syncPolicy']) ? s['syncPolicy']['syncOptions'] : undefined;
    if (Array.isArray(specOptions) && specOptions.length > 0) sync['syncOptions'] = plain(specOptions) ?? [];
    if (!isObject(s['syncPolicy']) || !isObject(s['syncPolicy']['retry'])) retry = { limit: 5 };
  } else {
    const list = Object.entries(options)
      .filter(([k]) => !(k === 'Force' && request.strategy))
      .map(([k, v]) => `${k}=${v}`);
    if (list.length > 0) sync['syncOptions'] = list;
    // As written: the rollback's (or the spec's) source(s), a local sync's manifests.
    if (request.source) sync['source'] = request.source;
    if (request.sources) sync['sources'] = request.sources;
    if (request.manifests) sync['manifests'] = request.manifests;
  }
  if (request.revisions && request.revisions.length > 0) sync['revisions'] = request.revisions;
  // Go's encoding/json writes struct fields even with omitempty: `initiatedBy` and `retry` are always there.
  return { sync, initiatedBy: initiated, retry: retry ?? {} };
}

/** A finished operation as Argo CD's `OperationState` JSON (see the header). */
export function operationStateJson(
  request: AppOperationRequest,
  report: AppOperationReport,
  app: Application,
  spec?: JsonObject,
): JsonObject {
  const s = spec ?? (isObject(app.manifest['spec']) ? (app.manifest['spec'] as JsonObject) : {});
  const syncResult: JsonObject = {};
  // gitops-engine lists only tasks that have a result: those an ended (failed, terminated) operation
  // never started are left out.
  const started = report.resources.filter((r) => r.status || r.hookPhase || r.message);
  const resources = started.map((r) => {
    const row: JsonObject = {
      group: r.group,
      version: r.version,
      kind: r.kind,
      namespace: r.namespace,
      name: r.name,
    };
    if (r.status) row['status'] = r.status;
    if (r.message) row['message'] = r.message;
    if (r.hookType) row['hookType'] = r.hookType;
    if (r.hookPhase) row['hookPhase'] = r.hookPhase;
    if (r.syncPhase) row['syncPhase'] = r.syncPhase;
    if (r.images && r.images.length > 0) row['images'] = [...r.images];
    return row;
  });
  if (resources.length > 0) syncResult['resources'] = resources;
  syncResult['revision'] = app.multiSource ? '' : report.revision;
  // newSyncOperationResult: the operation's source(s) when it names them (a rollback), else the spec's.
  // `source` is a struct (always written; an empty ApplicationSource is {repoURL: ""}).
  const [source, sources] = syncedSources(request, app, s);
  syncResult['source'] = source;
  if (sources) syncResult['sources'] = sources;
  if (app.multiSource) syncResult['revisions'] = report.revisions ?? [report.revision];
  const nsMeta = isObject(s['syncPolicy']) ? compact(s['syncPolicy']['managedNamespaceMetadata']) : undefined;
  if (nsMeta !== undefined) syncResult['managedNamespaceMetadata'] = nsMeta;
  const out: JsonObject = { operation: operationJson(request, app, s), phase: report.phase };
  if (report.message) out['message'] = report.message;
  out['syncResult'] = syncResult;
  out['startedAt'] = kubeTime(report.startedAt);
  out['finishedAt'] = kubeTime(report.finishedAt);
  if (report.retries > 0) out['retryCount'] = report.retries;
  return out;
}

/**
 * The source and sources a sync used, as `syncResult` and `history` record them (newSyncOperationResult):
 * those the operation names (a rollback), else the spec's.
 */
export function syncedSources(
  request: Pick<AppOperationRequest, 'source' | 'sources'>,
  app: Application,
  spec: JsonObject,
): [JsonObject, Json[] | undefined] {
  if (request.sources || request.source) return [request.source ?? EMPTY_SOURCE, request.sources];
  if (app.multiSource) return [EMPTY_SOURCE, (plain(spec['sources']) as Json[] | undefined) ?? []];
  return [(plain(spec['source']) as JsonObject | undefined) ?? EMPTY_SOURCE, undefined];
}
