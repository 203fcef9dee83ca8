// Over 400 lines: one class, KubeClient (each verb and its retries, deadline, counting); its types and HTTP are already client-types.ts and client-http.ts.
/**
 * `KubeClient`: the one door for API traffic of a run. Every request is counted per verb and per
 * group/kind (`counts()`), so benchmarks and summaries can report API calls per refresh.
 *
 * - Auth and TLS come from the kubeconfig (`applyToHTTPSOptions`), then from `credentialPlugin` when given
 *   (a cluster Secret's exec provider, dropped on a 401 so the next request asks it again); HTTP is
 *   Node's own http/https with keep-alive agents (watches get their own agent so long-lived streams never
 *   starve short requests), through the cluster's `proxy-url` when it has one.
 * - Every request carries our User-Agent (client-http.ts).
 * - Write options are per call (`WriteOptions`): `dryRun` (`dryRun=All`: the server validates and answers
 *   but stores nothing), `fieldManager` (default the client's), `force` (apply patches) and
 *   `fieldValidation`. One client serves the refresh's server-side diff (dry-run apply as its own manager),
 *   the sync's dry-run pass and its real writes, so nothing goes around it.
 * - Reads (get, list) and any request answered 429 are retried up to `retry.maxRetries` times, waiting the
 *   server's Retry-After (capped) or an exponential delay; each attempt counts as a request.
 * - Failures are `ApiError`s ("<subject>: failed to <verb>: <server message>") with code and reason.
 * - Every call takes an AbortSignal; aborting destroys the HTTP request.
 * - `onRequest` (optional) observes every attempt once it has an answer (or failed to get one): verb, the
 *   resource type and namespace, status code (0: no answer), dry run, server and context. The metrics room
 *   (src/metrics) counts Argo CD's `argocd_app_k8s_request_total` with it; an observer that throws is
 *   ignored, it never fails a request.
 */
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { failureOf, parseWatchStream, plainHttpConfig, readBody, send } from './client-http.js';
import { ApiError, isRetryable } from './errors.js';
import { applyCredentials, CredentialsError } from './credentials.js';
import { apiVersionOf, groupKind } from './types.js';
import type { KubeObject, ResourceInfo } from './types.js';
import { CLIENT_FIELD_MANAGER, linkedSignal } from '../common/index.js';
import { realClock } from '../queue/index.js';
import type { Clock } from '../queue/index.js';
import { sleep } from './sleep.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './client-types.js';
import type {
  ClientOptions,
  CredentialPlugin,
  DeleteOptions,
  KubeRequestInfo,
  ListResult,
  PatchType,
  RawRequest,
  RequestCounts,
  WatchEvent,
  WriteOptions,
} from './client-types.js';

const PATCH_CONTENT_TYPE: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** URL path of a resource type, optionally in a namespace and of one object. */
export function resourcePath(info: ResourceInfo, namespace?: string, name?: string): string {
  const base = info.group ? `/apis/${info.group}/${info.version}` : `/api/${info.version}`;
  const ns = info.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${info.plural}${name ? `/${encodeURIComponent(name)}` : ''}`;
}

/**
 * The agent of a client: Node's own (keep-alive per `options`), or, when the cluster has a `proxy-url`,
 * client-node's proxy agent for it (HTTP CONNECT, or SOCKS for socks5://) with the same options.
 */
function makeAgent(kc: KubeConfig, options: http.AgentOptions): http.Agent {
  const cluster = kc.getCurrentCluster();
  const https_ = cluster?.server.startsWith('https:') ?? true;
  if (cluster?.proxyUrl) {
    // KubeConfig.createAgent is private in its types; it is how client-node itself reaches a proxy.
    const create = (kc as unknown as { createAgent(c: unknown, o: unknown): http.Agent }).createAgent;
    return create.call(kc, cluster, { ...options });
  }
  return https_ ? new https.Agent(options) : new http.Agent(options);
}

function describe(info: ResourceInfo, namespace?: string, name?: string): string {
  const kind = groupKind(info);
  if (name) return `${kind} ${namespace ? `${namespace}/` : ''}${name}`;
  return namespace ? `${kind} in ${namespace}` : kind;
}

export class KubeClient {
  readonly server: string;
  readonly fieldManager: string;
  readonly #kc: KubeConfig;
  readonly #clock: Clock;
  readonly #retry: { maxRetries: number; baseDelayMs: number; maxDelayMs: number };
  readonly #agent: http.Agent;
  readonly #watchAgent: http.Agent;
  readonly #requestTimeoutMs: number;
  readonly #context: string;
  readonly #plugin: CredentialPlugin | undefined;
  readonly #onRequest: ((info: KubeRequestInfo) => void) | undefined;
  readonly #counts: RequestCounts = { total: 0, byVerb: {}, byGroupKind: {} };

  constructor(kc: KubeConfig, options: ClientOptions = {}) {
    const cluster = kc.getCurrentCluster();
    if (!cluster)
      throw new ApiError(`context ${kc.getCurrentContext()}`, 'connect', 0, { message: 'no cluster' });
    this.server = cluster.server.replace(/\/+$/, '');
    this.#kc = this.server.startsWith('http:') ? plainHttpConfig(kc) : kc;
    this.fieldManager = options.fieldManager ?? CLIENT_FIELD_MANAGER;
    this.#clock = options.clock ?? realClock;
    this.#requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#context = options.context ?? kc.getCurrentContext();
    this.#retry = { maxRetries: 4, baseDelayMs: 100, maxDelayMs: 5000, ...options.retry };
    this.#plugin = options.credentialPlugin;
    this.#onRequest = options.onRequest;
    this.#agent = makeAgent(kc, { keepAlive: true, maxSockets: 32 });
    this.#watchAgent = makeAgent(kc, { keepAlive: false });
  }

  counts(): RequestCounts {
    return structuredClone(this.#counts);
  }

  resetCounts(): void {
    this.#counts.total = 0;
    this.#counts.byVerb = {};
    this.#counts.byGroupKind = {};
  }

  /** Closes idle keep-alive sockets. */
  close(): void {
    this.#agent.destroy();
    this.#watchAgent.destroy();
  }

  get(info: ResourceInfo, namespace: string, name: string, signal?: AbortSignal): Promise<KubeObject> {
    return this.request({ verb: 'get', method: 'GET', ...this.#target(info, namespace, name), signal });
  }

  async list(
    info: ResourceInfo,
    opts: {
      namespace?: string;
      labelSelector?: string;
      limit?: number;
      continue?: string;
      signal?: AbortSignal;
    },
  ): Promise<ListResult> {
    const body = await this.request<{
      items?: KubeObject[];
      metadata?: { resourceVersion?: string; continue?: string };
    }>({
      verb: 'list',
      method: 'GET',
      ...this.#target(info, opts.namespace),
      query: { labelSelector: opts.labelSelector, limit: opts.limit, continue: opts.continue },
      signal: opts.signal,
    });
    const apiVersion = apiVersionOf(info);
    const items = body.items ?? [];
    for (const item of items) {
      item.apiVersion ??= apiVersion; // list items omit apiVersion/kind on real servers
      item.kind ??= info.kind;
    }
    return {
      items,
      resourceVersion: body.metadata?.resourceVersion ?? '',
      continue: body.metadata?.continue || undefined,
    };
  }

  /** Every item of a list, paging with limit/continue (`pageSize` per request) until the last page. */
  async listAll(
    info: ResourceInfo,
    opts: { namespace?: string; labelSelector?: string; pageSize?: number; signal?: AbortSignal } = {},
  ): Promise<KubeObject[]> {
    const items: KubeObject[] = [];
    let token: string | undefined;
    do {
      const page = await this.list(info, {
        ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
        ...(opts.labelSelector !== undefined ? { labelSelector: opts.labelSelector } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
        limit: opts.pageSize ?? 500,
        ...(token ? { continue: token } : {}),
      });
      items.push(...page.items);
      token = page.continue;
    } while (token);
    return items;
  }

  create(info: ResourceInfo, obj: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    const ns = obj.metadata?.namespace;
    return this.request({
      verb: 'create',
      method: 'POST',
      ...this.#target(info, ns, undefined, opts.subject ?? describe(info, ns, obj.metadata?.name)),
      query: this.#writeQuery(opts),
      body: obj,
      signal: opts.signal,
    });
  }

  update(info: ResourceInfo, obj: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    return this.request({
      verb: 'update',
      method: 'PUT',
      ...this.#target(info, obj.metadata?.namespace, obj.metadata?.name ?? '', opts.subject),
      query: this.#writeQuery(opts),
      body: obj,
      signal: opts.signal,
    });
  }

  patch(
    info: ResourceInfo,
    namespace: string,
    name: string,
    patch: unknown,
    type: PatchType,
    opts: WriteOptions = {},
  ): Promise<KubeObject> {
    return this.request({
      verb: 'patch',
      method: 'PATCH',
      ...this.#sub(this.#target(info, namespace, name, opts.subject), opts.subresource),
      query: { ...this.#writeQuery(opts), force: type === 'apply' && opts.force ? true : undefined },
      body: patch,
      contentType: PATCH_CONTENT_TYPE[type],
      signal: opts.signal,
    });
  }

  delete(info: ResourceInfo, namespace: string, name: string, opts: DeleteOptions = {}): Promise<KubeObject> {
    return this.request({
      verb: 'delete',
      method: 'DELETE',
      ...this.#target(info, namespace, name, opts.subject),
      query: { dryRun: opts.dryRun ? 'All' : undefined, propagationPolicy: opts.propagationPolicy },
      signal: opts.signal,
    });
  }

  /**
   * Opens a watch; resolves once the server answered 200 (so a 410 at open rejects with `ApiError` code
   * 410), then yields events until the server ends the stream or `signal` aborts (then it just ends).
   */
  async watch(
    info: ResourceInfo,
    opts: {
      namespace?: string;
      labelSelector?: string;
      resourceVersion?: string;
      timeoutSeconds?: number;
      signal?: AbortSignal;
    },
  ): Promise<AsyncIterable<WatchEvent>> {
    const target = this.#target(info, opts.namespace);
    const req: RawRequest = {
      verb: 'watch',
      method: 'GET',
      ...target,
      query: {
        watch: true,
        allowWatchBookmarks: true,
        resourceVersion: opts.resourceVersion,
        labelSelector: opts.labelSelector,
        timeoutSeconds: opts.timeoutSeconds,
      },
      signal: opts.signal,
    };
    // The request timeout covers the watch until its stream starts (the server sends the headers at once,
    // and a refusal's Status body in full); the stream itself is the caller's to watch for idleness
    // (docs/timeouts.md).
    const deadline = this.#deadline(req);
    try {
      const res = await this.#send({ ...req, signal: deadline.signal });
      if (res.statusCode !== 200) {
        const failure = await this.#failure(res, target.subject, 'watch', deadline.signal);
        throw deadline.expired() ? deadline.error : failure;
      }
      // The caller's signal ends the stream: it stays linked until the stream closes.
      res.once('close', () => deadline.release());
      return parseWatchStream(res, opts.signal);
    } catch (err) {
      deadline.release();
      if (deadline.expired()) throw deadline.error;
      throw err;
    } finally {
      deadline.clear();
    }
  }

  /** A counted request with retries; resolves with the parsed JSON body. */
  async request<T>(req: RawRequest): Promise<T> {
    const { maxRetries, baseDelayMs, maxDelayMs } = this.#retry;
    for (let attempt = 0; ; attempt++) {
      let error: ApiError;
      // One deadline for the whole answer: headers and body (a body that stalls is timed out too).
      const deadline = this.#deadline(req);
      try {
        const res = await this.#send({ ...req, signal: deadline.signal });
        if (res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300) {
          return JSON.parse(await readBody(res, deadline.signal)) as T;
        }
        error = await this.#failure(res, req.subject, req.verb, deadline.signal);
        if (deadline.expired()) throw deadline.error;
      } catch (err) {
        if (deadline.expired()) throw deadline.error;
        // Credentials are about the kubeconfig user, not this request: reported as they are, never retried.
        if (req.signal?.aborted || err instanceof ApiError || err instanceof CredentialsError) throw err;
        error = new ApiError(req.subject, req.verb, 0, undefined, err);
      } finally {
        deadline.clear();
        deadline.release();
      }
      const retry =
        isRetryable(error) && (req.method === 'GET' || error.code === 429) && attempt < maxRetries;
      if (!retry) throw error;
      const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
      const wait =
        error.retryAfterSeconds !== undefined
          ? Math.min(maxDelayMs, error.retryAfterSeconds * 1000)
          : backoff;
      await sleep(this.#clock, wait, req.signal);
    }
  }

  /**
   * Gets the user's credentials once (runs an exec plugin), so a broken kubeconfig user is reported as
   * such before any request names a resource.
   */
  async checkCredentials(): Promise<void> {
    await this.#authorize({});
  }

  #authorize(opts: https.RequestOptions): Promise<void> {
    const plugin = this.#plugin;
    const base = applyCredentials(this.#kc, opts, this.#context);
    return plugin ? base.then(() => plugin.apply(opts)) : base;
  }

  #target(
    info: ResourceInfo,
    namespace?: string,
    name?: string,
    subject?: string,
  ): { path: string; subject: string; groupKind: string; resource: ResourceInfo; namespace?: string } {
    return {
      path: resourcePath(info, namespace, name),
      subject: subject ?? describe(info, namespace, name),
      groupKind: groupKind(info),
      resource: info,
      ...(info.namespaced && namespace ? { namespace } : {}),
    };
  }

  #sub<T extends { path: string }>(target: T, subresource: string | undefined): T {
    return subresource ? { ...target, path: `${target.path}/${subresource}` } : target;
  }

  #writeQuery(opts: WriteOptions): Record<string, string | undefined> {
    return {
      dryRun: opts.dryRun ? 'All' : undefined,
      fieldManager: opts.fieldManager ?? this.fieldManager,
      fieldValidation: opts.fieldValidation,
    };
  }

  #failure(
    res: http.IncomingMessage,
    subject: string,
    verb: string,
    signal?: AbortSignal,
  ): Promise<ApiError> {
    return failureOf(res, subject, verb, signal);
  }

  /**
   * The `--request-timeout` deadline of one attempt: a signal that aborts (with a Timeout `ApiError`
   * naming the server and context) when the answer is not complete in time, joined with the caller's.
   * An ApiError is never retried: a server that does not answer once will not answer the retry in time.
   */
  #deadline(req: RawRequest): {
    signal: AbortSignal | undefined;
    error: ApiError;
    expired(): boolean;
    /** Stops the timer (the caller's signal still reaches `signal`). */
    clear(): void;
    /** Unhooks `signal` from the caller's (common/signals.ts: no AbortSignal.any on a long-lived signal). */
    release(): void;
  } {
    const ms = this.#requestTimeoutMs;
    // Built only when the deadline passes: an error captures a stack, and most requests answer in time.
    let error: ApiError | undefined;
    const timeout = (): ApiError =>
      (error ??= new ApiError(req.subject, req.verb, 0, {
        message: `no answer from ${this.server} (context ${this.#context}) within ${ms / 1000}s (--request-timeout)`,
        reason: 'Timeout',
      }));
    if (!(ms > 0))
      return {
        signal: req.signal,
        get error() {
          return timeout();
        },
        expired: () => false,
        clear: () => undefined,
        release: () => undefined,
      };
    const timer = new AbortController();
    let timedOut = false;
    const handle = setTimeout(() => {
      timedOut = true;
      timer.abort(timeout());
    }, ms);
    const link = req.signal ? linkedSignal(req.signal, timer.signal) : undefined;
    return {
      signal: link?.signal ?? timer.signal,
      get error() {
        return timeout();
      },
      expired: () => timedOut,
      clear: () => clearTimeout(handle),
      release: () => link?.dispose(),
    };
  }

  async #send(req: RawRequest): Promise<http.IncomingMessage> {
    req.signal?.throwIfAborted();
    this.#count(req);
    let res: http.IncomingMessage;
    try {
      res = await send(
        (opts) => this.#authorize(opts),
        this.server,
        req.verb === 'watch' ? this.#watchAgent : this.#agent,
        req,
      );
    } catch (err) {
      this.#observe(req, 0);
      throw err;
    }
    this.#observe(req, res.statusCode ?? 0);
    if (res.statusCode === 401) this.#plugin?.invalidate();
    return res;
  }

  #observe(req: RawRequest, code: number): void {
    const hook = this.#onRequest;
    if (!hook) return;
    const r = req.resource;
    try {
      hook({
        verb: req.verb,
        method: req.method,
        group: r?.group ?? '',
        version: r?.version ?? '',
        kind: r?.kind ?? '',
        resource: r?.plural ?? '',
        namespace: req.namespace ?? '',
        code,
        dryRun: req.query?.['dryRun'] === 'All',
        server: this.server,
        context: this.#context,
      });
    } catch {
      // An observer never fails a request (metrics are best effort).
    }
  }

  #count(req: RawRequest): void {
    this.#counts.total++;
    this.#counts.byVerb[req.verb] = (this.#counts.byVerb[req.verb] ?? 0) + 1;
    const gk = req.groupKind ?? 'discovery';
    this.#counts.byGroupKind[gk] = (this.#counts.byGroupKind[gk] ?? 0) + 1;
  }
}
