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
 * Layout: this file is the pull request generator and what both share; scm-provider.ts the SCM provider
 * generator; scm-api.ts the HTTP calls.
 * - Only GitHub and GitLab with tokens: GitHub App credentials (`appSecretName`), Gitea, Bitbucket, Azure
 *   DevOps and AWS CodeCommit are errors naming them.
 */
import type { Params } from '../template.js';
import { TemplateError } from '../template.js';
import type { Json, GeneratorContext, ScmAccess } from './params.js';
import { appendValues, isMap } from './params.js';
import {
  githubBase,
  githubHeaders,
  githubPages,
  gitlabBase,
  gitlabHeaders,
  gitlabPages,
  tlsFetch,
  type Fetch,
} from './scm-api.js';

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export function scmOf(ctx: GeneratorContext, kind: string, where: string): ScmAccess {
  if (!ctx.scm)
    throw new TemplateError(
      `${where}: the ${kind} generator is not supported locally (it needs a remote API)`,
    );
  return ctx.scm;
}

export async function tokenOf(scm: ScmAccess, ref: unknown, envName: string, where: string): Promise<string> {
  if (ref === undefined || ref === null) return (scm.env ?? process.env)[envName] ?? '';
  if (!isMap(ref) || typeof ref['secretName'] !== 'string' || typeof ref['key'] !== 'string')
    throw new TemplateError(`${where}.tokenRef: needs secretName and key`);
  return scm.secret(ref['secretName'], ref['key']);
}

/**
 * The fetch GitLab's API is called with: the system's CAs, or, as NewGitLabService's transport
 * (utils.GetTlsConfig), `caRef`'s PEM (read first: "error fetching CA certificates from ConfigMap: ...")
 * and `--scm-root-ca-path`'s in their place, and `insecure` (no verification).
 */
export async function gitlabFetch(
  scm: ScmAccess,
  gl: Record<string, unknown>,
  where: string,
): Promise<Fetch> {
  let ca = '';
  const ref = gl['caRef'];
  if (ref !== undefined && ref !== null) {
    if (!isMap(ref) || typeof ref['configMapName'] !== 'string' || typeof ref['key'] !== 'string')
      throw new TemplateError(`${where}.caRef: needs configMapName and key`);
    if (!scm.configMap) throw new TemplateError(`${where}.caRef: ConfigMaps cannot be read here`);
    ca = await scm.configMap(ref['configMapName'], ref['key']).catch((err: unknown) => {
      throw new TemplateError(
        `error fetching CA certificates from ConfigMap: ${err instanceof Error ? err.message : String(err)}`,
      );
    });
  }
  if (scm.rootCA) ca = ca ? `${ca}\n${scm.rootCA}` : scm.rootCA;
  if (!ca && gl['insecure'] !== true) return scm.fetch ?? fetch;
  return tlsFetch({ ca: ca || undefined, insecure: gl['insecure'] === true });
}

export function allowed(scm: ScmAccess, api: string): void {
  const list = scm.allowedProviders ?? [];
  if (api === '' || list.length === 0 || list.includes(api)) return;
  throw new TemplateError(
    `scm provider not allowed: scm provider "${api}" not allowed, must use one of the following: ${list.join(', ')}`,
  );
}

/** Go's regexp.Compile, as far as JavaScript's RegExp shares its syntax. */
export function compile(source: unknown, what: string): RegExp | undefined {
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
  const doFetch = await gitlabFetch(scm, gl, `${where}.gitlab`);
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

/** The generator's `requeueAfterSeconds`, else Argo CD's default for pull request and SCM generators (30 minutes). */
export const SCM_DEFAULT_REQUEUE_MS = 30 * 60_000;
