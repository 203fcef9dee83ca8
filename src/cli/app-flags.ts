/**
 * The app-selection flags shared by `render`, `diff` and `sync`, and their translation into the options of
 * `loadApplications` (src/apps) and `createSourceService` (src/source). Spread `appFlags` into a command's
 * `flags` and call `appSelection(flags, argv)` / `sourceSelection(flags)`.
 *
 * Where apps come from (any combination, merged; duplicates are errors): `-f/--app-file` (repeatable,
 * files or folders), `--from-cluster` (the Applications in `--argocd-namespace`), the ad-hoc app
 * `--repo URL --path P [--revision R] [--dest-namespace NS] [--dest-server URL] [--name NAME]`.
 * Then name arguments and `-l/--selector` narrow the set. `--local DIR` renders DIR instead of Git;
 * `--hard-refresh` ignores the manifest cache. `selectApps(flags, argv, command)` does it all: checks
 * `--local`, loads, and fails with a usage error when nothing matched.
 */
import { stat } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { loadApplications, type Application, type LoadApplicationsOptions } from '../apps/index.js';
import type { SourceServiceOptions } from '../source/index.js';
import { UsageError } from './errors.js';

const ADHOC = 'AD-HOC APP';
const SELECT = 'APP SELECTION';

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
    description: 'Ad-hoc app: branch, tag, HEAD or commit SHA.',
    dependsOn: ['repo'],
    helpGroup: ADHOC,
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
  /** Cluster flags, when the command has them (used by --from-cluster). */
  kubeconfig?: string | undefined;
  context?: string | undefined;
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

export function sourceSelection(flags: AppFlagValues): SourceServiceOptions {
  return {
    argocdNamespace: flags['argocd-namespace'] ?? 'argocd',
    hardRefresh: flags['hard-refresh'] ?? false,
    ...(flags.local ? { local: flags.local } : {}),
  };
}

/** The selected Applications; a usage error (exit 2) for a `--local` that is not a directory or no match. */
export async function selectApps(
  flags: AppFlagValues,
  names: readonly string[],
  command: string,
): Promise<Application[]> {
  if (flags.local && !(await stat(flags.local).catch(() => undefined))?.isDirectory()) {
    throw new UsageError('failed to read: no such directory', { subject: `--local ${flags.local}` });
  }
  const apps = await loadApplications(appSelection(flags, names));
  if (apps.length === 0)
    throw new UsageError('failed to select Applications: none matched', { subject: command });
  return apps;
}
