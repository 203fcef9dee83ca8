/**
 * Kustomize sources: a directory holding `kustomization.yaml`, `kustomization.yml` or `Kustomization`,
 * rendered with the real `kustomize` binary as Argo CD 3.6's repo-server runs it (`util/kustomize/
 * kustomize.go Build`; docs/desired-state.md lists the command lines). Which binary: `tools.kustomize`
 * (argocd-cm `kustomize.path.<v>`/`kustomize.version.<v>` for a source's `kustomize.version`, else
 * `--kustomize-path`, else `kustomize` on PATH, else the one `npm run tools` installs); none is a clear error.
 *
 * `spec.source.kustomize` options become `kustomize edit` commands run in the app directory of a temporary
 * copy of the repository (never the user's tree or the shared checkout), in Argo CD's order:
 * `edit set nameprefix -- P`, `edit set namesuffix -- S`, `edit set image I...`, `edit set replicas N=C...`,
 * `edit add label [--force] [--without-selector] [--include-templates] k:v...`,
 * `edit add annotation [--force] k:v...`, `edit set namespace -- NS`, then `patches` appended to the
 * kustomization's own list (no edit command exists), then `edit add component C...` (with
 * `ignoreMissingComponents`, only those holding a kustomization). Images, labels and (with
 * `commonAnnotationsEnvsubst`) annotations get `${ARGOCD_APP_*}` substituted first.
 * Then `kustomize build <app dir> [argocd-cm kustomize.buildOptions...]` in the repository root, plus
 * `--helm-kube-version`/`--helm-api-versions` when the options hold `--enable-helm` (kustomize >= 5.3);
 * `helm` reached from kustomize runs with a private HELM_DATA_HOME/HELM_CONFIG_HOME/HELM_PLUGINS (Argo CD's
 * helm wrapper). The ARGOCD_APP_* variables are in every command's environment, as in Argo CD.
 */
import { readdirSync, statSync } from 'node:fs';
import { chmod, cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { parseDocument } from 'yaml';
import type { KustomizeOptions } from '../../apps/index.js';
import { buildEnv, envsubst, kubeFacts } from './env.js';
import { ObjectsError, parseObjects } from './objects.js';
import { RenderError, type RenderRequest, type RenderResult, type RenderTools } from './types.js';

export const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/** A `kustomize:` block with nothing set (what src/apps parse gives for `kustomize: {}`). */
export const DEFAULT_KUSTOMIZE: KustomizeOptions = {
  images: [],
  replicas: [],
  commonLabels: {},
  commonAnnotations: {},
  forceCommonLabels: false,
  forceCommonAnnotations: false,
  commonAnnotationsEnvsubst: false,
  labelWithoutSelector: false,
  labelIncludeTemplates: false,
  patches: [],
  components: [],
  ignoreMissingComponents: false,
  apiVersions: [],
};

export async function kustomizationFile(dir: string): Promise<string | undefined> {
  const names = new Set(readdirSync(dir)); // synchronously, as the other metadata reads (index.ts)
  return KUSTOMIZATION_FILES.find((f) => names.has(f));
}

export function hasKustomizeEdits(o: KustomizeOptions | undefined): o is KustomizeOptions {
  if (!o) return false;
  return Boolean(
    o.namePrefix ||
    o.nameSuffix ||
    o.namespace ||
    o.images.length ||
    o.replicas.length ||
    Object.keys(o.commonLabels).length ||
    Object.keys(o.commonAnnotations).length ||
    o.patches.length ||
    o.components.length,
  );
}

const pairs = (m: Record<string, string>) => Object.entries(m).map(([k, v]) => `${k}:${v}`);

/** The `kustomize edit` argument lists Argo CD runs for `o`, in its order (patches are not an edit). */
export function editCommands(
  o: KustomizeOptions,
  env: Record<string, string>,
  components: readonly string[] = o.components,
): string[][] {
  const out: string[][] = [];
  if (o.namePrefix) out.push(['edit', 'set', 'nameprefix', '--', o.namePrefix]);
  if (o.nameSuffix) out.push(['edit', 'set', 'namesuffix', '--', o.nameSuffix]);
  if (o.images.length) out.push(['edit', 'set', 'image', ...o.images.map((i) => envsubst(i, env))]);
  if (o.replicas.length)
    out.push(['edit', 'set', 'replicas', ...o.replicas.map((r) => `${r.name}=${r.count}`)]);
  if (Object.keys(o.commonLabels).length) {
    const labels = Object.fromEntries(Object.entries(o.commonLabels).map(([k, v]) => [k, envsubst(v, env)]));
    out.push([
      'edit',
      'add',
      'label',
      ...(o.forceCommonLabels ? ['--force'] : []),
      ...(o.labelWithoutSelector ? ['--without-selector'] : []),
      ...(o.labelIncludeTemplates ? ['--include-templates'] : []),
      ...pairs(labels),
    ]);
  }
  if (Object.keys(o.commonAnnotations).length) {
    const annotations = o.commonAnnotationsEnvsubst
      ? Object.fromEntries(Object.entries(o.commonAnnotations).map(([k, v]) => [k, envsubst(v, env)]))
      : o.commonAnnotations;
    out.push([
      'edit',
      'add',
      'annotation',
      ...(o.forceCommonAnnotations ? ['--force'] : []),
      ...pairs(annotations),
    ]);
  }
  if (o.namespace) out.push(['edit', 'set', 'namespace', '--', o.namespace]);
  if (components.length) out.push(['edit', 'add', 'component', ...components]);
  return out;
}

/** `kustomize build` arguments: Argo CD's `parseKustomizeBuildOptions` (options split on whitespace). */
export function buildArgs(
  dir: string,
  buildOptions: string,
  kube: { kubeVersion?: string; apiVersions: readonly string[] },
): string[] {
  if (!buildOptions) return ['build', dir];
  const args = ['build', dir, ...buildOptions.split(/\s+/).filter(Boolean)];
  // kustomize >= 5.3 (ours is 5.8.1) takes the Helm capabilities when it inflates charts.
  if (buildOptions.includes('--enable-helm')) {
    if (kube.kubeVersion) args.push('--helm-kube-version', kube.kubeVersion);
    for (const v of kube.apiVersions) args.push('--helm-api-versions', v);
  }
  return args;
}

/** Appends the Application's patches to the kustomization's `patches` (Argo CD's Build does it by hand). */
export function addPatches(text: string, patches: readonly Record<string, unknown>[]): string {
  const parsed = parseDocument(text);
  if (parsed.errors[0])
    throw new Error(`failed to unmarshal kustomization.yaml: ${parsed.errors[0].message.split('\n')[0]}`);
  const doc = (parsed.toJS() ?? {}) as Record<string, unknown>;
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new Error('expected kustomization.yaml to be a map');
  const existing = doc['patches'];
  if (existing !== undefined && !Array.isArray(existing))
    throw new Error("expected 'patches' field in kustomization.yaml to be a list");
  doc['patches'] = [...((existing as unknown[] | undefined) ?? []), ...patches];
  return JSON.stringify(doc);
}

/** Components that hold a kustomization (Argo CD's `ignoreMissingComponents`), relative to `dir`. */
function presentComponents(dir: string, components: readonly string[]): string[] {
  return components.filter((c) =>
    KUSTOMIZATION_FILES.some((f) => {
      try {
        return statSync(join(dir, c, f)).isFile();
      } catch {
        return false;
      }
    }),
  );
}

/** A directory holding `helm`, a wrapper giving helm a private data/config home (Argo CD's helm wrapper). */
async function helmWrapper(tools: RenderTools): Promise<string | undefined> {
  const helm = await tools.helm().catch(() => undefined);
  if (!helm || /['\n]/.test(helm)) return undefined;
  const dir = await tools.tempDir('helm-wrapper-');
  const home = join(dir, 'data');
  await mkdir(home, { mode: 0o700 });
  const script = join(dir, 'helm');
  await writeFile(
    script,
    `#!/bin/sh\nREAL_HELM='${helm}'\nexport HELM_DATA_HOME='${home}'\nexport HELM_CONFIG_HOME='${home}'\nexport HELM_PLUGINS='${home}/plugins'\nexec "$REAL_HELM" "$@"\n`,
  );
  await chmod(script, 0o700);
  return dir;
}

export async function renderKustomize(
  req: RenderRequest,
  dir: string,
  tools: RenderTools,
): Promise<RenderResult> {
  const where = relative(req.root, dir) || '.';
  const kustomize = await tools.kustomize(req.source.kustomize?.version).catch((err: Error) => {
    throw new RenderError(where, err.message);
  });
  const env = buildEnv(req);
  const run = { timeoutMs: tools.timeoutMs, ...(tools.signal ? { signal: tools.signal } : {}) };
  let root = req.root;
  let appDir = dir;
  // Paths inside the temp copy mean nothing to the user: show them relative to the source.
  const clean = (err: unknown) => (err as Error).message.split(appDir).join(where).split(root).join('.');
  const options = req.source.kustomize;
  if (hasKustomizeEdits(options)) {
    root = await tools.tempDir('kustomize-');
    await cp(req.root, root, { recursive: true, filter: (src) => basename(src) !== '.git' });
    appDir = join(root, relative(req.root, dir));
    const components = options.ignoreMissingComponents
      ? presentComponents(appDir, options.components)
      : options.components;
    const commands = editCommands(options, env, components);
    // Patches come after namespace and before components (Argo CD's order).
    const beforePatches = commands.filter((c) => c[2] !== 'component');
    for (const args of beforePatches) {
      try {
        await tools.exec(kustomize, args, { cwd: appDir, env, ...run });
      } catch (err) {
        throw new RenderError(where, clean(err));
      }
    }
    if (options.patches.length) {
      const name = await kustomizationFile(appDir);
      if (!name) throw new RenderError(where, 'kustomization file not found in the path');
      const file = join(appDir, name);
      try {
        await writeFile(file, addPatches(await readFile(file, 'utf8'), options.patches));
      } catch (err) {
        throw new RenderError(join(where, name), (err as Error).message);
      }
    }
    for (const args of commands.filter((c) => c[2] === 'component')) {
      try {
        await tools.exec(kustomize, args, { cwd: appDir, env, ...run });
      } catch (err) {
        throw new RenderError(where, clean(err));
      }
    }
  }
  const buildOptions = await tools.kustomizeBuildOptions();
  // As Argo CD's Build call: the source's versions, else the cluster's (env.ts kubeFacts).
  const args = buildArgs(appDir, buildOptions, kubeFacts(req));
  const buildEnvironment: Record<string, string> = { ...env };
  const wrapper = buildOptions.includes('--enable-helm') ? await helmWrapper(tools) : undefined;
  if (wrapper) buildEnvironment['PATH'] = `${wrapper}:${process.env['PATH'] ?? ''}`;
  let stdout: string;
  try {
    ({ stdout } = await tools.exec(kustomize, args, { cwd: root, env: buildEnvironment, ...run }));
  } catch (err) {
    throw new RenderError(where, clean(err));
  }
  try {
    return { type: 'Kustomize', tool: kustomize, objects: parseObjects(stdout), warnings: [] };
  } catch (err) {
    if (err instanceof ObjectsError) throw new RenderError(where, `kustomize output: ${err.message}`);
    throw err;
  }
}
