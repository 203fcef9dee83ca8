/**
 * Desired state (the door of `src/source/`): what Git says each Application should contain.
 *
 * `createSourceService(options)` returns a service for ONE run; `renderApp(app)`:
 * 1. resolves every source's targetRevision (git.ts: one ls-remote per repository per run);
 * 2. per rendered source (ref-only sources are checked out only when a `$ref` value file needs them),
 *    looks the manifests up in the manifest cache (cache.ts) unless `hardRefresh`; on a miss checks the
 *    commit out (fetching the repository at most once per run) and renders it (render/), then caches it;
 * 3. concatenates the sources' objects in source order, dedupes them (last wins, with a warning) and stamps
 *    the tracking annotation (tracking.ts).
 * `forgetRevisions(repoURL)` ends that "once per run" for one repository (the continuous loop, issue 22).
 * With `local`, every Git source is read from that directory instead (no git, no cache; revision "local").
 * Failures are `SourceError`s naming the app, the file (relative to the repository root, or the repository)
 * and the reason; their exit code is 2. `close()` removes the run's checkouts and temp copies.
 *
 * Credentials (docs/repositories.md): `repositories` loads Argo CD's repository Secrets, credential
 * templates and argocd-ssh-known-hosts-cm once per run (repositories.ts); each Git source gets the
 * credentials Argo CD would use for (repoURL, app project), passed to git through its environment only
 * (git-auth.ts), and a Helm-repository chart gets them through a private helm repository config file.
 * Credentials are never part of a cache key, a path or a message. `close()` also removes the private
 * directory holding key files.
 *
 * Child processes: renderers run at most `concurrency` at a time (default: CPU count, at least 2) with
 * `renderTimeoutMs` each (default 90 s, Argo CD's exec timeout); git runs at most 8 at a time.
 */
export { defaultCacheRoot } from './cache.js';
export { normalizeGitURL, redactURL, repoKey } from './url.js';
export { execProcess } from './exec.js';
export type { Exec, ExecOptions, ExecResult } from './exec.js';
export { TRACKING_ANNOTATION, trackingId, resourceKey, groupOf } from './tracking.js';
export { OfflineScope, placeInDestination } from './scope.js';
export type { GitStats } from './git.js';
export { TREE_MODE, type TreeEntry, type TreeIndex } from './git-tree.js';
export {
  RepositoryStore,
  isRepositoryObject,
  SECRET_TYPE_LABEL,
  SSH_KNOWN_HOSTS_CM,
} from './repositories.js';
export type { RepositoryObject, RepoCredentials } from './repositories.js';
export type { SourceType } from './render/index.js';
export { RepoPoller, repositoriesToPoll, DEFAULT_POLL_INTERVAL_MS } from './poller.js';
export type { PolledRepository, RefChange, RepoPollerOptions } from './poller.js';
export { FileWatcher, DEFAULT_QUIET_MS } from './file-watch.js';
export { ToolPaths, type KustomizeSettings, type ToolPathOptions } from './tool-paths.js';
export { TOOL_VERSIONS } from './render/tool-versions.js';
export type { FileWatcherOptions } from './file-watch.js';
export { createSourceService } from './service.js';
export { observeRenders, SourceError } from './service-types.js';
export type {
  ClusterInfo,
  RenderedApp,
  RenderedSource,
  RenderEvent,
  SourceService,
  SourceServiceOptions,
  SourceStats,
} from './service-types.js';
