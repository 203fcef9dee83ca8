/**
 * Errors from the API server. `ApiError` carries the HTTP code and the `Status` reason (NotFound, Conflict,
 * AlreadyExists, Expired/Gone, Invalid...) so callers branch on data, never on message text.
 */
import { GitopsError } from '../common/index.js';

export interface StatusBody {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: unknown;
}

export class ApiError extends GitopsError {
  /** HTTP status code; 0 for a transport failure (connection refused, reset, TLS). */
  readonly code: number;
  /** `Status.reason` from the server, e.g. "NotFound", "Conflict", "AlreadyExists", "Expired". */
  readonly reason: string;
  readonly status: StatusBody | undefined;
  /** Seconds from a Retry-After header, when the server sent one. */
  readonly retryAfterSeconds: number | undefined;
  /** What went wrong, without the subject and the verb (for a caller that names both itself). */
  readonly detail: string;

  constructor(
    subject: string,
    verb: string,
    code: number,
    status: StatusBody | undefined,
    cause?: unknown,
    retryAfterSeconds?: number,
  ) {
    const detail =
      status?.message ?? (cause instanceof Error ? cause.message : code ? `HTTP ${code}` : 'request failed');
    // Request verbs are API words; "discovery" is the one that is not a verb in English.
    super(`failed to ${verb === 'discovery' ? 'read discovery' : verb}: ${detail}`, { subject, cause });
    this.name = 'ApiError';
    this.code = code;
    this.reason = status?.reason ?? (code === 0 ? 'TransportError' : `HTTP${code}`);
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
    this.detail = detail;
  }
}

export const isNotFound = (err: unknown): boolean => err instanceof ApiError && err.code === 404;
export const isConflict = (err: unknown): boolean => err instanceof ApiError && err.code === 409;
/** 410 Gone: a watch or list resourceVersion is too old (reason "Expired" or "Gone"). */
export const isGone = (err: unknown): boolean => err instanceof ApiError && err.code === 410;
/** Worth another try: throttled, server-side or transport failures. */
export const isRetryable = (err: unknown): boolean =>
  err instanceof ApiError && (err.code === 0 || err.code === 429 || err.code >= 500);
