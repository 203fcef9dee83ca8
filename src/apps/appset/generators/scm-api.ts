/**
 * The GitHub and GitLab REST APIs as Argo CD's pull request and SCM provider generators call them
 * (argo-cd `applicationset/services/pull_request/{github,gitlab}.go`,
 * `applicationset/services/scm_provider/{github,gitlab}.go`, through go-github and GitLab's client-go):
 *
 * - GitHub: base `https://api.github.com/`, or `api` as an enterprise URL (go-github WithEnterpriseURLs:
 *   a trailing `/` added, then `api/v3/` unless the path already ends so or the host is `api.*` /
 *   `*.api.*`); `Authorization: Bearer <token>`
 *   when there is a token; pages of 100 followed through the `Link: <...>; rel="next"` header.
 * - GitLab: base `https://gitlab.com/api/v4/`, or `api` (WithBaseURL: `/` then `api/v4/` added unless
 *   present); `PRIVATE-TOKEN: <token>`; pages of 100 followed through `X-Next-Page` (group projects:
 *   until `X-Page` >= `X-Total-Pages`, as the provider loops).
 * - An answer other than 2xx is an error naming the method, URL and status, with GitHub's / GitLab's
 *   `message` when the body has one. Tokens never appear in errors.
 */
import { request as httpsRequest } from 'node:https';
import { TemplateError } from '../template.js';

export type Fetch = typeof fetch;

/**
 * A fetch with its own TLS settings (GitLab's `insecure` and `caRef`, `--scm-root-ca-path`:
 * utils.GetTlsConfig): `ca` (PEM) replaces the system's CAs, as Go's RootCAs does; `insecure` verifies
 * nothing. GET only, the body read whole; other protocols go to `fetch`.
 */
export function tlsFetch(o: { ca?: string | undefined; insecure?: boolean | undefined }): Fetch {
  return ((input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== 'https:') return fetch(url, init);
    return new Promise<Response>((resolve, reject) => {
      const req = httpsRequest(
        url,
        {
          method: 'GET',
          headers: (init?.headers ?? {}) as Record<string, string>,
          rejectUnauthorized: o.insecure !== true,
          ...(o.ca ? { ca: o.ca } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const headers = new Headers();
            for (const [k, v] of Object.entries(res.headers))
              if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
            const status = res.statusCode ?? 500;
            const empty = status === 204 || status === 304;
            resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers }));
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
  }) as Fetch;
}

export interface ApiAnswer {
  status: number;
  body: unknown;
  headers: Headers;
}

/** One request; `ok` statuses are returned, every other is thrown unless listed in `allow`. */
export async function apiGet(
  doFetch: Fetch,
  url: string,
  headers: Record<string, string>,
  allow: readonly number[] = [],
): Promise<ApiAnswer> {
  let res: Response;
  try {
    res = await doFetch(url, { headers: { Accept: 'application/json', ...headers } });
  } catch (err) {
    throw new TemplateError(`GET ${url}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    /* a non-JSON body stays text */
  }
  if (!res.ok && !allow.includes(res.status)) {
    const message =
      typeof body === 'object' && body !== null && typeof (body as { message?: unknown }).message === 'string'
        ? (body as { message: string }).message
        : '';
    throw new ApiStatusError(`GET ${url}: ${res.status}${message ? ` ${message}` : ''}`, res.status);
  }
  return { status: res.status, body, headers: res.headers };
}

export class ApiStatusError extends TemplateError {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export function githubBase(api: string | undefined): string {
  if (!api) return 'https://api.github.com/';
  const u = new URL(api);
  if (!u.pathname.endsWith('/')) u.pathname += '/';
  if (!u.pathname.endsWith('/api/v3/') && !u.hostname.startsWith('api.') && !u.hostname.includes('.api.'))
    u.pathname += 'api/v3/';
  return u.toString();
}

export function gitlabBase(api: string | undefined): string {
  if (!api) return 'https://gitlab.com/api/v4/';
  let base = api.endsWith('/') ? api : `${api}/`;
  if (!base.endsWith('/api/v4/')) base += 'api/v4/';
  return base;
}

export const githubHeaders = (token: string): Record<string, string> =>
  token ? { Authorization: `Bearer ${token}` } : {};
export const gitlabHeaders = (token: string): Record<string, string> =>
  token ? { 'PRIVATE-TOKEN': token } : {};

/** The `rel="next"` URL of a GitHub `Link` header. */
function nextLink(headers: Headers): string | undefined {
  const link = headers.get('link') ?? '';
  for (const part of link.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="next"/.exec(part);
    if (m) return m[1];
  }
  return undefined;
}

/** Every item of a paged GitHub list (arrays of objects), following `Link` rel="next". */
export async function githubPages(
  doFetch: Fetch,
  first: string,
  headers: Record<string, string>,
  allow: readonly number[] = [],
): Promise<{ items: Record<string, unknown>[]; status: number }> {
  const items: Record<string, unknown>[] = [];
  let url: string | undefined = first;
  while (url) {
    const res = await apiGet(doFetch, url, headers, allow);
    if (!res.headers || res.status >= 300) return { items, status: res.status };
    if (Array.isArray(res.body)) items.push(...(res.body as Record<string, unknown>[]));
    url = nextLink(res.headers);
  }
  return { items, status: 200 };
}

/** Every item of a paged GitLab list, following `X-Next-Page` on the same URL. */
export async function gitlabPages(
  doFetch: Fetch,
  first: string,
  headers: Record<string, string>,
  allow: readonly number[] = [],
  untilTotal = false,
): Promise<{ items: Record<string, unknown>[]; status: number }> {
  const items: Record<string, unknown>[] = [];
  let page = '';
  for (;;) {
    const url = page ? `${first}${first.includes('?') ? '&' : '?'}page=${page}` : first;
    const res = await apiGet(doFetch, url, headers, allow);
    if (res.status >= 300) return { items, status: res.status };
    if (Array.isArray(res.body)) items.push(...(res.body as Record<string, unknown>[]));
    if (untilTotal) {
      const current = Number(res.headers.get('x-page') ?? '0');
      const total = Number(res.headers.get('x-total-pages') ?? '0');
      if (current >= total) break;
    }
    page = res.headers.get('x-next-page') ?? '';
    if (!page || page === '0') break;
  }
  return { items, status: 200 };
}
