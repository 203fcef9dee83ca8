/**
 * What the source service promises (index.ts is the manual): its options, the rendered app and sources,
 * its counters, `SourceError`, and the render events `observeRenders` reports.
 */
import type { Application, PluginConfigSet } from '../apps/index.js';
import { ExitCode, GitopsError, oneLine } from '../common/index.js';
import type { KubeObject } from '../util/yaml-docs.js';
import { type Exec } from './exec.js';
import { type GitStats } from './git.js';
import { type TreeIndex } from './git-tree.js';
import { type GitAuthOptions } from './git-auth.js';
import { type RepositoryObject } from './repositories.js';
import { type KustomizeSettings } from './tool-paths.js';
import { type SourceType } from './render/index.js';

export interface SourceServiceOptions {
  /** Cache root (mirrors + manifests); default `$XDG_CACHE_HOME/kubectl-gitops` or `~/.cache/kubectl-gitops`. */
  cacheRoot?: string;
  /** Ignore cached manifests (still refreshes them). */
  hardRefresh?: boolean;
  /** Render this working directory instead of fetching Git (`--local`). */
  local?: string;
  /**
   * The revision reported for sources read from `local`: `fixed` (default) is "local"; `digest` is
   * "local:<12 hex>", a digest of every file under the directory (`.git` left out), computed again after
   * `forgetRevisions`: a continuous loop (`sync --watch --local`) then sees a saved change as a new
   * revision (auto-synced, like a new commit) and a live edit as drift at the same revision.
   */
  localRevision?: 'fixed' | 'digest';
  /**
   * Per-repository working directories (`repoKey(url)` -> directory): sources of those repositories are
   * read from the directory like `local` (revision "local"), the others from Git (`diff --base --local`).
   */
  localRepos?: ReadonlyMap<string, string>;
  /** Control-plane namespace: decides the tracking instance name (default argocd). */
  argocdNamespace?: string;
  concurrency?: number;
  renderTimeoutMs?: number;
  gitTimeoutMs?: number;
  signal?: AbortSignal;
  /** Process runner (tests); default spawns. */
  exec?: Exec;
  /** PATH used to find kustomize/helm/jsonnet (default process.env.PATH). */
  path?: string;
  /** `--helm-path`: the helm binary (default: `helm` on PATH, else the one `npm run tools` installs). */
  helmPath?: string;
  /** `--kustomize-path`: the kustomize binary (default: as helm). */
  kustomizePath?: string;
  /** argocd-cm's kustomize settings (build options, registered versions); read once, on first use. */
  kustomizeSettings?: () => Promise<KustomizeSettings | undefined>;
  /**
   * Argo CD's repository Secrets, `repo-creds` templates and argocd-ssh-known-hosts-cm (`--repositories-file`
   * and/or the live namespace with `--from-cluster`); called once, on the first Git or Helm repository use.
   */
  repositories?: () => Promise<RepositoryObject[]>;
  /** GitHub App token HTTP and the private temp dir (tests). */
  gitAuth?: GitAuthOptions;
  /**
   * The config management plugins (`--plugin-config` files and/or the live namespace with `--from-cluster`;
   * src/apps plugins.ts); called once, on the first render of a Git source. None: plugin sources fail
   * naming the plugin and the flag.
   */
  plugins?: () => Promise<PluginConfigSet>;
}

export interface RenderedSource {
  repoURL: string;
  path: string;
  targetRevision: string;
  chart?: string;
  ref?: string;
  /** Resolved commit SHA ("local" with --local, the chart version for Helm repositories). */
  revision: string;
  /** Undefined for ref-only sources (not rendered). */
  type?: SourceType;
  cached: boolean;
}

export interface RenderedApp {
  app: Application;
  /** The first rendered source's resolved revision. */
  revision: string;
  sources: RenderedSource[];
  /** Deduplicated, tracking-stamped objects in source order. */
  objects: KubeObject[];
  warnings: string[];
}

export interface SourceStats {
  git: GitStats;
  cache: { hits: number; misses: number; writes: number };
  renders: number;
}

export interface SourceService {
  renderApp(app: Application): Promise<RenderedApp>;
  /**
   * A directory holding `repoURL` at `revision` (resolved like a source's targetRevision; the local
   * directory under `local`/`localRepos`): what ApplicationSet git generators read. Read-only.
   */
  checkoutTree(repoURL: string, revision: string): Promise<string>;
  /**
   * What Git records of `repoURL` at commit `sha` (every path with its object id, git-tree.ts), read
   * without a checkout; rejects for a local directory (`local`/`localRepos`), which has no commit.
   */
  tree?(repoURL: string, sha: string): Promise<TreeIndex>;
  /**
   * The repository URLs that repository Secrets scope to `project` (Argo CD's GetProjectRepositories);
   * absent or [] without repository Secrets.
   */
  projectRepositories?(project: string): Promise<string[]>;
  /**
   * The refs of `repoURL` now (one fresh `git ls-remote`, never cached), with the credentials Argo CD uses
   * for an app of `project`: what the Git poller (poller.ts) reads. Errors name the redacted URL only.
   */
  listRefs?(repoURL: string, project: string): Promise<Map<string, string>>;
  /**
   * Forgets what this service resolved of `repoURL` so far (ls-remote answers, branch reads, the fetch):
   * the next render resolves its revisions afresh (a continuous loop's refresh at level >= 2, a new
   * commit seen by a poller). Checkouts and cached manifests of resolved commits stay valid.
   */
  forgetRevisions?(repoURL: string): void;
  /**
   * How plugin renders learn the app's destination cluster (KUBE_VERSION, KUBE_API_VERSIONS; part of their
   * cache key): set by the run that connects to clusters, before it renders. Without it both are empty, as
   * Argo CD sends them when it does not know the cluster (`render`, `diff --base`).
   */
  useClusterInfo?(info: (app: Application) => Promise<ClusterInfo>): void;
  readonly stats: SourceStats;
  close(): Promise<void>;
}

/** The destination cluster's version ("1.28.4") and API versions ("v1", "apps/v1/Deployment", ...). */
export interface ClusterInfo {
  kubeVersion: string;
  apiVersions: string[];
}

/**
 * Progress of rendering, as data (observer of `observeRenders`): an app's render starts, and is done with
 * its revision and object count, or with its one-line error.
 */
export type RenderEvent =
  | { type: 'render-start'; app: string }
  | { type: 'render-done'; app: string; revision?: string; objects?: number; error?: string };

/** `service`, reporting every `renderApp` to `onEvent` (progress printers); results and errors unchanged. */
export function observeRenders(service: SourceService, onEvent: (event: RenderEvent) => void): SourceService {
  return {
    async renderApp(app) {
      onEvent({ type: 'render-start', app: app.name });
      try {
        const rendered = await service.renderApp(app);
        onEvent({
          type: 'render-done',
          app: app.name,
          revision: rendered.revision,
          objects: rendered.objects.length,
        });
        return rendered;
      } catch (err) {
        onEvent({ type: 'render-done', app: app.name, error: oneLine(err) });
        throw err;
      }
    },
    checkoutTree: (repoURL, revision) => service.checkoutTree(repoURL, revision),
    ...(service.tree ? { tree: service.tree.bind(service) } : {}),
    projectRepositories: async (project) => (await service.projectRepositories?.(project)) ?? [],
    ...(service.listRefs ? { listRefs: service.listRefs.bind(service) } : {}),
    forgetRevisions: (repoURL) => service.forgetRevisions?.(repoURL),
    useClusterInfo: (info) => service.useClusterInfo?.(info),
    get stats() {
      return service.stats;
    },
    close: () => service.close(),
  };
}

/** A failure to produce an app's desired state: exit code 2, subject `app "<name>"`. */
export class SourceError extends GitopsError {
  constructor(
    readonly app: string,
    /** The file or directory (relative to the repository root), or "" for repository-level failures. */
    readonly file: string,
    readonly reason: string,
    /** The repository (without credentials), when the failure is about one. */
    readonly repo = '',
    cause?: unknown,
  ) {
    // Repository-level failures already say what failed ("failed to fetch <repo>: ...").
    const message =
      !file && reason.startsWith('failed to ')
        ? reason
        : `failed to render ${file}${repo ? ` from ${repo}` : ''}: ${reason}`;
    super(message, {
      subject: `app "${app}"`,
      exitCode: ExitCode.USAGE,
      hint: file
        ? 'fix it in Git, or try a fix with --local <working copy>'
        : 'check the repository URL, revision and credentials',
      cause,
    });
    this.name = 'SourceError';
  }
}
