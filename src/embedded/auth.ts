/**
 * Authentication of the embedded server, off unless configured (then every request needs credentials, as
 * kube-apiserver with `--anonymous-auth=false`): client certificates signed by `clientCA` (kube-apiserver's
 * `--client-ca-file`; the user is the certificate's CN), bearer tokens (`--token-auth-file`, statically
 * known tokens, each with a user name), and basic auth (the removed `--basic-auth-file`, or an
 * authenticating front proxy: kube-apiserver itself has not taken passwords since 1.19).
 *
 * A request that presents no credentials, an unknown token or a wrong password is answered as
 * kube-apiserver's authentication filter answers (k8s.io/apiserver pkg/endpoints/filters/authentication.go
 * `Unauthorized`, responsewriters.go): 401 with a Status body {message "Unauthorized", reason
 * "Unauthorized", code 401}, before routing, so no handler (and no request counter) sees it. Credentials
 * are compared in constant time and never echoed.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';

export interface EmbeddedAuthOptions {
  /** Bearer token -> user name. */
  tokens?: Record<string, string>;
  /** Basic-auth user name -> password. */
  basic?: Record<string, string>;
  /** CA bundle (PEM) client certificates must be signed by; needs the server's `tls`. */
  clientCA?: string | Buffer;
}

const same = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The user a request authenticates as, or undefined when it does not. */
export function authenticate(req: IncomingMessage, options: EmbeddedAuthOptions): string | undefined {
  // x509 first, as kube-apiserver's union authenticator: a verified client certificate names the user.
  const socket = req.socket as Partial<TLSSocket>;
  if (options.clientCA && socket.authorized) {
    const cn = socket.getPeerCertificate?.()?.subject?.CN;
    if (typeof cn === 'string' && cn) return cn;
  }
  const header = req.headers['authorization'] ?? '';
  const [scheme, value = ''] = header.split(/\s+/, 2);
  if (scheme?.toLowerCase() === 'bearer' && value) {
    for (const [token, user] of Object.entries(options.tokens ?? {})) if (same(token, value)) return user;
    return undefined;
  }
  if (scheme?.toLowerCase() === 'basic' && value) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    const user = decoded.slice(0, colon);
    const password = options.basic?.[user];
    return password !== undefined && same(password, decoded.slice(colon + 1)) ? user : undefined;
  }
  return undefined;
}

/** kube-apiserver's answer to a request that failed authentication. */
export function sendUnauthorized(res: ServerResponse): void {
  const body = JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Unauthorized',
    reason: 'Unauthorized',
    code: 401,
  });
  res.writeHead(401, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}
