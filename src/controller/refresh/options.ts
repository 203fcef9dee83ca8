/**
 * What every program of the controller is given (the one-shot run's `RunOptions` and the loop's
 * `LoopOptions` build on it): the state manager's options, the clusters and how to reach them, the
 * AppProjects and the number of workers.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { ProjectClusters, ProjectSet } from '../../apps/index.js';
import type {
  ClientOptions,
  ClusterAccess,
  ClusterConnection,
  ConnectOptions,
  DiscoveryOptions,
} from '../../cluster/index.js';
import type { StateManagerOptions } from './state.js';

export interface EngineOptions extends Omit<StateManagerOptions, 'clusterOf'> {
  /** `--kubeconfig` / `--context` (the context `https://kubernetes.default.svc` means). */
  kubeconfig?: string | undefined;
  context?: string | undefined;
  /**
   * Argo CD cluster Secrets (`--from-cluster`, `--clusters-file`): destinations no kubeconfig context
   * serves are reached with their credentials.
   */
  clusterSecrets?: readonly ClusterAccess[] | undefined;
  /** Refresh workers (`--status-processors`). Default 4. */
  statusProcessors?: number;
  /** Operation (sync) workers (`--operation-processors`). Default 2. */
  operationProcessors?: number;
  discovery?: DiscoveryOptions;
  client?: ClientOptions;
  signal?: AbortSignal | undefined;
  /** Recovered problems (watch reconnects...). */
  onWarning?: (message: string) => void;
  /** Injected I/O (tests): how to connect and load kubeconfigs. */
  connect?: (options: ConnectOptions) => Promise<ClusterConnection>;
  loadKubeConfig?: (options: {
    kubeconfig?: string | undefined;
    context?: string | undefined;
  }) => Promise<KubeConfig>;
  now?: () => number;
  /**
   * The AppProjects of the run (src/apps `ProjectSet`). Unset: an empty set, so only Argo CD's built-in
   * allow-all `default` project is known. An app whose project is missing or refuses it ends with that
   * condition as its error (exit 2), neither rendered nor compared nor synced.
   */
  projects?: ProjectSet | undefined;
  /**
   * The clusters scoped to each project (permitOnlyProjectScopedClusters); default: the `clusterSecrets`
   * whose `project` names it (src/controller/refresh/scoped.ts, which also extends each project).
   */
  projectClusters?: ProjectClusters | undefined;
  /** The wall clock AppProject sync windows are judged at (default: the system clock). */
  wallClock?: () => Date;
}
