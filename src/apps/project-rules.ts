/**
 * What an AppProject permits, decided as Argo CD 3.x decides it (docs/projects.md explains each rule):
 * - `projectConditions(app, project, cluster)`: the conditions the controller's refresh sets before any
 *   comparison (`controller/appcontroller.go refreshAppConditions`: `getAppProj`, then `util/argo/argo.go
 *   ValidatePermissions`). Any of them stops the app: it is neither compared nor synced.
 * - `isSourcePermitted`, `isAppNamespacePermitted`, `isDestinationPermitted`, `isGroupKindNamePermitted`,
 *   `isResourcePermitted`: `pkg/apis/application/v1alpha1/app_project_types.go`, same names.
 * - `syncPermissionError`: the sync's permission validator (`controller/sync.go validateSyncPermissions`).
 * - `isKnownOrphanedResourceExclusion`: `controller/appcontroller.go`, same name.
 * - `normalizeGitURL`: `util/git/git.go NormalizeGitURL`.
 * The destination cluster is `{ server, name }` as Argo CD's Cluster object has them (see
 * `destinationCluster` in src/controller for how a kubeconfig destination gets both).
 */
import { globMatch, matchStringInList, pathMatch } from './globs.js';
import type { AppProject, GroupKind, NamedGroupKind } from './project.js';
import type { Application } from './types.js';

/** A destination cluster as Argo CD knows it (Cluster.Server, Cluster.Name). */
export interface ProjectCluster {
  server: string;
  name: string;
}

/** The clusters scoped to a project (cluster Secrets with `project: <name>`); none by default. */
export type ProjectClusters = (project: string) => readonly ProjectCluster[];

export interface ProjectCondition {
  type: 'InvalidSpecError' | 'UnknownError';
  message: string;
}

const SSH_URL = /^(ssh:\/\/)?([^/:]*?)@[^@]+$/;

/** Lower-cased, `git@host:org/repo` as `host/org/repo`, no `.git` suffix: how Argo CD compares repo URLs. */
export function normalizeGitURL(repo: string): string {
  let url = repo.trim().toLowerCase();
  if (SSH_URL.test(url) && !url.startsWith('ssh://')) url = `ssh://${url.replace(':', '/')}`;
  if (url.endsWith('.git')) url = url.slice(0, -4);
  // Go's url.Parse refuses a bad percent-escape: the URL then normalizes to "".
  if (/%(?![0-9a-f]{2})/.test(url)) return '';
  return url.startsWith('ssh://') ? url.slice('ssh://'.length) : url;
}

const isDeny = (pattern: string): boolean => pattern.startsWith('!');

/** `globMatch` of app_project_types.go: `!pattern` negates, `*` matches everything. */
function projectGlob(pattern: string, value: string, allowNegation: boolean, separators = ''): boolean {
  if (allowNegation && isDeny(pattern)) return !globMatch(pattern.slice(1), value, separators);
  if (pattern === '*') return true;
  return globMatch(pattern, value, separators);
}

/** `IsSourcePermitted`: some entry matches and no `!` entry excludes the repo. */
export function isSourcePermitted(project: AppProject, repoURL: string): boolean {
  const src = normalizeGitURL(repoURL);
  let any = false;
  for (const entry of project.sourceRepos) {
    const normalized = isDeny(entry) ? `!${normalizeGitURL(entry.slice(1))}` : normalizeGitURL(entry);
    const matched = projectGlob(normalized, src, true, '/');
    if (matched) any = true;
    else if (isDeny(normalized)) return false;
  }
  return any;
}

/** `IsAppNamespacePermitted`: apps of the control-plane namespace always; others per sourceNamespaces. */
export function isAppNamespacePermitted(
  project: AppProject,
  app: Pick<Application, 'namespace'>,
  controllerNamespace: string,
): boolean {
  if (!app.namespace || app.namespace === controllerNamespace) return true;
  return matchStringInList(project.sourceNamespaces, app.namespace);
}

/** `isDestinationMatched`: server or name, and namespace, with `!` entries vetoing. */
function isDestinationMatched(project: AppProject, dst: ProjectCluster & { namespace: string }): boolean {
  let any = false;
  for (const item of project.destinations) {
    const nameMatched = dst.name !== '' && projectGlob(item.name, dst.name, true);
    const serverMatched = dst.server !== '' && projectGlob(item.server, dst.server, true);
    const namespaceMatched = projectGlob(item.namespace, dst.namespace, true);
    if ((serverMatched || nameMatched) && namespaceMatched) any = true;
    else if (
      (!nameMatched && isDeny(item.name)) ||
      (!serverMatched && isDeny(item.server) && namespaceMatched)
    )
      return false;
    else if (!namespaceMatched && isDeny(item.namespace) && serverMatched) return false;
  }
  return any;
}

/** `IsDestinationPermitted`, with `permitOnlyProjectScopedClusters` requiring a cluster of the project. */
export function isDestinationPermitted(
  project: AppProject,
  cluster: ProjectCluster,
  namespace: string,
  projectClusters: ProjectClusters = () => [],
): boolean {
  const matched = isDestinationMatched(project, { ...cluster, namespace });
  if (!matched || !project.permitOnlyProjectScopedClusters) return matched;
  return projectClusters(project.name).some((c) => c.name === cluster.name || c.server === cluster.server);
}

const inList = (gk: GroupKind, list: readonly GroupKind[]): boolean =>
  list.some((item) => pathMatch(item.kind, gk.kind) && pathMatch(item.group, gk.group));

const inNamedList = (gk: GroupKind, name: string, list: readonly NamedGroupKind[]): boolean =>
  list.some(
    (item) =>
      pathMatch(item.kind, gk.kind) &&
      pathMatch(item.group, gk.group) &&
      (item.name === '' || pathMatch(item.name, name)),
  );

/**
 * `IsGroupKindNamePermitted`: a namespaced kind passes an unset whitelist (an empty one passes nothing);
 * a cluster-scoped kind needs a whitelist entry; the blacklist always wins.
 */
export function isGroupKindNamePermitted(
  project: AppProject,
  gk: GroupKind,
  name: string,
  namespaced: boolean,
): boolean {
  if (namespaced) {
    const white = project.namespaceResourceWhitelist;
    const whitelisted = white === undefined || (white.length > 0 && inList(gk, white));
    return whitelisted && !inList(gk, project.namespaceResourceBlacklist);
  }
  return (
    inNamedList(gk, name, project.clusterResourceWhitelist) &&
    !inNamedList(gk, name, project.clusterResourceBlacklist)
  );
}

/** `IsResourcePermitted` / `IsLiveResourcePermitted`: the kind, then a namespaced object's namespace. */
export function isResourcePermitted(
  project: AppProject,
  resource: GroupKind & { name: string; namespace: string },
  cluster: ProjectCluster,
  projectClusters?: ProjectClusters,
): boolean {
  if (!isGroupKindNamePermitted(project, resource, resource.name, resource.namespace !== '')) return false;
  if (resource.namespace !== '')
    return isDestinationPermitted(project, cluster, resource.namespace, projectClusters);
  return true;
}

/**
 * `validateSyncPermissions`: why a sync task may not be written (undefined: it may). `namespaced` is
 * the served kind's scope.
 */
export function syncPermissionError(
  project: AppProject,
  obj: GroupKind & { name: string; namespace: string },
  namespaced: boolean,
  cluster: ProjectCluster,
  projectClusters?: ProjectClusters,
): string | undefined {
  if (!isGroupKindNamePermitted(project, obj, obj.name, namespaced))
    return `resource ${obj.group}:${obj.kind} is not permitted in project ${project.name}`;
  if (namespaced && !isDestinationPermitted(project, cluster, obj.namespace, projectClusters))
    return `namespace ${obj.namespace} is not permitted in project '${project.name}'`;
  return undefined;
}

/**
 * The conditions Argo CD's refresh sets from the project before comparing (empty: go on). `project`
 * undefined = not found; `cluster` undefined skips the destination (checked once the destination resolved).
 * `controllerNamespace` is `--argocd-namespace`.
 */
export function projectConditions(
  app: Application,
  project: AppProject | undefined,
  cluster: ProjectCluster | undefined,
  options: { controllerNamespace: string; projectClusters?: ProjectClusters },
): ProjectCondition[] {
  const projectName = (app.manifest.spec as { project?: unknown } | undefined)?.project;
  if (!project)
    return [
      {
        type: 'InvalidSpecError',
        message: `Application referencing project ${typeof projectName === 'string' ? projectName : app.project} which does not exist`,
      },
    ];
  // getAppProj's error is not a NotFound: projectErrorToCondition makes it an UnknownError.
  if (!isAppNamespacePermitted(project, app, options.controllerNamespace))
    return [
      {
        type: 'UnknownError',
        message: `application '${app.name}' in namespace '${app.namespace ?? ''}' is not permitted to use project '${project.name}'`,
      },
    ];
  const conditions: ProjectCondition[] = [];
  for (const source of app.sources) {
    if (!isSourcePermitted(project, source.repoURL))
      conditions.push({
        type: 'InvalidSpecError',
        message: `application repo ${source.repoURL} is not permitted in project '${project.name}'`,
      });
  }
  const namespace = app.destination.namespace;
  if (cluster && !isDestinationPermitted(project, cluster, namespace, options.projectClusters)) {
    const server = app.destination.name ? cluster.name : cluster.server;
    conditions.push({
      type: 'InvalidSpecError',
      message: `application destination server '${server}' and namespace '${namespace}' do not match any of the allowed destinations in project '${project.name}'`,
    });
  }
  return conditions;
}

/** Objects never reported as orphaned (`isKnownOrphanedResourceExclusion`), and the project's ignore list. */
export function isKnownOrphanedResourceExclusion(
  key: GroupKind & { namespace: string; name: string },
  project: AppProject,
): boolean {
  if (key.namespace === 'default' && key.group === '' && key.kind === 'Service' && key.name === 'kubernetes')
    return true;
  if (key.group === '' && key.kind === 'ServiceAccount' && key.name === 'default') return true;
  if (key.group === '' && key.kind === 'ConfigMap' && key.name === 'kube-root-ca.crt') return true;
  return (project.orphanedResources?.ignore ?? []).some(
    (item) =>
      (item.kind === '' || globMatch(item.kind, key.kind)) &&
      globMatch(item.group, key.group) &&
      (item.name === '' || globMatch(item.name, key.name)),
  );
}

/** A project-scoped cluster as its Secret describes it (`project: <name>`, optional `namespaces`). */
export interface ScopedCluster extends ProjectCluster {
  namespaces?: readonly string[];
}

/**
 * The project as Argo CD's controller uses it (`util/argo/argo.go GetAppProjectByName`): the URLs of the
 * repository Secrets scoped to it appended to `sourceRepos`, and each cluster scoped to it appended to
 * `destinations` (its server with namespace `*`, or one entry per namespace the Secret lists). Called by
 * src/controller/refresh/scoped.ts `scopeProjects` for each run; the project given is not changed.
 */
export function withScopedResources(
  project: AppProject,
  scoped: { repos?: readonly string[]; clusters?: readonly ScopedCluster[] },
): AppProject {
  const destinations = [...project.destinations];
  for (const c of scoped.clusters ?? []) {
    const namespaces = c.namespaces && c.namespaces.length > 0 ? c.namespaces : ['*'];
    for (const namespace of namespaces) destinations.push({ server: c.server, name: '', namespace });
  }
  return { ...project, sourceRepos: [...project.sourceRepos, ...(scoped.repos ?? [])], destinations };
}
