// Over 400 lines: one class, the one-run Service (a render per source, its cache key and tools); next cut: its plugin steps (pluginKey, kubeOf, plugins).
/** The source service (index.ts is the manual): `createSourceService` and the one-run `Service` behind it. */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Application, ApplicationSource, PluginConfigSet } from '../apps/index.js';
import { discoveryConfigured, instanceName } from '../apps/index.js';
import { GitopsError, oneLine } from '../common/index.js';
import type { KubeObject } from '../util/yaml-docs.js';
import { cacheKey, defaultCacheRoot, ManifestCache } from './cache.js';
import { DEFAULT_TIMEOUT_MS, execProcess, Limiter, which } from './exec.js';
import { GitRepos, type CheckoutLease, type RepoAuth } from './git.js';
import { GitAuth, type GitEnv } from './git-auth.js';
import { credentialsId, RepositoryStore, type RepoCredentials } from './repositories.js';
import type { HelmRepoSettings } from './render/types.js';
import { ToolPaths } from './tool-paths.js';
import { RenderError, renderSource, type RenderResult, type RenderTools } from './render/index.js';
import { dedupe, stampTracking, untrackable } from './tracking.js';
import { redactURL, repoKey } from './url.js';
import { treeDigest } from './tree-digest.js';
import { treeKey } from './tree-key.js';
import type { TreeIndex } from './git-tree.js';
import { SourceError } from './service-types.js';
import type {
  ClusterInfo,
  RenderedApp,
  RenderedSource,
  SourceService,
  SourceServiceOptions,
  SourceStats,
} from './service-types.js';

export function createSourceService(options: SourceServiceOptions = {}): SourceService {
  return new Service(options);
}

const NO_PLUGINS: PluginConfigSet = { plugins: [], notes: [] };

const isRefOnly = (s: ApplicationSource) => Boolean(s.ref) && !s.path && !s.chart;
/** Sources read from Git (not a Helm repository chart nor an OCI artifact). */
const isGitSource = (s: Pick<ApplicationSource, 'chart' | 'repoURL'>) =>
  !s.chart && !s.repoURL.startsWith('oci://');

class Service implements SourceService {
  private readonly cacheRoot: string;
  private readonly work: Promise<string>;
  private readonly git: GitRepos;
  private readonly cache: ManifestCache;
  private readonly tools: RenderTools;
  private readonly fingerprints = new Map<string, Promise<string>>();
  private readonly paths = new Map<string, Promise<string | undefined>>();
  private renders = 0;
  private tempCount = 0;
  private store: Promise<{ store: RepositoryStore; auth: GitAuth }> | undefined;
  private readonly environs = new Map<string, Promise<GitEnv>>();

  constructor(private readonly options: SourceServiceOptions) {
    this.cacheRoot = options.cacheRoot ?? defaultCacheRoot();
    this.work = mkdtemp(join(tmpdir(), 'kubectl-gitops-'));
    const exec = options.exec ?? execProcess;
    const gitLimit = new Limiter(8);
    const renderLimit = new Limiter(options.concurrency ?? Math.max(2, availableParallelism()));
    const workDir = join(tmpdir(), `kubectl-gitops-${process.pid}-${Date.now().toString(36)}`);
    this.git = new GitRepos({
      cacheDir: join(this.cacheRoot, 'git'),
      workDir,
      exec: (c, a, o) => gitLimit.run(() => exec(c, a, o)),
      ...(options.gitTimeoutMs ? { timeoutMs: options.gitTimeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    this.gitWorkDir = workDir;
    this.cache = new ManifestCache({ root: this.cacheRoot, fingerprint: (tool) => this.fingerprint(tool) });
    const paths = new ToolPaths({
      ...(options.helmPath ? { helmPath: options.helmPath } : {}),
      ...(options.kustomizePath ? { kustomizePath: options.kustomizePath } : {}),
      ...(options.path !== undefined ? { path: options.path } : {}),
      ...(options.kustomizeSettings ? { kustomizeSettings: options.kustomizeSettings } : {}),
    });
    const once = new Map<string, Promise<unknown>>();
    this.tools = {
      exec: (c, a, o) => renderLimit.run(() => exec(c, a, o)),
      which: (tool) => this.which(tool),
      helm: (version) => paths.helm(version),
      kustomize: (version) => paths.kustomize(version),
      kustomizeBuildOptions: async () => (await paths.kustomizeSettings())?.buildOptions ?? '',
      once: <T>(key: string, make: () => Promise<T>): Promise<T> => {
        let p = once.get(key) as Promise<T> | undefined;
        if (!p) {
          p = make();
          once.set(key, p);
          // A failure is not remembered: the next app tries again (and says why again).
          p.catch(() => once.delete(key));
        }
        return p;
      },
      plugins: () => this.plugins(),
      tempDir: async (prefix) => mkdtemp(join(await this.work, `${prefix}${this.tempCount++}-`)),
      timeoutMs: options.renderTimeoutMs ?? DEFAULT_TIMEOUT_MS,
      ...(options.signal ? { signal: options.signal } : {}),
    };
  }

  private readonly gitWorkDir: string;

  /** "local:<12 hex>" of the files under `dir` (memoized until `forgetRevisions`). */
  private localDigest(dir: string): Promise<string> {
    const key = resolve(dir);
    let digest = this.digests.get(key);
    if (!digest) {
      digest = treeDigest(key).then((hex) => `local:${hex.slice(0, 12)}`);
      this.digests.set(key, digest);
      digest.catch(() => this.digests.delete(key));
    }
    return digest;
  }

  private readonly digests = new Map<string, Promise<string>>();

  private pluginSet: Promise<PluginConfigSet> | undefined;
  private clusterInfo: ((app: Application) => Promise<ClusterInfo>) | undefined;

  useClusterInfo(info: (app: Application) => Promise<ClusterInfo>): void {
    this.clusterInfo = info;
  }

  /** The app's cluster as renders see it (empty when no run gave one); a failure names the cluster step. */
  private async kubeOf(app: Application): Promise<ClusterInfo> {
    if (!this.clusterInfo) return { kubeVersion: '', apiVersions: [] };
    try {
      return await this.clusterInfo(app);
    } catch (err) {
      throw new GitopsError(`failed to get the destination cluster's version: ${oneLine(err)}`, {
        cause: err,
      });
    }
  }

  /** The run's plugin configurations, loaded once (a failure fails every render that needs them). */
  private plugins(): Promise<PluginConfigSet> {
    this.pluginSet ??= this.options.plugins
      ? this.options.plugins().catch((err: unknown) => {
          throw new GitopsError(`failed to read config management plugins: ${oneLine(err)}`, { cause: err });
        })
      : Promise.resolve(NO_PLUGINS);
    return this.pluginSet;
  }

  /**
   * What a source's render depends on through plugins (a cache key part), or undefined when no plugin can
   * render it: the source's plugin block, every configuration's digest and Argo CD's build environment.
   */
  private async pluginKey(
    app: Application,
    source: ApplicationSource,
  ): Promise<Record<string, unknown> | undefined> {
    const explicit = source.plugin !== undefined;
    if (!explicit && (source.chart || source.helm || source.kustomize || source.directory)) return undefined;
    if (!explicit && !this.options.plugins) return undefined;
    // A source of no explicit type does not fail when the plugins cannot be read: Argo CD's discovery then
    // falls back to the built-in types too (render/plugin.ts).
    const set = explicit ? await this.plugins() : await this.plugins().catch(() => NO_PLUGINS);
    if (!explicit && !set.plugins.some(discoveryConfigured)) return undefined;
    return {
      plugin: source.plugin ?? null,
      configs: set.plugins.map((p) => p.digest),
      build: [instanceName(app, this.options.argocdNamespace ?? 'argocd'), app.project],
    };
  }

  forgetRevisions(repoURL: string): void {
    if (this.localDir({ repoURL })) this.digests.clear();
    this.git.forgetRefs(repoURL);
  }

  get stats(): SourceStats {
    return { git: this.git.stats, cache: { ...this.cache.stats }, renders: this.renders };
  }

  private which(tool: string): Promise<string | undefined> {
    let p = this.paths.get(tool);
    if (!p) {
      p = which(tool, this.options.path);
      this.paths.set(tool, p);
    }
    return p;
  }

  /** "<path>:<size>:<mtime>" of a tool's binary (a path, or a name on PATH; "" for none / not installed). */
  private fingerprint(tool: string): Promise<string> {
    let p = this.fingerprints.get(tool);
    if (!p) {
      p = (async () => {
        if (!tool) return '';
        const path = tool.startsWith('/') ? tool : await this.which(tool);
        if (!path) return '';
        const s = await stat(path);
        return `${path}:${s.size}:${s.mtimeMs}`;
      })();
      this.fingerprints.set(tool, p);
    }
    return p;
  }

  async renderApp(app: Application): Promise<RenderedApp> {
    const fail = (err: unknown, source?: ApplicationSource): never => {
      if (err instanceof SourceError) throw err;
      const repo = source && !this.options.local ? redactURL(source.repoURL) : '';
      if (err instanceof RenderError) throw new SourceError(app.name, err.file, err.reason, repo, err);
      const message = err instanceof Error ? err.message : String(err);
      throw new SourceError(app.name, '', message, repo, err);
    };
    // 1. Resolve every source's revision (in parallel; ls-remote is shared per repository).
    const revisions = await Promise.all(
      app.sources.map(async (s) => {
        try {
          const local = this.localDir(s);
          if (local) return this.options.localRevision === 'digest' ? await this.localDigest(local) : 'local';
          if (!isGitSource(s)) return s.targetRevision;
          return await this.git.resolveRevision(
            s.repoURL,
            s.targetRevision,
            await this.auth(s.repoURL, app.project),
          );
        } catch (err) {
          return fail(err, s);
        }
      }),
    );
    const refs = new Map<string, { source: ApplicationSource; revision: string }>();
    app.sources.forEach((s, i) => s.ref && refs.set(s.ref, { source: s, revision: revisions[i]! }));

    // 2. Render each non-ref-only source (in parallel), from the cache when possible.
    const results = await Promise.all(
      app.sources.map(async (source, i): Promise<{ result?: RenderResult; cached: boolean }> => {
        if (isRefOnly(source)) return { cached: false };
        try {
          const rendered = await this.renderOne(app, source, revisions[i]!, refs);
          // Argo CD's repo-server fails the source when it cannot stamp an object (tracking.ts).
          const why = untrackable(rendered.result.objects);
          if (why) throw new RenderError(source.path || '.', why);
          return rendered;
        } catch (err) {
          return fail(err, source);
        }
      }),
    );

    const warnings: string[] = [];
    const all: KubeObject[] = [];
    for (const r of results) {
      if (!r.result) continue;
      all.push(...r.result.objects);
      warnings.push(...r.result.warnings);
    }
    const dest = app.destination.namespace;
    const deduped = dedupe(all, dest);
    warnings.push(...deduped.warnings.map((w) => `app "${app.name}": ${w}`));
    const instance = instanceName(app, this.options.argocdNamespace ?? 'argocd');
    const sources: RenderedSource[] = app.sources.map((s, i) => ({
      repoURL: redactURL(s.repoURL),
      path: s.path,
      targetRevision: s.targetRevision,
      ...(s.chart ? { chart: s.chart } : {}),
      ...(s.ref ? { ref: s.ref } : {}),
      revision: revisions[i]!,
      ...(results[i]!.result ? { type: results[i]!.result!.type } : {}),
      cached: results[i]!.cached,
    }));
    const first = app.sources.findIndex((s) => !isRefOnly(s));
    return {
      app,
      revision: revisions[first < 0 ? 0 : first]!,
      sources,
      objects: stampTracking(deduped.objects, instance, dest),
      warnings,
    };
  }

  private async renderOne(
    app: Application,
    source: ApplicationSource,
    revision: string,
    refs: Map<string, { source: ApplicationSource; revision: string }>,
  ): Promise<{ result: RenderResult; cached: boolean }> {
    const usedRefs = [
      ...(source.helm?.valueFiles ?? []),
      ...(source.helm?.fileParameters.map((p) => p.path) ?? []),
    ]
      .map((f) => /^\$([^/]+)\//.exec(f)?.[1])
      .filter((r): r is string => r !== undefined);
    const localDir = this.localDir(source);
    const local = localDir ? resolve(localDir) : undefined;
    // Every render sees the destination cluster's version and API versions, and is cached by them, as
    // Argo CD's repo-server is asked with and keys by them (helm's --kube-version/--api-versions,
    // kustomize's --helm-kube-version/--helm-api-versions, a plugin's KUBE_VERSION/KUBE_API_VERSIONS).
    const plugins = await this.pluginKey(app, source);
    // A cluster that cannot be read fails a plugin render (its own step, as before); other sources render
    // without its facts (as `render` does) and the app fails at its live state, naming the cluster there.
    const kube = plugins
      ? await this.kubeOf(app)
      : await this.kubeOf(app).catch(() => ({ kubeVersion: '', apiVersions: [] as string[] }));
    // Git sources whose inputs are known by object id are keyed by those ids, not the commit (tree-key.ts).
    const tree =
      local || plugins || !isGitSource(source) ? undefined : await this.treeKeyOf(app, source, revision);
    const key = local
      ? undefined
      : cacheKey({
          repo: repoKey(source.repoURL),
          ...(tree ? { tree } : { revision }),
          path: source.path,
          chart: source.chart ?? null,
          directory: source.directory ?? null,
          kustomize: source.kustomize ?? null,
          helm: source.helm ?? null,
          helmDefaults: [app.name, app.destination.namespace],
          refs: [...new Set(usedRefs)].sort().map((r) => {
            const ref = refs.get(r);
            return [r, ref ? repoKey(ref.source.repoURL) : null, ref?.revision ?? null];
          }),
          ...(plugins ? { plugins } : {}),
          kube: [kube.kubeVersion, [...kube.apiVersions].sort()],
        });
    if (key && !this.options.hardRefresh) {
      const hit = await this.cache.get(key);
      if (hit)
        return {
          result: { type: hit.type, tool: hit.tool, objects: hit.objects, warnings: [] },
          cached: true,
        };
    }
    // Checkouts are leased for the render only: a continuous loop's old commits are not kept (git.ts).
    const leases: CheckoutLease[] = [];
    const lease = async (repoURL: string, sha: string): Promise<string> => {
      const l = await this.git.lease(repoURL, sha, await this.auth(repoURL, app.project));
      leases.push(l);
      return l.dir;
    };
    let result: Awaited<ReturnType<typeof renderSource>>;
    try {
      const root = local ?? (isGitSource(source) ? await lease(source.repoURL, revision) : this.gitWorkDir);
      const refRoots = new Map<string, string>();
      for (const r of new Set(usedRefs)) {
        const ref = refs.get(r);
        if (!ref) throw new RenderError(`$${r}`, `no source has ref "${r}"`);
        const refLocal = this.localDir(ref.source);
        refRoots.set(r, refLocal ? resolve(refLocal) : await lease(ref.source.repoURL, ref.revision));
      }
      this.renders++;
      result = await renderSource(
        {
          appName: app.name,
          destNamespace: app.destination.namespace,
          source,
          root,
          refRoots,
          helmRepository: (ref) => this.helmRepository(ref, app.project),
          build: {
            instanceName: instanceName(app, this.options.argocdNamespace ?? 'argocd'),
            project: app.project,
            revision,
            kubeVersion: kube.kubeVersion,
            apiVersions: kube.apiVersions,
          },
        },
        this.tools,
      );
    } finally {
      for (const l of leases) l.release();
    }
    if (key) {
      await this.cache.put(key, {
        type: result.type,
        tool: result.tool,
        toolFingerprint: await this.fingerprint(result.tool),
        objects: result.objects,
      });
    }
    return { result, cached: false };
  }

  /** tree-key.ts's key of a Git source at commit `revision`; undefined (key by commit) when Git cannot tell. */
  private async treeKeyOf(
    app: Application,
    source: ApplicationSource,
    revision: string,
  ): Promise<Record<string, unknown> | undefined> {
    try {
      const tree = await this.git.tree(
        source.repoURL,
        revision,
        await this.auth(source.repoURL, app.project),
      );
      return await treeKey(app, source, tree, (oid) => {
        let text = this.blobs.get(oid);
        if (!text) {
          text = this.git.blob(source.repoURL, oid);
          this.blobs.set(oid, text);
        }
        return text;
      });
    } catch {
      // The checkout the render needs then says what is wrong with the repository or commit.
      return undefined;
    }
  }

  private readonly blobs = new Map<string, Promise<string>>();

  /** The working directory a Git source is read from instead of Git, if any. */
  private localDir(source: Pick<ApplicationSource, 'repoURL' | 'chart'>): string | undefined {
    if (this.options.local && isGitSource(source)) return this.options.local;
    if (!isGitSource(source) || !this.options.localRepos) return undefined;
    return this.options.localRepos.get(repoKey(source.repoURL));
  }

  async checkoutTree(repoURL: string, revision: string): Promise<string> {
    const local = this.localDir({ repoURL });
    if (local) return resolve(local);
    // ApplicationSet generators read with the ApplicationSet controller's credentials: no project.
    const auth = await this.auth(repoURL, '');
    const sha = await this.git.resolveRevision(repoURL, revision, auth);
    return this.git.checkout(repoURL, sha, auth);
  }

  async tree(repoURL: string, sha: string): Promise<TreeIndex> {
    if (this.localDir({ repoURL })) throw new GitopsError(`failed to list ${repoURL}: a local directory`);
    return this.git.tree(repoURL, sha, await this.auth(repoURL, ''));
  }

  async listRefs(repoURL: string, project: string): Promise<Map<string, string>> {
    return this.git.listRefs(repoURL, await this.auth(repoURL, project));
  }

  /** The run's repositories (loaded once) and the private-file writer for their credentials. */
  private repositories(): Promise<{ store: RepositoryStore; auth: GitAuth }> {
    this.store ??= (async () => {
      let store: RepositoryStore;
      try {
        store = new RepositoryStore(this.options.repositories ? await this.options.repositories() : []);
      } catch (err) {
        // Every app needing a repository fails the same way: say what failed, once per app.
        throw new GitopsError(`failed to read repository credentials: ${oneLine(err)}`, { cause: err });
      }
      return { store, auth: new GitAuth(store.knownHosts, this.options.gitAuth) };
    })();
    return this.store;
  }

  /**
   * The repository URLs scoped to `project` by repository Secrets (they extend its sourceRepos, as Argo
   * CD's GetAppProjectByName); none without repository Secrets. Rejects when the Secrets do not load.
   */
  async projectRepositories(project: string): Promise<string[]> {
    if (!this.options.repositories) return [];
    return (await this.repositories()).store.projectRepositories(project);
  }

  /** The settings Argo CD uses for `repoURL` in `project`, or undefined (none given / none match). */
  private async credentials(repoURL: string, project: string): Promise<RepoCredentials | undefined> {
    if (!this.options.repositories) return undefined;
    return (await this.repositories()).store.lookup(repoURL, project);
  }

  /** The git credentials of `repoURL` for an app of `project` (undefined: git's own configuration). */
  private async auth(repoURL: string, project: string): Promise<RepoAuth | undefined> {
    const creds = await this.credentials(repoURL, project);
    if (!creds) return undefined;
    const { auth } = await this.repositories();
    const id = credentialsId(creds);
    return {
      id,
      environ: () => {
        // GitHub App tokens expire: ask every time (github-app.ts caches them until expiry).
        if (creds.githubAppPrivateKey && !creds.password && !creds.bearerToken && !creds.sshPrivateKey)
          return auth.environ(creds);
        let env = this.environs.get(id);
        if (!env) {
          env = auth.environ(creds);
          this.environs.set(id, env);
          env.catch(() => this.environs.delete(id));
        }
        return env;
      },
    };
  }

  /**
   * The Helm settings a repository Secret gives `ref` (by URL, or by the Secret's `name` for a chart
   * dependency's `@name`) for an app of `project`; undefined without one. Values stay in memory: helm gets
   * them through private files (render/helm-home.ts).
   */
  private async helmRepository(
    ref: { url?: string; name?: string },
    project: string,
  ): Promise<HelmRepoSettings | undefined> {
    if (!this.options.repositories) return undefined;
    const { store } = await this.repositories();
    const creds = ref.url
      ? (store.lookup(ref.url.replace(/^oci:\/\//, ''), project) ?? store.lookup(ref.url, project))
      : ref.name
        ? store.byName(ref.name, project)
        : undefined;
    if (!creds) return undefined;
    return {
      url: creds.url.replace(/^oci:\/\//, ''),
      name: creds.name,
      username: creds.username,
      password: creds.password,
      tlsClientCertData: creds.tlsClientCertData,
      tlsClientCertKey: creds.tlsClientCertKey,
      insecure: creds.insecure,
      enableOCI: creds.enableOCI || creds.type === 'oci',
      insecureOCIForceHttp: creds.insecureOCIForceHttp,
    };
  }

  async close(): Promise<void> {
    if (this.store) await (await this.store.catch(() => undefined))?.auth.close();
    await rm(await this.work, { recursive: true, force: true });
    await rm(this.gitWorkDir, { recursive: true, force: true });
  }
}
