/**
 * A forwarding HTTP proxy in front of a test API server, for faults a server does not make on its own:
 * `intercept` may answer a request itself (or never answer it) and returns true; every other request is
 * forwarded as is, the answer's headers sent at once (as kube-apiserver sends a watch's) and its body
 * streamed. In front of the real server (KG_TEST_SERVER) it forwards over TLS with the rig's admin
 * certificate, so its clients need no credentials, as on the embedded server.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { realServer } from './test-server.js';

export interface TestProxy {
  /** The proxy's URL (http://127.0.0.1:<port>). */
  url: string;
  close(): Promise<void>;
}

export async function startProxy(
  upstreamUrl: string,
  intercept: (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => boolean,
): Promise<TestProxy> {
  const upstream = new URL(upstreamUrl);
  const tls =
    upstream.protocol === 'https:' && realServer
      ? { ca: realServer.ca, cert: realServer.cert, key: realServer.key }
      : undefined;
  // Connections to the real server are kept (a TLS handshake per request is slow on a loaded machine).
  const agent = tls ? new https.Agent({ keepAlive: true, ...tls }) : undefined;
  const server = http.createServer((req, res) => {
    if (intercept(req, res, new URL(req.url ?? '/', 'http://proxy'))) return;
    const out = (tls ? https : http).request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: upstream.host },
        ...(agent ? { agent } : {}),
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      agent?.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
