/**
 * The operation parts of an Application's status (status.ts builds the rest): `operationState` of the
 * running operation (with its progress, as Argo CD persists it between passes) or of the last one
 * (setOperationState), and the `history` entry a finished sync appends (persistRevisionHistory).
 */
import type { Application } from './types.js';
import { compact, isObject, kubeTime, type Json, type JsonObject } from './status-json.js';
import {
  operationJson,
  operationStateJson,
  syncedSources,
  type AppOperationReport,
  type AppOperationRequest,
  type AppTaskResult,
} from './operation.js';

/** Argo CD's RevisionHistoryLimit default (types.go). */
export const DEFAULT_REVISION_HISTORY_LIMIT = 10;

/** A running operation's message, results so far, retries and the failed attempt's end (between retries). */
export interface RunningOperationProgress {
  message: string;
  resources: readonly AppTaskResult[];
  revision: string;
  retryCount?: number | undefined;
  finishedAt?: string | undefined;
}

/** The operations of the loop's view of one app (`StatusSource`). */
export interface OperationSource {
  app: Application;
  running?:
    | {
        request: AppOperationRequest;
        startedAt: string;
        terminating?: boolean | undefined;
        /** What it has done so far, as Argo CD persists it between passes (src/controller/loop). */
        progress?: RunningOperationProgress | undefined;
      }
    | undefined;
  lastOperation?: { request: AppOperationRequest; report: AppOperationReport } | undefined;
}

export function operationStatus(state: OperationSource, spec: JsonObject): Json | undefined {
  const running = state.running;
  if (running?.progress) {
    // As Argo CD persists a running operation: its message, the results so far (no syncResult before an
    // attempt has any: "Retrying operation. Attempt #N"), retryCount, and finishedAt between attempts.
    const p = running.progress;
    const json = operationStateJson(
      running.request,
      {
        phase: running.terminating ? 'Terminating' : 'Running',
        message: running.terminating ? 'operation is terminating' : p.message,
        revision: p.revision,
        startedAt: running.startedAt,
        finishedAt: p.finishedAt ?? running.startedAt,
        dryRun: false,
        retries: p.retryCount ?? 0,
        resources: p.resources,
      },
      state.app,
      spec,
    );
    if (!p.finishedAt) delete json['finishedAt'];
    if (p.resources.length === 0 && !p.revision) delete json['syncResult'];
    return json;
  }
  if (state.running) {
    // Terminating (argocd app terminate-op) is kept until the operation ends, never written back to
    // Running (processRequestedAppOperation re-reads the app: "operation is terminating").
    return {
      operation: operationJson(state.running.request, state.app, spec),
      phase: state.running.terminating ? 'Terminating' : 'Running',
      ...(state.running.terminating ? { message: 'operation is terminating' } : {}),
      startedAt: kubeTime(state.running.startedAt),
    };
  }
  if (state.lastOperation) {
    return operationStateJson(state.lastOperation.request, state.lastOperation.report, state.app, spec);
  }
  return undefined;
}

/** persistRevisionHistory (state.go): see the header. */
export function appendHistory(
  previous: unknown,
  state: OperationSource,
  spec: JsonObject,
  force: boolean,
): Json[] | undefined {
  const last = state.lastOperation;
  if (state.running || !last) return undefined;
  const { request, report } = last;
  if (report.dryRun || request.dryRun || (request.resources?.length ?? 0) > 0 || report.phase !== 'Succeeded')
    return undefined;
  const history = (Array.isArray(previous) ? previous : []).filter(isObject);
  const startedAt = kubeTime(report.startedAt);
  if (!force && history.some((h) => h['deployStartedAt'] === startedAt && h['revision'] === report.revision))
    return undefined;
  const lastId = history.length > 0 ? Number(history[history.length - 1]!['id'] ?? 0) : -1;
  const entry: JsonObject = {};
  if (!state.app.multiSource) entry['revision'] = report.revision;
  entry['deployedAt'] = kubeTime(report.finishedAt);
  entry['id'] = lastId + 1;
  // persistRevisionHistory: the source(s) compared, a rollback's own.
  const [source, sources] = syncedSources(request, state.app, spec);
  entry['source'] = source;
  if (sources) entry['sources'] = sources;
  entry['deployStartedAt'] = startedAt;
  if (state.app.multiSource) entry['revisions'] = report.revisions ?? [report.revision];
  entry['initiatedBy'] = compact(request.initiatedBy) ?? {};
  const limitRaw = spec['revisionHistoryLimit'];
  const limit = typeof limitRaw === 'number' ? Math.max(0, limitRaw) : DEFAULT_REVISION_HISTORY_LIMIT;
  const all = [...history, entry];
  return all.slice(Math.max(0, all.length - limit));
}
