/**
 * HTTP plumbing of `KubeClient`: one request over Node's http/https with the kubeconfig's auth and TLS,
 * `Status` bodies turned into `ApiError`s, and watch streams parsed as newline-delimited JSON. With `-v 6`
 * or more (src/cli/verbosity.ts) each request is logged to stderr with its status and time, as kubectl does.
 * Every request (reads, lists, watches, writes, discovery: they all go through `send`) carries our
 * User-Agent, `kubectl-gitops/<version> (<os>/<arch>)` (src/common/user-agent.ts), as kubectl sends its own.
 */
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { logAt, REQUEST_LOG_LEVEL, userAgent } from '../common/index.js';
import { keepTokenFiles } from './kubeconfig.js';
import { ApiError } from './errors.js';
import type { StatusBody } from './errors.js';
import type { RawRequest, WatchEvent } from './client-types.js';

export async function failureOf(
  res: http.IncomingMessage,
  subject: string,
  verb: string,
  signal?: AbortSignal,
): Promise<ApiError> {
  // The body is the Status that says why; one that stalls ends with `signal` (the request's deadline),
  // and the caller reports the deadline rather than a status with no message.
  const text = await readBody(res, signal).catch(() => '');
  let status: StatusBody | undefined;
  try {
    status = JSON.parse(text) as StatusBody;
  } catch {
    status = text ? { message: text.slice(0, 200) } : undefined;
  }
  const retryAfter = Number(res.headers['retry-after']);
  return new ApiError(
    subject,
    verb,
    res.statusCode ?? 0,
    status,
    undefined,
    Number.isFinite(retryAfter) ? retryAfter : undefined,
  );
}

/** Puts a request's credentials (Authorization header, client certificate, TLS settings) on its options. */
export type Authorize = (opts: https.RequestOptions) => Promise<void>;

export async function send(
  authorize: Authorize,
  server: string,
  agent: http.Agent,
  req: RawRequest,
): Promise<http.IncomingMessage> {
  const url = new URL(server + req.path);
  for (const [k, v] of Object.entries(req.query ?? {}))
    if (v !== undefined) url.searchParams.set(k, String(v));
  const opts: https.RequestOptions = {
    method: req.method,
    headers: { Accept: 'application/json', 'User-Agent': userAgent() },
  };
  await authorize(opts);
  opts.agent = agent;
  const payload =
    req.body === undefined ? undefined : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
  if (payload !== undefined) {
    opts.headers = { ...opts.headers, 'Content-Type': req.contentType ?? 'application/json' };
  }
  const mod = url.protocol === 'https:' ? https : http;
  req.signal?.throwIfAborted(); // it may have aborted while auth was applied
  const started = performance.now();
  return new Promise<http.IncomingMessage>((resolve, reject) => {
    const r = mod.request(url, opts, (res) => {
      logAt(
        REQUEST_LOG_LEVEL,
        `${req.method} ${url.href} ${res.statusCode ?? 0} ${res.statusMessage ?? ''} in ${Math.round(performance.now() - started)} milliseconds`.replace(
          '  ',
          ' ',
        ),
      );
      resolve(res);
    });
    const onAbort = (): void => {
      r.destroy(req.signal?.reason instanceof Error ? req.signal.reason : new Error('aborted'));
    };
    req.signal?.addEventListener('abort', onAbort, { once: true });
    r.on('close', () => req.signal?.removeEventListener('abort', onAbort));
    r.on('error', (err) => {
      logAt(
        REQUEST_LOG_LEVEL,
        `${req.method} ${url.href} failed in ${Math.round(performance.now() - started)} milliseconds: ${err.message}`,
      );
      reject(err);
    });
    r.end(payload);
  });
}

/**
 * client-node refuses plain-HTTP servers unless the cluster sets insecure-skip-tls-verify (kubectl does
 * not); TLS settings mean nothing over plain HTTP, so auth is taken from a copy that sets it.
 */
export function plainHttpConfig(kc: KubeConfig): KubeConfig {
  const current = kc.getCurrentCluster();
  const copy = new (kc.constructor as new () => KubeConfig)();
  copy.loadFromOptions({
    clusters: kc.getClusters().map((c) => (c.name === current?.name ? { ...c, skipTLSVerify: true } : c)),
    users: kc.getUsers(),
    contexts: kc.getContexts(),
    currentContext: kc.getCurrentContext(),
  });
  keepTokenFiles(kc, copy);
  return copy;
}

/** The whole body; `signal` aborting (a request deadline) destroys the response and rejects with its reason. */
export function readBody(res: http.IncomingMessage, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onAbort = (): void => {
      const reason: unknown = signal?.reason;
      reject(reason instanceof Error ? reason : new Error('aborted'));
      res.destroy();
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    res.on('close', () => signal?.removeEventListener('abort', onAbort));
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    res.on('aborted', () => reject(new Error('response aborted')));
  });
}

/**
 * Newline-delimited JSON watch events; throws when the connection fails. Once `signal` (the caller's) has
 * aborted, the stream just ends: over TLS the destroyed socket surfaces as an "aborted" (ECONNRESET) error,
 * over plain HTTP as an end, and the caller asked for neither.
 */
export async function* parseWatchStream(
  res: http.IncomingMessage,
  signal?: AbortSignal,
): AsyncGenerator<WatchEvent> {
  let buffered = '';
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (line) yield JSON.parse(line) as WatchEvent;
      }
    }
    if (buffered.trim()) yield JSON.parse(buffered) as WatchEvent;
  } catch (err) {
    if (!signal?.aborted) throw err;
  } finally {
    res.destroy();
  }
}
