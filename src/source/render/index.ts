/**
 * Renderers (the door of `src/source/render/`): turns one source at one checkout into Kubernetes objects.
 *
 * Type detection, as Argo CD (`ExplicitType`, then `discovery.AppType` on the source directory itself):
 * 1. `chart` set -> Helm from a Helm repository (no checkout);
 * 2. exactly one of `helm`, `kustomize`, `directory` set -> that type (parse.ts rejects several);
 * 3. a kustomization file in the directory -> Kustomize; else `Chart.yaml` -> Helm; else Directory.
 * A `plugin` source, or one of no explicit type that a plugin's discovery matches (checked before step 3,
 * as Argo CD does), is rendered by its config management plugin (plugin.ts).
 * The source path must exist and stay inside the repository (`..` escapes are errors).
 */
// Synchronous file-system calls: fs/promises costs a thread-pool round trip per call (about a millisecond
// each on a busy machine), and these are a handful of metadata reads per render.
import { realpathSync, statSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import { renderDirectory } from './directory.js';
import { renderHelm } from './helm.js';
import { pullChart } from './helm-chart.js';
import { kustomizationFile, renderKustomize } from './kustomize.js';
import { renderPlugin, selectPlugin } from './plugin.js';
import {
  RenderError,
  type RenderRequest,
  type RenderResult,
  type RenderTools,
  type SourceType,
} from './types.js';

export type { RenderRequest, RenderResult, RenderTools, SourceType } from './types.js';
export { RenderError } from './types.js';
export { parseObjects } from './objects.js';

async function isFile(path: string): Promise<boolean> {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The built-in type of a source that is not a plugin's (plugin.ts `selectPlugin` decides that first). */
export async function detectSourceType(
  req: RenderRequest,
  dir: string,
): Promise<Exclude<SourceType, 'Plugin'>> {
  const s = req.source;
  if (s.chart || s.helm) return 'Helm';
  if (s.kustomize) return 'Kustomize';
  if (s.directory) return 'Directory';
  if (await kustomizationFile(dir)) return 'Kustomize';
  if (await isFile(join(dir, 'Chart.yaml'))) return 'Helm';
  return 'Directory';
}

/** The absolute source directory inside `root`, checked to exist and not to escape the repository. */
export async function sourceDir(root: string, path: string): Promise<string> {
  const dir = normalize(join(root, path));
  if (dir !== root && !dir.startsWith(root + sep))
    throw new RenderError(path, 'path is outside the repository');
  let info;
  try {
    info = statSync(dir);
  } catch {
    throw new RenderError(path, 'path does not exist in the repository');
  }
  if (!info.isDirectory()) throw new RenderError(path, 'path is not a directory');
  const real = realpathSync.native(dir);
  const realRoot = realpathSync.native(root);
  if (real !== realRoot && !real.startsWith(realRoot + sep)) {
    throw new RenderError(path, 'path is outside the repository (symlink)');
  }
  return dir;
}

export async function renderSource(req: RenderRequest, tools: RenderTools): Promise<RenderResult> {
  if (req.source.chart) return renderHelm(req, undefined, tools);
  // An OCI source: the artifact (a chart) unpacked is the source root (helm-chart.ts).
  if (req.source.repoURL.startsWith('oci://')) {
    const helm = await tools.helm(req.source.helm?.version).catch((err: Error) => {
      throw new RenderError(req.source.repoURL, err.message);
    });
    req = { ...req, root: await pullChart(req, tools, helm) };
  }
  const dir = await sourceDir(req.root, req.source.path || '.');
  const plugin = await selectPlugin(req, dir, tools);
  if (plugin) return renderPlugin(req, dir, plugin, tools);
  switch (await detectSourceType(req, dir)) {
    case 'Helm':
      return renderHelm(req, dir, tools);
    case 'Kustomize':
      if (!(await kustomizationFile(dir))) {
        throw new RenderError(
          req.source.path,
          'kustomize options set but no kustomization file in the directory',
        );
      }
      return renderKustomize(req, dir, tools);
    case 'Directory':
      return renderDirectory(req, dir, tools);
  }
}
