/**
 * `MetricsServer`: the probe and metrics endpoint of a long-running command (`--metrics-addr`), on Node's
 * http server. Routes (GET and HEAD; other methods 405, other paths 404):
 * - `/metrics`: the registry's exposition, with the registry's content type (Argo CD's `MetricsPath`);
 * - `/healthz`: 200 "ok" while the process serves (Argo CD's controller answers its probe on this path);
 * - `/readyz`: 200 "ok" when `ready()` returns true, else 503 with the reason it returned, on one line
 *   (e.g. "live caches are syncing", "waiting for a shard"); a `ready` that throws is a 503 with its message.
 * `--metrics-addr` is `host:port`; `:port` listens on every interface, port 0 picks a free one (tests);
 * `[::1]:9090` for IPv6. `close()` (or the `signal`) stops accepting, ends open connections and resolves
 * when the server is closed; it is idempotent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError, oneLine } from '../common/index.js';

/** True when ready, else the one-line reason why not. */
export type Readiness = () => true | string | Promise<true | string>;

export interface MetricsServerOptions {
  /** `host:port`, `:port` (all interfaces), port 0 for any free port. */
  addr: string;
  /** The exposition source (a `Metrics`). */
  metrics: { text(): Promise<string>; readonly contentType: string };
  /** Readiness for `/readyz`; default: always ready. */
  ready?: Readiness;
  /** Aborting closes the server. */
  signal?: AbortSignal;
}

/** `host:port` parsed; `host` undefined = every interface. Throws a UsageError naming the flag. */
export function parseMetricsAddr(addr: string): { host: string | undefined; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(addr.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || !(port >= 0 && port <= 65535))
    throw new UsageError(`failed to parse "${addr}": expected host:port, :port or [ipv6]:port`, {
      subject: '--metrics-addr',
    });
  const host = m[1] ?? m[2];
  return { host: host ? host : undefined, port };
}

export class MetricsServer {
  readonly #o: MetricsServerOptions;
  readonly #server: http.Server;
  #closing: Promise<void> | undefined;

  constructor(options: MetricsServerOptions) {
    this.#o = options;
    this.#server = http.createServer((req, res) => void this.#handle(req, res));
  }

  /** Listens; resolves with the bound address (the real port when 0 was asked for). */
  async listen(): Promise<{ host: string; port: number; url: string }> {
    const { host, port } = parseMetricsAddr(this.#o.addr);
    await new Promise<void>((resolve, reject) => {
      const fail = (err: Error): void =>
        reject(
          new UsageError(`failed to listen: ${oneLine(err)}`, { subject: `--metrics-addr ${this.#o.addr}` }),
        );
      this.#server.once('error', fail);
      this.#server.listen({ port, ...(host ? { host } : {}) }, () => {
        this.#server.off('error', fail);
        resolve();
      });
    });
    const signal = this.#o.signal;
    if (signal) {
      const onAbort = (): void => void this.close();
      if (signal.aborted) await this.close();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        this.#server.once('close', () => signal.removeEventListener('abort', onAbort));
      }
    }
    const a = this.#server.address() as AddressInfo;
    const shown = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    return { host: a.address, port: a.port, url: `http://${shown}:${a.port}` };
  }

  /** Stops listening and ends open connections (keep-alive scrapers); idempotent. */
  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      if (!this.#server.listening) return resolve();
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
    return this.#closing;
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const send = (code: number, body: string, type = 'text/plain; charset=utf-8'): void => {
      res.writeHead(code, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (!['/metrics', '/healthz', '/readyz'].includes(path)) return send(404, 'not found\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return send(405, 'method not allowed\n');
    }
    try {
      if (path === '/healthz') return send(200, 'ok\n');
      if (path === '/readyz') {
        const verdict = this.#o.ready ? await this.#o.ready() : true;
        return verdict === true ? send(200, 'ok\n') : send(503, `${oneLine(verdict) || 'not ready'}\n`);
      }
      const text = await this.#o.metrics.text();
      return send(200, text, this.#o.metrics.contentType);
    } catch (err) {
      return send(path === '/readyz' ? 503 : 500, `${oneLine(err)}\n`);
    }
  }
}
