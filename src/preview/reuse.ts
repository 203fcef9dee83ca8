/**
 * Which head apps of `diff --base` can take the base's render instead of rendering again: most apps of a
 * pull request are untouched, and rendering them twice doubles a cold preview.
 *
 * An app's head render equals its base render when its render inputs are equal (name, destination
 * namespace, every source as written except the moving sources' revision) and no file its moving sources
 * read changed between the two revisions. A source's files are known only when they cannot leave its path:
 * - Directory: the files under the path, unless it has Jsonnet files (imports may leave the path) or
 *   Jsonnet libraries;
 * - Kustomize: the files under the path when no kustomization under it lists a `resources`, `bases` or
 *   `components` entry outside the path (kustomize's default load restrictor keeps every other file
 *   reference inside its kustomization root);
 * - Helm and anything else: never reused (value files, `$ref` sources and chart dependencies may be
 *   anywhere).
 * - An app annotated `argocd.argoproj.io/manifest-generate-paths` is reused, whatever its type (Helm too),
 *   when no changed file is under any of its paths, as Argo CD's repo-server skips regenerating it
 *   (util/app/path `GetSourceRefreshPaths`, `AppFilesHaveChanged`): paths separated by `;`, relative to the
 *   source path or, starting with `/`, to the repository root; each path matches itself, everything under
 *   it, and as a glob (`filepath.Match`). The user declares what the app reads, as in Argo CD.
 * Unsure means "render again": reuse only ever saves time, it never changes a result.
 */
import { posix } from 'node:path';
import { parse } from 'yaml';
import type { Application, ApplicationSource } from '../apps/index.js';
import { filesHaveChanged, MANIFEST_GENERATE_PATHS, refreshPaths } from '../apps/index.js';
import type { RenderedApp } from '../source/index.js';

const KUSTOMIZATION = new Set(['kustomization.yaml', 'kustomization.yml', 'Kustomization']);

/** The render inputs of an app, moving sources' revisions left out. */
export function renderInputs(app: Application, moves: (s: ApplicationSource) => boolean): string {
  return JSON.stringify({
    name: app.name,
    namespace: app.namespace ?? null,
    dest: app.destination.namespace,
    sources: app.sources.map((s) => (moves(s) ? { ...s, targetRevision: '' } : s)),
  });
}

const under = (file: string, dir: string): boolean => dir === '' || dir === '.' || file.startsWith(`${dir}/`);

/** Whether everything the source renders from lies under its path (see the header). */
async function selfContained(
  source: ApplicationSource,
  type: string | undefined,
  options: ReuseOptions,
): Promise<boolean> {
  const dir = posix.normalize(source.path || '.').replace(/\/+$/, '');
  if (dir.startsWith('..')) return false;
  const files = await options.files(dir === '.' ? '' : dir);
  if (type === 'Directory') {
    if ((source.directory?.jsonnet.libs.length ?? 0) > 0) return false;
    return !files.some((f) => /\.(jsonnet|libsonnet)$/.test(f));
  }
  if (type !== 'Kustomize') return false;
  for (const f of files) {
    if (!KUSTOMIZATION.has(posix.basename(f))) continue;
    let doc: unknown;
    try {
      doc = parse(await options.readFile(f));
    } catch {
      return false;
    }
    if (!doc || typeof doc !== 'object') continue;
    const k = doc as Record<string, unknown>;
    for (const field of ['resources', 'bases', 'components']) {
      const list = k[field];
      if (list === undefined) continue;
      if (!Array.isArray(list)) return false;
      for (const entry of list) {
        if (typeof entry !== 'string') return false;
        // Remote resources (URLs) do not change with the repository.
        if (
          /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ||
          /^(github\.com|gitlab\.com|bitbucket\.org)\//.test(entry)
        )
          continue;
        const target = posix.normalize(posix.join(posix.dirname(f), entry));
        if (!under(target, dir) && target !== dir) return false;
      }
    }
  }
  return true;
}

export interface ReuseOptions {
  /** Files (repository-relative, "/") that differ between base and head. */
  changed: ReadonlySet<string>;
  /** Every file under directory `dir` of the head (repository-relative, "/"; "" is the root). */
  files(dir: string): Promise<string[]>;
  /** A file of the head (a kustomization). */
  readFile(file: string): Promise<string>;
  moves: (s: ApplicationSource) => boolean;
  /** The head's revision of moving sources ("local" with --local). */
  headRevision: string;
}

/** The base render to reuse for `app` at the head, or undefined to render it. */
export async function reusableRender(
  app: Application,
  base: { app: Application; rendered?: RenderedApp } | undefined,
  options: ReuseOptions,
): Promise<RenderedApp | undefined> {
  if (!base?.rendered) return undefined;
  if (renderInputs(app, options.moves) !== renderInputs(base.app, options.moves)) return undefined;
  const rendered = base.rendered;
  const annotated = (app.annotations[MANIFEST_GENERATE_PATHS] ?? '').trim() !== '';
  for (let i = 0; i < app.sources.length; i++) {
    const source = app.sources[i]!;
    if (!options.moves(source)) continue;
    if (annotated) {
      // The app declares what it reads (Argo CD's manifest-generate-paths): nothing else is checked.
      if (options.changed.size > 0 && filesHaveChanged(refreshPaths(app, source), options.changed))
        return undefined;
      continue;
    }
    const type = rendered.sources[i]?.type;
    // A moving ref-only source feeds another source's value files: render again.
    if (source.ref && !source.path) return undefined;
    const dir = posix.normalize(source.path || '.').replace(/\/+$/, '');
    for (const f of options.changed) if (under(f, dir)) return undefined;
    if (!(await selfContained(source, type, options))) return undefined;
  }
  const revisionOf = (s: ApplicationSource, old: string): string =>
    options.moves(s) ? options.headRevision : old;
  return {
    ...rendered,
    app,
    revision: revisionOf(app.sources.find((s) => !(s.ref && !s.path)) ?? app.sources[0]!, rendered.revision),
    sources: rendered.sources.map((s, i) => ({ ...s, revision: revisionOf(app.sources[i]!, s.revision) })),
  };
}
