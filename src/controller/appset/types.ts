/**
 * The options and events of the ApplicationSet controller (controller.ts). A leaf of types.
 */
import type { ScmAccess } from '../../apps/appset/index.js';
import type { KubeClient } from '../../cluster/index.js';

/** Argo CD's ApplicationsSyncPolicy (`--policy`, `spec.syncPolicy.applicationsSync`); '' = sync. */
export type AppsSyncPolicy = '' | 'sync' | 'create-only' | 'create-update' | 'create-delete';

export interface AppSetControllerOptions {
  client: KubeClient;
  argocdNamespace: string;
  /**
   * `applicationsetcontroller.namespaces` / `--applicationset-namespaces`: other namespaces whose
   * ApplicationSets are reconciled (names, globs, or /regexps/ as Argo CD's glob.MatchStringInList).
   */
  namespaces?: readonly string[] | undefined;
  policy?: AppsSyncPolicy | undefined;
  /** Default: true when `policy` is '' (Argo CD's --enable-policy-override default). */
  policyOverride?: boolean | undefined;
  /** `--enable-progressive-syncs` (Argo CD's alpha feature; off by default there too). */
  progressiveSyncs?: boolean | undefined;
  preservedAnnotations?: readonly string[] | undefined;
  preservedLabels?: readonly string[] | undefined;
  /** --max-resources-status-count. Default 5000. */
  maxResources?: number | undefined;
  /** Whether `https://kubernetes.default.svc` is a valid destination (argocd-cm cluster.inClusterEnabled). */
  inClusterEnabled?: boolean | undefined;
  /** A checkout of a repository at a revision (git generators). */
  checkout(repoURL: string, revision: string): Promise<string>;
  /**
   * Forgets the revisions resolved in a repository: called before a checkout when the set carries the
   * refresh annotation or the last resolution is older than `revisionCacheMs` (Argo CD's repo-server
   * keeps resolved revisions 3 minutes; the refresh annotation asks without the cache).
   */
  forgetRevisions?: ((repoURL: string) => void) | undefined;
  /** Default 180000. */
  revisionCacheMs?: number | undefined;
  /** Pull request and SCM provider generators (`--enable-scm-providers`, default on). */
  scm?: Omit<ScmAccess, 'secret'> | false | undefined;
  /**
   * `--token-ref-strict-mode`: a `tokenRef` must name a Secret labelled
   * `argocd.argoproj.io/secret-type: scm-creds` (Argo CD's default: off, any Secret of the set's namespace).
   */
  tokenRefStrictMode?: boolean | undefined;
  /** Parallel reconciles of different ApplicationSets. Default 4. */
  workers?: number | undefined;
  signal?: AbortSignal | undefined;
  now?: (() => number) | undefined;
  watchTimeoutSeconds?: number | undefined;
  onEvent?: ((e: AppSetEvent) => void) | undefined;
  onWarning?: ((message: string) => void) | undefined;
}

export type AppSetEvent =
  | { type: 'appset-controller-ready'; appsets: number }
  | { type: 'appset-application'; appset: string; app: string; action: 'created' | 'updated' | 'deleted' }
  | { type: 'appset-error'; appset: string; app?: string; reason: string; message: string }
  | { type: 'appset-warning'; appset: string; message: string }
  | { type: 'appset-status-written'; appset: string; fields: string[] }
  | { type: 'appset-reconciled'; appset: string; applications: number; requeueMs: number };
