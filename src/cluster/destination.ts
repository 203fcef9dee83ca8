/**
 * Which cluster an Application's destination means: a kubeconfig context, or an Argo CD cluster Secret.
 *
 * 1. The kubeconfig first (kubeconfig.ts `resolveDestination`): `https://kubernetes.default.svc` and
 *    `name: in-cluster` are the current context; a context (or cluster) named `name`, or a context whose
 *    cluster has the `server`. A context wins over a cluster Secret for the same cluster: what the user's
 *    own kubeconfig says about a cluster is what they mean.
 * 2. Else the cluster Secrets (`--from-cluster`, `--clusters-file`), looked up as Argo CD's
 *    GetDestinationCluster (cluster-lookup.ts): `server` (trailing "/" ignored) matches a Secret's server
 *    (the later of two); `name` matches Secrets' `name`: none is an error, two or more (duplicates by
 *    server included) are an error ("there are N clusters with the same name"), one gives its server,
 *    which a kubeconfig context (or in-cluster) still wins. A Secret with no server that a name finds is
 *    an error naming the Secret: Argo CD keeps such a cluster but cannot reach it.
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
import { lookupDestination } from './cluster-lookup.js';
import { IN_CLUSTER_SERVER, resolveDestination } from './kubeconfig.js';
import type { Destination } from './kubeconfig.js';

export type ResolvedCluster =
  | { context: string; access?: undefined; scope?: ClusterScope }
  | { access: ClusterAccess; context?: undefined };

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
  // Argo CD's lookup (cluster-lookup.ts); in-cluster refusals are the caller's (controller/scoped.ts).
  const lookup = secrets.length > 0 ? lookupDestination(dest, secrets, true) : undefined;
  const secret = lookup?.found === 'secret' ? lookup.secret : undefined;
  let kubeconfigError: unknown;
  try {
    return contextResult(kc, resolveDestination(kc, dest), secret);
  } catch (err) {
    if (!lookup) throw err;
    kubeconfigError = err;
  }
  const server = dest.server ? dest.server.replace(/\/+$/, '') : undefined;
  const subject = `destination ${dest.server ?? dest.name ?? '(empty)'}`;
  if (secret) {
    if (secret.server === '')
      throw new GitopsError(
        `failed to resolve: cluster Secret ${secret.source} has no server (data.server missing or empty)`,
        { subject, hint: "set the Secret's data.server, or point the destination at another cluster" },
      );
    if (server) return { access: secret };
    try {
      return contextResult(kc, resolveDestination(kc, { server: secret.server }), secret);
    } catch {
      return { access: secret };
    }
  }
  if (lookup.found === 'none' && lookup.why === 'same-name')
    throw new GitopsError(`failed to resolve: ${lookup.error}`, { subject });
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
