/**
 * The `scmProvider` generator for GitHub and GitLab (the rules and upstream files: scm.ts): the
 * organization's / group's repositories, filters, branches, parameters.
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
  type Fetch,
} from './scm-api.js';
import { allowed, compile, gitlabFetch, scmOf, str, tokenOf } from './scm.js';

const OTHER_SCM = ['gitea', 'bitbucketServer', 'bitbucket', 'azureDevOps', 'awsCodeCommit'];

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

function gitlabProvider(
  scm: ScmAccess,
  gl: Json,
  token: string,
  protocol: string,
  doFetch: Fetch,
): ScmProvider {
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
    const doFetch = await gitlabFetch(scm, gl, `${where}.scmProvider.gitlab`);
    const token = await tokenOf(scm, gl['tokenRef'], 'GITLAB_TOKEN', `${where}.scmProvider.gitlab`).catch(
      (err: unknown) => {
        throw new TemplateError(
          `error fetching Gitlab token: ${err instanceof Error ? err.message : String(err)}`,
        );
      },
    );
    provider = gitlabProvider(scm, gl, token, protocol, doFetch);
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
