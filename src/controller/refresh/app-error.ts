/**
 * How one app's failure is told and retried, the same in the one-shot run (src/controller/run) and the
 * loop: `appError` is the app's error for any failure (one line naming the app, the error's exit code and
 * hint); a transient failure (5xx, 429, transport: src/cluster `isRetryable`) is retried through the app's
 * queue at most `MAX_TRANSIENT_RETRIES` times before it is that error.
 *
 * A source that cannot be rendered and an ignoreDifferences rule that does not compile are not errors of
 * the refresh: Argo CD compares with what it could load (controller/state.go CompareAppState,
 * `failedToLoadObjs`), and `loadFailure` / `normalizerFailure` are the ComparisonError it records then.
 * `unrenderedApp` is the desired state of such a refresh: no objects; a single source's revision is its
 * `targetRevision` as the spec writes it (CompareAppState's `syncStatus.revision` before the repo-server
 * answers), a multi-source app's revisions are none (its `revisions` are the repo-server's answers alone).
 */
import type { Application } from '../../apps/index.js';
import { ExitCode, GitopsError, oneLine } from '../../common/index.js';
import { SourceError } from '../../source/index.js';
import type { RenderedApp } from '../../source/index.js';
import type { AppCondition } from './types.js';

/** Transient failures (5xx, 429, transport) of one app retried through the queue before it is an error. */
export const MAX_TRANSIENT_RETRIES = 3;

/** The app's error for any failure: one line naming the app, the error's exit code and hint. */
export function appError(
  app: Application,
  err: unknown,
): { message: string; exitCode: number; hint?: string; conditions?: AppCondition[] } {
  const text = oneLine(err);
  const message = text.startsWith(`app "${app.name}"`) ? text : `app "${app.name}": ${text}`;
  const hint = err instanceof GitopsError ? err.hint : undefined;
  return {
    message,
    exitCode: err instanceof GitopsError ? err.exitCode : ExitCode.FAILURE,
    ...(hint ? { hint } : {}),
    ...(err instanceof SourceError ? { conditions: [loadFailure(app, err)] } : {}),
  };
}

/**
 * A source that cannot be rendered is Argo CD's ComparisonError (controller/state.go CompareAppState:
 * "Failed to load target state: " and the repo-server's "failed to generate manifest for source i of n: "),
 * the cause in our words (the repo-server's own text and its gRPC wrapping are not reproduced).
 */
export function loadFailure(app: Application, err: SourceError): AppCondition {
  const index = Math.max(0, err.repo ? app.sources.findIndex((s) => s.repoURL === err.repo) : 0);
  return {
    type: 'ComparisonError',
    message:
      `Failed to load target state: failed to generate manifest for source ${index + 1} of ` +
      `${Math.max(1, app.sources.length)}: ${oneLine(err)}`,
  };
}

/**
 * An ignoreDifferences rule that does not compile is Argo CD's ComparisonError "Failed to compare desired
 * state to live state: failed to create diff normalizer: ..." (CompareAppState, argodiff.StateDiffs), the
 * cause in our words (gojq's parse error is not reproduced).
 */
export function normalizerFailure(err: unknown): AppCondition {
  return {
    type: 'ComparisonError',
    message: `Failed to compare desired state to live state: failed to create diff normalizer: ${oneLine(err)}`,
  };
}

/** The desired state of a refresh whose sources could not be rendered (see the header). */
export function unrenderedApp(app: Application): RenderedApp {
  const spec = app.manifest['spec'] as Record<string, unknown> | undefined;
  const written = (app.multiSource ? spec?.['sources'] : [spec?.['source']]) as unknown[] | undefined;
  const sources = app.sources.map((s, i) => {
    const raw = (written?.[i] as Record<string, unknown> | undefined)?.['targetRevision'];
    // Multi-source: none (CompareAppState's revisions are the repo-server's answers alone).
    const revision = typeof raw === 'string' && !app.multiSource ? raw : '';
    return { repoURL: s.repoURL, path: s.path, targetRevision: s.targetRevision, revision, cached: false };
  });
  return { app, revision: sources[0]?.revision ?? '', sources, objects: [], warnings: [] };
}
