/**
 * The project and cluster facts a run takes from Argo CD's cluster and repository Secrets (rules:
 * docs/projects.md "Project-scoped clusters and repositories", docs/clusters.md "In-cluster disabled"):
 * - `scopeProjects`: Argo CD's `GetAppProjectByName` (util/argo/argo.go). Each project is extended with
 *   the repository Secrets whose `project` names it (`db.GetProjectRepositories`: their `url` appended to
 *   `sourceRepos`) and the cluster Secrets whose `project` names it (`db.GetProjectClusters`: their server
 *   appended to `destinations` with namespace `*`, or once per namespace of the Secret's `namespaces`).
 *   `projectClusters` is what `IsDestinationPermitted` asks when `permitOnlyProjectScopedClusters` is
 *   set: only a cluster whose Secret names the project (by name or server) is then permitted. A project
 *   in a file or in the live namespace is extended the same way; the project objects given are unchanged.
 * - `inClusterRefusal`: argocd-cm `cluster.inClusterEnabled: "false"`. Argo CD's `GetCluster` answers
 *   NotFound `cluster "https://kubernetes.default.svc" is disabled` for the in-cluster server, which
 *   `GetDestinationCluster` wraps as `error getting cluster by server ...`; a destination `name` that
 *   only the in-cluster server carries finds no cluster (`GetClusterServersByName` filters it out):
 *   `there are no clusters with this name: <name>`. The app ends with that error before any comparison.
 */
import { IN_CLUSTER_SERVER, ProjectSet, withScopedResources } from '../../apps/index.js';
import type { Application, ProjectCluster, ProjectClusters } from '../../apps/index.js';
import type { ClusterAccess } from '../../cluster/index.js';
import { GitopsError, oneLine } from '../../common/index.js';
import { IN_CLUSTER_NAME } from './projects.js';

export interface ScopeProjectsOptions {
  /** The run's cluster Secrets (their `project` field). */
  clusterSecrets?: readonly ClusterAccess[] | undefined;
  /** The repository URLs scoped to a project (the source service's repository Secrets). */
  projectRepositories?: ((project: string) => Promise<string[]>) | undefined;
  /** A warning (repository Secrets that did not load: their scoped URLs are not added). */
  onWarning?: ((message: string) => void) | undefined;
}

export interface ScopedProjects {
  projects: ProjectSet;
  projectClusters: ProjectClusters;
}

/** The projects `names` (and every project of `projects`) with their scoped clusters and repositories. */
export async function scopeProjects(
  projects: ProjectSet,
  names: Iterable<string>,
  o: ScopeProjectsOptions,
): Promise<ScopedProjects> {
  const secrets = o.clusterSecrets ?? [];
  const clustersOf = (project: string): ClusterAccess[] =>
    project === '' ? [] : secrets.filter((c) => c.project === project);
  const projectClusters: ProjectClusters = (project) =>
    clustersOf(project).map((c): ProjectCluster => ({ server: c.server, name: c.name }));
  let warned = false;
  const reposOf = async (project: string): Promise<string[]> => {
    if (!o.projectRepositories) return [];
    try {
      return await o.projectRepositories(project);
    } catch (err) {
      if (!warned) o.onWarning?.(`project-scoped repositories not added: ${oneLine(err)}`);
      warned = true;
      return [];
    }
  };
  const scoped = new ProjectSet();
  for (const name of new Set([...projects.names(), ...names])) {
    const project = projects.get(name);
    if (!project) continue;
    const clusters = clustersOf(name).map((c) => ({
      server: c.server,
      name: c.name,
      namespaces: c.scope.namespaces,
    }));
    const repos = await reposOf(name);
    scoped.add(
      clusters.length === 0 && repos.length === 0
        ? project
        : withScopedResources(project, { repos, clusters }),
    );
  }
  return { projects: scoped, projectClusters };
}

/** The CLI's error for a destination on a disabled in-cluster server (exit 2 for that app). */
export class ClusterDisabledError extends GitopsError {}

/**
 * Argo CD's error when `cluster.inClusterEnabled` is "false" and the destination is the in-cluster
 * server; undefined otherwise. Before resolution (`cluster` undefined): a `server` that is the in-cluster
 * URL, or the name `in-cluster` that no cluster Secret gives another server. After resolution: `cluster`
 * (the Argo CD Cluster object's server and name) on the in-cluster server, e.g. a Secret's name for it.
 */
export function inClusterRefusal(
  dest: Application['destination'],
  cluster: ProjectCluster | undefined,
  inClusterEnabled: boolean,
  clusterSecrets: readonly ClusterAccess[] = [],
): ClusterDisabledError | undefined {
  // Both name and server: GetDestinationServer's own error comes first (resolveCluster gives it).
  if (inClusterEnabled || (dest.name && dest.server)) return undefined;
  const server = dest.server ? dest.server.replace(/\/+$/, '') : undefined;
  let refused: boolean;
  if (cluster) refused = cluster.server === IN_CLUSTER_SERVER;
  else if (server !== undefined) refused = server === IN_CLUSTER_SERVER;
  else
    refused =
      dest.name === IN_CLUSTER_NAME &&
      !clusterSecrets.some((c) => c.name === IN_CLUSTER_NAME && c.server !== IN_CLUSTER_SERVER);
  if (!refused) return undefined;
  const message = dest.server
    ? `error getting cluster by server "${dest.server}": rpc error: code = NotFound desc = cluster "${IN_CLUSTER_SERVER}" is disabled`
    : `there are no clusters with this name: ${dest.name ?? ''}`;
  return new ClusterDisabledError(message, {
    hint: `argocd-cm cluster.inClusterEnabled is "false": Argo CD deploys nothing to ${IN_CLUSTER_SERVER}`,
  });
}
