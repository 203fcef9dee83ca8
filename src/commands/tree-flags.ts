/**
 * The app-tree flags of `render` and `diff` (ApplicationSets and app-of-apps, src/preview/tree.ts) and
 * `selectAppTree`, which loads the selected apps with them: roots from the app-selection flags
 * (app-flags.ts), ApplicationSets from the same `-f` files and `--from-cluster`, children found in renders; the name
 * arguments and `-l` then select among all of them (so a generated or child app can be named).
 */
import { stat } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { loadApplications, selectApplications, type SourcedAppSet } from '../apps/index.js';
import { loadClusterApplicationSets } from '../apps/appset/index.js';
import { buildAppTree, clusterSource, DEFAULT_MAX_DEPTH, type AppTree } from '../preview/index.js';
import type { SourceService } from '../source/index.js';
import {
  appSelection,
  appsOfShard,
  checkPluginConfigs,
  liveAccess,
  withRevisionOverride,
  type AppFlagValues,
} from './flags.js';
import { UsageError } from '../common/index.js';
import type { SourcedObject } from '../util/yaml-docs.js';

const TREE = 'APP TREE';

export const treeFlags = {
  recursive: Flags.boolean({
    description:
      'Follow app-of-apps: render the Applications (and ApplicationSets) an app renders, recursively. On by default for render and diff --base; off for diff against a cluster.',
    allowNo: true,
    helpGroup: TREE,
  }),
  'max-depth': Flags.integer({
    description: 'Deepest app-of-apps level followed (roots are level 0).',
    default: DEFAULT_MAX_DEPTH,
    min: 0,
    max: 100,
    helpGroup: TREE,
  }),
};

export interface TreeFlagValues extends AppFlagValues {
  recursive?: boolean | undefined;
  'max-depth'?: number | undefined;
}

export interface SelectTreeOptions {
  service: SourceService;
  recursive: boolean;
  /** Render every app (render), or only what recursion needs (diff against a cluster). */
  renderAll: boolean;
  /** Read cluster Secrets from the live namespace when no --clusters-file is given. */
  liveClusters: boolean;
  onWarning: (message: string) => void;
  /** When given, the AppProject documents of the `-f` files are added to it (read in the same pass). */
  projectDocs?: SourcedObject[];
}

export async function selectAppTree(
  flags: TreeFlagValues,
  names: readonly string[],
  command: string,
  options: SelectTreeOptions,
): Promise<AppTree> {
  if (flags.local && !(await stat(flags.local).catch(() => undefined))?.isDirectory()) {
    throw new UsageError('failed to read: no such directory', { subject: `--local ${flags.local}` });
  }
  await checkPluginConfigs(flags);
  const argocdNamespace = flags['argocd-namespace'] ?? 'argocd';
  const loadOptions = appSelection(flags, []);
  loadOptions.onWarning = options.onWarning;
  delete loadOptions.selector;
  // The ApplicationSets of the -f files come from the same pass that reads their Applications.
  const appsets: SourcedAppSet[] = [];
  loadOptions.appsets = appsets;
  if (options.projectDocs) loadOptions.projectDocs = options.projectDocs;
  // Named apps without recursion or sharding need no other app: files that cannot hold them are not
  // parsed (src/apps/prescan.ts; a name not found in the files reads them all).
  if (!options.recursive && flags.shard === undefined) loadOptions.prescanNames = names;
  const roots = withRevisionOverride(await loadApplications(loadOptions), flags, options.onWarning);
  if (flags['from-cluster'])
    appsets.push(
      ...(await loadClusterApplicationSets({
        namespace: argocdNamespace,
        ...liveAccess(flags),
      })),
    );
  const tree = await buildAppTree(roots, appsets, {
    service: options.service,
    argocdNamespace,
    recursive: options.recursive,
    maxDepth: flags['max-depth'] ?? DEFAULT_MAX_DEPTH,
    renderAll: options.renderAll,
    clusters: clusterSource({
      clustersFiles: flags['clusters-file'] ?? [],
      ...(options.liveClusters ? { live: { namespace: argocdNamespace, ...liveAccess(flags) } } : {}),
      onWarning: options.onWarning,
    }),
    onWarning: options.onWarning,
  });
  const fleet = tree.nodes.map((n) => n.app);
  if (names.length > 0 || flags.selector !== undefined) {
    const picked = new Set(
      selectApplications(
        tree.nodes.map((n) => n.app),
        { names, ...(flags.selector !== undefined ? { selector: flags.selector } : {}) },
      ),
    );
    tree.nodes = tree.nodes.filter((n) => picked.has(n.app));
  }
  if (flags.shard !== undefined) {
    const apps = await appsOfShard(
      tree.nodes.map((n) => n.app),
      flags,
      options.onWarning,
      fleet,
    );
    const kept = new Set(apps);
    tree.nodes = tree.nodes.filter((n) => kept.has(n.app));
    // A shard with no apps is a normal outcome of splitting a fleet, not a selection error.
    if (tree.nodes.length === 0) {
      options.onWarning(`shard ${flags.shard} of ${flags.replicas ?? 0} has no apps`);
      return tree;
    }
  }
  if (tree.nodes.length === 0 && tree.generated.length === 0)
    throw new UsageError('failed to select Applications: none matched', { subject: command });
  return tree;
}
