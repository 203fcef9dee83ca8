/**
 * `argocd.argoproj.io/manifest-generate-paths`: the files an Application declares its manifests are
 * generated from, as Argo CD reads it (util/app/path `GetSourceRefreshPaths`, `AppFilesHaveChanged`):
 * paths separated by `;`, relative to the source path or, starting with `/`, to the repository root; each
 * path matches itself, everything under it, and as a glob (Go's `filepath.Match`). When no file under
 * them changed between two commits, Argo CD's repo-server reuses the manifests of the first commit for
 * the second (`UpdateRevisionForPaths`): `diff --base` (src/preview/reuse.ts) and the manifest cache
 * (src/source/tree-key.ts) do the same.
 */
import { posix } from 'node:path';
// Go's filepath.Match is path.Match on "/"-separated paths (Linux).
import { goPathMatch } from './appset/index.js';
import type { Application, ApplicationSource } from './types.js';

export const MANIFEST_GENERATE_PATHS = 'argocd.argoproj.io/manifest-generate-paths';

/** Argo CD's GetSourceRefreshPaths: the annotation's paths for `source`, repository-relative ([] = none). */
export function refreshPaths(app: Pick<Application, 'annotations'>, source: ApplicationSource): string[] {
  const value = app.annotations[MANIFEST_GENERATE_PATHS] ?? '';
  const out: string[] = [];
  for (const raw of value.split(';')) {
    const item = raw.trim();
    if (!item) continue;
    if (item.startsWith('/')) out.push(item.slice(1));
    else out.push(posix.normalize(posix.join(source.path || '.', item)).replace(/\/+$/, ''));
  }
  return out;
}

/** Argo CD's AppFilesHaveChanged: whether a changed file is one of, under, or matches `paths`. */
export function filesHaveChanged(paths: readonly string[], changed: ReadonlySet<string>): boolean {
  if (changed.size === 0 || paths.length === 0) return true;
  for (const file of changed) for (const p of paths) if (refreshPathMatches(p, file)) return true;
  return false;
}

/** Whether `path` (one of refreshPaths) matches `file` by Argo CD's rule (itself, under it, or glob). */
export function refreshPathMatches(path: string, file: string): boolean {
  const item = path === '.' ? '' : path;
  return file === item || item === '' || file.startsWith(`${item}/`) || goPathMatch(item, file);
}
