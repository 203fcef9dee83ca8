/**
 * Helm sources: a chart directory (holding `Chart.yaml`) in Git, or `chart` from a Helm repository
 * (`repoURL` = the Helm repository, `targetRevision` = the chart version). Rendered with
 * `helm template`, arguments as Argo CD builds them:
 * `--name-template <releaseName|app name> --namespace <helm.namespace|destination namespace>`,
 * `--include-crds` unless `skipCrds`, `--skip-tests` with `skipTests`, `--kube-version`, `--api-versions`,
 * then `--values` for each value file (relative to the chart directory, `$<ref>/path` into a `ref` source,
 * or an http(s) URL), `--values <values|valuesObject>` last among values, then `--set`/`--set-string` for
 * parameters and `--set-file` for file parameters.
 * A missing value file is an error unless `ignoreMissingValueFiles`; value files must stay inside their
 * repository. A chart that declares dependencies (Chart.yaml `dependencies`, or requirements.yaml) but has
 * no `charts/` directory gets `helm dependency build` first, in a temporary copy of the repository.
 * Without the binary: "helm is not installed".
 * A chart whose Helm repository has credentials (a repository Secret, `req.helmRepository`) is read through a
 * private helm repository config instead of `--repo`: `helm repo update <name>` then
 * `helm template <name>/<chart>`, both with `--repository-config`/`--repository-cache`, so no username or
 * password is ever on a command line (docs/repositories.md); helm's messages are scrubbed of them.
 */
import { exists } from '../../util/fs.js';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { basename, join, normalize, relative, sep } from 'node:path';
import { parse } from 'yaml';
import type { HelmOptions } from '../../apps/index.js';
import { scrub } from '../git-auth.js';
import { ObjectsError, parseObjects } from './objects.js';
import { RenderError, type RenderRequest, type RenderResult, type RenderTools } from './types.js';

export const DEFAULT_HELM: HelmOptions = {
  valueFiles: [],
  values: '',
  parameters: [],
  fileParameters: [],
  skipCrds: false,
  skipTests: false,
  ignoreMissingValueFiles: false,
  apiVersions: [],
};

/** The path (or URL) of a value file, or undefined when it is missing and may be ignored. */
export async function resolveValueFile(
  file: string,
  chartDir: string,
  req: Pick<RenderRequest, 'root' | 'refRoots'>,
  ignoreMissing: boolean,
): Promise<string | undefined> {
  if (/^https?:\/\//.test(file)) return file;
  let root = req.root;
  let path: string;
  const ref = /^\$([^/]+)\/(.*)$/.exec(file);
  if (ref) {
    const refRoot = req.refRoots.get(ref[1]!);
    if (!refRoot) throw new RenderError(file, `value file refers to unknown source ref "${ref[1]}"`);
    root = refRoot;
    path = normalize(join(refRoot, ref[2]!));
  } else {
    path = normalize(join(chartDir, file));
  }
  if (path !== root && !path.startsWith(root + sep)) {
    throw new RenderError(file, 'value file is outside the repository');
  }
  if (!(await exists(path))) {
    if (ignoreMissing) return undefined;
    throw new RenderError(ref ? file : relative(req.root, path), 'value file not found');
  }
  return path;
}

/** The `helm template` argument list (without the binary). `valuesFile` holds `values`/`valuesObject`. */
export async function helmArgs(
  req: RenderRequest,
  chartDir: string | undefined,
  valuesFile: string | undefined,
): Promise<string[]> {
  const h = req.source.helm ?? DEFAULT_HELM;
  const args = ['template'];
  const repo = req.helmRepository;
  if (chartDir) args.push(chartDir);
  else if (repo)
    args.push(
      `${repo.name}/${req.source.chart!}`,
      '--version',
      req.source.targetRevision,
      '--repository-config',
      repo.repositoryConfig,
      '--repository-cache',
      repo.repositoryCache,
    );
  else args.push(req.source.chart!, '--repo', req.source.repoURL, '--version', req.source.targetRevision);
  args.push('--name-template', h.releaseName ?? req.appName);
  const namespace = h.namespace ?? req.destNamespace;
  if (namespace) args.push('--namespace', namespace);
  if (!h.skipCrds) args.push('--include-crds');
  if (h.skipTests) args.push('--skip-tests');
  if (h.kubeVersion) args.push('--kube-version', h.kubeVersion);
  for (const v of h.apiVersions) args.push('--api-versions', v);
  const base = chartDir ?? req.root;
  for (const file of h.valueFiles) {
    const path = await resolveValueFile(file, base, req, h.ignoreMissingValueFiles);
    if (path) args.push('--values', path);
  }
  if (valuesFile) args.push('--values', valuesFile);
  for (const p of h.parameters) args.push(p.forceString ? '--set-string' : '--set', `${p.name}=${p.value}`);
  for (const p of h.fileParameters) {
    const path = await resolveValueFile(p.path, base, req, false);
    args.push('--set-file', `${p.name}=${path}`);
  }
  return args;
}

/** Whether the chart declares dependencies that are not vendored under `charts/`. */
export async function needsDependencyBuild(chartDir: string): Promise<boolean> {
  if (await exists(join(chartDir, 'charts'))) return false;
  for (const file of ['Chart.yaml', 'requirements.yaml']) {
    try {
      const doc = parse(await readFile(join(chartDir, file), 'utf8')) as { dependencies?: unknown } | null;
      if (Array.isArray(doc?.dependencies) && doc.dependencies.length > 0) return true;
    } catch {
      // missing or unparsable: helm itself reports a broken Chart.yaml
    }
  }
  return false;
}

export async function renderHelm(
  req: RenderRequest,
  chartDir: string | undefined,
  tools: RenderTools,
): Promise<RenderResult> {
  const where = chartDir ? relative(req.root, chartDir) || '.' : `chart ${req.source.chart}`;
  const helm = await tools.which('helm');
  if (!helm) throw new RenderError(where, 'helm is not installed (install helm 3 and retry)');
  let valuesFile: string | undefined;
  const values = req.source.helm?.values ?? '';
  if (values.trim()) {
    valuesFile = join(await tools.tempDir('helm-values-'), 'values.yaml');
    await writeFile(valuesFile, values);
  }
  const args = await helmArgs(req, chartDir, valuesFile);
  const run = { timeoutMs: tools.timeoutMs, ...(tools.signal ? { signal: tools.signal } : {}) };
  if (chartDir && (await needsDependencyBuild(chartDir))) {
    const copy = await tools.tempDir('helm-');
    await cp(req.root, copy, { recursive: true, filter: (src) => basename(src) !== '.git' });
    const built = join(copy, relative(req.root, chartDir));
    try {
      await tools.exec(helm, ['dependency', 'build', built], { cwd: built, ...run });
    } catch (err) {
      throw new RenderError(where, (err as Error).message.split(copy).join('.'));
    }
    args[1] = built;
  }
  const repo = chartDir ? undefined : req.helmRepository;
  const clean = (err: unknown) => scrub((err as Error).message, repo?.secrets ?? []);
  if (repo) {
    const update = [
      'repo',
      'update',
      repo.name,
      '--repository-config',
      repo.repositoryConfig,
      '--repository-cache',
      repo.repositoryCache,
    ];
    try {
      await tools.exec(helm, update, run);
    } catch (err) {
      throw new RenderError(where, `failed to read the index of ${req.source.repoURL}: ${clean(err)}`);
    }
  }
  let stdout: string;
  try {
    ({ stdout } = await tools.exec(helm, args, { ...(chartDir ? { cwd: chartDir } : {}), ...run }));
  } catch (err) {
    throw new RenderError(where, clean(err));
  }
  try {
    return { type: 'Helm', tool: 'helm', objects: parseObjects(stdout), warnings: [] };
  } catch (err) {
    if (err instanceof ObjectsError) throw new RenderError(where, `helm output: ${err.message}`);
    throw err;
  }
}
