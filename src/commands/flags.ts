// Over 400 lines: not split in issue 33 (other work edits src/commands this round); its parts are app selection, cluster, server-side diff and progress flags.
/**
 * The app-selection flags shared by `render`, `diff` and `sync`, and their translation into the options of
 * `loadApplications` (src/apps) and `createSourceService` (src/source). Spread `appFlags` into a command's
 * `flags` and call `appSelection(flags, argv)` / `sourceSelection(flags)`.
 *
 * Where apps come from (any combination, merged; duplicates are errors): `-f/--app-file` (repeatable,
 * files or folders), `--from-cluster` (the Applications in `--argocd-namespace`), the ad-hoc app
 * `--repo URL --path P [--revision R] [--dest-namespace NS] [--dest-server URL] [--name NAME]`; `--revision R`
 * without `--repo` renders every selected single-source app at R (`withRevisionOverride`).
 * Then name arguments and `-l/--selector` narrow the set. `--local DIR` renders DIR instead of Git;
 * `--hard-refresh` ignores the manifest cache. `selectApps(flags, argv, command)` does it all: checks
 * `--local`, loads, and fails with a usage error when nothing matched.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Flags } from '@oclif/core';
import type { CustomOptions, OptionFlag } from '@oclif/core/interfaces';
import {
  ARGOCD_CM,
  loadClusterProjects,
  loadProjectFiles,
  parseProject,
  ProjectSet,
  loadApplications,
  loadArgoCdSettingsFile,
  loadPluginConfigFiles,
  loadRepositoryFiles,
  mergePluginConfigs,
  parseDuration,
  readLivePluginConfigs,
  readLiveRepositories,
  readLiveArgoCdSettings,
  selectApplications,
  type Application,
  type ArgoCdSettings,
  type LoadApplicationsOptions,
} from '../apps/index.js';
import { ALGORITHMS, appsOnShard, parseAlgorithm, readClusterSecrets } from '../sharding/index.js';
import type { ClusterAccess } from '../cluster/index.js';
import { defaultCacheRoot, type SourceServiceOptions } from '../source/index.js';
import { describeSource, setParseCacheDir, type SourcedObject } from '../util/yaml-docs.js';
import {
  DEFAULT_ARGOCD_NAMESPACE,
  DEFAULT_TRACKING_METHOD,
  INSTANCE_LABEL,
  oneLine,
  UsageError,
  type TrackingMethod,
} from '../common/index.js';

const ADHOC = 'AD-HOC APP';
const SELECT = 'APP SELECTION';
const FLEET = 'FLEET SPLITTING';

export const appFlags = {
  'app-file': Flags.string({
    char: 'f',
    description:
      'Application manifests: a YAML/JSON file (multi-document) or a folder (read recursively). Repeatable.',
    multiple: true,
    multipleNonGreedy: true,
    helpGroup: SELECT,
  }),
  'from-cluster': Flags.boolean({
    description: 'Read the Applications of the live Argo CD namespace (current kube context).',
    helpGroup: SELECT,
  }),
  'argocd-namespace': Flags.string({
    description: 'Argo CD control-plane namespace (read by --from-cluster; decides tracking instance names).',
    default: 'argocd',
    helpGroup: SELECT,
  }),
  selector: Flags.string({
    char: 'l',
    description: 'Label selector on the Applications, e.g. team=web,tier!=db.',
    helpGroup: SELECT,
  }),
  repo: Flags.string({
    description: 'Ad-hoc app: Git repository URL.',
    dependsOn: ['path'],
    helpGroup: ADHOC,
  }),
  path: Flags.string({
    description: 'Ad-hoc app: path inside the repository.',
    dependsOn: ['repo'],
    helpGroup: ADHOC,
  }),
  revision: Flags.string({
    description:
      "Branch, tag, HEAD or commit SHA. With --repo: the ad-hoc app's revision. Without: replaces the target revision of every selected single-source app, as argocd app diff --revision does.",
    helpGroup: SELECT,
  }),
  'dest-namespace': Flags.string({
    description: 'Ad-hoc app: destination namespace.',
    dependsOn: ['repo'],
    helpGroup: ADHOC,
  }),
  'dest-server': Flags.string({
    description: 'Ad-hoc app: destination API server URL (default https://kubernetes.default.svc).',
    dependsOn: ['repo'],
    helpGroup: ADHOC,
  }),
  name: Flags.string({
    description: 'Ad-hoc app: Application name (default: from the path).',
    dependsOn: ['repo'],
    helpGroup: ADHOC,
  }),
  local: Flags.string({
    description:
      'Render this local working copy instead of fetching Git (every source of the selected apps).',
    helpGroup: SELECT,
  }),
  'hard-refresh': Flags.boolean({
    description: 'Ignore cached manifests and render again.',
    helpGroup: SELECT,
  }),
  'helm-path': Flags.string({
    description:
      "The helm binary that renders Helm sources. Default: helm on PATH, else the one `npm run tools` installs (Argo CD 3.6's 4.2.4).",
    helpGroup: SELECT,
  }),
  'kustomize-path': Flags.string({
    description:
      "The kustomize binary that renders kustomize sources without kustomize.version (argocd-cm kustomize.path.<version> names the others). Default: kustomize on PATH, else the one `npm run tools` installs (Argo CD 3.6's 5.8.1).",
    helpGroup: SELECT,
  }),
  'repositories-file': Flags.string({
    description:
      "Argo CD repository Secrets (secret-type repository / repo-creds) and argocd-ssh-known-hosts-cm as YAML/JSON: Git and Helm credentials. Default: the live Argo CD namespace's with --from-cluster (files are read first). Repeatable. See docs/repositories.md.",
    multiple: true,
    helpGroup: SELECT,
  }),
  'plugin-config': Flags.string({
    description:
      "Config management plugins: ConfigManagementPlugin files (a sidecar's plugin.yaml), or ConfigMaps holding them (argocd-cmp-cm), or folders of either. Default: the plugin sidecars of the live repo-server with --from-cluster (files win). Their commands run on this machine. Repeatable. See docs/plugins.md.",
    multiple: true,
    helpGroup: SELECT,
  }),
  'clusters-file': Flags.string({
    description:
      'Argo CD cluster Secrets (YAML/JSON), as `shards` reads them: destinations no kube context serves are reached with their credentials; also for --shard and ApplicationSet clusters generators. Default: the live Argo CD namespace with --from-cluster (none with diff --base: only in-cluster). Repeatable.',
    multiple: true,
    helpGroup: SELECT,
  }),
  shard: Flags.integer({
    description:
      'Keep only the apps whose destination cluster lands on this controller shard (0-based), as `shards` computes it, so N runners split a fleet with each app handled once (e.g. --shard "$JOB_COMPLETION_INDEX").',
    min: 0,
    dependsOn: ['replicas'],
    helpGroup: FLEET,
  }),
  replicas: Flags.integer({
    description: 'Number of shards for --shard (the controller replica count).',
    min: 1,
    max: 1000,
    dependsOn: ['shard'],
    helpGroup: FLEET,
  }),
  'sharding-algorithm': Flags.string({
    description: 'Sharding algorithm for --shard.',
    options: [...ALGORITHMS],
    default: 'legacy',
    helpGroup: FLEET,
  }),
};

export interface AppFlagValues {
  'app-file'?: string[] | undefined;
  'from-cluster'?: boolean | undefined;
  'argocd-namespace'?: string | undefined;
  selector?: string | undefined;
  repo?: string | undefined;
  path?: string | undefined;
  revision?: string | undefined;
  'dest-namespace'?: string | undefined;
  'dest-server'?: string | undefined;
  name?: string | undefined;
  local?: string | undefined;
  'hard-refresh'?: boolean | undefined;
  'helm-path'?: string | undefined;
  'kustomize-path'?: string | undefined;
  'repositories-file'?: string[] | undefined;
  'plugin-config'?: string[] | undefined;
  'clusters-file'?: string[] | undefined;
  /** argocd-cm, when the command reads it (its kustomize settings pick kustomize binaries and build options). */
  'argocd-cm'?: string | undefined;
  shard?: number | undefined;
  replicas?: number | undefined;
  'sharding-algorithm'?: string | undefined;
  /** Cluster flags, when the command has them (used by --from-cluster). */
  kubeconfig?: string | undefined;
  context?: string | undefined;
  'request-timeout'?: string | undefined;
}

/**
 * `--request-timeout`, kubectl's flag: how long one API request may wait for the server's answer (headers
 * and body). kubectl's syntax (k8s.io/cli-runtime genericclioptions, client-go clientcmd): "0" = no
 * timeout, a bare integer = seconds, else a Go duration ("30s", "1m", "1h30m"). Watches have their own
 * idle limit instead (src/cluster live-cache-watch.ts).
 */
export const requestTimeoutFlag = {
  'request-timeout': Flags.string({
    description:
      'How long one API request may wait for an answer: 0 = no timeout, a bare integer = seconds, else 30s, 1m, 1h (as kubectl). Default 30s.',
  }),
};

/**
 * A flag holding a duration, in `--request-timeout`'s syntax (src/apps `parseDuration`): a bare integer is
 * seconds, the form of Argo CD's integer-second flags (`--app-resync 120`), else a duration (`30s`, `3m`,
 * `1h30m`). The command gets milliseconds; a malformed or negative value is a usage error naming the flag
 * (exit 2). `default` is written as the user would type it (shown in --help as it is).
 */
export function durationFlag(o: {
  description: string;
  default: string;
  dependsOn?: string[];
}): OptionFlag<number, CustomOptions>;
export function durationFlag(o: {
  description: string;
  dependsOn?: string[];
}): OptionFlag<number | undefined, CustomOptions>;
export function durationFlag(o: {
  description: string;
  default?: string;
  dependsOn?: string[];
}): OptionFlag<number | undefined, CustomOptions> {
  const parse = async (text: string): Promise<number> => {
    const ms = parseDuration(text);
    if (ms === undefined || ms < 0 || !Number.isFinite(ms))
      throw new Error(
        `failed to parse duration "${text}": give seconds (120) or a duration with units (30s, 3m, 1h30m)`,
      );
    return ms;
  };
  const common = { description: o.description, parse, ...(o.dependsOn ? { dependsOn: o.dependsOn } : {}) };
  if (o.default === undefined) return Flags.custom<number>(common)();
  const fallback = parseDuration(o.default);
  if (fallback === undefined) throw new Error(`durationFlag: bad default ${o.default}`);
  const shown = o.default;
  return Flags.custom<number>({ ...common, default: fallback, defaultHelp: async () => shown })();
}

/** `--request-timeout` in milliseconds (undefined: src/cluster's default); a usage error when malformed. */
export function requestTimeoutMs(flags: { 'request-timeout'?: string | undefined }): number | undefined {
  const text = flags['request-timeout'];
  if (text === undefined) return undefined;
  const ms = parseDuration(text);
  if (ms === undefined || ms < 0 || !Number.isFinite(ms))
    throw new UsageError(
      'failed to parse: invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)',
      { subject: `--request-timeout ${text}` },
    );
  return ms;
}

/** `Run`'s client options for `--request-timeout` (none when the flag is not given). */
export function clientOptionsOf(flags: { 'request-timeout'?: string | undefined }): {
  client?: { requestTimeoutMs: number };
} {
  const ms = requestTimeoutMs(flags);
  return ms === undefined ? {} : { client: { requestTimeoutMs: ms } };
}

/** The cluster-access values of a command's flags, as the readers of src/apps and src/sharding take them. */
export function liveAccess(flags: AppFlagValues): {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  requestTimeoutMs?: number | undefined;
} {
  const ms = requestTimeoutMs(flags);
  return {
    kubeconfig: flags.kubeconfig,
    context: flags.context,
    ...(ms !== undefined ? { requestTimeoutMs: ms } : {}),
  };
}

export function appSelection(flags: AppFlagValues, names: readonly string[]): LoadApplicationsOptions {
  const options: LoadApplicationsOptions = {
    files: flags['app-file'] ?? [],
    fromCluster: flags['from-cluster'] ?? false,
    argocdNamespace: flags['argocd-namespace'] ?? 'argocd',
    names,
  };
  if (flags.selector !== undefined) options.selector = flags.selector;
  if (flags.kubeconfig) options.kubeconfig = flags.kubeconfig;
  if (flags.context) options.kubeContext = flags.context;
  const timeout = requestTimeoutMs(flags);
  if (timeout !== undefined) options.requestTimeoutMs = timeout;
  if (flags.repo !== undefined && flags.path !== undefined) {
    options.adHoc = {
      repo: flags.repo,
      path: flags.path,
      ...(flags.revision ? { revision: flags.revision } : {}),
      ...(flags['dest-namespace'] ? { destNamespace: flags['dest-namespace'] } : {}),
      ...(flags['dest-server'] ? { destServer: flags['dest-server'] } : {}),
      ...(flags.name ? { name: flags.name } : {}),
    };
  }
  return options;
}

/**
 * Keeps parsed app files next to the manifest cache (`<cache>/parsed`), so a warm run reads its
 * Applications from there instead of parsing YAML again (exact: keyed by the file's text and the parser's
 * code; src/util/yaml-docs.ts).
 */
export function useParseCache(): void {
  setParseCacheDir(join(defaultCacheRoot(), 'parsed'));
}

/**
 * The comparison memo on disk beside the manifest cache (`<cache>/comparisons`, src/controller/refresh/
 * disk-memo.ts): a run with nothing new compares no unchanged pair again. `--hard-refresh` leaves it out.
 */
export function comparisonMemoOf(flags: AppFlagValues): { comparisonMemoDir?: string } {
  return flags['hard-refresh'] ? {} : { comparisonMemoDir: join(defaultCacheRoot(), 'comparisons') };
}

export function sourceSelection(
  flags: AppFlagValues,
  onWarning: (message: string) => void = (m) => process.stderr.write(`warning: ${m}\n`),
): SourceServiceOptions {
  const files = flags['repositories-file'] ?? [];
  const pluginFiles = flags['plugin-config'] ?? [];
  const live = flags['from-cluster'] ?? false;
  const namespace = flags['argocd-namespace'] ?? 'argocd';
  return {
    ...(pluginFiles.length > 0 || live
      ? {
          // Read once, on the first render that may need a plugin (docs/plugins.md).
          plugins: async () =>
            mergePluginConfigs(
              { plugins: await loadPluginConfigFiles(pluginFiles), notes: [] },
              live
                ? await readLivePluginConfigs({ namespace, ...liveAccess(flags) })
                : { plugins: [], notes: [] },
            ),
        }
      : {}),
    argocdNamespace: namespace,
    hardRefresh: flags['hard-refresh'] ?? false,
    ...(flags.local ? { local: flags.local } : {}),
    ...(flags['helm-path'] ? { helmPath: flags['helm-path'] } : {}),
    ...(flags['kustomize-path'] ? { kustomizePath: flags['kustomize-path'] } : {}),
    // argocd-cm's kustomize keys, read on the first kustomize render (the same reading as the run's settings).
    ...(flags['argocd-cm'] !== undefined || live
      ? { kustomizeSettings: async () => (await runSettings(flags, onWarning)).settings?.kustomize }
      : {}),
    ...(files.length > 0 || live
      ? {
          // Read once, on the first Git or Helm repository use (docs/repositories.md).
          repositories: async () => [
            ...(await loadRepositoryFiles(files, onWarning)),
            ...(live ? await readLiveRepositories({ namespace, ...liveAccess(flags), onWarning }) : []),
          ],
        }
      : {}),
  };
}

/**
 * Reads the `--plugin-config` files once before anything renders, so a bad one is a usage error naming
 * it (exit 2) instead of a failure of every app that might use a plugin.
 */
export async function checkPluginConfigs(flags: AppFlagValues): Promise<void> {
  const files = flags['plugin-config'] ?? [];
  if (files.length > 0) await loadPluginConfigFiles(files);
}

/**
 * With `--shard I --replicas N`: the apps shard I manages (src/sharding `appsOnShard`); otherwise `apps`.
 * Warnings (unknown destinations, skip-reconcile clusters) go to `onWarning`.
 */
export async function appsOfShard<T extends Application>(
  apps: readonly T[],
  flags: AppFlagValues,
  onWarning: (message: string) => void,
  fleet: readonly T[] = apps,
): Promise<T[]> {
  if (flags.shard === undefined) return [...apps];
  const replicas = flags.replicas ?? 0;
  if (flags.shard >= replicas) {
    throw new UsageError(`failed to parse: --shard must be below --replicas (${replicas})`, {
      subject: `--shard ${flags.shard}`,
    });
  }
  const picked = await appsOnShard(apps, flags.shard, {
    replicas,
    algorithm: parseAlgorithm(flags['sharding-algorithm']).algorithm,
    clustersFiles: flags['clusters-file'] ?? [],
    countedApps: fleet,
    live: { ...liveAccess(flags), namespace: flags['argocd-namespace'] ?? 'argocd' },
  });
  for (const w of picked.warnings) onWarning(w);
  return picked.apps;
}

/**
 * The cluster Secrets a diff or sync reaches remote destinations with (docs/clusters.md): `--clusters-file`,
 * else with `--from-cluster` the Secrets labelled argocd.argoproj.io/secret-type=cluster in
 * `--argocd-namespace`, else none (kubeconfig contexts only). A live namespace whose Secrets cannot be
 * listed (RBAC) is a warning: the run goes on with kubeconfig contexts, and an app whose destination
 * needed a Secret says so.
 */
export async function clusterSecretsOf(
  flags: AppFlagValues,
  onWarning: (message: string) => void,
): Promise<ClusterAccess[] | undefined> {
  const files = flags['clusters-file'] ?? [];
  if (files.length === 0 && !flags['from-cluster']) return undefined;
  const namespace = flags['argocd-namespace'] ?? DEFAULT_ARGOCD_NAMESPACE;
  try {
    const list = await readClusterSecrets({
      clustersFiles: files,
      live: { ...liveAccess(flags), namespace },
    });
    for (const w of list.warnings) onWarning(w);
    return list.access;
  } catch (err) {
    if (files.length > 0) throw err;
    onWarning(
      `cluster Secrets of namespace ${namespace} not read (${oneLine(err)}): only kubeconfig contexts are destinations`,
    );
    return undefined;
  }
}

/**
 * `--revision R` without `--repo`: every app takes R as its source's target revision, as `argocd app diff
 * --revision` renders the app's source at R (server/application GetManifests with a revision). A
 * multi-source app keeps its revisions, with a warning: argocd takes `--revisions` with
 * `--source-positions` for those, one revision per source, and one R cannot fit a chart version and a branch.
 */
export function withRevisionOverride<T extends Application>(
  apps: readonly T[],
  flags: AppFlagValues,
  onWarning: (message: string) => void,
): T[] {
  const revision = flags.revision;
  if (revision === undefined || flags.repo !== undefined) return [...apps];
  return apps.map((app) => {
    if (app.multiSource) {
      onWarning(
        `app "${app.name}": --revision not applied: it has ${app.sources.length} sources (argocd app diff takes --revisions with --source-positions for those)`,
      );
      return app;
    }
    return { ...app, sources: app.sources.map((s) => ({ ...s, targetRevision: revision })) };
  });
}

/** The selected Applications; a usage error (exit 2) for a `--local` that is not a directory or no match. */
export async function selectApps(
  flags: AppFlagValues,
  names: readonly string[],
  command: string,
  onWarning: (message: string) => void = (m) => process.stderr.write(`warning: ${m}\n`),
  projectDocs?: SourcedObject[],
): Promise<Application[]> {
  if (flags.local && !(await stat(flags.local).catch(() => undefined))?.isDirectory()) {
    throw new UsageError('failed to read: no such directory', { subject: `--local ${flags.local}` });
  }
  await checkPluginConfigs(flags);
  // With --shard, every loaded app counts for consistent-hashing, whatever names or -l keep.
  const fleetOptions = { ...appSelection(flags, []), onWarning, ...(projectDocs ? { projectDocs } : {}) };
  delete fleetOptions.selector;
  const fleet = flags.shard === undefined ? undefined : await loadApplications(fleetOptions);
  const apps = fleet
    ? selectApplications(fleet, {
        names,
        ...(flags.selector !== undefined ? { selector: flags.selector } : {}),
      })
    : await loadApplications({
        ...appSelection(flags, names),
        onWarning,
        ...(projectDocs ? { projectDocs } : {}),
      });
  const overridden = withRevisionOverride(apps, flags, onWarning);
  if (overridden.length === 0)
    throw new UsageError('failed to select Applications: none matched', { subject: command });
  const onShard = await appsOfShard(overridden, flags, onWarning, fleet);
  // A shard with no apps is a normal outcome of splitting a fleet, not a selection error.
  if (onShard.length === 0) onWarning(`shard ${flags.shard ?? 0} of ${flags.replicas ?? 0} has no apps`);
  return onShard;
}

/**
 * The cluster-access and resource-tracking flags of the commands that read a cluster (`diff`, `sync`),
 * defined once so both read the same kube context and tracking settings the same way.
 */
export const clusterFlags = {
  kubeconfig: Flags.string({ description: 'Kubeconfig file. Default: KUBECONFIG, then ~/.kube/config.' }),
  context: Flags.string({
    description: 'Kube context for in-cluster destinations. Default: the current context.',
  }),
  'tracking-method': Flags.string({
    description:
      "How resources name their app (argocd-cm application.resourceTrackingMethod). Default: argocd-cm's, else annotation.",
    options: ['annotation', 'label', 'annotation+label'],
  }),
  ...requestTimeoutFlag,
  'instance-label-key': Flags.string({
    description:
      "Label key of label tracking (argocd-cm application.instanceLabelKey). Default: argocd-cm's, else app.kubernetes.io/instance.",
  }),
  'argocd-cm': Flags.string({
    description:
      "Argo CD's settings: an argocd-cm ConfigMap manifest (- for stdin). Default: the live argocd-cm with --from-cluster, else Argo CD's defaults.",
  }),
  'project-file': Flags.string({
    description:
      "AppProject manifests: a YAML/JSON file or a folder (- for stdin). Repeatable. Apps are held to their project's rules as Argo CD holds them (repos, destinations, kinds). AppProjects in -f files and, with --from-cluster, those of --argocd-namespace count too (a file wins over the live one of the same name). Without any, only Argo CD's allow-all `default` project exists and apps of other projects are refused.",
    multiple: true,
  }),
};

/** The values of `clusterFlags` a command reads settings with. */
export interface SettingsFlagValues extends AppFlagValues {
  'project-file'?: string[] | undefined;
  'argocd-cm'?: string | undefined;
  'tracking-method'?: string | undefined;
  'instance-label-key'?: string | undefined;
}

/**
 * Argo CD's settings for a run: `--argocd-cm FILE`, else the live argocd-cm of `--argocd-namespace` when
 * apps come `--from-cluster` (a missing ConfigMap: Argo CD's defaults, with a warning), else none. The
 * tracking flags win over argocd-cm's tracking keys.
 */
const settingsFiles = new WeakMap<object, Promise<ArgoCdSettings>>();

export async function runSettings(
  flags: SettingsFlagValues,
  onWarning: (message: string) => void,
): Promise<{
  settings?: ArgoCdSettings;
  trackingMethod: TrackingMethod;
  instanceLabelKey: string;
}> {
  let settings: ArgoCdSettings | undefined;
  if (flags['argocd-cm'] === '-' && (flags['app-file'] ?? []).includes('-'))
    throw new UsageError('failed to read: standard input is already read by -f -', {
      subject: '--argocd-cm -',
    });
  if (flags['argocd-cm'] !== undefined) {
    // A file (or stdin) is read once per run, however many readers ask (the renderers' kustomize keys too).
    const file = flags['argocd-cm'];
    let read = settingsFiles.get(flags);
    const first = !read;
    if (!read) {
      read = loadArgoCdSettingsFile(file);
      settingsFiles.set(flags, read);
    }
    settings = await read;
    if (!first) settings = { ...settings, warnings: [] };
  } else if (flags['from-cluster']) {
    const namespace = flags['argocd-namespace'] ?? DEFAULT_ARGOCD_NAMESPACE;
    settings = await readLiveArgoCdSettings({ namespace, ...liveAccess(flags) });
    if (!settings)
      onWarning(`configmap ${namespace}/${ARGOCD_CM} not found: Argo CD's default settings are used`);
  }
  for (const w of settings?.warnings ?? []) onWarning(w);
  return {
    ...(settings ? { settings } : {}),
    trackingMethod:
      (flags['tracking-method'] as TrackingMethod | undefined) ??
      settings?.trackingMethod ??
      DEFAULT_TRACKING_METHOD,
    instanceLabelKey: flags['instance-label-key'] ?? settings?.instanceLabelKey ?? INSTANCE_LABEL,
  };
}

/**
 * The AppProjects of a run (src/apps `ProjectSet`): those of `--project-file` (each path must hold one)
 * and of the `-f` app files, then, with `--from-cluster`, the live ones of `--argocd-namespace` (one LIST)
 * whose name no file gave. Two different files defining one project name are an error.
 * `appFileProjects`: the AppProject documents the app loading already read from the `-f` files (one pass,
 * issue 23; `LoadApplicationsOptions.projectDocs`); without it the `-f` files are read here.
 */
export async function runProjects(
  flags: SettingsFlagValues,
  appFileProjects?: readonly SourcedObject[],
): Promise<ProjectSet> {
  const projects = new ProjectSet();
  for (const p of await loadProjectFiles(flags['project-file'] ?? [], { requireProjects: true }))
    projects.add(p);
  const fromAppFiles = appFileProjects
    ? appFileProjects.map((s) => parseProject(s.object, describeSource(s)))
    : await loadProjectFiles(flags['app-file'] ?? []);
  for (const p of fromAppFiles) projects.add(p);
  if (flags['from-cluster']) {
    const given = new Set(projects.names());
    const live = await loadClusterProjects({
      namespace: flags['argocd-namespace'] ?? DEFAULT_ARGOCD_NAMESPACE,
      ...liveAccess(flags),
    });
    for (const p of live) if (!given.has(p.name)) projects.add(p);
  }
  return projects;
}

/** `--quiet`: no progress on stderr (render, diff, sync). Errors and warnings are still printed. */
export const progressFlags = {
  quiet: Flags.boolean({
    char: 'q',
    description:
      'No progress on stderr (shown on a TTY; sync prints one line per event when stderr is not a TTY). Errors and warnings still print.',
  }),
};

/**
 * Server-side diff's batching (src/controller/refresh/server-side.ts), named and defaulted as Argo CD 3's
 * `argocd app diff` / `argocd app sync` flags (cmd/argocd/commands/app_diff.go `addServerSideDiffPerfFlags`).
 */
export const serverSideDiffFlags = {
  'server-side-diff-concurrency': Flags.integer({
    description:
      'Server-side diff: batches of dry runs per app at once (-1 = all, 1 = one batch at a time; 0 is refused). A batch dry-runs its resources one after another.',
    default: -1,
    min: -1,
  }),
  'server-side-diff-max-batch-kb': Flags.integer({
    description:
      'Server-side diff: KB of live + target JSON per batch of dry runs (a bigger resource is a batch alone).',
    default: 250,
    min: 1,
  }),
};

/** The StateManager options of `serverSideDiffFlags`; concurrency 0 is a UsageError, as Argo CD's. */
export function serverSideDiffLimits(flags: {
  'server-side-diff-concurrency': number;
  'server-side-diff-max-batch-kb': number;
}): { serverSideConcurrency: number; serverSideMaxBatchKB: number } {
  if (flags['server-side-diff-concurrency'] === 0)
    throw new UsageError(
      'failed to parse: 0 is not allowed (use -1 for all batches at once, or a positive number to limit them)',
      { subject: '--server-side-diff-concurrency' },
    );
  return {
    serverSideConcurrency: flags['server-side-diff-concurrency'],
    serverSideMaxBatchKB: flags['server-side-diff-max-batch-kb'],
  };
}
