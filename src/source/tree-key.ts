/**
 * What a Git source's render reads, by Git object id (git-tree.ts), so the manifest cache can key it by
 * those ids instead of the commit: a commit that leaves them alone (most commits, for most apps of a
 * monorepo) finds the render of an earlier commit, and `diff --base` renders only the apps a change
 * touches. Undefined means "not known": the render is keyed by its commit, as Argo CD's repo-server keys
 * every render. Unsure is always "not known": the key only ever saves renders, it never changes a result.
 *
 * - An app annotated `argocd.argoproj.io/manifest-generate-paths`: the ids of its refresh paths (each path
 *   itself or, for a glob, every file it matches), whatever the source type, as Argo CD's repo-server
 *   reuses the manifests of the last commit when no file under those paths changed (UpdateRevisionForPaths).
 *   A path that is the repository root keys by the commit.
 * - Otherwise, by type (detected from the tree as render/index.ts detects it), when no symlink or submodule
 *   lies under the source path (a symlink's target lies elsewhere):
 *   - Directory: the path's tree id, unless Jsonnet files or libraries are involved (imports leave the path);
 *   - Helm (a chart in Git): the chart's tree id, the blob id of every value file and file parameter (or
 *   "none" for a missing one), unless a value file is a URL, a parameter names ARGOCD_APP_REVISION (its
 *   value changes with every commit), or Chart.yaml / requirements.yaml has a `file://` dependency
 *   outside the chart;
 *   - Kustomize and plugins: never (a kustomization may reach anywhere in the repository; a plugin may run
 *   anything).
 * The source path itself is the repository root: keyed by the commit (the root's id is the commit's).
 */
import { posix } from 'node:path';
import { parse } from 'yaml';
import { refreshPathMatches, refreshPaths, type Application, type ApplicationSource } from '../apps/index.js';
import { clean, SUBMODULE_MODE, SYMLINK_MODE, TREE_MODE, type TreeIndex } from './git-tree.js';

const KUSTOMIZATIONS = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];
const URL = /^[a-z][a-z0-9+.-]*:\/\//i;
const GLOB = /[*?[\\]/;

/** Reads a blob of the repository by id (Chart.yaml dependencies). */
export type ReadBlob = (oid: string) => Promise<string>;

/** The ids `source`'s render reads at the commit `tree` lists, or undefined (key by the commit). */
export async function treeKey(
  app: Pick<Application, 'annotations'>,
  source: ApplicationSource,
  tree: TreeIndex,
  blob: ReadBlob,
): Promise<Record<string, unknown> | undefined> {
  const paths = refreshPaths(app, source);
  if (paths.length > 0) return annotatedKey(paths, tree);
  const dir = clean(source.path);
  if (dir === '' || dir.startsWith('..')) return undefined;
  const root = tree.get(dir);
  if (!root || root.mode !== TREE_MODE) return undefined;
  const entries = tree.under(dir);
  if (entries.some((e) => e.mode === SYMLINK_MODE || e.mode === SUBMODULE_MODE)) return undefined;
  if (source.plugin || source.kustomize) return undefined;
  const has = (name: string) => tree.get(`${dir}/${name}`) !== undefined;
  if (!source.helm && !source.directory && KUSTOMIZATIONS.some(has)) return undefined;
  if (source.helm || (!source.directory && has('Chart.yaml')))
    return helmKey(dir, root.oid, source, tree, blob);
  if ((source.directory?.jsonnet.libs.length ?? 0) > 0) return undefined;
  if (entries.some((e) => /\.(jsonnet|libsonnet)$/.test(e.path))) return undefined;
  return { tree: root.oid };
}

function annotatedKey(paths: readonly string[], tree: TreeIndex): Record<string, unknown> | undefined {
  const ids: string[][] = [];
  for (const p of paths) {
    const path = clean(p);
    if (path === '' || path.startsWith('..')) return undefined;
    if (!GLOB.test(path)) {
      ids.push([path, tree.get(path)?.oid ?? 'none']);
      continue;
    }
    // A glob matches files (Argo CD compares it with the changed files' paths).
    const matched = tree
      .under('')
      .filter((e) => e.mode !== TREE_MODE && refreshPathMatches(path, e.path))
      .map((e) => `${e.path}=${e.oid}`);
    ids.push([path, ...matched]);
  }
  return { refreshPaths: ids };
}

async function helmKey(
  dir: string,
  oid: string,
  source: ApplicationSource,
  tree: TreeIndex,
  blob: ReadBlob,
): Promise<Record<string, unknown> | undefined> {
  const helm = source.helm;
  if (helm && JSON.stringify(helm).includes('ARGOCD_APP_REVISION')) return undefined;
  const files: string[][] = [];
  for (const file of [...(helm?.valueFiles ?? []), ...(helm?.fileParameters.map((p) => p.path) ?? [])]) {
    // `$ref/...` files: the ref source's commit is part of the key already (service.ts).
    if (/^\$[^/]+\//.test(file)) continue;
    if (URL.test(file) || file.includes('$')) return undefined;
    // As render/helm.ts resolves them: joined to the chart directory.
    const path = clean(posix.join(dir, file));
    if (path.startsWith('..')) return undefined;
    const entry = tree.get(path);
    if (entry && entry.mode !== '100644' && entry.mode !== '100755') return undefined;
    files.push([file, entry?.oid ?? 'none']);
  }
  for (const name of ['Chart.yaml', 'requirements.yaml']) {
    const entry = tree.get(`${dir}/${name}`);
    if (!entry) continue;
    if (!localDependenciesInside(dir, await blob(entry.oid))) return undefined;
  }
  return { tree: oid, files };
}

/** Whether every `file://` dependency of a Chart.yaml / requirements.yaml text stays inside the chart. */
function localDependenciesInside(dir: string, text: string): boolean {
  if (!text.includes('file://')) return true;
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return false;
  }
  const deps = (doc as { dependencies?: unknown } | null)?.dependencies;
  if (!Array.isArray(deps)) return false;
  for (const dep of deps) {
    const repo = (dep as { repository?: unknown } | null)?.repository;
    if (typeof repo !== 'string' || !repo.startsWith('file://')) continue;
    const target = clean(posix.join(dir, repo.slice('file://'.length)));
    if (target !== dir && !target.startsWith(`${dir}/`)) return false;
  }
  return true;
}
