// Over 400 lines: one pipeline, diff --base's steps in order (worktrees, renders, pairing); left whole in issue 33.
/**
 * `diff --base REF`: what a change does to every app's rendered manifests, with no cluster.
 *
 * 1. The working copy: `--local DIR` or the current directory; its top level and its `origin` remote (or
 *    `--repo-url`), normalised as Argo CD normalises repository URLs (src/source/url.ts). REF and the head
 *    (`--head`, default HEAD) are resolved to commits in the working copy; with `--local` the head is the
 *    working tree as it is on disk (revision "local").
 * 2. Each side is read from its own tree: the `-f` files that live in the working copy are read at that
 *    side (a file missing at a side holds no apps there), files elsewhere are read as they are; their
 *    Applications and ApplicationSets are expanded into the app tree (tree.ts: ApplicationSets, app-of-
 *    apps, at most `maxDepth` deep). Git generators on the working copy's repository read that side.
 * 3. Sources "move" when their repoURL is the working copy's: they render from the local repository
 *    (fetched into the usual mirror over file://, so no network) at that side's commit; every other source
 *    renders at its own targetRevision on both sides.
 * 4. Apps are matched by namespace/name. Each resource pair is compared by src/diff's `compareResource`
 *    with the head as target and the base as "live" carrying its own last-applied copy, so a field the
 *    change removes is a difference too; normalization, the head app's ignoreDifferences (plus the extra
 *    rules), Secret masking are diff's. Added app: every resource missing; removed app: every resource extra.
 * No cluster is read: without discovery, the namespace of an object without one is the app's destination
 * namespace, except for kinds known to be cluster-scoped (src/source `OfflineScope`: built-in kinds, CRDs).
 */
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readAppFiles, selectApplications } from '../apps/index.js';
import type { Application, ApplicationSource } from '../apps/index.js';
import type { AppSetCluster } from '../apps/appset/index.js';
import { GitopsError, oneLine, UsageError } from '../common/index.js';
import type { AppDestination, ResourceStatus } from '../controller/index.js';
import { compareResource, type IgnoreDifference } from '../diff/index.js';
import {
  createSourceService,
  execProcess,
  groupOf,
  normalizeGitURL,
  OfflineScope,
  repoKey,
  TREE_MODE,
  type SourceService,
  type SourceServiceOptions,
} from '../source/index.js';
import type { KubeObject } from '../util/yaml-docs.js';
import { reusableRender, type ReuseOptions } from './reuse.js';
import { buildAppTree, type TreeNode } from './tree.js';

export type AppChange = 'added' | 'removed' | 'modified' | 'unchanged';

export interface PreviewApp {
  app: Application;
  destination: AppDestination;
  change: AppChange;
  /** Resolved revision of the app's first source at each side (undefined where the app does not exist). */
  baseRevision?: string;
  headRevision?: string;
  /** Sorted by group, kind, namespace, name; every pair, Synced ones included. */
  resources: ResourceStatus[];
  warnings: string[];
  error?: { message: string; exitCode: number; hint?: string };
}

export interface PreviewReport {
  /** The commits compared (head "local" with --local). */
  base: string;
  head: string;
  baseRef: string;
  headRef: string;
  apps: PreviewApp[];
  durationMs: number;
}

export interface BasePreviewOptions {
  files: readonly string[];
  names?: readonly string[];
  selector?: string;
  base: string;
  head?: string;
  /** Compare against this working tree instead of a head commit. */
  local?: string;
  /** The repository whose sources move (default: the working copy's origin remote). */
  repoURL?: string;
  cwd?: string;
  argocdNamespace: string;
  recursive: boolean;
  maxDepth: number;
  clusters: () => Promise<AppSetCluster[]>;
  ignoreDifferences?: readonly IgnoreDifference[];
  source?: Omit<SourceServiceOptions, 'local' | 'localRepos'>;
  onWarning?: (message: string) => void;
}

async function git(cwd: string, args: string[]): Promise<string> {
  return (await execProcess('git', args, { cwd, timeoutMs: 60_000 })).stdout.trim();
}

interface WorkingCopy {
  top: string;
  fileURL: string;
  origin: string;
}

async function workingCopy(dir: string, repoURL: string | undefined): Promise<WorkingCopy> {
  let top: string;
  try {
    top = await realpath(await git(dir, ['rev-parse', '--show-toplevel']));
  } catch (err) {
    throw new UsageError(`failed to find the working copy: not a Git repository (${oneLine(err)})`, {
      subject: dir,
      hint: 'run in a clone of the repository, or pass --local <clone>',
    });
  }
  let origin = repoURL;
  if (!origin) {
    origin = await git(top, ['remote', 'get-url', 'origin']).catch(() => '');
    if (!origin)
      throw new UsageError('failed to find the repository URL: the working copy has no "origin" remote', {
        subject: top,
        hint: 'pass --repo-url <the repoURL your Applications use>',
      });
  }
  return { top, fileURL: pathToFileURL(top).href, origin: normalizeGitURL(origin) };
}

async function resolveCommit(top: string, ref: string, flag: string): Promise<string> {
  if (ref.startsWith('-'))
    throw new UsageError('failed to resolve: a revision must not start with "-"', { subject: flag });
  try {
    return await git(top, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  } catch {
    throw new UsageError(`failed to resolve "${ref}": no such commit, branch or tag in ${top}`, {
      subject: flag,
    });
  }
}

interface Side {
  label: 'base' | 'head';
  /** The commit, or undefined for the working tree. */
  sha?: string;
  service: SourceService;
  /** Where the working copy's files are read at this side. */
  tree: string;
}

export async function runBasePreview(options: BasePreviewOptions): Promise<PreviewReport> {
  const started = Date.now();
  const wc = await workingCopy(resolve(options.local ?? options.cwd ?? '.'), options.repoURL);
  const baseSha = await resolveCommit(wc.top, options.base, '--base');
  const headRef = options.local ? 'working tree' : (options.head ?? 'HEAD');
  const headSha = options.local ? undefined : await resolveCommit(wc.top, options.head ?? 'HEAD', '--head');
  const sourceOptions = options.source ?? {};
  const baseService = createSourceService({ ...sourceOptions, argocdNamespace: options.argocdNamespace });
  const headService = options.local
    ? createSourceService({
        ...sourceOptions,
        argocdNamespace: options.argocdNamespace,
        localRepos: new Map([[repoKey(wc.fileURL), wc.top]]),
      })
    : baseService;
  const scratch = await mkdtemp(join(tmpdir(), 'kubectl-gitops-preview-'));
  try {
    // Only the -f files are checked out for each side: a render checks out the rest when the cache misses.
    const inside = await filesInside(wc, options);
    const [baseTree, headTree] = await Promise.all([
      checkoutFiles(wc.top, baseSha, inside, join(scratch, 'base')),
      headSha ? checkoutFiles(wc.top, headSha, inside, join(scratch, 'head')) : Promise.resolve(wc.top),
    ]);
    const sides: Side[] = [
      { label: 'base', sha: baseSha, service: baseService, tree: baseTree },
      { label: 'head', ...(headSha ? { sha: headSha } : {}), service: headService, tree: headTree },
    ];
    // The base first: the head then takes the base's render of every app the change does not touch.
    const baseNodes = await readSide(sides[0]!, wc, options);
    const changed = await changedFiles(wc.top, baseSha, headSha);
    const headNodes = await readSide(sides[1]!, wc, options, {
      base: baseNodes,
      changed,
      ...headFiles(wc, headService, headSha),
      headRevision: headSha ?? 'local',
    });
    const apps = compareSides(baseNodes, headNodes, options);
    return {
      base: baseSha,
      head: headSha ?? 'local',
      baseRef: options.base,
      headRef,
      apps,
      durationMs: Date.now() - started,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
    await baseService.close();
    if (headService !== baseService) await headService.close();
  }
}

const moves = (wc: WorkingCopy, repoURL: string): boolean => normalizeGitURL(repoURL) === wc.origin;

/** Files that differ between the base commit and the head commit (or the working tree, untracked included). */
async function changedFiles(top: string, base: string, head: string | undefined): Promise<Set<string>> {
  const names = (out: string) => out.split('\0').filter(Boolean);
  const diff = await execProcess(
    'git',
    ['diff', '--name-only', '--no-renames', '-z', base, ...(head ? [head] : []), '--'],
    { cwd: top, timeoutMs: 60_000 },
  );
  const files = new Set(names(diff.stdout));
  if (!head) {
    const untracked = await execProcess('git', ['ls-files', '--others', '--exclude-standard', '-z'], {
      cwd: top,
      timeoutMs: 60_000,
    });
    for (const f of names(untracked.stdout)) files.add(f);
  }
  return files;
}

/** The `-f` paths inside the working copy, relative to its top ("" for the top itself). */
async function filesInside(wc: WorkingCopy, options: BasePreviewOptions): Promise<string[]> {
  const out: string[] = [];
  for (const file of options.files) {
    const abs = resolve(options.cwd ?? '.', file);
    const rel = relative(wc.top, await realpath(abs).catch(() => abs));
    if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) out.push(rel.split(sep).join('/'));
  }
  return out;
}

/**
 * `paths` of commit `sha` written under `dir` (git's own checkout, a private index, the working copy
 * untouched); a path the commit lacks is left out (it holds no apps at that side).
 */
async function checkoutFiles(
  top: string,
  sha: string,
  paths: readonly string[],
  dir: string,
): Promise<string> {
  const checkout = (specs: string[]) =>
    execProcess('git', ['--work-tree', dir, 'checkout', '--quiet', '--force', sha, '--', ...specs], {
      cwd: top,
      timeoutMs: 60_000,
      env: { GIT_INDEX_FILE: `${dir}.index` },
    });
  const specs = paths.map((p) => (p === '' ? '.' : p));
  await mkdir(dir, { recursive: true });
  if (specs.length > 0) {
    try {
      await checkout(specs);
    } catch {
      // One of them is missing at this side: each alone.
      for (const spec of specs) await checkout([spec]).catch(() => undefined);
    }
  }
  return dir;
}

/** How reuse.ts lists and reads the head's files: from Git's tree of the head commit, else from disk. */
function headFiles(
  wc: WorkingCopy,
  service: SourceService,
  headSha: string | undefined,
): Pick<ReuseOptions, 'files' | 'readFile'> {
  let full: Promise<string> | undefined;
  const root = (): Promise<string> =>
    headSha ? (full ??= service.checkoutTree(wc.fileURL, headSha)) : Promise.resolve(wc.top);
  const tree = headSha && service.tree ? service.tree(wc.fileURL, headSha) : undefined;
  tree?.catch(() => undefined);
  return {
    files: async (dir) => {
      if (tree) {
        const index = await tree.catch(() => undefined);
        if (index)
          return index
            .under(dir)
            .filter((e) => e.mode !== TREE_MODE)
            .map((e) => e.path);
      }
      return listFiles(await root(), dir);
    },
    readFile: async (file) => readFile(join(await root(), file), 'utf8'),
  };
}

async function listFiles(root: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (e.name !== '.git') await walk(child);
      } else out.push(child);
    }
  };
  await walk(dir === '.' ? '' : dir);
  return out;
}

interface HeadReuse extends Pick<ReuseOptions, 'files' | 'readFile'> {
  base: Map<string, TreeNode>;
  changed: ReadonlySet<string>;
  headRevision: string;
}

async function readSide(
  side: Side,
  wc: WorkingCopy,
  options: BasePreviewOptions,
  reuse?: HeadReuse,
): Promise<Map<string, TreeNode>> {
  const paths: string[] = [];
  for (const file of options.files) {
    const abs = resolve(options.cwd ?? '.', file);
    const real = await realpath(abs).catch(() => abs);
    const rel = relative(wc.top, real);
    const inside = rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
    const path = inside ? join(side.tree, rel) : real;
    if (await stat(path).catch(() => undefined)) paths.push(path);
  }
  const rename = (origin: string): string =>
    origin.startsWith(side.tree + sep) ? `${origin.slice(side.tree.length + 1)} at ${side.label}` : origin;
  let apps: Application[];
  let appsets;
  try {
    const read = await readAppFiles(paths);
    apps = read.apps.map((a) => ({ ...a, origin: rename(a.origin) }));
    appsets = read.appsets.map((s) => ({ ...s, origin: rename(s.origin) }));
  } catch (err) {
    if (err instanceof GitopsError && err.message.includes(side.tree + sep)) {
      throw new GitopsError(`${err.message.split(side.tree + sep).join('')} (at ${side.label})`, {
        exitCode: err.exitCode,
        cause: err,
      });
    }
    throw err;
  }
  const moveSource = (s: ApplicationSource): ApplicationSource =>
    !s.chart && moves(wc, s.repoURL) ? { ...s, repoURL: wc.fileURL, targetRevision: side.sha ?? 'HEAD' } : s;
  const tree = await buildAppTree(apps, appsets, {
    service: side.service,
    argocdNamespace: options.argocdNamespace,
    recursive: options.recursive,
    maxDepth: options.maxDepth,
    renderAll: true,
    clusters: options.clusters,
    checkout: (url, rev) =>
      moves(wc, url)
        ? side.sha
          ? side.service.checkoutTree(wc.fileURL, side.sha)
          : Promise.resolve(wc.top)
        : side.service.checkoutTree(url, rev),
    mapApp: (app) => ({ ...app, sources: app.sources.map(moveSource) }),
    ...(reuse
      ? {
          reuse: (app: Application) =>
            reusableRender(app, reuse.base.get(`${app.namespace ?? options.argocdNamespace}/${app.name}`), {
              changed: reuse.changed,
              files: reuse.files,
              readFile: reuse.readFile,
              moves: (s) => !s.chart && moves(wc, s.repoURL),
              headRevision: reuse.headRevision,
            }),
        }
      : {}),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
  const byKey = new Map<string, TreeNode>();
  for (const node of tree.nodes) {
    const k = `${node.app.namespace ?? options.argocdNamespace}/${node.app.name}`;
    if (!byKey.has(k) || node.error) byKey.set(k, node);
  }
  return byKey;
}

interface Keyed {
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
  obj: KubeObject;
}

function keyed(objects: readonly KubeObject[], destNamespace: string): Map<string, Keyed> {
  const out = new Map<string, Keyed>();
  const scope = new OfflineScope(objects);
  for (const obj of objects) {
    const kind = obj.kind ?? '';
    const namespace = scope.isNamespaced(obj) ? obj.metadata?.namespace || destNamespace : '';
    const name = obj.metadata?.name ?? '';
    const group = groupOf(obj);
    const version =
      String(obj.apiVersion ?? '')
        .split('/')
        .pop() ?? '';
    out.set(`${group}/${kind}/${namespace}/${name}`, { group, version, kind, namespace, name, obj });
  }
  return out;
}

function byKey(a: ResourceStatus, b: ResourceStatus): number {
  for (const f of ['group', 'kind', 'namespace', 'name'] as const)
    if (a[f] !== b[f]) return a[f] < b[f] ? -1 : 1;
  return 0;
}

/** The verdict of a pair the head took unchanged from the base. */
const SAME: Pick<ReturnType<typeof compareResource>, 'status' | 'difference' | 'changes' | 'diffText'> = {
  status: 'Synced',
  difference: 'none',
  changes: [],
};

function compareSides(
  base: Map<string, TreeNode>,
  head: Map<string, TreeNode>,
  options: BasePreviewOptions,
): PreviewApp[] {
  const keys = [...new Set([...head.keys(), ...base.keys()])];
  const out: PreviewApp[] = [];
  for (const k of keys) {
    const b = base.get(k);
    const h = head.get(k);
    const app = (h ?? b)!.app;
    const d = app.destination;
    const destination: AppDestination = {
      ...(d.server ? { server: d.server } : {}),
      ...(d.name ? { name: d.name } : {}),
      namespace: d.namespace,
    };
    const change: AppChange = !b ? 'added' : !h ? 'removed' : 'modified';
    const entry: PreviewApp = {
      app,
      destination,
      change,
      ...(b?.rendered ? { baseRevision: b.rendered.revision } : {}),
      ...(h?.rendered ? { headRevision: h.rendered.revision } : {}),
      resources: [],
      warnings: [...(h?.rendered?.warnings ?? [])],
    };
    const error = h?.error ?? b?.error;
    if (error) {
      const side = h?.error ? '' : ' (at base)';
      entry.error = {
        message: `${error.message}${side}`,
        exitCode: error.exitCode,
        ...(error.hint ? { hint: error.hint } : {}),
      };
      out.push(entry);
      continue;
    }
    const rules = [...(h ?? b)!.app.ignoreDifferences, ...(options.ignoreDifferences ?? [])];
    const baseObjs = keyed(b?.rendered?.objects ?? [], b?.app.destination.namespace ?? d.namespace);
    // The head took the base's render (reuse.ts): the very same objects, nothing to compare.
    const reused =
      b?.rendered !== undefined &&
      h?.rendered?.objects === b.rendered.objects &&
      b.app.destination.namespace === d.namespace;
    const headObjs = reused ? baseObjs : keyed(h?.rendered?.objects ?? [], d.namespace);
    for (const rk of new Set([...headObjs.keys(), ...baseObjs.keys()])) {
      const t = headObjs.get(rk);
      const l = baseObjs.get(rk);
      const id = (t ?? l)!;
      let live: KubeObject | null = null;
      if (l && !reused) {
        // The base carries itself as last-applied: fields the change removes are differences (three-way).
        const annotations = { ...(l.obj.metadata?.annotations ?? {}) };
        annotations['kubectl.kubernetes.io/last-applied-configuration'] = JSON.stringify(l.obj);
        live = { ...l.obj, metadata: { ...l.obj.metadata, annotations } } as KubeObject;
      }
      const result = reused
        ? SAME
        : compareResource({ target: t?.obj ?? null, live, ignoreDifferences: rules });
      entry.resources.push({
        group: id.group,
        version: id.version,
        kind: id.kind,
        namespace: id.namespace,
        name: id.name,
        status: result.status,
        difference: result.difference,
        requiresPruning: false,
        changes: result.changes,
        ...(result.diffText ? { diffText: relabel(result.diffText) } : {}),
      });
    }
    entry.resources.sort(byKey);
    if (entry.change === 'modified' && entry.resources.every((r) => r.status === 'Synced'))
      entry.change = 'unchanged';
    out.push(entry);
  }
  const names = options.names ?? [];
  if (names.length === 0 && options.selector === undefined) return out;
  const picked = new Set(
    selectApplications(
      out.map((a) => a.app),
      { names, ...(options.selector !== undefined ? { selector: options.selector } : {}) },
    ),
  );
  return out.filter((a) => picked.has(a.app));
}

/** diff's unified text says live/target; here the sides are base and head. */
function relabel(text: string): string {
  return text.replace(/^--- live (.*)\n\+\+\+ target (.*)\n/, '--- base $1\n+++ head $2\n');
}
