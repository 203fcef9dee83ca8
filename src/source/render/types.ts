/** Types shared by the renderers (a leaf of `src/source/render/`). */
import type { ApplicationSource, PluginConfigSet } from '../../apps/index.js';
import type { KubeObject } from '../../util/yaml-docs.js';
import type { Exec } from '../exec.js';

export type SourceType = 'Directory' | 'Kustomize' | 'Helm' | 'Plugin';

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
  /** A chart from a Helm repository that a repository Secret gives credentials for. */
  helmRepository?: HelmRepoAuth;
  /** Argo CD's build environment beyond the source, for config management plugins (plugin-env.ts). */
  build?: {
    /** The app's instance name (ARGOCD_APP_NAME). */
    instanceName: string;
    project: string;
    /** The resolved revision of this source. */
    revision: string;
    /** The destination cluster's version and API versions ("" / none when unknown). */
    kubeVersion?: string;
    apiVersions?: string[];
  };
}

/**
 * Credentials of a Helm repository, never on helm's command line: a private (0600) helm repository config
 * file holding one entry `name` (url, username, password, certFile/keyFile, insecure_skip_tls_verify), and a
 * private repository cache directory.
 */
export interface HelmRepoAuth {
  name: string;
  repositoryConfig: string;
  repositoryCache: string;
  /** Values to scrub from helm's messages. */
  secrets: string[];
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
