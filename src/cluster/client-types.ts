/**
 * The client's vocabulary (client.ts `KubeClient`, client-http.ts): its options, one request as sent and
 * as observed, request counts, write and delete options, watch events and list pages.
 */
import type https from 'node:https';
import type { Clock } from '../queue/index.js';
import type { StatusBody } from './errors.js';
import type { KubeObject, ResourceInfo } from './types.js';

/** Default `--request-timeout`: 30s (kubectl waits forever; a one-shot CI tool must not). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'discovery';

export interface ClientOptions {
  retry?: { maxRetries?: number; baseDelayMs?: number; maxDelayMs?: number };
  /** Field manager of writes that name none (`WriteOptions.fieldManager`). Default "kubectl-gitops". */
  fieldManager?: string;
  clock?: Clock;
  /**
   * Milliseconds a request may wait for the server's answer (kubectl's `--request-timeout`); 0 waits
   * forever. Default 30000: kubectl's default is no timeout, but a one-shot CI tool must never hang.
   * Watches are excepted (they are long-lived by design).
   */
  requestTimeoutMs?: number;
  /** Kube context named in timeout errors. */
  context?: string;
  /** Credentials laid over the kubeconfig's on every request (a cluster Secret's exec provider). */
  credentialPlugin?: CredentialPlugin | undefined;
  /** Observes every request attempt (retries included) after its answer; see `KubeRequestInfo`. */
  onRequest?: ((info: KubeRequestInfo) => void) | undefined;
}

/** One request attempt as `ClientOptions.onRequest` sees it. */
export interface KubeRequestInfo {
  verb: Verb;
  method: RawRequest['method'];
  /** The resource type ("" for the core group); all four "" for discovery requests. */
  group: string;
  version: string;
  kind: string;
  /** The plural resource name of the URL ("deployments"). */
  resource: string;
  /** The namespace of the URL; "" for cluster-scoped types, lists across namespaces and discovery. */
  namespace: string;
  /** The HTTP status; 0 when no answer came (connection refused, timeout, abort). */
  code: number;
  /** A server-side dry run (`dryRun=All`). */
  dryRun: boolean;
  /** The API server URL (the kubeconfig cluster's `server`) and the kube context of the connection. */
  server: string;
  context: string;
}

/** A source of per-request credentials that may expire (exec-credential.ts). */
export interface CredentialPlugin {
  apply(opts: https.RequestOptions): Promise<void>;
  /** The server answered 401: forget the credential. */
  invalidate(): void;
}

export interface RequestCounts {
  total: number;
  byVerb: Record<string, number>;
  /** Keyed "group/Kind" ("/ConfigMap" for core); discovery requests are keyed "discovery". */
  byGroupKind: Record<string, number>;
}

export interface RawRequest {
  verb: Verb;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** What the request is about, for errors and counts. */
  subject: string;
  /** "group/Kind" for counting; omitted for discovery. */
  groupKind?: string;
  /** The resource type and namespace the path names (for `onRequest`); omitted for discovery. */
  resource?: ResourceInfo;
  namespace?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** Options of one write (create, update, patch). */
export interface WriteOptions {
  /** Server-side dry run (`dryRun=All`): validated, admitted and answered, nothing stored. */
  dryRun?: boolean;
  /** The manager recorded in managedFields (default: the client's). */
  fieldManager?: string;
  /** Apply patches: take over fields other managers own (`force=true`). Ignored for other writes. */
  force?: boolean;
  /** Unknown/duplicate field handling (`fieldValidation`); the server's default (Warn) when unset. */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** What errors name (default "<group>/<Kind> <namespace>/<name>"). */
  subject?: string;
  /** Write the object's subresource (`status`) instead of the object (patch and update). */
  subresource?: 'status' | undefined;
  signal?: AbortSignal | undefined;
}

/** Options of one delete. */
export interface DeleteOptions {
  dryRun?: boolean;
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  subject?: string;
  signal?: AbortSignal | undefined;
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubeObject & StatusBody;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continue: string | undefined;
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';
