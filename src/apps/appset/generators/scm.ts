/**
 * The `pullRequest` and `scmProvider` generators for GitHub and GitLab, as Argo CD's ApplicationSet
 * controller runs them (argo-cd `applicationset/generators/pull_request.go`, `scm_provider.go`,
 * `applicationset/services/pull_request/{github,gitlab,utils}.go`,
 * `applicationset/services/scm_provider/{github,gitlab,utils}.go`; the HTTP calls: scm-api.ts):
 *
 * - Tokens: `tokenRef: {secretName, key}` read from a Secret of the ApplicationSet's namespace
 *   (utils.GetSecretRef: "error fetching secret <ns>/<name>: ...", `key "<k>" in secret <ns>/<name> not
 *   found`); no `tokenRef`: the controller's `GITHUB_TOKEN` / `GITLAB_TOKEN` environment, as Argo CD's.
 * - pullRequest: the open pull requests (GitHub: `labels` must all be on the PR; GitLab: `labels` and
 *   `pullRequestState` are query filters), then `filters` (a PR is kept when one filter's
 *   branchMatch/targetBranchMatch/titleMatch regexps all match). Parameters: `number`, `title`, `branch`,
 *   `branch_slug`, `target_branch`, `target_branch_slug` (gosimple/slug with MaxLength 50 and `_` -> `-`),
 *   `head_sha`, `head_short_sha` (8), `head_short_sha_7`, `author`, with goTemplate `labels` (a list),
 *   then `values`. A 404 with `continueOnRepoNotFoundError` gives no parameters.
 * - scmProvider: the organization's / group's repositories (`cloneProtocol` ssh or https), `filters` on
 *   the repository (repositoryMatch, labelMatch) then on each branch (branchMatch, pathsExist,
 *   pathsDoNotExist), the default branch or every branch (`allBranches`). Parameters: `organization`,
 *   `repository`, `repository_id` (a number: fasttemplate leaves `{{repository_id}}` as written, as Go's
 *   does), `url`, `branch`, `sha`, `short_sha`, `short_sha_7`, `labels` (comma-joined), `branchNormalized`,
 *   then `values`.
 * - Only GitHub and GitLab with tokens: GitHub App credentials (`appSecretName`), Gitea, Bitbucket, Azure
 *   DevOps and AWS CodeCommit are errors naming them.
 */
import type { Params } from '../template.js';
import { sanitizeName, TemplateError } from '../template.js';
import type { Json, GeneratorContext, ScmAccess } from './params.js';
import { appendValues, isMap } from './params.js';
import {
  apiGet,
  githubBase,
  githubHeaders,
  githubPages,
  gitlabBase,
  gitlabHeaders,
  gitlabPages,
} from './scm-api.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function scmOf(ctx: GeneratorContext, kind: string, where: string): ScmAccess {
  if (!ctx.scm)
    throw new TemplateError(
      `${where}: the ${kind} generator is not supported locally (it needs a remote API)`,
    );
  return ctx.scm;
}

async function tokenOf(scm: ScmAccess, ref: unknown, envName: string, where: string): Promise<string> {
  if (ref === undefined || ref === null) return (scm.env ?? process.env)[envName] ?? '';
  if (!isMap(ref) || typeof ref['secretName'] !== 'string' || typeof ref['key'] !== 'string')
    throw new TemplateError(`${where}.tokenRef: needs secretName and key`);
  return scm.secret(ref['secretName'], ref['key']);
}

function allowed(scm: ScmAccess, api: string): void {
  const list = scm.allowedProviders ?? [];
  if (api === '' || list.length === 0 || list.includes(api)) return;
  throw new TemplateError(
    `scm provider not allowed: scm provider "${api}" not allowed, must use one of the following: ${list.join(', ')}`,
  );
}

/** Go's regexp.Compile, as far as JavaScript's RegExp shares its syntax. */
function compile(source: unknown, what: string): RegExp | undefined {
  if (source === undefined || source === null) return undefined;
  try {
    return new RegExp(String(source));
  } catch (err) {
    throw new TemplateError(
      `error compiling ${what} regexp "${String(source)}": ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** gosimple/slug `Make` with Argo CD's settings (MaxLength 50, `_` -> `-`, smart truncation). */
export function slugMake(s: string): string {
  let out = s.trim().replaceAll('_', '-');
  out = [...out]
    .map(
      (c) =>
        ({ '&': 'and', '@': 'at', '"': '', "'": '', '’': '', '‒': '-', '–': '-', '—': '-', '―': '-' })[c] ??
        c,
    )
    .join('');
  // unidecode: Latin letters lose their accents (other scripts are not transliterated here).
  out = out.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  out = out
    .toLowerCase()
    .replace(/[^a-zA-Z0-9\-_]/g, '-')
    .replace(/-+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
  const max = 50;
  if (out.length <= max) return out;
  for (let i = max; i >= 0; i--) if (out[i] === '-') return out.slice(0, i);
  return out.slice(0, max);
}

interface PullRequest {
  number: number;
  title: string;
  branch: string;
  targetBranch: string;
  headSha: string;
  labels: string[];
  author: string;
}

class RepoNotFound extends TemplateError {}

async function githubPulls(scm: ScmAccess, gh: Json, where: string): Promise<PullRequest[]> {
  const doFetch = scm.fetch ?? fetch;
  if (str(gh['appSecretName']))
    throw new TemplateError(`${where}: GitHub App credentials (appSecretName) are not supported`);
  const token = await tokenOf(scm, gh['tokenRef'], 'GITHUB_TOKEN', `${where}.github`).catch(
    (err: unknown) => {
      throw new TemplateError(
        `error fetching Secret token: ${err instanceof Error ? err.message : String(err)}`,
      );
    },
  );
  const owner = str(gh['owner']);
  const repo = str(gh['repo']);
  const want = Array.isArray(gh['labels']) ? gh['labels'].map(String) : [];
  const url = `${githubBase(str(gh['api']))}repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/pulls?per_page=100`;
  const { items, status } = await githubPages(doFetch, url, githubHeaders(token), [404]);
  if (status === 404)
    throw new RepoNotFound(`error listing pull requests for ${owner}/${repo}: GET ${url}: 404 Not Found`);
  const out: PullRequest[] = [];
  for (const pr of items) {
    const names = (Array.isArray(pr['labels']) ? pr['labels'] : []).map((l) =>
      str(isMap(l) ? l['name'] : ''),
    );
    if (!want.every((w) => names.includes(w))) continue;
    const head = isMap(pr['head']) ? pr['head'] : {};
    const base = isMap(pr['base']) ? pr['base'] : {};
    out.push({
      number: Number(pr['number']),
      title: str(pr['title']),
      branch: str(head['ref']),
      targetBranch: str(base['ref']),
      headSha: str(head['sha']),
      labels: names,
      author: str(isMap(pr['user']) ? pr['user']['login'] : ''),
    });
  }
  return out;
}

async function gitlabMergeRequests(scm: ScmAccess, gl: Json, where: string): Promise<PullRequest[]> {
  const doFetch = scm.fetch ?? fetch;
  const token = await tokenOf(scm, gl['tokenRef'], 'GITLAB_TOKEN', `${where}.gitlab`).catch(
    (err: unknown) => {
      throw new TemplateError(
        `error fetching Secret token: ${err instanceof Error ? err.message : String(err)}`,
      );
    },
  );
  const project = str(gl['project']);
  const q = new URLSearchParams();
  const labels = Array.isArray(gl['labels']) ? gl['labels'].map(String) : [];
  if (labels.length > 0) q.set('labels', labels.join(','));
  q.set('per_page', '100');
  if (str(gl['pullRequestState'])) q.set('state', str(gl['pullRequestState']));
  const url = `${gitlabBase(str(gl['api']))}projects/${encodeURIComponent(project)}/merge_requests?${q.toString()}`;
  const { items, status } = await gitlabPages(doFetch, url, gitlabHeaders(token), [404]);
  if (status === 404)
    throw new RepoNotFound(
      `error listing merge requests for project '${project}': GET ${url}: 404 Not Found`,
    );
  return items.map((mr) => ({
    number: Number(mr['iid']),
    title: str(mr['title']),
    branch: str(mr['source_branch']),
    targetBranch: str(mr['target_branch']),
    headSha: str(mr['sha']),
    labels: Array.isArray(mr['labels']) ? mr['labels'].map(String) : [],
    author: str(isMap(mr['author']) ? mr['author']['username'] : ''),
  }));
}

const OTHER_PR = ['gitea', 'bitbucketServer', 'bitbucket', 'azuredevops'];
const OTHER_SCM = ['gitea', 'bitbucketServer', 'bitbucket', 'azureDevOps', 'awsCodeCommit'];

export async function pullRequestParams(spec: Json, ctx: GeneratorContext, where: string): Promise<Params[]> {
  const scm = scmOf(ctx, 'pullRequest', where);
  let pulls: PullRequest[];
  try {
    const filters = (Array.isArray(spec['filters']) ? spec['filters'] : []).map((f) => {
      const m = isMap(f) ? f : {};
      return {
        branch: compile(m['branchMatch'], 'BranchMatch'),
        target: compile(m['targetBranchMatch'], 'TargetBranchMatch'),
        title: compile(m['titleMatch'], 'TitleMatch'),
      };
    });
    if (isMap(spec['github'])) {
      allowed(scm, str(spec['github']['api']));
      pulls = await githubPulls(scm, spec['github'], where);
    } else if (isMap(spec['gitlab'])) {
      allowed(scm, str(spec['gitlab']['api']));
      pulls = await gitlabMergeRequests(scm, spec['gitlab'], where);
    } else {
      const other = OTHER_PR.find((k) => isMap(spec[k]));
      throw new TemplateError(
        other
          ? `${where}.pullRequest.${other}: not supported (GitHub and GitLab are)`
          : 'no Pull Request provider implementation configured',
      );
    }
    if (filters.length > 0)
      pulls = pulls.filter((p) =>
        filters.some(
          (f) =>
            (!f.branch || f.branch.test(p.branch)) &&
            (!f.target || f.target.test(p.targetBranch)) &&
            (!f.title || f.title.test(p.title)),
        ),
      );
  } catch (err) {
    if (err instanceof RepoNotFound && spec['continueOnRepoNotFoundError'] === true) return [];
    throw err;
  }
  return pulls.map((p) => {
    const params: Params = {
      number: String(p.number),
      title: p.title,
      branch: p.branch,
      branch_slug: slugMake(p.branch),
      target_branch: p.targetBranch,
      target_branch_slug: slugMake(p.targetBranch),
      head_sha: p.headSha,
      head_short_sha: p.headSha.slice(0, 8),
      head_short_sha_7: p.headSha.slice(0, 7),
      author: p.author,
    };
    if (ctx.goTemplate) params['labels'] = p.labels;
    appendValues(spec['values'], params, ctx, `${where}.pullRequest`);
    return params;
  });
}

interface Repo {
  organization: string;
  repository: string;
  url: string;
  branch: string;
  sha: string;
  labels: string[];
  id: unknown;
}

interface ScmProvider {
  listRepos(): Promise<Repo[]>;
  branches(repo: Repo): Promise<Repo[]>;
  hasPath(repo: Repo, path: string): Promise<boolean>;
}

function cloneUrl(protocol: string, ssh: string, https: string, who: string): string {
  if (protocol === '' || protocol === 'ssh') return ssh;
  if (protocol === 'https') return https;
  throw new TemplateError(`unknown clone protocol for ${who} ${protocol}`);
}

function githubProvider(scm: ScmAccess, gh: Json, token: string, protocol: string): ScmProvider {
  const doFetch = scm.fetch ?? fetch;
  const base = githubBase(str(gh['api']));
  const h = githubHeaders(token);
  const org = str(gh['organization']);
  const path = (r: Repo): string =>
    `${base}repos/${encodeURIComponent(r.organization)}/${encodeURIComponent(r.repository)}`;
  return {
    async listRepos() {
      const { items } = await githubPages(
        doFetch,
        `${base}orgs/${encodeURIComponent(org)}/repos?per_page=100`,
        h,
      );
      const out: Repo[] = [];
      for (const r of items) {
        const url = cloneUrl(protocol, str(r['ssh_url']), str(r['clone_url']), 'GitHub');
        if (gh['excludeArchivedRepos'] === true && r['archived'] === true) continue;
        out.push({
          organization: str(isMap(r['owner']) ? r['owner']['login'] : ''),
          repository: str(r['name']),
          branch: str(r['default_branch']),
          url,
          sha: '',
          labels: Array.isArray(r['topics']) ? r['topics'].map(String) : [],
          id: r['id'],
        });
      }
      return out;
    },
    async branches(repo) {
      let list: Record<string, unknown>[];
      if (gh['allBranches'] !== true) {
        const res = await apiGet(
          doFetch,
          `${path(repo)}/branches/${encodeURIComponent(repo.branch)}`,
          h,
          [404],
        );
        list = res.status === 404 || !isMap(res.body) ? [] : [res.body];
      } else list = (await githubPages(doFetch, `${path(repo)}/branches?per_page=100`, h)).items;
      return list.map((b) => ({
        ...repo,
        branch: str(b['name']),
        sha: str(isMap(b['commit']) ? b['commit']['sha'] : ''),
      }));
    },
    async hasPath(repo, p) {
      const q = new URLSearchParams({ ref: repo.branch });
      const res = await apiGet(
        doFetch,
        `${path(repo)}/contents/${p.split('/').map(encodeURIComponent).join('/')}?${q}`,
        h,
        [404],
      );
      return res.status !== 404;
    },
  };
}

function gitlabProvider(scm: ScmAccess, gl: Json, token: string, protocol: string): ScmProvider {
  const doFetch = scm.fetch ?? fetch;
  const base = gitlabBase(str(gl['api']));
  const h = gitlabHeaders(token);
  const group = str(gl['group']);
  return {
    async listRepos() {
      const q = new URLSearchParams();
      if (gl['includeArchivedRepos'] === true) q.set('archived', 'true');
      q.set('include_subgroups', String(gl['includeSubgroups'] === true));
      q.set('per_page', '100');
      q.set('topic', str(gl['topic']));
      // WillIncludeSharedProjects: unset means true.
      q.set('with_shared', String(gl['includeSharedProjects'] !== false));
      const { items } = await gitlabPages(
        doFetch,
        `${base}groups/${encodeURIComponent(group)}/projects?${q}`,
        h,
        [],
        true,
      );
      return items.map((r) => {
        const topics = Array.isArray(r['topics']) ? r['topics'].map(String) : [];
        const tags = Array.isArray(r['tag_list']) ? r['tag_list'].map(String) : [];
        return {
          organization: str(isMap(r['namespace']) ? r['namespace']['full_path'] : ''),
          repository: str(r['path']),
          url: cloneUrl(protocol, str(r['ssh_url_to_repo']), str(r['http_url_to_repo']), 'Gitlab'),
          branch: str(r['default_branch']),
          sha: '',
          labels: topics.length === 0 ? tags : topics,
          id: r['id'],
        };
      });
    },
    async branches(repo) {
      const project = `${base}projects/${encodeURIComponent(String(repo.id))}/repository/branches`;
      let list: Record<string, unknown>[];
      if (gl['allBranches'] !== true) {
        const res = await apiGet(doFetch, `${project}/${encodeURIComponent(repo.branch)}`, h, [404]);
        list = res.status === 404 || !isMap(res.body) ? [] : [res.body];
      } else {
        const res = await gitlabPages(doFetch, `${project}?per_page=100`, h, [404]);
        list = res.status === 404 ? [] : res.items;
      }
      return list.map((b) => ({
        ...repo,
        branch: str(b['name']),
        sha: str(isMap(b['commit']) ? b['commit']['id'] : ''),
      }));
    },
    async hasPath(repo, p) {
      const proj = await apiGet(
        doFetch,
        `${base}projects/${encodeURIComponent(`${repo.organization}/${repo.repository}`)}`,
        h,
      ).catch((err: unknown) => {
        throw new TemplateError(
          `error getting Project Info: ${err instanceof Error ? err.message : String(err)}`,
        );
      });
      const id = String(isMap(proj.body) ? proj.body['id'] : '');
      const ref = new URLSearchParams({ ref: repo.branch });
      const file = await apiGet(
        doFetch,
        `${base}projects/${encodeURIComponent(id)}/repository/files/${encodeURIComponent(p)}?${ref}`,
        h,
        [404],
      );
      if (file.status !== 404) return true;
      const tq = new URLSearchParams({ path: p, ref: repo.branch });
      const tree = await apiGet(
        doFetch,
        `${base}projects/${encodeURIComponent(id)}/repository/tree?${tq}`,
        h,
        [404],
      );
      return tree.status !== 404;
    },
  };
}

interface ScmFilter {
  repo?: RegExp | undefined;
  label?: RegExp | undefined;
  branch?: RegExp | undefined;
  pathsExist?: string[] | undefined;
  pathsDoNotExist?: string[] | undefined;
  type: 'repo' | 'branch' | 'none';
}

async function filterMatches(p: ScmProvider, repo: Repo, f: ScmFilter): Promise<boolean> {
  if (f.repo && !f.repo.test(repo.repository)) return false;
  if (f.branch && !f.branch.test(repo.branch)) return false;
  if (f.label && !repo.labels.some((l) => f.label!.test(l))) return false;
  for (const path of f.pathsExist ?? []) if (!(await p.hasPath(repo, path.replace(/\/+$/, '')))) return false;
  for (const path of f.pathsDoNotExist ?? [])
    if (await p.hasPath(repo, path.replace(/\/+$/, ''))) return false;
  return true;
}

async function anyFilter(p: ScmProvider, repo: Repo, filters: ScmFilter[]): Promise<boolean> {
  for (const f of filters) if (await filterMatches(p, repo, f)) return true;
  return false;
}

export async function scmProviderParams(spec: Json, ctx: GeneratorContext, where: string): Promise<Params[]> {
  const scm = scmOf(ctx, 'scmProvider', where);
  const protocol = str(spec['cloneProtocol']);
  // Filter types as Argo CD compiles them: the last kind of field set decides (repo, then branch fields).
  const filters: ScmFilter[] = (Array.isArray(spec['filters']) ? spec['filters'] : []).map((raw) => {
    const m = isMap(raw) ? raw : {};
    const f: ScmFilter = { type: 'none' };
    if (m['repositoryMatch'] !== undefined) {
      f.repo = compile(m['repositoryMatch'], 'RepositoryMatch');
      f.type = 'repo';
    }
    if (m['labelMatch'] !== undefined) {
      f.label = compile(m['labelMatch'], 'LabelMatch');
      f.type = 'repo';
    }
    if (Array.isArray(m['pathsExist'])) {
      f.pathsExist = m['pathsExist'].map(String);
      f.type = 'branch';
    }
    if (Array.isArray(m['pathsDoNotExist'])) {
      f.pathsDoNotExist = m['pathsDoNotExist'].map(String);
      f.type = 'branch';
    }
    if (m['branchMatch'] !== undefined) {
      f.branch = compile(m['branchMatch'], 'BranchMatch');
      f.type = 'branch';
    }
    return f;
  });
  let provider: ScmProvider;
  if (isMap(spec['github'])) {
    const gh = spec['github'];
    allowed(scm, str(gh['api']));
    if (str(gh['appSecretName']))
      throw new TemplateError(
        `${where}.scmProvider.github: GitHub App credentials (appSecretName) are not supported`,
      );
    const token = await tokenOf(scm, gh['tokenRef'], 'GITHUB_TOKEN', `${where}.scmProvider.github`).catch(
      (err: unknown) => {
        throw new TemplateError(
          `scm provider: error fetching Github token: ${err instanceof Error ? err.message : String(err)}`,
        );
      },
    );
    provider = githubProvider(scm, gh, token, protocol);
  } else if (isMap(spec['gitlab'])) {
    const gl = spec['gitlab'];
    allowed(scm, str(gl['api']));
    const token = await tokenOf(scm, gl['tokenRef'], 'GITLAB_TOKEN', `${where}.scmProvider.gitlab`).catch(
      (err: unknown) => {
        throw new TemplateError(
          `error fetching Gitlab token: ${err instanceof Error ? err.message : String(err)}`,
        );
      },
    );
    provider = gitlabProvider(scm, gl, token, protocol);
  } else {
    const other = OTHER_SCM.find((k) => isMap(spec[k]));
    throw new TemplateError(
      other
        ? `${where}.scmProvider.${other}: not supported (GitHub and GitLab are)`
        : 'no SCM provider implementation configured',
    );
  }
  let repos: Repo[];
  try {
    repos = await provider.listRepos();
    const repoFilters = filters.filter((f) => f.type === 'repo');
    if (repoFilters.length > 0) {
      const kept: Repo[] = [];
      for (const r of repos) if (await anyFilter(provider, r, repoFilters)) kept.push(r);
      repos = kept;
    }
    const withBranches: Repo[] = [];
    for (const r of repos) {
      try {
        withBranches.push(...(await provider.branches(r)));
      } catch (err) {
        throw new TemplateError(
          `error listing branches for ${r.organization}/${r.repository}: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    }
    repos = withBranches;
    const branchFilters = filters.filter((f) => f.type === 'branch');
    if (branchFilters.length > 0) {
      const kept: Repo[] = [];
      for (const r of repos) if (await anyFilter(provider, r, branchFilters)) kept.push(r);
      repos = kept;
    }
  } catch (err) {
    throw new TemplateError(`error listing repos: ${err instanceof Error ? err.message : String(err)}`);
  }
  return repos.map((r) => {
    const params: Params = {
      organization: r.organization,
      repository: r.repository,
      repository_id: r.id as Params[string],
      url: r.url,
      branch: r.branch,
      sha: r.sha,
      short_sha: r.sha.slice(0, 8),
      short_sha_7: r.sha.slice(0, 7),
      labels: r.labels.join(','),
      branchNormalized: sanitizeName(r.branch),
    };
    appendValues(spec['values'], params, ctx, `${where}.scmProvider`);
    return params;
  });
}

/** The generator's `requeueAfterSeconds`, else Argo CD's default for pull request and SCM generators (30 minutes). */
export const SCM_DEFAULT_REQUEUE_MS = 30 * 60_000;
