/**
 * `connect`: kubeconfig + destination → a client, discovery and live caches for one cluster; or, with
 * `access`, the cluster an Argo CD cluster Secret describes (its credentials, exec provider included,
 * cluster-secret.ts). Credentials are checked once before the first request (an exec plugin runs).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { GitopsError, oneLine } from '../common/index.js';
import { KubeClient } from './client.js';
import type { ClusterAccess, ClusterScope } from './cluster-secret.js';
import type { ClientOptions } from './client-types.js';
import { Discovery } from './discovery.js';
import type { DiscoveryOptions } from './discovery.js';
import { forContext, loadKubeConfig, resolveDestination } from './kubeconfig.js';
import type { Destination, KubeConfigOptions } from './kubeconfig.js';
import { LiveStateCache } from './live-cache.js';
import type { LiveCacheOptions } from './live-cache-options.js';

export interface ConnectOptions extends KubeConfigOptions {
  /** An Application's `spec.destination`; default: the current (or `--context`) context. */
  destination?: Destination;
  /** A kubeconfig already loaded (skips loading; `kubeconfig`/`context` are then ignored). */
  kubeConfig?: KubeConfig;
  /** Reach the cluster of this cluster Secret instead (no kubeconfig is read). */
  access?: ClusterAccess;
  client?: ClientOptions;
  discovery?: DiscoveryOptions;
}

export interface ClusterConnection {
  /** The kubeconfig context in use; for a cluster Secret, its name and server ("<name> (<server>)"). */
  context: string;
  server: string;
  /** A cluster Secret's `namespaces`/`clusterResources` (absent for kubeconfig contexts: everything). */
  scope?: ClusterScope;
  client: KubeClient;
  discovery: Discovery;
  /** A live cache over this connection's client and discovery (not started). */
  liveCache(options: Omit<LiveCacheOptions, 'client'>): LiveStateCache;
  /** Closes idle connections. */
  close(): void;
}

export async function connect(options: ConnectOptions = {}): Promise<ClusterConnection> {
  if (options.access) return connectSecret(options.access, options);
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

async function connectSecret(access: ClusterAccess, options: ConnectOptions): Promise<ClusterConnection> {
  const context = access.displayName;
  const subject = `cluster ${context} (${access.source})`;
  let kc: KubeConfig;
  let plugin: ReturnType<ClusterAccess['execPlugin']>;
  try {
    kc = await access.kubeConfig();
    plugin = access.execPlugin(subject);
  } catch (err) {
    throw new GitopsError(`failed to connect: ${oneLine(err)}`, { subject, cause: err });
  }
  const client = new KubeClient(kc, {
    context,
    ...options.client,
    ...(plugin ? { credentialPlugin: plugin } : {}),
  });
  await client.checkCredentials();
  const discovery = new Discovery(client, options.discovery);
  return {
    context,
    server: client.server,
    scope: access.scope,
    client,
    discovery,
    liveCache: (o) => new LiveStateCache({ discovery, ...o, client }),
    close: () => client.close(),
  };
}
