/**
 * The options and events of `runController` (run.ts): `kubectl gitops controller`.
 * A leaf of types.
 */
import type { ClientOptions, ClusterAccess, ClusterConnection, ConnectOptions } from '../../cluster/index.js';
import type { ShardClaimer } from '../../sharding/index.js';
import type { ControllerSharding } from './shards.js';
import type { LoopEvent, LoopOptions, ReconcileLoop } from '../loop/index.js';

export type { ControllerSharding };

export interface ControllerRunOptions {
  argocdNamespace: string;
  /**
   * Other namespaces whose Applications are reconciled (Argo CD's `--application-namespaces`): names,
   * globs or /regexps/. Undefined: argocd-cmd-params-cm's `application.namespaces` in the Argo CD
   * namespace (comma-separated), else none. An app there still needs its project's `sourceNamespaces`.
   */
  applicationNamespaces?: readonly string[] | undefined;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  client?: ClientOptions | undefined;
  /** What the loop takes beyond the apps, projects and policy (settings, source, processors...). */
  loopOptions: Omit<LoopOptions, 'apps' | 'projects' | 'autoSync' | 'onEvent' | 'operation' | 'signal'> &
    Partial<Pick<LoopOptions, 'operation'>>;
  /** Cluster Secrets to use; default: those of the namespace (the watch's, read again on every reload). */
  clusterSecrets?: readonly ClusterAccess[] | undefined;
  /**
   * Reads argocd-cm and the Argo CD Secrets again (the command's readers) when they change: the loop is
   * then stopped (running operations get `shutdownTimeoutMs`) and started again with the new settings,
   * cluster Secrets and source service (`close` ends the previous one). Unset: changes are only reported.
   */
  reload?: (() => Promise<ControllerBase>) | undefined;
  /** Ends what `loopOptions` holds (the first source service); called when it is replaced or at the end. */
  close?: (() => Promise<void>) | undefined;
  /** Changes of argocd-cm and the Secrets are gathered this long before a reload. Default 2000. */
  reloadDelayMs?: number | undefined;
  /**
   * Which apps this controller owns (docs/sharding.md): static (`--shard I --replicas N`), dynamic
   * (`--dynamic-cluster-distribution`: a shard claimed in argocd-app-controller-shard-cm, heartbeats), or
   * unset: every app. In every mode the start is refused where another application controller does the
   * work (src/sharding start-guard.ts), unless `forceTakeover`.
   */
  sharding?: ControllerSharding | undefined;
  /** Skip the start-up refusal. */
  forceTakeover?: boolean | undefined;
  /** ControllerName (dynamic mode; the start-up refusal). Default: the hostname. */
  controllerName?: string | undefined;
  /** Each loop once built (metrics read its states; a reload builds a new one). */
  onLoop?: ((loop: ReconcileLoop) => void) | undefined;
  /**
   * The apps this controller processes (apps.ts: the loop's apps of its shards and those being
   * deleted here, as Argo CD's metrics list Applications), once, before the first loop: metrics read it.
   */
  onApps?: ((apps: Pick<ReconcileLoop, 'states' | 'state'>) => void) | undefined;
  /** The dynamic shard claimer, once started (readiness probes, metrics). */
  onClaimer?: ((claimer: ShardClaimer) => void) | undefined;
  /** Argo CD's `--persist-resource-health`. */
  persistResourceHealth?: boolean | undefined;
  signal?: AbortSignal | undefined;
  /** Time running operations get at shutdown. */
  shutdownTimeoutMs?: number | undefined;
  /** Delay between the steps of a cascading deletion. Default 5000 (Argo CD requeues deleting apps). */
  finalizerRetryMs?: number | undefined;
  onEvent?: ((event: LoopEvent | ControllerEvent) => void) | undefined;
  onWarning?: ((message: string) => void) | undefined;
  /** Injected I/O (tests). */
  connect?: ((options: ConnectOptions) => Promise<ClusterConnection>) | undefined;
  now?: () => number;
  watchTimeoutSeconds?: number | undefined;
}

/** What a (re)load of argocd-cm and the Secrets gives the loop. */
export interface ControllerBase {
  loopOptions: ControllerRunOptions['loopOptions'];
  clusterSecrets?: readonly ClusterAccess[] | undefined;
  /** Ends what the base holds (its source service). */
  close?: (() => Promise<void>) | undefined;
}

/** What the controller itself adds to the loop's events. */
export type ControllerEvent =
  | { type: 'controller-ready'; apps: number; projects: number }
  | { type: 'controller-reloading'; reason: string }
  | { type: 'shard'; shard: number; replicas: number; owned: string[] }
  | { type: 'status-written'; app: string; key: string; fields: string[] }
  | { type: 'app-deleting'; app: string; key: string; step: string; detail: string };

export interface ControllerSummary {
  patches: number;
}
