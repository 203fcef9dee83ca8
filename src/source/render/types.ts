/** Types shared by the renderers (a leaf of `src/source/render/`). */
import type { ApplicationSource, PluginConfigSet } from '../../apps/index.js';
import type { KubeObject } from '../../util/yaml-docs.js';
import type { Exec } from '../exec.js';

export type SourceType = 'Directory' | 'Kustomize' | 'Helm' | 'Plugin';

/** The facts of one render beyond its source (RenderRequest.build). */
export interface BuildFacts {
  /** The app's instance name: `<namespace>_<name>` outside the control-plane namespace (ARGOCD_APP_NAME). */
  instanceName: string;
  /** The app's project (ARGOCD_APP_PROJECT_NAME). */
  project: string;
  /** The source's resolved revision: a commit SHA, "local", or the chart version of a Helm repository chart. */
  revision: string;
  /** The destination cluster's version ("1.34.4") and API versions ("v1", "apps/v1/Deployment"...) from
   * discovery, as Argo CD's controller sends them; "" and none when the run has no cluster. */
  kubeVersion: string;
  apiVersions: readonly string[];
}

export interface RenderRequest {
  /** Application name: Helm's default release name. */
  appName: string;
  /** Destination namespace: Helm's default namespace. */
  destNamespace: string;
  source: ApplicationSource;
  /** Root of the checkout (or the --local directory). Nothing under it is ever modified. */
  root: string;
  /** `ref` name -> checkout root of that source, for `$ref/...` Helm value files. */
  refRoots: ReadonlyMap<string, string>;
  /**
   * The Helm repository settings Argo CD would use for a repository URL (a chart's own `repoURL`, a
   * dependency's `repository`) or, for `@name`/`alias:name` dependencies, a repository Secret's `name`.
   */
  helmRepository?: (ref: { url?: string; name?: string }) => Promise<HelmRepoSettings | undefined>;
  /**
   * What Argo CD's ManifestRequest says beyond the source, once for every renderer: the build environment
   * (env.ts: ARGOCD_APP_NAME is the instance name, ARGOCD_APP_PROJECT_NAME, ARGOCD_APP_REVISION...) and
   * the destination cluster (Helm's `--kube-version`/`--api-versions`, kustomize's `--helm-kube-version`/
   * `--helm-api-versions`, a plugin's KUBE_VERSION/KUBE_API_VERSIONS).
   */
  build: BuildFacts;
}

/**
 * What a repository Secret says about a Helm repository (Argo CD's `HelmRepository` + `Creds`). Secrets
 * reach helm through private (0600) files in a per-render helm home, never its command line (helm-home.ts).
 */
export interface HelmRepoSettings {
  url: string;
  /** The Secret's `name` (Helm dependencies may name a repository as `@name`). */
  name: string;
  username: string;
  password: string;
  tlsClientCertData: string;
  tlsClientCertKey: string;
  insecure: boolean;
  enableOCI: boolean;
  insecureOCIForceHttp: boolean;
}

export interface RenderResult {
  type: SourceType;
  /** The tool that produced the objects ("" for plain directories): its fingerprint keys the cache. */
  tool: string;
  objects: KubeObject[];
  warnings: string[];
}

/** What renderers may use: process execution (already limited and timed), tool lookup, a scratch dir. */
export interface RenderTools {
  exec: Exec;
  /** Absolute path of a tool on PATH, or undefined. */
  which(tool: string): Promise<string | undefined>;
  /**
   * The helm binary for `helm.version` ("", "v3", "v4": Argo CD 3.6 runs its one helm for each), rejecting
   * with a one-line reason when none is found or the version is not supported (tool-paths.ts).
   */
  helm(version?: string): Promise<string>;
  /** The kustomize binary for `kustomize.version` (argocd-cm `kustomize.path.<version>`), as `helm`. */
  kustomize(version?: string): Promise<string>;
  /** argocd-cm `kustomize.buildOptions` ("" = none). */
  kustomizeBuildOptions(): Promise<string>;
  /** Runs `make` once per `key` for the service's lifetime (pulled charts: per run, not per app). */
  once<T>(key: string, make: () => Promise<T>): Promise<T>;
  /** Creates a fresh empty temp directory (removed at the end of the run). */
  tempDir(prefix: string): Promise<string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** The config management plugins of the run (loaded once, on first use); none when absent. */
  plugins?: () => Promise<PluginConfigSet>;
}

/** A render failure naming the file (relative to the repository root) and the reason. */
export class RenderError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`failed to render ${file}: ${reason}`);
    this.name = 'RenderError';
  }
}
