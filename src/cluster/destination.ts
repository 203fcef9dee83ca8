/**
 * Which cluster an Application's destination means: a kubeconfig context, or an Argo CD cluster Secret.
 *
 * 1. The kubeconfig first (kubeconfig.ts `resolveDestination`): `https://kubernetes.default.svc` and
 *    `name: in-cluster` are the current context; a context (or cluster) named `name`, or a context whose
 *    cluster has the `server`. A context wins over a cluster Secret for the same cluster: what the user's
 *    own kubeconfig says about a cluster is what they mean.
 * 2. Else the cluster Secrets (`--from-cluster`, `--clusters-file`), as Argo CD's GetDestinationCluster
 *    (util/argo/argo.go): `server` (trailing "/" ignored) matches a Secret's server; `name` matches a
 *    Secret's `name`: none is an error, two or more are an error ("there are N clusters with the same
 *    name"), one gives its server, which a kubeconfig context (or in-cluster) still wins.
 * A destination with both `name` and `server` is an error, as Argo CD's GetDestinationServer says it
 * ("application destination can't have both name and server defined").
 * The error when nothing matches names the destination, the contexts and how many Secrets were read.
 * A context still takes the `scope` (namespaces, clusterResources) of the Secret for the same server
 * (`https://kubernetes.default.svc` for in-cluster): what Argo CD may manage on a cluster is the Secret's
 * to say, whoever's credentials reach it (a namespace-scoped Argo CD install has such an in-cluster Secret).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { GitopsError } from '../common/index.js';
import type { ClusterAccess, ClusterScope } from './cluster-secret.js';
import { IN_CLUSTER_NAME, IN_CLUSTER_SERVER, resolveDestination } from './kubeconfig.js';
import type { Destination } from './kubeconfig.js';

export type ResolvedCluster =
  | { context: string; access?: undefined; scope?: ClusterScope }
  | { access: ClusterAccess; context?: undefined };

/** The Secret for the cluster a destination names, when there is one (by server, else by unique name). */
function secretFor(dest: Destination, secrets: readonly ClusterAccess[]): ClusterAccess | undefined {
  const server = dest.server
    ? dest.server.replace(/\/+$/, '')
    : dest.name === IN_CLUSTER_NAME && !secrets.some((s) => s.name === IN_CLUSTER_NAME)
      ? IN_CLUSTER_SERVER
      : undefined;
  if (server) return secrets.find((s) => s.server === server);
  const named = secrets.filter((s) => s.name === dest.name);
  return named.length === 1 ? named[0] : undefined;
}

/** Whether kubeconfig context `context` is the cluster of `secret` (same server, or in-cluster). */
function sameCluster(kc: KubeConfig, context: string, secret: ClusterAccess): boolean {
  if (secret.server === IN_CLUSTER_SERVER) return context === kc.getCurrentContext();
  const cluster = kc.getContextObject(context)?.cluster;
  const server = cluster ? kc.getCluster(cluster)?.server : undefined;
  return server?.replace(/\/+$/, '') === secret.server;
}

/** A context, with the scope of the Secret for the same cluster when that Secret limits it. */
function contextResult(kc: KubeConfig, context: string, secret: ClusterAccess | undefined): ResolvedCluster {
  return secret && secret.scope.namespaces.length > 0 && sameCluster(kc, context, secret)
    ? { context, scope: secret.scope }
    : { context };
}

export function resolveCluster(
  kc: KubeConfig,
  dest: Destination,
  secrets: readonly ClusterAccess[] = [],
): ResolvedCluster {
  if (dest.name && dest.server)
    throw new GitopsError(
      `failed to resolve: application destination can't have both name and server defined: ${dest.name} ${dest.server}`,
      { subject: `destination ${dest.server}`, hint: 'keep one of spec.destination.name and .server' },
    );
  let kubeconfigError: unknown;
  try {
    return contextResult(kc, resolveDestination(kc, dest), secretFor(dest, secrets));
  } catch (err) {
    if (secrets.length === 0) throw err;
    kubeconfigError = err;
  }
  const server = dest.server ? dest.server.replace(/\/+$/, '') : undefined;
  const subject = `destination ${dest.server ?? dest.name ?? '(empty)'}`;
  if (server) {
    const access = secrets.find((s) => s.server === server);
    if (access) return { access };
  } else if (dest.name) {
    const named = secrets.filter((s) => s.name === dest.name);
    if (named.length > 1)
      throw new GitopsError(
        `failed to resolve: there are ${named.length} clusters with the same name: [${named.map((s) => s.server).join(' ')}]`,
        { subject },
      );
    const access = named[0];
    if (access) {
      try {
        return contextResult(kc, resolveDestination(kc, { server: access.server }), access);
      } catch {
        return { access };
      }
    }
  }
  const contexts = kc.getContexts().map((c) => c.name);
  const what = server
    ? `no kubeconfig context's cluster and no cluster Secret has server ${server}`
    : `no kubeconfig context or cluster and no cluster Secret is named ${dest.name}`;
  throw new GitopsError(
    `failed to resolve to a kubeconfig context or a cluster Secret: ${what} (contexts: ${contexts.join(', ') || 'none'}; cluster Secrets: ${secrets.length})`,
    {
      subject,
      hint: 'add the cluster Secret (argocd.argoproj.io/secret-type=cluster) to --argocd-namespace or --clusters-file, or a context to your kubeconfig',
      cause: kubeconfigError,
    },
  );
}
