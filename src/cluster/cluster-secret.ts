/**
 * `ClusterAccess`: how to reach a cluster from its Argo CD cluster Secret (label
 * argocd.argoproj.io/secret-type=cluster), as Argo CD builds its REST config (argo-cd
 * pkg/apis/application/v1alpha1/types.go `ClusterConfig`, `Cluster.RawRestConfig`; util/db/cluster.go
 * `SecretToCluster`). The Secret's fields are read by src/sharding/cluster-secrets.ts (one parser for
 * every reader); this module turns them into credentials. docs/clusters.md has the rules.
 *
 * `config` (JSON, Argo CD's ClusterConfig):
 * - `bearerToken`; `username`/`password` (basic auth); `tlsClientConfig` { `caData`, `certData`,
 *   `keyData` (base64 PEM, as Go marshals []byte), `serverName` (SNI and the name the certificate is checked
 *   against), `insecure` }. `insecure` with `caData` is refused, as client-go refuses it.
 * - `execProviderConfig` { command, args, env, apiVersion, installHint, provideClusterInfo, config }: run
 *   as a client-go exec plugin (exec-credential.ts). `awsAuthConfig` { clusterName, roleARN, profile }:
 *   Argo CD's exec plugin `argocd-k8s-auth aws --cluster-name N [--role-arn R] [--profile P]`
 *   (apiVersion client.authentication.k8s.io/v1beta1); it wins over `execProviderConfig`, which wins over
 *   token and basic auth. GKE and AKS Secrets are execProviderConfig with `argocd-k8s-auth gcp|azure`.
 * - `proxyUrl` (http, https or socks5, else an error, as Argo CD's ParseProxyUrl); `disableCompression`
 *   (we never ask for compressed answers, so it changes nothing).
 * - Read as Go's json.Unmarshal reads it (cluster-config.ts: case-insensitive keys, unknown fields
 *   ignored); a field of the wrong type makes the whole config invalid (Argo CD leaves such a Secret
 *   out): the constructor throws. What Argo CD only
 *   refuses when it builds the client (`insecure` with `caData`, a proxy scheme, an exec provider with no
 *   command) is a `ClusterConfigError` from `kubeConfig`/`execPlugin`, when the cluster is used.
 * `namespaces` (comma-separated, trimmed, empties dropped) and `clusterResources` ("true" exactly) scope
 * the live cache as Argo CD's cluster cache (gitops-engine pkg/cache/cluster.go): see `scope`.
 *
 * Credentials never leave this object in text: `toJSON` and `util.inspect` show the server, name and
 * where the Secret came from, and errors name the cluster, never a value.
 */
import { inspect } from 'node:util';
import type { KubeConfig } from '@kubernetes/client-node';
import { ExecCredentialPlugin } from './exec-credential.js';
import type { ExecConfig } from './exec-credential.js';
import { parseClusterConfig, type ClusterConfig } from './cluster-config.js';

/** The Secret fields `ClusterAccess` reads (strings as decoded from data/stringData). */
export interface ClusterSecretFields {
  server: string;
  name: string;
  config?: string | undefined;
  namespaces?: string | undefined;
  clusterResources?: string | undefined;
  /** The Secret's `project` (a project-scoped cluster; Argo CD's Cluster.Project). */
  project?: string | undefined;
  /** "secret argocd/my-cluster" or "clusters.yaml (document 2)". */
  source: string;
}

/** What part of a cluster the live cache may hold (Argo CD's cluster cache settings). */
export interface ClusterScope {
  /** Empty: every namespace. Else namespaced kinds are listed and watched in these namespaces only. */
  namespaces: readonly string[];
  /** With `namespaces` set: whether cluster-scoped kinds are managed (listed, watched, synced). */
  clusterResources: boolean;
}

export class ClusterAccess {
  readonly server: string;
  /** The Secret's `name` ("" when it has none). */
  readonly name: string;
  readonly source: string;
  readonly scope: ClusterScope;
  /** The Secret's `project` ("" when it has none): the cluster is scoped to that AppProject. */
  readonly project: string;
  readonly #config: ClusterConfig;

  /** Throws an Error saying which field is wrong (never its value) when `config` is not Argo CD's shape. */
  constructor(fields: ClusterSecretFields) {
    this.server = fields.server.replace(/\/+$/, '');
    this.name = fields.name;
    this.source = fields.source;
    this.project = fields.project ?? '';
    this.#config = parseClusterConfig(fields.config);
    this.scope = {
      namespaces: (fields.namespaces ?? '')
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean),
      clusterResources: fields.clusterResources === 'true',
    };
  }

  /** What messages call this cluster: "<name> (<server>)", or the server. */
  get displayName(): string {
    return this.name ? `${this.name} (${this.server})` : this.server;
  }

  /** The exec plugin Argo CD runs for this cluster's credentials (awsAuthConfig, execProviderConfig). */
  execConfig(): ExecConfig | undefined {
    const c = this.#config;
    if (c.awsAuthConfig) {
      const aws = c.awsAuthConfig;
      return {
        command: 'argocd-k8s-auth',
        args: [
          'aws',
          '--cluster-name',
          aws.clusterName ?? '',
          ...(aws.roleARN ? ['--role-arn', aws.roleARN] : []),
          ...(aws.profile ? ['--profile', aws.profile] : []),
        ],
        env: [],
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        installHint:
          'awsAuthConfig needs argocd-k8s-auth (shipped in the Argo CD image) and AWS credentials; put it on PATH',
      };
    }
    const e = c.execProviderConfig;
    if (!e) return undefined;
    const tls = c.tlsClientConfig;
    return {
      command: e.command ?? '',
      args: e.args ?? [],
      env: Object.entries(e.env ?? {}).map(([name, value]) => ({ name, value })),
      apiVersion: e.apiVersion ?? '',
      installHint:
        e.installHint ??
        (e.command === 'argocd-k8s-auth'
          ? 'argocd-k8s-auth is shipped in the Argo CD image; put it on PATH'
          : undefined),
      provideClusterInfo: e.provideClusterInfo ?? false,
      cluster: {
        server: this.server,
        ...(tls.serverName ? { tlsServerName: tls.serverName } : {}),
        ...(tls.insecure ? { insecureSkipTLSVerify: true } : {}),
        ...(tls.caData ? { certificateAuthorityData: tls.caData } : {}),
        ...(c.proxyUrl ? { proxyURL: c.proxyUrl } : {}),
        ...(e.config !== undefined ? { config: e.config } : {}),
      },
    };
  }

  /** The exec plugin of this cluster, when its credentials come from one. */
  execPlugin(subject: string): ExecCredentialPlugin | undefined {
    checkClusterConfig(this.#config);
    const config = this.execConfig();
    return config ? new ExecCredentialPlugin(config, { subject }) : undefined;
  }

  /**
   * A kubeconfig with one context for this cluster: server, TLS settings, proxy, and the static
   * credentials (token, basic auth, client certificate). Exec credentials are not in it (`execPlugin`).
   */
  async kubeConfig(): Promise<KubeConfig> {
    checkClusterConfig(this.#config);
    const { KubeConfig } = await import('@kubernetes/client-node/dist/config.js');
    const c = this.#config;
    const tls = c.tlsClientConfig;
    const exec = this.execConfig() !== undefined;
    const name = 'argocd-cluster';
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        {
          name,
          server: this.server,
          skipTLSVerify: tls.insecure,
          ...(tls.caData ? { caData: tls.caData } : {}),
          ...(tls.serverName ? { tlsServerName: tls.serverName } : {}),
          ...(c.proxyUrl ? { proxyUrl: c.proxyUrl } : {}),
        },
      ],
      users: [
        {
          name,
          ...(tls.certData ? { certData: tls.certData } : {}),
          ...(tls.keyData ? { keyData: tls.keyData } : {}),
          // Argo CD: an exec provider replaces token and basic auth (RawRestConfig's switch).
          ...(!exec && c.bearerToken ? { token: c.bearerToken } : {}),
          ...(!exec && c.username ? { username: c.username, password: c.password ?? '' } : {}),
        },
      ],
      contexts: [{ name, cluster: name, user: name }],
      currentContext: name,
    });
    return kc;
  }

  toJSON(): { server: string; name: string; source: string } {
    return { server: this.server, name: this.name, source: this.source };
  }

  [inspect.custom](): string {
    return `ClusterAccess ${this.displayName} from ${this.source}`;
  }
}

/** A config Argo CD reads but cannot build a client from (it fails when it connects, and so do we). */
export class ClusterConfigError extends Error {}

/** What client-go and Argo CD refuse when they build the REST config (not when they read the Secret). */
function checkClusterConfig(config: ClusterConfig): void {
  // client-go (transport.TLSConfigFor) refuses a CA with insecure; Argo CD's REST config fails the same way.
  if (config.tlsClientConfig.insecure && config.tlsClientConfig.caData)
    throw new ClusterConfigError(
      'config.tlsClientConfig: specifying a root certificates file with the insecure flag is not allowed',
    );
  if (config.proxyUrl !== undefined) {
    let scheme: string;
    try {
      scheme = new URL(config.proxyUrl).protocol.replace(/:$/, '');
    } catch {
      throw new ClusterConfigError('config.proxyUrl is not a URL');
    }
    if (!['http', 'https', 'socks5'].includes(scheme))
      throw new ClusterConfigError(
        `config.proxyUrl: unsupported scheme "${scheme}", must be http, https, or socks5 (as Argo CD's ParseProxyUrl)`,
      );
  }
  if (config.execProviderConfig && !config.awsAuthConfig && !config.execProviderConfig.command)
    throw new ClusterConfigError('config.execProviderConfig has no command');
}
