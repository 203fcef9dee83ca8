/**
 * A GitHub API on loopback for GitHub App tests: every request must carry a JWT whose RS256 signature
 * verifies with `publicKey`, issued by `appId`, valid at most 11 minutes (GitHub's rule), else 401 with
 * GitHub's message. `GET /api/v3/orgs/<org>/installation` answers the ids of `installations`;
 * `POST /api/v3/app/installations/<id>/access_tokens` answers 201 with token `ghs_token_for_<id>` valid
 * one hour. `calls` records "METHOD path"; `base` is the enterprise base URL (`.../api/v3/`).
 */
import { verify, type KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeGitHubApi {
  calls: string[];
  base: string;
  close(): Promise<void>;
}

export async function fakeGitHubApi(
  publicKey: KeyObject,
  installations: Record<string, number>,
  appId = '42',
): Promise<FakeGitHubApi> {
  const calls: string[] = [];
  const server = createServer((req, res) => {
    calls.push(`${req.method} ${req.url}`);
    const jwt = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const [h, p, s] = jwt.split('.');
    const ok =
      h &&
      p &&
      s &&
      verify('sha256', Buffer.from(`${h}.${p}`), publicKey, Buffer.from(s, 'base64url')) &&
      (JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg: string }).alg === 'RS256';
    const claims = ok
      ? (JSON.parse(Buffer.from(p, 'base64url').toString()) as { iss: string; exp: number; iat: number })
      : undefined;
    if (!claims || claims.iss !== appId || claims.exp - claims.iat > 660) {
      res.writeHead(401, { 'Content-Type': 'application/json' });
      res.end('{"message":"A JSON web token could not be decoded"}');
      return;
    }
    const org = /^\/api\/v3\/orgs\/([^/]+)\/installation$/.exec(req.url ?? '')?.[1];
    if (req.method === 'GET' && org && installations[org]) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ id: installations[org] }));
      return;
    }
    const inst = /^\/api\/v3\/app\/installations\/(\d+)\/access_tokens$/.exec(req.url ?? '')?.[1];
    if (req.method === 'POST' && inst) {
      res.writeHead(201, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          token: `ghs_token_for_${inst}`,
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      );
      return;
    }
    res.writeHead(404);
    res.end('{"message":"Not Found"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v3/`;
  return { calls, base, close: () => new Promise<void>((r) => server.close(() => r())) };
}
