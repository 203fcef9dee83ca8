/**
 * Applications: which apps exist and what they say (the door of `src/apps/`).
 *
 * `loadApplications` gathers apps from every requested place, in this order: files and folders (`files`),
 * the live Argo CD namespace (`fromCluster`), the ad-hoc app from flags (`adHoc`). It then rejects
 * duplicates (same namespace and name, the namespace defaulting to the control-plane namespace) naming both
 * origins, and applies the selection (`names`, `selector`). With names, app files that cannot hold them are
 * not parsed (prescan.ts): their errors and duplicates are not reported; the selection is unchanged. Asking for no place at all is a UsageError;
 * a selection matching nothing returns [] (the command decides whether that is an error).
 *
 * `instanceName` is the value Argo CD writes into tracking annotations for an app (spec 1).
 */
import { UsageError } from '../common/index.js';
import { adHocApplication, type AdHocAppOptions } from './adhoc.js';
import { loadClusterApplications, type ApplicationLister } from './cluster.js';
import { readAppFiles, type SourcedAppSet } from './load.js';
import { prescanOf } from './prescan.js';
import type { SourcedObject } from '../util/yaml-docs.js';
import { selectApplications } from './select.js';
import type { Application } from './types.js';

export type * from './types.js';
export { APPLICATION_API_VERSION, APPLICATION_KIND } from './types.js';
export { parseApplication, SYNC_OPTIONS, RETRY_DEFAULTS } from './parse.js';
export { unloadableApplication } from './unloadable.js';
export { parseDuration, parseGoDuration } from './duration.js';
export { isLiteralPattern, matchStringInList } from './globs.js';
export { parseSyncWindows, validateSyncWindows, matchingWindows } from './sync-windows.js';
export type { SyncWindow, WindowApp, ParseSyncWindowsOptions } from './sync-windows.js';
export {
  appSyncWindows,
  activeWindowsLine,
  canSync,
  describeState,
  describeWindow,
  syncWindowRefusal,
  syncWindowsReport,
  windowState,
} from './sync-windows-eval.js';
export type {
  AppSyncWindows,
  AppSyncWindowsOptions,
  CanSyncOptions,
  SyncDecision,
  SyncWindowsReport,
  WindowReport,
  WindowState,
} from './sync-windows-eval.js';
export { parseCron, nextAfter } from './cron.js';
export type { CronSchedule } from './cron.js';
export { loadTimeZone } from './time-zone.js';
export { parseSelector, selectApplications } from './select.js';
export {
  filesHaveChanged,
  MANIFEST_GENERATE_PATHS,
  refreshPathMatches,
  refreshPaths,
} from './refresh-paths.js';
export { loadApplicationFiles, readAppFiles } from './load.js';
export type { AppFiles, SourcedAppSet } from './load.js';
export { argoCdStringField } from './string-fields.js';
export { adHocApplication, IN_CLUSTER_SERVER, type AdHocAppOptions } from './adhoc.js';
export type { ApplicationLister } from './cluster.js';
export {
  ARGOCD_CM,
  ARGOCD_CM_KEYS,
  DEFAULT_COMPARE_SETTINGS,
  inClusterEnabled,
  knownTypeFieldsOf,
  loadArgoCdSettingsFile,
  overrideIgnoreRules,
  parseArgoCdSettings,
} from './settings.js';
export type {
  ArgoCdSettings,
  CompareSettings,
  FilteredResource,
  OverrideIgnoreDiff,
  ResourceOverride,
} from './settings.js';
export { readLiveArgoCdSettings, loadClusterProjects } from './cluster.js';
export {
  APP_PROJECT_KIND,
  DEFAULT_PROJECT,
  DEFAULT_PROJECT_NAME,
  ProjectSet,
  loadProjectFiles,
  parseProject,
} from './project.js';
export type {
  AppProject,
  GroupKind,
  NamedGroupKind,
  OrphanedResourcesSettings,
  ProjectDestination,
} from './project.js';
export {
  isAppNamespacePermitted,
  isDestinationPermitted,
  isGroupKindNamePermitted,
  isKnownOrphanedResourceExclusion,
  isResourcePermitted,
  isSourcePermitted,
  normalizeGitURL,
  projectConditions,
  syncPermissionError,
  withScopedResources,
} from './project-rules.js';
export type { ProjectCluster, ProjectClusters, ProjectCondition, ScopedCluster } from './project-rules.js';
export { loadRepositoryFiles, readLiveRepositories } from './repositories.js';
export {
  discoveryConfigured,
  loadPluginConfigFiles,
  mergePluginConfigs,
  parsePluginConfig,
  readLivePluginConfigs,
  CMP_CONFIGMAP,
  PLUGIN_CONFIG_KIND,
} from './plugins.js';
export type {
  LivePluginsOptions,
  ParameterAnnouncement,
  PluginCommand,
  PluginConfig,
  PluginConfigSet,
} from './plugins.js';
export type { RepositorySourceObject, LiveRepositoriesOptions } from './repositories.js';

export { DEFAULT_ARGOCD_NAMESPACE } from '../common/index.js';
import { DEFAULT_ARGOCD_NAMESPACE } from '../common/index.js';

export interface LoadApplicationsOptions {
  /** Files and folders (`-f`). */
  files?: readonly string[];
  /** Read the Applications of the control-plane namespace from the cluster. */
  fromCluster?: boolean;
  /** Control-plane namespace (default argocd): read by `fromCluster`, and the default app namespace. */
  argocdNamespace?: string;
  /** Kubeconfig file and context for `fromCluster`. */
  kubeconfig?: string;
  kubeContext?: string;
  /** `--request-timeout` in milliseconds for `fromCluster` (0: none). */
  requestTimeoutMs?: number;
  /** Injected cluster reader (tests); default @kubernetes/client-node, imported lazily. */
  lister?: ApplicationLister;
  adHoc?: AdHocAppOptions;
  /**
   * Select by name (or namespace/name). With names, files that cannot hold them are not parsed
   * (prescan.ts; the selection is the same as with every file parsed).
   */
  names?: readonly string[];
  /**
   * The names the caller will select itself from what this returns (and from what its ApplicationSets
   * generate), for the pre-scan only (prescan.ts): `names` when absent. Only for callers whose selection
   * needs no other app (no app-of-apps recursion, no sharding over the fleet).
   */
  prescanNames?: readonly string[];
  /** Label selector on the Applications' labels. */
  selector?: string;
  /** Documents of app files that were skipped (one line per file). */
  onWarning?: (message: string) => void;
  /** When given, the ApplicationSets of `files` are added to it (found in the same pass as the apps). */
  appsets?: SourcedAppSet[];
  /** When given, the AppProject documents of `files` are added to it (same pass; `parseProject` them). */
  projectDocs?: SourcedObject[];
}

export async function loadApplications(options: LoadApplicationsOptions): Promise<Application[]> {
  const argocdNamespace = options.argocdNamespace ?? DEFAULT_ARGOCD_NAMESPACE;
  const files = options.files ?? [];
  if (files.length === 0 && !options.fromCluster && !options.adHoc) {
    throw new UsageError('failed to find Applications: give -f/--app-file, --from-cluster or --repo/--path', {
      subject: 'apps',
    });
  }
  const apps: Application[] = [];
  if (files.length > 0) {
    const read = await readAppFiles(files, {
      onWarning: options.onWarning,
      requireApps: true,
      prescan: prescanOf(options.prescanNames ?? options.names ?? []),
    });
    apps.push(...read.apps);
    options.appsets?.push(...read.appsets);
    options.projectDocs?.push(...read.projects);
  }
  if (options.fromCluster) {
    apps.push(
      ...(await loadClusterApplications({
        namespace: argocdNamespace,
        ...(options.kubeconfig ? { kubeconfig: options.kubeconfig } : {}),
        ...(options.kubeContext ? { context: options.kubeContext } : {}),
        ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
        ...(options.lister ? { lister: options.lister } : {}),
      })),
    );
  }
  if (options.adHoc) apps.push(adHocApplication(options.adHoc));
  checkDuplicates(apps, argocdNamespace);
  return selectApplications(apps, {
    ...(options.names ? { names: options.names } : {}),
    ...(options.selector !== undefined ? { selector: options.selector } : {}),
  });
}

function checkDuplicates(apps: readonly Application[], argocdNamespace: string): void {
  const seen = new Map<string, Application>();
  for (const app of apps) {
    const key = `${app.namespace ?? argocdNamespace}/${app.name}`;
    const first = seen.get(key);
    if (first) {
      throw new UsageError(
        `failed to load Application "${app.name}": duplicate name (first defined in ${first.origin})`,
        {
          subject: app.origin,
        },
      );
    }
    seen.set(key, app);
  }
}

/** Argo CD's instance name: `<appNs>_<appName>` outside the control-plane namespace, else `<appName>`. */
export function instanceName(app: Pick<Application, 'name' | 'namespace'>, argocdNamespace: string): string {
  return app.namespace && app.namespace !== argocdNamespace ? `${app.namespace}_${app.name}` : app.name;
}

export {
  buildStatus,
  setConditions,
  sameStatus,
  DEFAULT_REVISION_HISTORY_LIMIT,
  OWN_TYPES,
} from './status.js';
export type {
  AppSummary,
  BuildStatusOptions,
  BuiltStatus,
  StatusComparison,
  StatusRenderedSource,
  StatusResource,
  StatusSource,
} from './status.js';
export { parseOperation, operationJson, operationStateJson } from './operation.js';
export {
  LOCAL_SYNC_WITH_AUTO_SYNC,
  OperationRefusal,
  ROLLBACK_WITH_AUTO_SYNC,
} from './operation-override.js';
export type { SyncOverride } from './operation-override.js';
export type { AppOperationReport, AppOperationRequest, AppTaskResult } from './operation.js';
export { goDuration, kubeTime, mergePatch } from './status-json.js';
export { applicationSummary, LINK_ANNOTATION_PREFIX } from './summary.js';
export {
  ArgoNamespaceWatch,
  APPLICATION_RESOURCE,
  CONFIG_MAPS,
  APP_PROJECT_RESOURCE,
  SECRET_TYPE_LABEL,
  SECRETS,
} from './app-watch.js';
export type { ArgoNamespaceWatchOptions, NamespaceEvent } from './app-watch.js';
export {
  BACKGROUND_FINALIZER,
  FOREGROUND_FINALIZER,
  RESOURCES_FINALIZER,
  cascades,
  deletionStep,
  finalizersOf,
  isDeleting,
  shouldBeDeleted,
} from './deletion.js';
export type { DeletingApp, DeletionStep } from './deletion.js';
export {
  CLEANUP_STAGE,
  POST_DELETE_FINALIZER,
  PRE_DELETE_FINALIZER,
  deleteHookFinalizers,
  deleteHooksOf,
  deletionStage,
  finalizes,
  isDeleteHook,
  withoutDeletionFinalizers,
} from './delete-hooks.js';
export type { DeleteHookType, DeletionStage } from './delete-hooks.js';
