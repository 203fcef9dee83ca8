/**
 * `prepareRun`: the cluster work a `Run` can start before its apps are known, so it overlaps reading and
 * parsing the Application files (issue 23): loading the kubeconfig (and the Kubernetes client library),
 * connecting to the current (or `--context`) context and reading its discovery (disk cache or API). The
 * `Run` given the result (`RunOptions.prepared`) takes the kubeconfig from it, and the connection for the
 * apps whose destination resolves to that context; a connection nobody took is closed by the run.
 * Nothing here reports an error: a kubeconfig that fails to load fails the run when it awaits it (the same
 * error as without preparing), and a connection that fails is dropped (the run connects again and reports
 * that attempt's error).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { connect as defaultConnect, loadKubeConfig } from '../../cluster/index.js';
import type {
  ClientOptions,
  ClusterConnection,
  ConnectOptions,
  DiscoveryOptions,
} from '../../cluster/index.js';

export interface PrepareOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  /** The same discovery and client options the run gets. */
  discovery?: DiscoveryOptions;
  client?: ClientOptions;
  connect?: (options: ConnectOptions) => Promise<ClusterConnection>;
}

export interface PreparedRun {
  kubeConfig: Promise<KubeConfig>;
  /** A connection to the kubeconfig's current context, discovery read; undefined when it failed. */
  connection: Promise<ClusterConnection | undefined>;
}

export function prepareRun(options: PrepareOptions): PreparedRun {
  const kubeConfig = loadKubeConfig({ kubeconfig: options.kubeconfig, context: options.context });
  kubeConfig.catch(() => undefined); // awaited (and reported) by the run
  const connection = kubeConfig
    .then((kc) =>
      (options.connect ?? defaultConnect)({
        kubeConfig: kc,
        ...(options.discovery ? { discovery: options.discovery } : {}),
        ...(options.client ? { client: options.client } : {}),
      }),
    )
    .then(async (conn) => {
      await conn.discovery.resources().catch(() => undefined);
      return conn;
    })
    .catch(() => undefined);
  return { kubeConfig, connection };
}
