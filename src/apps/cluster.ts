/**
 * `--from-cluster`: the Applications stored in a live Argo CD namespace (`--argocd-namespace`, default
 * argocd), read with a paged LIST of `applications.argoproj.io/v1alpha1` through the project's cluster client
 * (src/cluster), which is imported lazily, on first use only, so commands that never read the cluster never
 * load @kubernetes/client-node. Kubeconfig precedence is src/cluster's (`--kubeconfig` > KUBECONFIG >
 * ~/.kube/config; `--context` overrides the current context). No Application CRD (404 on the list) and a
 * namespace that does not exist (an empty list, then 404 on the namespace) are errors naming what is missing:
 * Argo CD is not installed there, and an empty success would hide it.
 * Each Application's origin is "cluster <namespace>/<name>".
 *
 * `loadClusterProjects`: the AppProjects of the same namespace, one paged LIST of
 * `appprojects.argoproj.io/v1alpha1` (an Argo CD controller reads projects from its own namespace only).
 * No AppProject CRD (404) is an empty list: only the built-in `default` project is then known, and apps
 * of other projects are refused. Any other failure (RBAC, transport) is an error: a project that cannot
 * be read is never treated as allow-all.
 */
import type * as ClusterModule from '../cluster/index.js';
import type { ClusterConnection } from '../cluster/index.js';
import { GitopsError, oneLine } from '../common/index.js';
import type { KubeObject } from '../util/yaml-docs.js';
import { parseApplication } from './parse.js';
import { APP_PROJECT_KIND, parseProject, type AppProject } from './project.js';
import { ARGOCD_CM, parseArgoCdSettings, type ArgoCdSettings } from './settings.js';
import type { Application } from './types.js';

/** Lists Application manifests in one namespace. Injected by tests; the default talks to the cluster. */
export interface ApplicationLister {
  listApplications(namespace: string): Promise<KubeObject[]>;
}

export interface ClusterAppsOptions {
  namespace: string;
  /** kubeconfig file (default: KUBECONFIG, then ~/.kube/config). */
  kubeconfig?: string;
  /** kubeconfig context (default: current context). */
  context?: string;
  /** `--request-timeout` in milliseconds (0: none); default src/cluster's. */
  requestTimeoutMs?: number | undefined;
  lister?: ApplicationLister;
}

export async function loadClusterApplications(options: ClusterAppsOptions): Promise<Application[]> {
  let items: KubeObject[];
  try {
    const lister = options.lister ?? (await kubeApplicationLister(options));
    items = await lister.listApplications(options.namespace);
  } catch (err) {
    // The list's own error names the resource and verb again ("argoproj.io/Application in argocd: failed
    // to list: ..."): say it once.
    // (src/cluster's ApiError is recognised by its `detail`: that module is loaded lazily.)
    const detail = (err as { detail?: unknown } | undefined)?.detail;
    const why = err instanceof GitopsError && typeof detail === 'string' ? oneLine(detail) : oneLine(err);
    throw new GitopsError(`failed to list Applications: ${why}`, {
      subject: `namespace ${options.namespace}`,
      cause: err,
    });
  }
  return items.map((item) => {
    const manifest: KubeObject = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', ...item };
    const name = manifest.metadata?.name ?? '?';
    return parseApplication(manifest, `cluster ${manifest.metadata?.namespace ?? options.namespace}/${name}`);
  });
}

/** Client options of the one-off reads here: one retry, and `--request-timeout` when given. */
export function clientOptions(requestTimeoutMs: number | undefined): {
  retry: { maxRetries: number };
  requestTimeoutMs?: number;
} {
  return { retry: { maxRetries: 1 }, ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}) };
}

/** Where a one-off live read connects: a kube context and `--request-timeout`. */
export interface LiveReadOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  requestTimeoutMs?: number | undefined;
}

/**
 * `read` with one connection of `options` (the cluster module loaded on first use), closed afterwards
 * whatever `read` does; `read` also gets the module for its error tests (`ApiError`, `isNotFound`).
 */
export async function withLiveConnection<T>(
  options: LiveReadOptions,
  read: (conn: ClusterConnection, cluster: typeof ClusterModule) => Promise<T>,
): Promise<T> {
  const cluster = await import('../cluster/index.js');
  const conn = await cluster.connect({
    kubeconfig: options.kubeconfig,
    context: options.context,
    client: clientOptions(options.requestTimeoutMs),
  });
  try {
    return await read(conn, cluster);
  } finally {
    conn.close();
  }
}

/** The default lister: the project's counting client (src/cluster), loaded on first call. */
export async function kubeApplicationLister(
  options: { kubeconfig?: string; context?: string; requestTimeoutMs?: number | undefined } = {},
): Promise<ApplicationLister> {
  const cluster = await import('../cluster/index.js');
  const conn = await cluster.connect({
    kubeconfig: options.kubeconfig,
    context: options.context,
    client: clientOptions(options.requestTimeoutMs),
  });
  const info = {
    group: 'argoproj.io',
    version: 'v1alpha1',
    kind: 'Application',
    plural: 'applications',
    namespaced: true,
    verbs: ['list'],
  };
  const namespaces = {
    group: '',
    version: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    namespaced: false,
    verbs: ['get'],
  };
  return {
    async listApplications(namespace) {
      try {
        let items: KubeObject[];
        try {
          items = await conn.client.listAll(info, { namespace });
        } catch (err) {
          // 404 on a list: the type is not served, so Argo CD is not installed in this cluster.
          if (cluster.isNotFound(err))
            throw new Error(
              `the Application CRD (applications.argoproj.io) is not installed in context ${conn.context}: no Argo CD there`,
            );
          throw err;
        }
        if (items.length > 0) return items;
        // A list in a namespace that does not exist is empty, not 404 (kube-apiserver): say which it is.
        try {
          await conn.client.get(namespaces, '', namespace);
        } catch (err) {
          if (cluster.isNotFound(err))
            throw new Error(
              `namespace ${namespace} not found in context ${conn.context} (Argo CD's namespace is --argocd-namespace)`,
            );
          // Not allowed to read namespaces: the empty list stands.
        }
        return items;
      } finally {
        conn.close();
      }
    },
  };
}

/**
 * argocd-cm of a live Argo CD namespace (`--from-cluster`), through the project's cluster client. A
 * namespace without it (404) gives undefined: the run uses Argo CD's defaults, with a warning from the caller.
 */
export async function readLiveArgoCdSettings(options: {
  namespace: string;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  requestTimeoutMs?: number | undefined;
}): Promise<ArgoCdSettings | undefined> {
  const subject = `configmap ${options.namespace}/${ARGOCD_CM}`;
  let cm: KubeObject;
  const cluster = await import('../cluster/index.js');
  try {
    const conn = await cluster.connect({
      kubeconfig: options.kubeconfig,
      context: options.context,
      client: clientOptions(options.requestTimeoutMs),
    });
    const info = {
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
      plural: 'configmaps',
      namespaced: true,
      verbs: ['get'],
    };
    try {
      cm = await conn.client.get(info, options.namespace, ARGOCD_CM);
    } finally {
      conn.close();
    }
  } catch (err) {
    if (cluster.isNotFound(err)) return undefined;
    // The API error names the request and keeps its code (an RBAC refusal gets its `kubectl auth can-i` hint).
    if (err instanceof GitopsError) throw err;
    throw new GitopsError(`failed to read Argo CD settings: ${oneLine(err)}`, { subject, cause: err });
  }
  return parseArgoCdSettings(cm, subject);
}

/** Lists AppProject manifests in one namespace. Injected by tests; the default talks to the cluster. */
export interface ProjectLister {
  listProjects(namespace: string): Promise<KubeObject[]>;
}

export async function loadClusterProjects(options: {
  namespace: string;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  requestTimeoutMs?: number | undefined;
  lister?: ProjectLister;
}): Promise<AppProject[]> {
  let items: KubeObject[];
  try {
    const lister = options.lister ?? (await kubeProjectLister(options));
    items = await lister.listProjects(options.namespace);
  } catch (err) {
    const detail = (err as { detail?: unknown } | undefined)?.detail;
    const why = err instanceof GitopsError && typeof detail === 'string' ? oneLine(detail) : oneLine(err);
    throw new GitopsError(`failed to list AppProjects: ${why}`, {
      subject: `namespace ${options.namespace}`,
      cause: err,
      ...(err instanceof GitopsError && err.hint ? { hint: err.hint } : {}),
    });
  }
  return items.map((item) => {
    const manifest: KubeObject = { apiVersion: 'argoproj.io/v1alpha1', kind: APP_PROJECT_KIND, ...item };
    const name = manifest.metadata?.name ?? '?';
    return parseProject(manifest, `cluster ${manifest.metadata?.namespace ?? options.namespace}/${name}`);
  });
}

/** The default project lister: one LIST through the project's counting client (src/cluster). */
async function kubeProjectLister(options: {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  requestTimeoutMs?: number | undefined;
}): Promise<ProjectLister> {
  const cluster = await import('../cluster/index.js');
  const info = {
    group: 'argoproj.io',
    version: 'v1alpha1',
    kind: APP_PROJECT_KIND,
    plural: 'appprojects',
    namespaced: true,
    verbs: ['list'],
  };
  return {
    async listProjects(namespace) {
      const conn = await cluster.connect({
        kubeconfig: options.kubeconfig,
        context: options.context,
        client: clientOptions(options.requestTimeoutMs),
      });
      try {
        return await conn.client.listAll(info, { namespace });
      } catch (err) {
        if (cluster.isNotFound(err)) return [];
        throw err;
      } finally {
        conn.close();
      }
    },
  };
}
