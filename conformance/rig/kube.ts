/**
 * The rig's own small Kubernetes client: HTTPS with a client certificate and a User-Agent of its own, so
 * the audit log never mistakes the rig's writes (or the kubelet stand-in's) for the tool's
 * (`kubectl-gitops/...`) or Argo CD's (`argocd-application-controller/...`). Requests, and watches as
 * newline-delimited JSON.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';

export type Obj = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string } & Record<
    string,
    unknown
  >;
};

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface KubeAuth {
  server: string;
  ca: string;
  cert: string;
  key: string;
  userAgent: string;
}

export class Kube {
  private readonly agent: https.Agent;

  constructor(private readonly auth: KubeAuth) {
    this.agent = new https.Agent({
      ca: readFileSync(auth.ca),
      cert: readFileSync(auth.cert),
      key: readFileSync(auth.key),
      keepAlive: true,
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private open(method: string, path: string, body?: unknown, contentType = 'application/json') {
    const url = new URL(this.auth.server + path);
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    return new Promise<IncomingMessage>((resolve, reject) => {
      const req = https.request(
        url,
        {
          method,
          agent: this.agent,
          headers: {
            Accept: 'application/json',
            'User-Agent': this.auth.userAgent,
            // Content-Length always: Node sends a DELETE's body neither chunked nor sized otherwise.
            ...(payload !== undefined
              ? { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) }
              : {}),
          },
        },
        resolve,
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  async request<T = Obj>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const res = await this.open(method, path, body, contentType);
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const status = res.statusCode ?? 0;
    if (status >= 400) {
      let message = text.slice(0, 300);
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? message;
      } catch {
        // not a Status
      }
      throw new HttpError(status, `${method} ${path}: ${status} ${message}`);
    }
    if (!text) return {} as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      return text as T; // /readyz, /healthz and other plain-text answers
    }
  }

  get<T = Obj>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  /** Creates `obj` at `path`; an AlreadyExists (409) is fine when `ignoreExists`. */
  async create(path: string, obj: Obj, ignoreExists = false): Promise<Obj | undefined> {
    try {
      return await this.request('POST', path, obj);
    } catch (e) {
      if (ignoreExists && e instanceof HttpError && e.status === 409) return undefined;
      throw e;
    }
  }

  /**
   * Watches `path` (a collection) from `resourceVersion`, calling `onEvent` per event, until the stream
   * ends (the server closes watches after a while); resolves with the last resourceVersion seen.
   */
  async watch(
    path: string,
    resourceVersion: string,
    onEvent: (type: string, obj: Obj) => void,
    signal?: AbortSignal,
  ): Promise<string> {
    const sep = path.includes('?') ? '&' : '?';
    const res = await this.open(
      'GET',
      `${path}${sep}watch=1&allowWatchBookmarks=true&resourceVersion=${resourceVersion}`,
    );
    if ((res.statusCode ?? 0) >= 400) {
      res.resume();
      throw new HttpError(res.statusCode ?? 0, `watch ${path}: ${res.statusCode}`);
    }
    signal?.addEventListener('abort', () => res.destroy(), { once: true });
    let rv = resourceVersion;
    let buf = '';
    try {
      for await (const chunk of res) {
        buf += (chunk as Buffer).toString('utf8');
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (!line) continue;
          const ev = JSON.parse(line) as { type: string; object: Obj };
          if (ev.type === 'ERROR') throw new HttpError(410, `watch ${path}: ${JSON.stringify(ev.object)}`);
          rv = ev.object.metadata?.resourceVersion ?? rv;
          if (ev.type !== 'BOOKMARK') onEvent(ev.type, ev.object);
        }
      }
    } catch (e) {
      if (signal?.aborted) return rv;
      throw e;
    }
    return rv;
  }
}
