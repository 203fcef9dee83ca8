/**
 * Planning a sync (pure): the task list of one operation from the reconciliation's target/live pairs,
 * as gitops-engine `getSyncTasks` builds it (pkg/sync/sync_context.go, sync_tasks.go). No I/O.
 *
 * - One task per (resource, phase): plain resources run in `Sync`; a hook gets one task per hook type it
 *   names; `Skip` gets none (never applied, never pruned). Hooks are left out with strategy `apply` or any
 *   resource filter.
 * - A hook without a name gets `generateName` + lowercase `<revision[0:7]>-<phase>-<start unix secs>`.
 * - Waves from `argocd.argoproj.io/sync-wave` (Helm hook weight fallback); order and Namespace/CRD hoisting
 *   in order.ts.
 * - Prunes (live without target): `Prune=false` -> PruneSkipped "ignored (no prune)"; prune off ->
 *   PruneSkipped "ignored (requires pruning)"; already terminating -> no second delete. The distinct prune
 *   waves are mirrored (first <-> last) so deletion runs in reverse creation order; `PruneLast` (app option
 *   or the live object's annotation) moves a prune to (last Sync-phase wave) + 1.
 * - `CreateNamespace=true` adds a PreSync Namespace task for the destination namespace (carrying
 *   managedNamespaceMetadata) unless the app manages that Namespace itself.
 * - `ApplyOutOfSyncOnly=true` drops plain resources whose pair is Synced (hooks always run).
 * - Refuses (a usage error: nothing is changed) when every resource of the app would be pruned, unless
 *   `allowEmpty`.
 */
import { UsageError } from '../common/index.js';
import type { KubeObject } from '../common/index.js';
import {
  deletePolicies,
  hasOption,
  hookTypesOf,
  isHookObject,
  isSkipped,
  objectSyncOptions,
  SYNC_OPTIONS_ANNOTATION,
  syncWave,
} from './annotations.js';
import { sortTasks } from './order.js';
import type { ResourceKey, SyncPhase, SyncTask } from './types.js';

/** One pair of the reconciliation: the desired object and/or the live one, with the compare verdict. */
export interface PlanResource {
  target?: KubeObject | undefined;
  live?: KubeObject | undefined;
  /** The compare verdict; `false` only when the pair is Synced. */
  outOfSync: boolean;
}

/** A `--resource GROUP:KIND:[NAMESPACE/]NAME` filter entry; an absent namespace matches any. */
export interface ResourceFilter {
  group: string;
  kind: string;
  namespace?: string;
  name: string;
}

export interface PlanInput {
  app: string;
  /** The destination namespace (CreateNamespace creates it). */
  destNamespace: string;
  /** The revision being synced (hook names take its first 7 characters). */
  revision: string;
  /** When the operation started (hook names take its unix seconds). */
  startedAt: Date;
  resources: readonly PlanResource[];
  /** Live hooks of the app by key (formatKey), for BeforeHookCreation; missing = none exist. */
  liveHooks?: ReadonlyMap<string, KubeObject>;
  /** App-level sync options (spec.syncPolicy.syncOptions overlaid by --sync-option and flags). */
  syncOptions: Readonly<Record<string, string>>;
  prune: boolean;
  allowEmpty?: boolean;
  strategy?: 'apply' | 'hook';
  resourceFilter?: readonly ResourceFilter[];
  /** The live destination Namespace, when it exists (CreateNamespace). */
  liveNamespace?: KubeObject | undefined;
  managedNamespaceMetadata?: { labels: Record<string, string>; annotations: Record<string, string> };
  /** Stamps tracking on an object to write (after hook naming, so the tracking-id names the final name). */
  stamp?: (obj: KubeObject) => KubeObject;
}

export interface SyncPlan {
  tasks: SyncTask[];
  /** True when hooks were left out (strategy apply or a resource filter). */
  hooksSkipped: boolean;
}

/** `group/kind/namespace/name`, the map key used throughout sync. */
export function formatResourceKey(key: ResourceKey): string {
  return `${key.group}/${key.kind}/${key.namespace}/${key.name}`;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

export function keyOfObject(obj: KubeObject): ResourceKey {
  return {
    group: groupOf(obj.apiVersion ?? ''),
    kind: obj.kind ?? '',
    namespace: obj.metadata?.namespace ?? '',
    name: obj.metadata?.name ?? '',
  };
}

/** Parses `GROUP:KIND:[NAMESPACE/]NAME` (argocd app sync --resource); throws a usage error otherwise. */
export function parseResourceFilter(text: string): ResourceFilter {
  const parts = text.split(':');
  if (parts.length !== 3 || parts[1] === '' || parts[2] === '') {
    throw new UsageError(`failed to parse resource filter: expected GROUP:KIND:[NAMESPACE/]NAME`, {
      subject: `--resource ${text}`,
    });
  }
  const [group, kind, rest] = parts as [string, string, string];
  const slash = rest.indexOf('/');
  if (slash < 0) return { group, kind, name: rest };
  return { group, kind, namespace: rest.slice(0, slash), name: rest.slice(slash + 1) };
}

function matchesFilter(key: ResourceKey, filters: readonly ResourceFilter[]): boolean {
  return filters.some(
    (f) =>
      f.group === key.group &&
      f.kind === key.kind &&
      f.name === key.name &&
      (f.namespace === undefined || f.namespace === key.namespace),
  );
}

/** The name Argo CD gives a hook that only has `generateName`. */
export function hookName(generateName: string, revision: string, phase: SyncPhase, startedAt: Date): string {
  const seconds = Math.floor(startedAt.getTime() / 1000);
  return `${generateName}${`${revision.slice(0, 7)}-${phase}-${seconds}`.toLowerCase()}`;
}

function task(
  phase: SyncPhase,
  target: KubeObject | undefined,
  live: KubeObject | undefined,
  hookType: SyncPhase | undefined,
  appOptions: Readonly<Record<string, string>>,
  outOfSync: boolean,
): SyncTask {
  const obj = (target ?? live)!;
  const key = keyOfObject(obj);
  const options = objectSyncOptions(obj, appOptions);
  const action =
    target === undefined
      ? 'prune'
      : live === undefined
        ? 'create'
        : hasOption(options, 'Replace')
          ? 'replace'
          : 'apply';
  return {
    id: `${phase}:${key.group}/${key.kind}:${key.namespace}/${key.name}`,
    phase,
    wave: syncWave(obj),
    target,
    live,
    apiVersion: obj.apiVersion ?? '',
    key,
    hookType,
    deletePolicies: hookType ? deletePolicies(obj) : [],
    options,
    action,
    outOfSync,
  };
}

/** Builds the ordered task list of one sync operation. Throws a usage error for an all-prune sync. */
export function planSync(input: PlanInput): SyncPlan {
  const filters = input.resourceFilter ?? [];
  const hooksSkipped = input.strategy === 'apply' || filters.length > 0;
  const stamp = input.stamp ?? ((o: KubeObject) => o);
  const tasks: SyncTask[] = [];
  const targets = input.resources.filter((r) => r.target !== undefined);
  const prunes = input.resources.filter((r) => r.target === undefined && r.live !== undefined);

  if (!input.allowEmpty && targets.length === 0 && prunes.length > 0) {
    throw new UsageError(
      `failed to sync: every resource would be pruned (${prunes.length}); pass --allow-empty to allow it`,
      { subject: `app ${input.app}` },
    );
  }

  for (const r of input.resources) {
    const obj = (r.target ?? r.live)!;
    if (filters.length > 0 && !matchesFilter(keyOfObject(obj), filters)) continue;
    if (isSkipped(obj)) continue;
    if (r.target === undefined) {
      if (r.live === undefined || isHookObject(r.live)) continue;
      tasks.push(pruneTask(r.live, input));
      continue;
    }
    if (isHookObject(r.target)) {
      if (hooksSkipped) continue;
      for (const phase of hookTypesOf(r.target)) {
        if (phase === 'Skip') continue;
        const target = structuredClone(r.target);
        const metadata = (target.metadata ??= {});
        if (!metadata.name)
          metadata.name = hookName(
            String(metadata['generateName'] ?? ''),
            input.revision,
            phase,
            input.startedAt,
          );
        const named = stamp(target);
        const live = input.liveHooks?.get(formatResourceKey(keyOfObject(named)));
        tasks.push(task(phase, named, live, phase, input.syncOptions, true));
      }
      continue;
    }
    if (
      hasOption(objectSyncOptions(r.target, input.syncOptions), 'ApplyOutOfSyncOnly') &&
      !r.outOfSync &&
      r.live
    ) {
      continue;
    }
    tasks.push(task('Sync', stamp(r.target), r.live, undefined, input.syncOptions, r.outOfSync));
  }

  const namespaceTask = createNamespaceTask(input, tasks);
  if (namespaceTask) tasks.push(namespaceTask);

  // gitops-engine's getSyncTasks gives every target without a namespace the destination namespace, cluster-
  // scoped ones too ("so it cannot be created in a namespace by accident"): their results name it.
  for (const t of tasks)
    if (t !== namespaceTask && t.target && t.key.namespace === '' && input.destNamespace)
      t.resultNamespace = input.destNamespace;
  mirrorPruneWaves(tasks);
  applyPruneLast(tasks, input.syncOptions);
  return { tasks: sortTasks(tasks), hooksSkipped };
}

function pruneTask(live: KubeObject, input: PlanInput): SyncTask {
  const t = task('Sync', undefined, live, undefined, input.syncOptions, true);
  const liveOptions = objectSyncOptions(live, {});
  if (hasOption(liveOptions, 'Prune', 'false')) {
    t.action = 'prune-skip';
    t.message = 'ignored (no prune)';
  } else if (!input.prune) {
    t.action = 'prune-skip';
    t.message = 'ignored (requires pruning)';
  } else if (live.metadata?.deletionTimestamp) {
    t.action = 'none';
    t.message = 'already terminating';
  }
  return t;
}

function createNamespaceTask(input: PlanInput, tasks: readonly SyncTask[]): SyncTask | undefined {
  if (!hasOption(input.syncOptions, 'CreateNamespace') || input.destNamespace === '') return undefined;
  const managed = tasks.some(
    (t) => t.key.group === '' && t.key.kind === 'Namespace' && t.key.name === input.destNamespace,
  );
  if (managed) return undefined;
  const meta = input.managedNamespaceMetadata;
  // Without managed metadata an existing namespace is left as it is (Argo CD only creates it).
  if (input.liveNamespace && !meta) return undefined;
  // Argo CD's syncNamespace (controller/sync_namespace.go): the managed metadata, applied server-side
  // (the sync-options annotation says so), and no tracking (argo-cd issue 11196). gitops-engine builds it
  // from a typed Namespace (autoCreateNamespace + ToUnstructured), so it carries `spec: {}` and `status: {}`,
  // which its last-applied annotation shows.
  const target: KubeObject = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: input.destNamespace,
      ...(meta && Object.keys(meta.labels).length > 0 ? { labels: { ...meta.labels } } : {}),
      ...(meta
        ? { annotations: { ...meta.annotations, [SYNC_OPTIONS_ANNOTATION]: 'ServerSideApply=true' } }
        : {}),
    },
    spec: {},
    status: {},
  };
  const t = task('PreSync', target, input.liveNamespace, undefined, {}, true);
  return meta ? t : { ...t, createOnly: true };
}

/** Prune waves mirrored: the i-th smallest distinct prune wave swaps with the i-th largest. */
function mirrorPruneWaves(tasks: SyncTask[]): void {
  const byWave = new Map<number, SyncTask[]>();
  for (const t of tasks) if (t.target === undefined) byWave.set(t.wave, [...(byWave.get(t.wave) ?? []), t]);
  const waves = [...byWave.keys()].sort((a, b) => a - b);
  for (let i = 0; i < waves.length; i++) {
    for (const t of byWave.get(waves[i]!)!) t.wave = waves[waves.length - 1 - i]!;
  }
}

function applyPruneLast(tasks: SyncTask[], appOptions: Readonly<Record<string, string>>): void {
  const lastSyncWave = Math.max(0, ...tasks.filter((t) => t.phase === 'Sync').map((t) => t.wave));
  for (const t of tasks) {
    if (t.target !== undefined) continue;
    if (hasOption(appOptions, 'PruneLast') || hasOption(objectSyncOptions(t.live, {}), 'PruneLast'))
      t.wave = lastSyncWave + 1;
  }
}
