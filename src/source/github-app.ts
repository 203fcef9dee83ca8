/**
 * GitHub App credentials -> an installation access token, as Argo CD's GitHubAppCreds does with
 * ghinstallation (util/git/creds.go getInstallationTransport, DiscoverGitHubAppInstallationID):
 * 1. a JWT signed RS256 with the app's private key (node:crypto): `iss` = app id, `iat` = now - 60 s (clock
 *    drift), `exp` = now + 10 min (GitHub's maximum);
 * 2. without an installation id, `GET <api>/orgs/<org>/installation` (org = first path segment of the
 *    repository URL) finds it;
 * 3. `POST <api>/app/installations/<id>/access_tokens` returns `{token, expires_at}`.
 * `<api>` is `githubAppEnterpriseBaseUrl` (trailing "/" removed) or https://api.github.com.
 * Tokens are cached per (key, app, installation, api) until one minute before `expires_at`; discovered
 * installation ids per (app, api, org) for the life of the instance.
 * Errors name the API URL and the HTTP status, never the key, the JWT or the token.
 * HTTP goes through an injectable `fetch` (tests: a loopback server that checks the signature).
 */
import { createPrivateKey, createHash, sign } from 'node:crypto';

export interface GitHubAppRequest {
  appId: number;
  installationId: number;
  privateKey: string;
  /** githubAppEnterpriseBaseUrl ("" = api.github.com). */
  baseUrl: string;
  repoURL: string;
}

export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; signal?: AbortSignal },
) => Promise<{ status: number; text(): Promise<string> }>;

export interface GitHubAppTokensOptions {
  fetch?: FetchLike;
  now?: () => number;
  signal?: AbortSignal;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** A GitHub App JWT (RS256) for `appId`, issued at `nowMs`. */
export function appJWT(appId: number, privateKey: string, nowMs: number): string {
  const key = createPrivateKey(privateKey);
  const now = Math.floor(nowMs / 1000);
  const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const payload = b64url(JSON.stringify({ iat: now - 60, exp: now + 600, iss: String(appId) }));
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), key);
  return `${header}.${payload}.${b64url(signature)}`;
}

/** The organization (owner) of a repository URL: its first path segment. */
export function orgOfRepoURL(url: string): string {
  const path = url.includes('://')
    ? url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '')
    : url.replace(/^[^:]*:/, '');
  return path.split('/').filter(Boolean)[0] ?? '';
}

export class GitHubAppTokens {
  private readonly cache = new Map<string, { token: string; expires: number }>();
  /** Installation ids found per (app, API, organization). */
  private readonly installations = new Map<string, number>();
  private readonly fetch: FetchLike;
  private readonly now: () => number;

  constructor(private readonly options: GitHubAppTokensOptions = {}) {
    this.fetch = options.fetch ?? (globalThis.fetch as unknown as FetchLike);
    this.now = options.now ?? Date.now;
  }

  async token(req: GitHubAppRequest): Promise<string> {
    const api = (req.baseUrl || 'https://api.github.com').replace(/\/+$/, '');
    let jwt: string;
    try {
      jwt = appJWT(req.appId, req.privateKey, this.now());
    } catch {
      throw new Error(
        `failed to sign a GitHub App JWT for app ${req.appId}: githubAppPrivateKey is not a valid PEM private key`,
      );
    }
    const org = req.installationId ? '' : orgOfRepoURL(req.repoURL);
    const discoveryKey = `${req.appId} ${api} ${org}`;
    let installation = req.installationId || (this.installations.get(discoveryKey) ?? 0);
    if (!installation) {
      if (!org) throw new Error('failed to find the GitHub App installation: the URL names no organization');
      const body = await this.call('GET', `${api}/orgs/${encodeURIComponent(org)}/installation`, jwt, 200);
      installation = Number((body as { id?: unknown }).id);
      if (!Number.isInteger(installation) || installation <= 0)
        throw new Error(
          `failed to find the GitHub App installation of ${org}: no id in the answer of ${api}`,
        );
      this.installations.set(discoveryKey, installation);
    }
    const key = createHash('sha256')
      .update(`${req.privateKey} ${req.appId} ${installation} ${api}`)
      .digest('hex');
    const hit = this.cache.get(key);
    if (hit && hit.expires - 60_000 > this.now()) return hit.token;
    const body = (await this.call(
      'POST',
      `${api}/app/installations/${installation}/access_tokens`,
      jwt,
      201,
    )) as { token?: unknown; expires_at?: unknown };
    if (typeof body.token !== 'string' || !body.token)
      throw new Error(`failed to get a GitHub App installation token from ${api}: no token in the answer`);
    const expires = typeof body.expires_at === 'string' ? Date.parse(body.expires_at) : NaN;
    this.cache.set(key, {
      token: body.token,
      expires: Number.isNaN(expires) ? this.now() + 3_600_000 : expires,
    });
    return body.token;
  }

  private async call(method: string, url: string, jwt: string, expect: number): Promise<unknown> {
    let res: { status: number; text(): Promise<string> };
    try {
      res = await this.fetch(url, {
        method,
        headers: {
          Authorization: `Bearer ${jwt}`,
          Accept: 'application/vnd.github+json',
          'X-GitHub-Api-Version': '2022-11-28',
          'User-Agent': 'kubectl-gitops',
        },
        ...(this.options.signal ? { signal: this.options.signal } : {}),
      });
    } catch (err) {
      throw new Error(`failed to reach the GitHub API at ${url}: ${(err as Error).message}`);
    }
    const text = await res.text();
    if (res.status !== expect && !(res.status >= 200 && res.status < 300)) {
      let why = '';
      try {
        const m = (JSON.parse(text) as { message?: unknown }).message;
        if (typeof m === 'string') why = `: ${m.slice(0, 200)}`;
      } catch {
        // not JSON
      }
      throw new Error(`failed to get a GitHub App token: ${method} ${url} answered ${res.status}${why}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(`failed to get a GitHub App token: ${method} ${url} answered with invalid JSON`);
    }
  }
}
