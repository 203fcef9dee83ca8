/**
 * Helm sources: a chart directory (holding `Chart.yaml`) in Git, a `chart` from a Helm repository or an OCI
 * registry, or an `oci://` artifact holding a chart (helm-chart.ts pulls those). Rendered as Argo CD 3.6's
 * repo-server renders them (`reposerver/repository/repository.go helmTemplate`, `util/helm/cmd.go template`),
 * in the chart directory with a private helm home (helm-home.ts), argument for argument:
 *
 *   helm template . --name-template <releaseName|app name> [--namespace <helm.namespace|destination>]
 *     [--kube-version <kubeVersion>] [--set k=v]... [--set-string k=v]... [--set-file k=<path>]...
 *     [--values <value file>]... [--values <temp file of values|valuesObject>] [--api-versions v]...
 *     [--include-crds (unless skipCrds)] [--skip-schema-validation] [--skip-tests]
 *
 * - value files: relative to the chart directory, `$<ref>/path` into a `ref` source, or an http(s) URL;
 *   a missing one is an error unless `ignoreMissingValueFiles`; they must stay inside their repository;
 * - parameters: one per name (the last wins, as Argo CD's map), `${ARGOCD_APP_*}` substituted, commas
 *   escaped as Argo CD's `cleanSetParameters` (not inside `{...}`, not already escaped);
 * - `--kube-version`: `helm.kubeVersion`, else the destination's version when known, as `ParseGeneric`
 *   reads it (`v1.29.3+k3s1` -> `1.29.3`); `--api-versions`: `helm.apiVersions`, else the destination's.
 * - dependencies: when helm says a dependency is missing from `charts/`, the chart is copied to a temporary
 *   directory, its repositories added and `helm dependency build` run (helm-deps.ts), then template again.
 * Without a helm binary: a clear error naming it (tool-paths.ts).
 */
import { cp, writeFile } from 'node:fs/promises';
import { basename, join, normalize, relative, sep } from 'node:path';
import { exists } from '../../util/fs.js';
import type { HelmOptions } from '../../apps/index.js';
import { buildEnv, envsubst, kubeFacts } from './env.js';

export { parseKubeVersion } from './env.js';
import { pullChart } from './helm-chart.js';
import { buildDependencies, DependencyRepoError, isMissingDependencyError } from './helm-deps.js';
import { HelmHome } from './helm-home.js';
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
  passCredentials: false,
  skipSchemaValidation: false,
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

/** Argo CD's cleanSetParameters: escapes commas (not inside `{...}` lists, not already escaped). */
export function cleanSetParameter(value: string): string {
  if (value.startsWith('{') && value.endsWith('}')) return value;
  let out = '';
  let prev = '';
  for (const c of value) {
    out += c === ',' && prev !== '\\' ? '\\,' : c;
    prev = c;
  }
  return out;
}

/**
 * `${ARGOCD_APP_*}` substituted in a value file path, except a `$<ref>/` prefix naming a source (Argo CD
 * resolves the reference first and substitutes the rest).
 */
function substitutePath(file: string, env: Record<string, string>): string {
  const ref = /^\$([^/{]+)\//.exec(file);
  if (ref && !(ref[1]! in env)) return `${ref[0]}${envsubst(file.slice(ref[0].length), env)}`;
  return envsubst(file, env);
}

/** Last value per name, in first-seen order (Argo CD keeps parameters in a map). */
function byName<T extends { name: string }>(items: readonly T[]): T[] {
  const out = new Map<string, T>();
  for (const item of items) out.set(item.name, item);
  return [...out.values()];
}

/**
 * The `helm template` argument list (without the binary) for the chart directory `chartDir` (helm runs in
 * it, so the chart is "."). `valuesFile` holds `values`/`valuesObject`.
 */
export async function helmArgs(
  req: RenderRequest,
  chartDir: string,
  valuesFile: string | undefined,
): Promise<string[]> {
  const h = req.source.helm ?? DEFAULT_HELM;
  const env = buildEnv(req);
  const args = ['template', '.', '--name-template', h.releaseName || req.appName];
  const namespace = h.namespace || req.destNamespace;
  if (namespace) args.push('--namespace', namespace);
  const { kubeVersion, apiVersions } = kubeFacts(req);
  if (kubeVersion) args.push('--kube-version', kubeVersion);
  const params = byName(h.parameters);
  for (const p of params.filter((x) => !x.forceString))
    args.push('--set', `${p.name}=${cleanSetParameter(envsubst(p.value, env))}`);
  for (const p of params.filter((x) => x.forceString))
    args.push('--set-string', `${p.name}=${cleanSetParameter(envsubst(p.value, env))}`);
  for (const p of byName(h.fileParameters)) {
    const path = await resolveValueFile(substitutePath(p.path, env), chartDir, req, false);
    args.push('--set-file', `${p.name}=${cleanSetParameter(path!)}`);
  }
  for (const file of h.valueFiles) {
    const path = await resolveValueFile(substitutePath(file, env), chartDir, req, h.ignoreMissingValueFiles);
    if (path) args.push('--values', path);
  }
  if (valuesFile) args.push('--values', valuesFile);
  for (const v of apiVersions) args.push('--api-versions', v);
  if (!h.skipCrds) args.push('--include-crds');
  if (h.skipSchemaValidation) args.push('--skip-schema-validation');
  if (h.skipTests) args.push('--skip-tests');
  return args;
}

export async function renderHelm(
  req: RenderRequest,
  chartDir: string | undefined,
  tools: RenderTools,
): Promise<RenderResult> {
  const where = chartDir
    ? relative(req.root, chartDir) || '.'
    : req.source.chart
      ? `chart ${req.source.chart}`
      : req.source.repoURL;
  const helm = await tools.helm(req.source.helm?.version).catch((err: Error) => {
    throw new RenderError(where, err.message);
  });
  // A chart from a repository or registry is pulled and unpacked, then rendered like one in Git.
  let dir = chartDir ?? (await pullChart(req, tools, helm));
  let root = chartDir ? req.root : dir;
  const home = await HelmHome.create(tools);
  let valuesFile: string | undefined;
  const values = req.source.helm?.values ?? '';
  if (values.trim()) {
    valuesFile = join(await tools.tempDir('helm-values-'), 'values.yaml');
    await writeFile(valuesFile, values);
  }
  const clean = (message: string) => {
    let out = home.scrub(message);
    if (valuesFile)
      out = out.split(valuesFile).join('<temp file with values from source.helm.values/valuesObject>');
    return out.split(`${dir}${sep}`).join('').split(dir).join('.');
  };
  const template = async () => {
    const args = await helmArgs({ ...req, root }, dir, valuesFile);
    const { stdout } = await tools.exec(helm, args, {
      cwd: dir,
      env: home.env,
      timeoutMs: tools.timeoutMs,
      ...(tools.signal ? { signal: tools.signal } : {}),
    });
    return stdout;
  };
  let stdout: string;
  try {
    stdout = await template();
  } catch (err) {
    if (err instanceof RenderError) throw err;
    const message = (err as Error).message;
    if (!isMissingDependencyError(message)) throw new RenderError(where, clean(message));
    // Never build in the shared checkout or the run's pulled chart: a private copy of the chart's repository.
    const copy = await tools.tempDir('helm-deps-');
    await cp(root, copy, { recursive: true, filter: (src) => basename(src) !== '.git' });
    dir = join(copy, relative(root, dir));
    root = copy;
    try {
      await buildDependencies(req, dir, helm, home, tools);
      stdout = await template();
    } catch (inner) {
      if (inner instanceof RenderError) throw inner;
      const why = inner instanceof DependencyRepoError ? inner.message : clean((inner as Error).message);
      throw new RenderError(where, clean(why));
    }
  }
  try {
    return { type: 'Helm', tool: helm, objects: parseObjects(stdout), warnings: [] };
  } catch (err) {
    if (err instanceof ObjectsError) throw new RenderError(where, `helm output: ${err.message}`);
    throw err;
  }
}
