/**
 * One app's sync operation over a reconciliation: plan (plan.ts), then the engine (engine.ts) over the
 * cluster (cluster-client.ts), then wait until the live cache has seen every write, so the refresh that
 * follows reports the final state. Retries of a failed operation are the controller's (processors.ts).
 */
import type { KubeClient, KubeObject, LiveStateCache, ResourceInfo } from '../cluster/index.js';
import { isNotFound } from '../cluster/index.js';
import type { HealthOptions } from '../health/index.js';
import { ClusterSyncClient } from './cluster-client.js';
import { withoutForce } from './annotations.js';
import { SyncEngine } from './engine.js';
import { taskRef } from './engine-types.js';
import type { Unserved } from './engine-types.js';
import { planSync } from './plan.js';
import { NAMESPACE_INFO } from './requests.js';
import type { ResourceFilter, PlanResource } from './plan.js';
import type {
  OperationReport,
  PlannedGroup,
  RunningProgress,
  SyncEngineEvent,
  SyncEvent,
  SyncTask,
} from './types.js';

/** What sync needs from a refresh (the controller's Reconciliation satisfies it). */
export interface SyncSource {
  revision: string;
  destNamespace: string;
  pairs: PlanResource[];
  hooks: KubeObject[];
  liveHooks: Map<string, KubeObject>;
  kinds: Map<string, ResourceInfo | undefined>;
  /** Each target's group/version/kind the cluster does not serve (`unservedId`), as discovery says. */
  unserved?: ReadonlyMap<string, Unserved> | undefined;
  /**
   * With `RespectIgnoreDifferences=true`: the target to apply instead, keeping the live values of the
   * fields the app's ignoreDifferences leave out (Argo CD controller/sync.go `normalizeTargetResources`).
   */
  respectIgnored?: ((target: KubeObject, live: KubeObject) => KubeObject) | undefined;
  stamp: (obj: KubeObject) => KubeObject;
  cache: LiveStateCache;
  client: KubeClient;
  /** How health is judged while waiting on waves and hooks (argocd-cm's Lua checks), as the refresh does. */
  health?: HealthOptions | undefined;
  /**
   * The app's AppProject verdict on writing an object of a served kind (undefined: permitted). Every task
   * is asked before the first request; one refusal fails the operation with nothing written.
   */
  permission?: ((obj: KubeObject, namespaced: boolean) => string | undefined) | undefined;
  /** The refresh's conditions (Argo CD's), read when `failure` is set. */
  conditions?: ReadonlyArray<{ type: string; message: string }> | undefined;
  /**
   * Set when the refresh could not load or compare the desired state (the controller's
   * `Reconciliation.failure`): the operation is refused before anything is planned or written.
   */
  failure?: unknown;
}

/** Condition types that stop a sync before it starts (controller/sync.go SyncAppState). */
const REFUSING_CONDITIONS = ['ComparisonError', 'InvalidSpecError'];

export interface SyncRequest {
  prune: boolean;
  dryRun: boolean;
  allowEmpty: boolean;
  strategy: 'apply' | 'hook';
  resources: readonly ResourceFilter[];
  /** Options from flags and `--sync-option`, overlaid on the app's own. */
  syncOptions: Readonly<Record<string, string>>;
  /** Write attempts per request for 409/5xx. */
  maxAttempts?: number;
  /**
   * Argo CD's `Terminating`: when it aborts, the operation is terminated at its next step (running hooks
   * deleted, Failed "Operation terminated"; terminate.ts) while `signal` still lets the requests run.
   */
  terminate?: AbortSignal | undefined;
  /** Observer of the operation (progress printers): its plan, then every engine event, named by app. */
  onEvent?: (event: SyncEvent) => void;
  /** The operation waits: its running message and results so far, with the revision (`RunningProgress`). */
  onRunning?: ((progress: RunningProgress) => void) | undefined;
}

export interface SyncApp {
  name: string;
  syncOptions: Readonly<Record<string, string>>;
  managedNamespaceMetadata?: { labels: Record<string, string>; annotations: Record<string, string> };
}

/**
 * The pairs to plan: with `RespectIgnoreDifferences=true`, each target that has a live object keeps the
 * live values of its ignored fields (SyncSource `respectIgnored`; Argo CD SyncAppState replaces the
 * reconciliation's targets so before building the tasks).
 */
function respected(source: SyncSource, syncOptions: Readonly<Record<string, string>>): PlanResource[] {
  const respect = source.respectIgnored;
  if (!respect || syncOptions['RespectIgnoreDifferences']?.toLowerCase() !== 'true') return source.pairs;
  return source.pairs.map((p) => (p.target && p.live ? { ...p, target: respect(p.target, p.live) } : p));
}

export async function runOperation(
  app: SyncApp,
  source: SyncSource,
  request: SyncRequest,
  signal: AbortSignal,
  now: () => Date = () => new Date(),
): Promise<OperationReport> {
  const startedAt = now();
  if (source.failure !== undefined) return refused(source, request, startedAt, now());
  // The request's `Force` is the sync strategy's force; the app's own `Force=true` does nothing, as in
  // Argo CD (annotations.ts `withoutForce`).
  const syncOptions = { ...withoutForce(app.syncOptions), ...request.syncOptions };
  const kinds = new Map(source.kinds);
  kinds.set('/Namespace', kinds.get('/Namespace') ?? NAMESPACE_INFO);
  let liveNamespace: KubeObject | undefined;
  if (syncOptions['CreateNamespace']?.toLowerCase() === 'true' && source.destNamespace) {
    liveNamespace = await readNamespace(source, signal);
  }
  const plan = planSync({
    app: app.name,
    destNamespace: source.destNamespace,
    revision: source.revision,
    startedAt,
    resources: [
      ...respected(source, syncOptions),
      ...source.hooks.map((h) => ({ target: h, outOfSync: true })),
    ],
    liveHooks: source.liveHooks,
    liveNamespace,
    syncOptions,
    prune: request.prune,
    allowEmpty: request.allowEmpty,
    strategy: request.strategy,
    resourceFilter: request.resources,
    ...(app.managedNamespaceMetadata ? { managedNamespaceMetadata: app.managedNamespaceMetadata } : {}),
    stamp: source.stamp,
  });
  const client = new ClusterSyncClient({
    client: source.client,
    cache: source.cache,
    kinds,
    ...(source.unserved ? { unserved: source.unserved } : {}),
    crds: plan.tasks
      .filter(
        (t) =>
          t.key.group === 'apiextensions.k8s.io' && t.key.kind === 'CustomResourceDefinition' && t.target,
      )
      .map((t) => t.target!),
    signal,
    ...(request.maxAttempts ? { maxAttempts: request.maxAttempts } : {}),
  });
  const emit = request.onEvent;
  if (emit) {
    emit({
      app: app.name,
      type: 'operation-start',
      dryRun: request.dryRun,
      groups: plannedGroups(plan.tasks),
    });
  }
  const permission = source.permission;
  const engine = new SyncEngine(plan.tasks, client, {
    dryRun: request.dryRun,
    ...(permission
      ? {
          permission: (task: SyncTask) => {
            const obj = task.target ?? task.live;
            const info = kinds.get(`${task.key.group}/${task.key.kind}`);
            if (!obj || !info) return undefined;
            return permission(obj, info.namespaced);
          },
        }
      : {}),
    ...(source.health ? { health: source.health } : {}),
    ...(emit ? { onEvent: (e: SyncEngineEvent) => emit({ app: app.name, ...e }) } : {}),
    ...(request.onRunning
      ? { onRunning: (p: RunningProgress) => request.onRunning?.({ ...p, revision: source.revision }) }
      : {}),
  });
  try {
    const result = await engine.run(signal, request.terminate);
    let unsettled: unknown;
    if (!request.dryRun && !signal.aborted)
      await client.settled(signal).catch((err: unknown) => (unsettled = err));
    const report: OperationReport = {
      phase: result.phase,
      message: result.message,
      revision: source.revision,
      startedAt: startedAt.toISOString(),
      finishedAt: now().toISOString(),
      dryRun: request.dryRun,
      retries: 0,
      resources: result.resources,
      plan: plan.tasks.map((t) => ({
        syncPhase: t.phase,
        syncWave: t.wave,
        group: t.key.group,
        kind: t.key.kind,
        namespace: t.key.namespace,
        name: t.key.name,
        action: t.action,
        hookType: t.hookType ?? '',
      })),
    };
    if (unsettled !== undefined) throw new UnsettledOperationError(report, unsettled);
    return report;
  } finally {
    client.close();
  }
}

/**
 * Argo CD's SyncAppState on an app whose refresh has a ComparisonError or InvalidSpecError condition:
 * phase Error, the conditions as `argo.FormatAppConditions` joins them ("<type>: <message>", ";"), no
 * task planned, nothing written (a dry run neither).
 */
function refused(
  source: SyncSource,
  request: SyncRequest,
  startedAt: Date,
  finishedAt: Date,
): OperationReport {
  const message = (source.conditions ?? [])
    .filter((c) => REFUSING_CONDITIONS.includes(c.type))
    .map((c) => `${c.type}: ${c.message}`)
    .join(';');
  return {
    phase: 'Error',
    message,
    revision: source.revision,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    dryRun: request.dryRun,
    retries: 0,
    resources: [],
    plan: [],
  };
}

/**
 * The operation ran (`operation` says how it went) but what it wrote cannot be read back: the live cache
 * lost the watch that would show it, so a final refresh would report stale state. The app ends with
 * this error (exit 2) and its operation is still reported.
 */
export class UnsettledOperationError extends Error {
  constructor(
    readonly operation: OperationReport,
    cause: unknown,
  ) {
    super(
      `operation ${operation.phase}, but its final state cannot be read: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
}

/** The groups the engine will run, in order (SyncFail hooks only run after a failure: left out). */
function plannedGroups(tasks: readonly SyncTask[]): PlannedGroup[] {
  const groups: PlannedGroup[] = [];
  for (const t of tasks) {
    if (t.action === 'prune-skip' || t.action === 'none' || t.phase === 'SyncFail') continue;
    const last = groups.at(-1);
    if (last?.syncPhase === t.phase && last.syncWave === t.wave) last.tasks.push(taskRef(t));
    else groups.push({ syncPhase: t.phase, syncWave: t.wave, tasks: [taskRef(t)] });
  }
  return groups;
}

async function readNamespace(source: SyncSource, signal: AbortSignal): Promise<KubeObject | undefined> {
  const key = { group: '', kind: 'Namespace', namespace: '', name: source.destNamespace };
  if (source.cache.covers(key)) return source.cache.get(key);
  try {
    return await source.client.get(NAMESPACE_INFO, '', source.destNamespace, signal);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
