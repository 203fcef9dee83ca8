/**
 * API errors as the real server reports them: a `Status` object (kind Status, apiVersion v1, status Failure)
 * with message, reason, code and details {name, group, kind}. Handlers throw `ApiError`; the router turns it
 * into the HTTP response (and a watch turns it into an ERROR event).
 */
import type { JsonMap, ResourceType } from './types.js';
import { qualifiedResource } from './types.js';

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'UnsupportedMediaType'
  | 'Expired'
  | 'Gone'
  | 'InternalError'
  | 'TooManyRequests'
  | 'NotAcceptable'
  | 'Forbidden'
  | 'Timeout'
  /** StatusReasonUnknown: an error the server did not classify (a plain Go error); no `reason` is sent. */
  | '';

export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
    /** Extra response headers (Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The Status's list metadata (a compacted continue token's answer carries a new `continue`). */
  listMeta: JsonMap | undefined;

  toStatus(): JsonMap {
    const status: JsonMap = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: this.listMeta ? JSON.parse(JSON.stringify(this.listMeta)) : {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.reason === '') delete status['reason'];
    if (this.details) status['details'] = JSON.parse(JSON.stringify(this.details)) as JsonMap;
    return status;
  }
}

type TypeRef = Pick<ResourceType, 'group' | 'plural'>;

function details(t: TypeRef, name: string, extra: Partial<StatusDetails> = {}): StatusDetails {
  return { name, group: t.group, kind: t.plural, ...extra };
}

export function notFound(t: TypeRef, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedResource(t)} "${name}" not found`, details(t, name));
}

export function alreadyExists(t: TypeRef, name: string): ApiError {
  return new ApiError(
    409,
    'AlreadyExists',
    `${qualifiedResource(t)} "${name}" already exists`,
    details(t, name),
  );
}

export function conflict(t: TypeRef, name: string, why: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(t)} "${name}": ${why}`,
    details(t, name),
  );
}

export const STALE_MESSAGE =
  'the object has been modified; please apply your changes to the latest version and try again';

/** 422: `causes` name the offending fields, like field.ErrorList. */
export function invalid(kind: string, group: string, name: string, causes: StatusCause[]): ApiError {
  const what = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message)).join(', ');
  const gk = group ? `${kind}.${group}` : kind;
  return new ApiError(422, 'Invalid', `${gk} "${name}" is invalid: ${what}`, {
    name,
    group,
    kind,
    causes,
  });
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function methodNotAllowed(
  message = 'the server does not allow this method on the requested resource',
): ApiError {
  return new ApiError(405, 'MethodNotAllowed', message);
}

export function gone(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}

/**
 * A path no API handler serves: kube-apiserver's last delegate (k8s.io/apiserver notfoundhandler, Go's
 * http.NotFound) answers `404 page not found` as text/plain, not a Status. That is the answer for non-API
 * paths, unknown groups and versions (discovery included), and unknown resources of a group/version only
 * CustomResourceDefinitions serve (apiextensions-apiserver's crdHandler delegates when no CRD matches). An
 * unknown resource in a built-in group/version gets a Status (go-restful's container): `notFoundPath`.
 */
export class PageNotFound extends Error {
  constructor() {
    super('404 page not found');
    this.name = 'PageNotFound';
  }
}

export function notFoundPath(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}
