/**
 * `connect`: kubeconfig + destination → a client, discovery and live caches for one cluster.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeClient } from './client.js';
import type { ClientOptions } from './client.js';
import { Discovery } from './discovery.js';
import type { DiscoveryOptions } from './discovery.js';
import { forContext, loadKubeConfig, resolveDestination } from './kubeconfig.js';
import type { Destination, KubeConfigOptions } from './kubeconfig.js';
import { LiveStateCache } from './live-cache.js';
import type { LiveCacheOptions } from './live-cache.js';

export interface ConnectOptions extends KubeConfigOptions {
  /** An Application's `spec.destination`; default: the current (or `--context`) context. */
  destination?: Destination;
  /** A kubeconfig already loaded (skips loading; `kubeconfig`/`context` are then ignored). */
  kubeConfig?: KubeConfig;
  client?: ClientOptions;
  discovery?: DiscoveryOptions;
}

export interface ClusterConnection {
  /** The kubeconfig context in use. */
  context: string;
  server: string;
  client: KubeClient;
  discovery: Discovery;
  /** A live cache over this connection's client and discovery (not started). */
  liveCache(options: Omit<LiveCacheOptions, 'client'>): LiveStateCache;
  /** Closes idle connections. */
  close(): void;
}

export async function connect(options: ConnectOptions = {}): Promise<ClusterConnection> {
  const base = options.kubeConfig ?? (await loadKubeConfig(options));
  const context = options.destination
    ? resolveDestination(base, options.destination)
    : base.getCurrentContext();
  const kc = context === base.getCurrentContext() ? base : await forContext(base, context);
  const client = new KubeClient(kc, { context, ...options.client });
  await client.checkCredentials();
  const discovery = new Discovery(client, options.discovery);
  return {
    context,
    server: client.server,
    client,
    discovery,
    liveCache: (o) => new LiveStateCache({ discovery, ...o, client }),
    close: () => client.close(),
  };
}
