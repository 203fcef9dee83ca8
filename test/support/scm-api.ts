/**
 * A GitHub and GitLab REST API on loopback for the pull request and SCM provider generators: answers the
 * requests Argo CD's go-github and GitLab client-go make (paths under `/api/v3/` and `/api/v4/`), from
 * the data given, paging lists by `per_page` (GitHub: a `Link: <...>; rel="next"` header; GitLab:
 * `X-Page`, `X-Total-Pages`, `X-Next-Page`), over HTTP or, given a certificate, HTTPS. Every request must carry `token` (GitHub
 * `Authorization: Bearer`, GitLab `PRIVATE-TOKEN`), else 401. `calls` records "METHOD path?query".
 */
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, unknown>;

export interface ScmData {
  /** GitHub `owner/repo` -> pull requests (GitHub's JSON). */
  githubPulls?: Record<string, Json[]>;
  /** GitHub org -> repositories (GitHub's JSON). */
  githubRepos?: Record<string, Json[]>;
  /** GitHub `owner/repo` -> branches (`{name, commit: {sha}}`). */
  githubBranches?: Record<string, Json[]>;
  /** GitHub `owner/repo@branch` -> paths that exist. */
  githubPaths?: Record<string, string[]>;
  /** GitLab project path -> merge requests (GitLab's JSON). */
  gitlabMergeRequests?: Record<string, Json[]>;
  /** GitLab group -> projects (GitLab's JSON, each with `id`, `path`, `namespace.full_path`). */
  gitlabProjects?: Record<string, Json[]>;
  /** GitLab project id -> branches (`{name, commit: {id}}`). */
  gitlabBranches?: Record<string, Json[]>;
}

export interface FakeScmApi {
  url: string;
  calls: string[];
  close(): Promise<void>;
}

export async function fakeScmApi(
  token: string,
  data: ScmData,
  perPage = 2,
  /** Serve HTTPS with this certificate (PEM), as a GitLab with its own CA. */
  tls?: { cert: string; key: string },
): Promise<FakeScmApi> {
  const calls: string[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://x');
    calls.push(`${req.method} ${url.pathname}${url.search}`);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const gh = url.pathname.startsWith('/api/v3/');
    const authorized = gh
      ? req.headers.authorization === `Bearer ${token}`
      : req.headers['private-token'] === token;
    if (!authorized) return send(401, { message: gh ? 'Bad credentials' : '401 Unauthorized' });
    const page = Number(url.searchParams.get('page') ?? '1');
    const paged = (items: Json[]): void => {
      const pages = Math.max(1, Math.ceil(items.length / perPage));
      const slice = items.slice((page - 1) * perPage, page * perPage);
      const headers: Record<string, string> = {};
      if (gh) {
        if (page < pages) {
          const next = new URL(url.toString());
          next.searchParams.set('page', String(page + 1));
          headers['Link'] = `<http://${req.headers.host}${next.pathname}${next.search}>; rel="next"`;
        }
      } else {
        headers['X-Page'] = String(page);
        headers['X-Total-Pages'] = String(pages);
        headers['X-Next-Page'] = page < pages ? String(page + 1) : '';
      }
      send(200, slice, headers);
    };
    const p = decodeURIComponent(url.pathname);
    let m: RegExpExecArray | null;
    if ((m = /^\/api\/v3\/repos\/([^/]+\/[^/]+)\/pulls$/.exec(p))) {
      const pulls = data.githubPulls?.[m[1]!];
      return pulls ? paged(pulls) : send(404, { message: 'Not Found' });
    }
    if ((m = /^\/api\/v3\/orgs\/([^/]+)\/repos$/.exec(p))) return paged(data.githubRepos?.[m[1]!] ?? []);
    if ((m = /^\/api\/v3\/repos\/([^/]+\/[^/]+)\/branches$/.exec(p)))
      return paged(data.githubBranches?.[m[1]!] ?? []);
    if ((m = /^\/api\/v3\/repos\/([^/]+\/[^/]+)\/branches\/(.+)$/.exec(p))) {
      const b = (data.githubBranches?.[m[1]!] ?? []).find((x) => x['name'] === m![2]);
      return b ? send(200, b) : send(404, { message: 'Branch not found' });
    }
    if ((m = /^\/api\/v3\/repos\/([^/]+\/[^/]+)\/contents\/(.+)$/.exec(p))) {
      const paths = data.githubPaths?.[`${m[1]}@${url.searchParams.get('ref')}`] ?? [];
      return paths.includes(m[2]!) ? send(200, { path: m[2] }) : send(404, { message: 'Not Found' });
    }
    if ((m = /^\/api\/v4\/projects\/(.+)\/merge_requests$/.exec(p))) {
      const mrs = data.gitlabMergeRequests?.[m[1]!];
      if (!mrs) return send(404, { message: '404 Project Not Found' });
      const labels = url.searchParams.get('labels')?.split(',') ?? [];
      const state = url.searchParams.get('state');
      return paged(
        mrs.filter(
          (mr) =>
            labels.every((l) => ((mr['labels'] as string[] | undefined) ?? []).includes(l)) &&
            (!state || mr['state'] === state),
        ),
      );
    }
    if ((m = /^\/api\/v4\/groups\/([^/]+)\/projects$/.exec(p)))
      return paged(data.gitlabProjects?.[m[1]!] ?? []);
    if ((m = /^\/api\/v4\/projects\/([^/]+)\/repository\/branches$/.exec(p)))
      return paged(data.gitlabBranches?.[m[1]!] ?? []);
    if ((m = /^\/api\/v4\/projects\/([^/]+)\/repository\/branches\/(.+)$/.exec(p))) {
      const b = (data.gitlabBranches?.[m[1]!] ?? []).find((x) => x['name'] === m![2]);
      return b ? send(200, b) : send(404, { message: '404 Branch Not Found' });
    }
    send(404, { message: 'Not Found' });
  };
  const server = tls ? createHttpsServer(tls, handler) : createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, calls, close: () => new Promise<void>((r) => server.close(() => r())) };
}
