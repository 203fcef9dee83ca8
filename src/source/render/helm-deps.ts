/**
 * `helm dependency build` as Argo CD's repo-server runs it (`reposerver/repository/repository.go
 * getHelmRepos`/`getHelmDependencyRepos`/`runHelmBuild`, `util/helm/helm.go DependencyBuild`), run only when
 * `helm template` fails for a missing dependency (`IsMissingDependencyErr`), then `helm template` again:
 * 1. The dependency repositories of Chart.yaml: `@name` and `alias:name` name a repository Secret by its
 *    `name`; an `https://` URL is added under the name `https:--host-path` (`/` -> `-`), an `oci://` one is
 *    an OCI registry; `http://`, `file://` and others are left to helm, as Argo CD leaves them.
 * 2. Each gets the settings of its repository Secret (by URL, else by name, else a credential template)
 *    and is added: a Helm repository to the render's private repositories.yaml, then its index fetched
 *    (`helm repo update <name>`: what `helm repo add` does); an OCI registry with credentials gets a login.
 *    A repository that cannot be read fails here, naming its URL and helm's cause, instead of helm's later
 *    `no cached repository for helm-manager-<hash>` (issue 34).
 * 3. `helm dependency build [--insecure-skip-tls-verify] [--plain-http]` in the chart directory
 *    (`--insecure-skip-tls-verify` when the chart's own repository Secret is `insecure`, `--plain-http`
 *    when any dependency's Secret has `insecureOCIForceHttp`). A dependency that helm itself could not reach
 *    (an `http://` one) is named from helm's own "Unable to get an update" line.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { hasHelmCredentials, repoCause, UNABLE, type HelmHome } from './helm-home.js';
import type { HelmRepoSettings, RenderRequest, RenderTools } from './types.js';

/** helm's message for a chart whose dependencies are not under charts/ (Argo CD's IsMissingDependencyErr). */
export function isMissingDependencyError(message: string): boolean {
  return (
    message.includes('found in requirements.yaml, but missing in charts') ||
    message.includes('found in Chart.yaml, but missing in charts/ directory')
  );
}

interface DependencyRepo {
  url: string;
  name: string;
  oci: boolean;
}

/** Argo CD's getHelmDependencyRepos (Chart.yaml only, as Argo CD reads it). */
export async function dependencyRepos(chartDir: string): Promise<DependencyRepo[]> {
  let doc: { dependencies?: Array<{ repository?: unknown }> } | null;
  try {
    doc = parse(await readFile(join(chartDir, 'Chart.yaml'), 'utf8')) as typeof doc;
  } catch (err) {
    throw new Error(`failed to read Chart.yaml: ${(err as Error).message.split('\n')[0]}`);
  }
  const out: DependencyRepo[] = [];
  for (const d of doc?.dependencies ?? []) {
    const repo = typeof d?.repository === 'string' ? d.repository : '';
    if (repo.startsWith('@')) out.push({ url: '', name: repo.slice(1), oci: false });
    else if (repo.startsWith('alias:')) out.push({ url: '', name: repo.slice('alias:'.length), oci: false });
    else if (/^(https|oci):\/\//.test(repo))
      out.push({
        url: repo.replace(/^oci:\/\//, ''),
        name: repo.replaceAll('/', '-'),
        oci: repo.startsWith('oci://'),
      });
  }
  return out;
}

/** The failure of a dependency repository: names the URL and the cause. */
export class DependencyRepoError extends Error {}

/** Adds the chart's dependency repositories to `home` and runs `helm dependency build` in `chartDir`. */
export async function buildDependencies(
  req: RenderRequest,
  chartDir: string,
  helm: string,
  home: HelmHome,
  tools: RenderTools,
): Promise<void> {
  const run = {
    cwd: chartDir,
    env: home.env,
    timeoutMs: tools.timeoutMs,
    ...(tools.signal ? { signal: tools.signal } : {}),
  };
  const passCredentials = req.source.helm?.passCredentials ?? false;
  let plainHTTP = false;
  const added: string[] = [];
  for (const dep of await dependencyRepos(chartDir)) {
    const settings =
      (dep.url ? await req.helmRepository?.({ url: dep.url }) : undefined) ??
      (dep.name ? await req.helmRepository?.({ name: dep.name }) : undefined);
    const url = dep.url || settings?.url || '';
    if (!url) continue; // an unknown @name: helm says "no repository definition" itself
    if (settings?.insecureOCIForceHttp) plainHTTP = true;
    if (dep.oci || settings?.enableOCI) {
      if (settings && hasHelmCredentials(settings)) await home.registryLogin(url.split('/')[0]!, settings);
      continue;
    }
    const name = dep.name || url.replaceAll('/', '-');
    await home.addRepository(name, url, settings as HelmRepoSettings | undefined, passCredentials);
    added.push(name);
    try {
      await tools.exec(helm, ['repo', 'update', name], run);
    } catch (err) {
      throw new DependencyRepoError(
        `failed to add helm repository ${url}: ${repoCause(home.scrub((err as Error).message), home.scrub((err as { stdout?: string }).stdout ?? ''))}`,
      );
    }
  }
  const own = await req.helmRepository?.({ url: req.source.repoURL });
  const args = [
    'dependency',
    'build',
    ...(own?.insecure ? ['--insecure-skip-tls-verify'] : []),
    ...(plainHTTP ? ['--plain-http'] : []),
  ];
  try {
    await tools.exec(helm, args, run);
  } catch (err) {
    const message = home.scrub((err as Error).message);
    const stdout = home.scrub((err as { stdout?: string }).stdout ?? '');
    const unreachable = UNABLE.exec(stdout);
    if (unreachable && message.includes('no cached repository'))
      throw new DependencyRepoError(
        `failed to reach helm repository ${unreachable[1]}: ${unreachable[2]!.trim()}`,
      );
    throw new DependencyRepoError(`failed to build helm dependencies: ${message}`);
  }
}
