/**
 * The Kubernetes side of live `shards`: an ArgoNamespaceReader over @kubernetes/client-node.
 * Loaded only by live mode (dynamic import), so `shards` on files never pays for the client.
 * Kubeconfig: --kubeconfig, else KUBECONFIG, else ~/.kube/config; --context, else the current context.
 */
import { AppsV1Api, CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { GitopsError, oneLine, UsageError } from '../cli/errors.js';
import type { KubeObject } from '../util/yaml-docs.js';
import type { ArgoNamespaceReader } from './live.js';

export interface KubeReaderOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
}

function statusCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'number' ? code : undefined;
}

function reason(err: unknown): string {
  const e = err as { code?: unknown; body?: unknown; message?: string };
  if (typeof e?.code === 'number') {
    let message = '';
    try {
      const body =
        typeof e.body === 'string'
          ? (JSON.parse(e.body) as { message?: string })
          : (e.body as { message?: string });
      message = body?.message ?? '';
    } catch {
      // Not a Status body: fall back to the HTTP code alone.
    }
    return `HTTP ${e.code}${message ? `: ${message}` : ''}`;
  }
  // node-fetch wraps socket errors: "request to https://... failed, reason: connect ECONNREFUSED ...".
  const text = oneLine(err);
  const m = /reason: (.*)$/.exec(text);
  return m ? m[1]! : text;
}

function plain(obj: unknown, kind: string, apiVersion: string): KubeObject {
  // Typed client models hold Dates; JSON round-trip gives the API's wire form. List items carry no kind.
  const o = JSON.parse(JSON.stringify(obj)) as KubeObject;
  return { apiVersion, kind, ...o };
}

export function createKubeReader(options: KubeReaderOptions): ArgoNamespaceReader {
  const kc = new KubeConfig();
  try {
    if (options.kubeconfig) kc.loadFromFile(options.kubeconfig);
    else kc.loadFromDefault();
  } catch (err) {
    throw new UsageError(`failed to load kubeconfig: ${oneLine(err)}`, {
      subject: options.kubeconfig ?? 'kubeconfig',
    });
  }
  if (options.context) {
    if (!kc.getContextObject(options.context)) {
      throw new UsageError(`no context "${options.context}" in the kubeconfig`, {
        subject: options.kubeconfig ?? 'kubeconfig',
      });
    }
    kc.setCurrentContext(options.context);
  }
  const contextName = kc.getCurrentContext();
  if (!contextName || !kc.getCurrentCluster()) {
    throw new UsageError('no current context (and no cluster) in the kubeconfig', {
      subject: options.kubeconfig ?? 'kubeconfig',
      hint: 'pass --context, or --clusters-file to work from files',
    });
  }
  const core = kc.makeApiClient(CoreV1Api);
  const apps = kc.makeApiClient(AppsV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const fail = (what: string, err: unknown) => {
    const why = reason(err);
    // @kubernetes/client-node refuses http:// servers unless the kubeconfig skips TLS verification.
    const hint = /HTTP protocol is not allowed/.test(why)
      ? 'for an http:// API server set insecure-skip-tls-verify: true on the kubeconfig cluster'
      : undefined;
    return new GitopsError(`failed to ${what}: ${why}`, { subject: `context ${contextName}`, hint });
  };
  const orUndefined = async <T>(what: string, call: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await call();
    } catch (err) {
      if (statusCode(err) === 404) return undefined;
      throw fail(what, err);
    }
  };

  return {
    contextName,
    async listSecrets(namespace, labelSelector) {
      try {
        const list = await core.listNamespacedSecret({ namespace, labelSelector });
        return list.items.map((s) => plain(s, 'Secret', 'v1'));
      } catch (err) {
        throw fail(`list cluster Secrets in namespace ${namespace}`, err);
      }
    },
    async listApplications(namespace) {
      const list = await orUndefined(`list Applications in namespace ${namespace}`, () =>
        custom.listNamespacedCustomObject({
          group: 'argoproj.io',
          version: 'v1alpha1',
          namespace,
          plural: 'applications',
        }),
      );
      const items = ((list as { items?: unknown[] } | undefined)?.items ?? []) as unknown[];
      return items.map((a) => plain(a, 'Application', 'argoproj.io/v1alpha1'));
    },
    async getConfigMap(namespace, name) {
      const cm = await orUndefined(`read configmap ${namespace}/${name}`, () =>
        core.readNamespacedConfigMap({ namespace, name }),
      );
      return cm && plain(cm, 'ConfigMap', 'v1');
    },
    async getWorkload(namespace, kind, name) {
      const read = (): Promise<object> =>
        kind === 'StatefulSet'
          ? apps.readNamespacedStatefulSet({ namespace, name })
          : apps.readNamespacedDeployment({ namespace, name });
      const w = await orUndefined(`read ${kind.toLowerCase()} ${namespace}/${name}`, read);
      return w && plain(w, kind, 'apps/v1');
    },
  };
}
