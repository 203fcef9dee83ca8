/**
 * The Kubernetes side of live `shards`: an ArgoNamespaceReader over the project's cluster client
 * (src/cluster), loaded only by live mode (dynamic import), so `shards` on files never pays for it.
 * Kubeconfig: --kubeconfig, else KUBECONFIG, else ~/.kube/config; --context, else the current context.
 */
import { connect, isNotFound, type ResourceInfo } from '../cluster/index.js';
import { GitopsError, oneLine } from '../common/index.js';
import type { ArgoNamespaceReader } from './live.js';

export interface KubeReaderOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  /** `--request-timeout` in milliseconds (0: none); default src/cluster's. */
  requestTimeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

const info = (group: string, version: string, kind: string, plural: string): ResourceInfo => ({
  group,
  version,
  kind,
  plural,
  namespaced: true,
  verbs: ['get', 'list'],
});

const SECRETS = info('', 'v1', 'Secret', 'secrets');
const CONFIGMAPS = info('', 'v1', 'ConfigMap', 'configmaps');
const NAMESPACES: ResourceInfo = { ...info('', 'v1', 'Namespace', 'namespaces'), namespaced: false };
const APPLICATIONS = info('argoproj.io', 'v1alpha1', 'Application', 'applications');
const WORKLOADS = {
  StatefulSet: info('apps', 'v1', 'StatefulSet', 'statefulsets'),
  Deployment: info('apps', 'v1', 'Deployment', 'deployments'),
};

export async function createKubeReader(options: KubeReaderOptions): Promise<ArgoNamespaceReader> {
  const connection = await connect({
    kubeconfig: options.kubeconfig,
    context: options.context,
    ...(options.requestTimeoutMs !== undefined
      ? { client: { requestTimeoutMs: options.requestTimeoutMs } }
      : {}),
  });
  const { client, context } = connection;
  const signal = options.signal;
  // Name the context first, then what failed; the client's own subject (the resource path) is dropped.
  const fail = (what: string, err: unknown) => {
    const cause = oneLine(err).replace(/^.*?failed to [^:]+: /, '');
    return new GitopsError(`failed to ${what}: ${cause}`, { subject: `context ${context}`, cause: err });
  };
  const orUndefined = async <T>(what: string, call: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await call();
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw fail(what, err);
    }
  };
  return {
    contextName: context,
    close: () => connection.close(),
    async listSecrets(namespace, labelSelector) {
      try {
        return await client.listAll(SECRETS, { namespace, labelSelector, signal });
      } catch (err) {
        throw fail(`list cluster Secrets in namespace ${namespace}`, err);
      }
    },
    async listApplications(namespace) {
      // 404: the Application CRD is not installed, so there are no apps to count.
      return (
        (await orUndefined(`list Applications in namespace ${namespace}`, () =>
          client.listAll(APPLICATIONS, { namespace, signal }),
        )) ?? []
      );
    },
    getConfigMap(namespace, name) {
      return orUndefined(`read configmap ${namespace}/${name}`, () =>
        client.get(CONFIGMAPS, namespace, name, signal),
      );
    },
    async namespaceExists(namespace) {
      try {
        await client.get(NAMESPACES, '', namespace, signal);
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        return true; // not allowed to read namespaces: assume it exists
      }
    },
    getWorkload(namespace, kind, name) {
      return orUndefined(`read ${kind.toLowerCase()} ${namespace}/${name}`, () =>
        client.get(WORKLOADS[kind], namespace, name, signal),
      );
    },
  };
}
