/**
 * `StateManager.reconcile(app)`: one app's refresh (Argo CD `controller/state.go CompareAppState`), spec
 * §2-5, as a `Reconciliation` (real objects and values: what sync consumes); `compare(app)` is its report
 * (`toReport`, report.ts: masked, for printers).
 *
 * 1. Render the desired state (src/source) while the cluster's shared live cache syncs (cluster.ts).
 * 2. Normalize targets (targets.ts): hooks set aside, namespaces defaulted via discovery, tracking stamped,
 *    the managed namespace added.
 * 3. Live = the cache's objects tracked by this app (no ownerReferences) plus the live object at each
 *    target key, even untracked (`LiveStateCache.managedLive`, the one read door: a target whose apiVersion
 *    is not the one cached is read there by one GET at its own version, reads in parallel). A kind the
 *    cluster does not serve has no live object.
 * 4. Pair by key; leftover live objects are extra (prune candidates) unless they are hooks, ignored hook
 *    objects, or their tracking-id names another key (not self-referenced: copied annotations): those,
 *    and `hook: Skip` targets, are listed with status '' (live hooks flagged `hook`), not compared, never
 *    applied or pruned, as Argo CD's CompareAppState lists them; their health counts as Argo CD counts it
 *    (a copied-id object's does, a hook's and a Skip target's do not). `requiresPruning` is Argo CD's
 *    (no target, live, self-referenced): a live hook has it too, with a `note` (argo-cd#16895).
 * 5. Compare each pair (src/diff; the app's ignoreDifferences then the extra rules, one array per app),
 *    against a server-side dry run when server-side diff is on (server-side.ts).
 * 6. Health per resource and for the app (src/health `aggregateHealth`).
 * 7. The app's AppProject (`projectOf`, projects.ts; docs/projects.md): live objects it does not permit are
 *    dropped before pairing (step 3), rows of kinds it does not permit become Unknown (the app's status
 *    counts them as compared), orphaned resources are warned about when the project asks, and the
 *    reconciliation carries the project and its `permission` check for sync's validation step.
 * Reported, never fatal: kinds the cluster does not serve (UnknownKind; the resource is OutOfSync and
 * Missing; a kind dropped during the run, its CRD deleted, says so: cluster.ts), resources whose live object is tracked by another app (SharedResourceWarning; `sharedWith`,
 * the diff shows the tracking change; the resource is never treated as ours), excluded kinds, duplicates,
 * failed dry runs (the resource and the app become Unknown, ComparisonError).
 * Throws (the app's error) when rendering fails, the cluster is unreachable, or an ignoreDifferences rule
 * is invalid. App sync: Unknown if any resource is Unknown, else OutOfSync if any resource is OutOfSync
 * (extra resources marked IgnoreExtraneous excepted), else Synced.
 */
import {
  DEFAULT_ARGOCD_NAMESPACE,
  DEFAULT_TRACKING_METHOD,
  INSTANCE_LABEL,
  SyncOption,
} from '../common/index.js';
import { OWN_FIELD_MANAGERS } from '../common/index.js';
import type { JsonMap } from '../common/index.js';
import type { Application, ArgoCdSettings } from '../apps/index.js';
import {
  DEFAULT_COMPARE_SETTINGS,
  instanceName,
  overrideIgnoreRules,
  syncPermissionError,
} from '../apps/index.js';
import { formatKey, keyOf, owningApp, parseTrackingId, TRACKING_ID_ANNOTATION } from '../cluster/index.js';
import type { KubeObject, ResourceInfo, TrackingMethod } from '../cluster/index.js';
import { compareObjects, ServerSideDiffError } from '../diff/index.js';
import type { CompareInput, IgnoreDifference, ResourceComparison } from '../diff/index.js';
import { aggregateHealth, HealthOverrides, isHook, isIgnored } from '../health/index.js';
import { observeRenders } from '../source/index.js';
import type { SourceService } from '../source/index.js';
import type { ClusterState } from './cluster.js';
import {
  appIncludesMutationWebhook,
  appServerSideDiff,
  COMPARE_OPTIONS_ANNOTATION,
  dryRunApply,
} from './server-side.js';
import type { DryRunOutcome } from './server-side.js';
import {
  instanceLabelValue,
  prepareHooks,
  prepareTargets,
  withManagedNamespace,
  withTracking,
} from './targets.js';
import type { Target } from './targets.js';
import { formatViolation } from '../schema/index.js';
import type { SchemaLookup } from '../schema/index.js';
import { toReport } from './report.js';
import { ComparisonMemo, DryRunMemo } from './memo.js';
import { markNotPermitted, orphanedResources, permittedLive } from './projects.js';
import type { AppProjectContext } from './projects.js';
import type {
  AppCondition,
  AppSyncStatus,
  ComparisonResult,
  ReconciledResource,
  Reconciliation,
  RunEventHandler,
} from './types.js';

/** The note on a live hook listed with `requiresPruning` (Argo CD's verdict; no sync prunes a hook). */
export const HOOK_PRUNING_NOTE =
  'requiresPruning as Argo CD reports a live hook, but no sync prunes hooks: their delete policies remove them (argo-cd#16895)';

export interface StateManagerOptions {
  source: SourceService;
  /** The cluster an app's destination resolves to (shared by the apps of that cluster). */
  clusterOf: (app: Application) => Promise<ClusterState>;
  /** Control-plane namespace: decides instance names. Default argocd. */
  argocdNamespace?: string;
  /** Default 'annotation'. */
  trackingMethod?: TrackingMethod;
  /** Default `app.kubernetes.io/instance`. */
  instanceLabelKey?: string;
  /** Rules added to every app's own (`--ignore-differences-file`). */
  ignoreDifferences?: readonly IgnoreDifference[];
  /** Default OWN_FIELD_MANAGERS. */
  fieldManagers?: readonly string[];
  /** Default false; an app's `compare-options` annotation wins. */
  serverSideDiff?: boolean;
  /** Dry runs in flight per app. Default 8. */
  serverSideConcurrency?: number;
  /**
   * Default true: each differing resource of the report (`toReport`) carries its unified `diffText`. Sync reports never print it
   * (only `diff` does), so it passes false and skips rendering YAML for every resource it creates.
   */
  diffText?: boolean;
  /**
   * Keep Synced comparisons and server-side dry-run answers for reuse while nothing they read changes
   * (memo.ts): for runs that compare apps more than once (sync: the refresh after the operation, health
   * waits). Default false: a one-shot diff compares each pair once and would only pay the memory.
   */
  reuseComparisons?: boolean;
  /**
   * argocd-cm as read (src/apps): health scripts, ignoreDifferences overrides (after the app's and the
   * extra rules), compare options, sensitive annotations. Absent: Argo CD's defaults.
   */
  settings?: ArgoCdSettings | undefined;
  /** Observer of the run (progress printers): render and compare events. */
  onEvent?: RunEventHandler | undefined;
  /** The app's AppProject and destination cluster (projects.ts); undefined: no project rules apply. */
  projectOf?: ((app: Application) => AppProjectContext | undefined) | undefined;
}

/** How an app's resources are compared (Argo CD controller/state.go CompareAppState). */
interface AppDiffOptions {
  /** The app syncs with ServerSideApply=true: structured-merge diff. */
  structuredMergeDiff: boolean;
  /** compare-options IncludeMutationWebhook=true: server-side diff keeps webhook changes. */
  includeMutationWebhook: boolean;
}

interface Pair {
  target?: Target;
  live?: KubeObject;
  /** Listed with no sync status (Argo CD's CompareAppState): a Skip target, a live hook or ignored hook object, or a copied tracking id. */
  noStatus?: boolean;
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
}

export class StateManager {
  readonly #o: Required<
    Omit<StateManagerOptions, 'ignoreDifferences' | 'settings' | 'onEvent' | 'projectOf'>
  > & {
    ignoreDifferences: readonly IgnoreDifference[];
    onEvent?: RunEventHandler | undefined;
    projectOf?: ((app: Application) => AppProjectContext | undefined) | undefined;
  };
  /** The source, reporting renders to `onEvent` when one is given. */
  readonly #source: SourceService;
  /** From argocd-cm: compiled once per run. */
  /** Loaded on first compare (the Lua VM only when argocd-cm has scripts). */
  #healthOverrides: Promise<HealthOverrides | undefined> | undefined;
  readonly #healthScripts: ReadonlyArray<readonly [string, { script: string; useOpenLibs: boolean }]>;
  readonly #overrideRules: readonly IgnoreDifference[];
  /** argocd-cm `installationID` ('' or absent: none). */
  readonly #installationId: string | undefined;
  readonly #compare: Pick<CompareInput, 'ignoreAggregatedRoles' | 'ignoreResourceStatusField'>;
  /** argocd-cm `resource.sensitive.mask.annotations`: masked in reports like Secret data. */
  readonly #sensitiveAnnotations: readonly string[];
  /** Comparisons kept for reuse while nothing they read changes (memo.ts). */
  readonly #memo = new ComparisonMemo();
  /** Server-side dry-run answers kept while live object and target are unchanged (memo.ts). */
  readonly #dryRunMemo = new DryRunMemo();

  constructor(options: StateManagerOptions) {
    this.#source = options.onEvent ? observeRenders(options.source, options.onEvent) : options.source;
    this.#o = {
      argocdNamespace: DEFAULT_ARGOCD_NAMESPACE,
      trackingMethod: DEFAULT_TRACKING_METHOD,
      instanceLabelKey: INSTANCE_LABEL,
      ignoreDifferences: [],
      fieldManagers: OWN_FIELD_MANAGERS,
      serverSideDiff: false,
      serverSideConcurrency: 8,
      diffText: true,
      reuseComparisons: false,
      ...options,
    };
    const settings = options.settings;
    this.#healthScripts = Object.entries(settings?.overrides ?? {})
      .filter(([, o]) => o.healthLua !== '')
      .map(([key, o]) => [key, { script: o.healthLua, useOpenLibs: o.useOpenLibs }] as const);
    this.#overrideRules = settings ? overrideIgnoreRules(settings) : [];
    this.#installationId = settings?.installationId || undefined;
    const compare = settings?.compare ?? DEFAULT_COMPARE_SETTINGS;
    this.#compare = {
      ignoreAggregatedRoles: compare.ignoreAggregatedRoles,
      ignoreResourceStatusField: compare.ignoreResourceStatusField,
    };
    this.#sensitiveAnnotations = settings?.sensitiveAnnotations ?? [];
  }

  /** The app's refresh as its report (masked): `toReport(await reconcile(app))`. */
  async compare(app: Application, signal?: AbortSignal): Promise<ComparisonResult> {
    return toReport(await this.reconcile(app, signal));
  }

  /** The app's refresh: every resource with its real objects and verdict, and what sync needs besides. */
  async reconcile(app: Application, signal?: AbortSignal): Promise<Reconciliation> {
    const o = this.#o;
    const instance = instanceName(app, o.argocdNamespace);
    this.#healthOverrides ??=
      this.#healthScripts.length > 0 ? HealthOverrides.load(this.#healthScripts) : Promise.resolve(undefined);
    const emit = o.onEvent;
    // Render and connect side by side, and wait for both even when one fails: a render left running after
    // a failed connect would race the retry's git fetch in the same cache ("cannot lock ref").
    const [rendered, cluster, healthOverrides] = await allOrFirstError([
      this.#source.renderApp(app),
      o.clusterOf(app),
      this.#healthOverrides,
    ] as const);
    const cache = await cluster.ready(signal);
    // The cluster's schemas (its CRDs included), read once the cache holds them.
    const schemas = cluster.schemas();
    const destNamespace = app.destination.namespace;
    const { targets, conditions } = await prepareTargets(withManagedNamespace(app, rendered.objects), {
      destNamespace,
      instance,
      trackingMethod: o.trackingMethod,
      instanceLabelKey: o.instanceLabelKey,
      installationId: this.#installationId,
      cluster,
      signal,
    });
    for (const w of rendered.warnings) {
      conditions.push({
        type: /appeared \d+ times/.test(w) ? 'RepeatedResourceWarning' : 'RenderWarning',
        message: w,
      });
    }

    // Live objects: tracked by the app, plus those at the target keys, all through the cache's one read
    // door: from the cache where it holds the kind at the target's version, else one GET at that version.
    const trackedBy = o.trackingMethod === 'label' ? instanceLabelValue(instance) : instance;
    // A cluster Secret limited to some namespaces refuses targets outside them (ClusterState.checkScope).
    cluster.checkScope(targets);
    const live = await cache.managedLive(
      trackedBy,
      targets.flatMap((t) =>
        !t.served
          ? []
          : t.served.servedAtVersion && cluster.cachedVersion(t.key) === t.version
            ? [{ key: t.key }]
            : [{ key: t.key, info: t.served.info }],
      ),
      signal,
    );
    // The project's limits (Argo CD's CompareAppState): live objects it does not permit are left out.
    const projectContext = o.projectOf?.(app);
    if (projectContext) permittedLive(live, projectContext);

    const pairs: Pair[] = targets.map((t) => {
      const id = formatKey(t.key);
      const obj = t.served ? live.get(id) : undefined;
      live.delete(id);
      return {
        target: t,
        ...(obj ? { live: obj } : {}),
        ...t.key,
        version: t.version,
        ...(t.skip ? { noStatus: true } : {}),
      };
    });
    // Leftover live objects: extras (prune candidates), except hooks, ignored hook objects and objects
    // whose tracking id names another object (copied annotations), which are listed with no status.
    for (const obj of live.values()) {
      const version = (obj.apiVersion ?? '').split('/').pop() ?? '';
      const noStatus = isHook(obj) || isIgnored(obj) || !this.#selfReferenced(obj);
      pairs.push({ live: obj, ...keyOf(obj), version, ...(noStatus ? { noStatus } : {}) });
    }

    // Server-side dry runs (pairs with a live object and a served kind).
    const serverSide = appServerSideDiff(app.annotations) ?? o.serverSideDiff;
    const dryRuns = new Map<Pair, DryRunOutcome>();
    if (serverSide) {
      const jobs = pairs.filter((p) => p.target?.served && p.live && !p.noStatus);
      // A pair whose live object and target are unchanged since its last dry run in this process reuses
      // that answer (memo.ts `DryRunMemo`): no request.
      const todo: Pair[] = [];
      for (const p of jobs) {
        const kept = o.reuseComparisons ? this.#dryRunMemo.get(p.live!, p.target!.obj) : undefined;
        if (kept) dryRuns.set(p, kept);
        else todo.push(p);
      }
      const outcomes = await dryRunApply(
        cluster.conn.client,
        todo.map((p) => ({ info: p.target!.served!.info, target: p.target!.obj })),
        o.serverSideConcurrency,
        signal,
      );
      todo.forEach((p, i) => {
        dryRuns.set(p, outcomes[i]!);
        if (o.reuseComparisons) this.#dryRunMemo.set(p.live!, p.target!.obj, outcomes[i]!);
      });
    }

    const rules = [...app.ignoreDifferences, ...o.ignoreDifferences, ...this.#overrideRules];
    // controller/state.go: apps that sync with server-side apply are compared with structured-merge diff.
    const strategy: AppDiffOptions = {
      structuredMergeDiff: app.syncPolicy.syncOptions.includes(SyncOption.ServerSideApply),
      includeMutationWebhook: appIncludesMutationWebhook(app.annotations),
    };
    const health = aggregateHealth(
      pairs.map((p) => ({ ...p, target: p.target?.obj ?? null, live: p.live ?? null })),
      {
        app: { name: app.name, namespace: app.namespace ?? o.argocdNamespace },
        ...(healthOverrides ? { health: { overrides: healthOverrides } } : {}),
      },
    );
    // Argo CD's CompareAppState: a failed health check is a condition, never a failed refresh.
    if (health.error)
      conditions.push({ type: 'ComparisonError', message: `error setting app health: ${health.error}` });
    // Everything the comparison reads besides the pair: the key of reused comparisons (memo.ts).
    const scope = JSON.stringify([
      rules,
      strategy,
      o.trackingMethod,
      o.instanceLabelKey,
      o.fieldManagers,
      this.#compare,
    ]);
    const resources = pairs.map((p, i): ReconciledResource => {
      const r = this.#compareOne(
        p,
        rules,
        dryRuns.get(p),
        conditions,
        instance,
        strategy,
        schemas,
        scope,
        (gk) => cluster.droppedReason(gk),
      );
      const h = health.resources[i];
      if (h) r.health = { status: h.status, ...(h.message ? { message: h.message } : {}) };
      return r;
    });
    const targetOptions = {
      destNamespace,
      instance,
      trackingMethod: o.trackingMethod,
      instanceLabelKey: o.instanceLabelKey,
      installationId: this.#installationId,
    };
    const hooks = await prepareHooks(rendered.objects, { ...targetOptions, cluster, signal });
    const kinds = new Map<string, ResourceInfo | undefined>();
    for (const t of [...targets, ...hooks]) kinds.set(`${t.key.group}/${t.key.kind}`, t.served?.info);
    const liveHooks = new Map<string, KubeObject>();
    for (const p of pairs) {
      if (p.live && !p.target) {
        const served = await cluster.kind({ group: p.group, version: p.version, kind: p.kind }, signal);
        kinds.set(`${p.group}/${p.kind}`, served?.info);
      }
    }
    for (const obj of cache.byApp(trackedBy)) if (isHook(obj)) liveHooks.set(formatKey(keyOf(obj)), obj);
    // Listed-only rows are never applied or pruned.
    const syncPairs = resources.filter((_, i) => !pairs[i]!.noStatus);
    resources.sort(byKey);
    // Kinds the project does not permit: their rows are Unknown, the app's status counts them as compared.
    const notPermitted = projectContext
      ? markNotPermitted(
          resources,
          projectContext.project,
          (gk) => kinds.get(`${gk.group}/${gk.kind}`)?.namespaced ?? false,
        )
      : new Map<ReconciledResource, string>();
    const statusOf = (r: ReconciledResource): string => notPermitted.get(r) ?? r.status;
    if (projectContext?.project.orphanedResources?.warn) {
      const orphans = orphanedResources(cache.all(), {
        namespace: destNamespace,
        managed: new Set(resources.map((r) => `${r.group}/${r.kind}/${r.namespace}/${r.name}`)),
        p: projectContext,
        trackedBy: (obj) =>
          owningApp(obj, {
            method: o.trackingMethod,
            instanceLabelKey: o.instanceLabelKey,
            ...(this.#installationId ? { installationId: this.#installationId } : {}),
          }),
      });
      if (orphans.length > 0)
        conditions.push({
          type: 'OrphanedResourceWarning',
          message: `Application has ${orphans.length} orphaned resources`,
        });
    }

    let sync: AppSyncStatus = 'Synced';
    if (resources.some((r) => statusOf(r) === 'Unknown')) sync = 'Unknown';
    else if (resources.some((r) => statusOf(r) === 'OutOfSync' && !r.ignoreExtraneous)) sync = 'OutOfSync';
    emit?.({ type: 'compare-done', app: app.name, sync, health: health.status, resources: resources.length });
    return {
      revision: rendered.revision,
      destNamespace,
      resources,
      status: {
        sync,
        health: { status: health.status, ...(health.message ? { message: health.message } : {}) },
      },
      conditions,
      reportOptions: { sensitiveAnnotations: this.#sensitiveAnnotations, diffText: o.diffText },
      pairs: syncPairs,
      hooks: hooks.map((h) => h.obj),
      liveHooks,
      kinds,
      stamp: (obj) => withTracking(obj, targetOptions),
      cache,
      client: cluster.conn.client,
      ...(healthOverrides ? { health: { overrides: healthOverrides } } : {}),
      ...(projectContext
        ? {
            project: projectContext.project,
            permission: (obj: KubeObject, namespaced: boolean) =>
              syncPermissionError(
                projectContext.project,
                keyOf(obj),
                namespaced,
                projectContext.cluster,
                projectContext.projectClusters,
              ),
          }
        : {}),
    };
  }

  #compareOne(
    p: Pair,
    rules: readonly IgnoreDifference[],
    dryRun: DryRunOutcome | undefined,
    conditions: AppCondition[],
    instance: string,
    strategy: AppDiffOptions,
    schemas: SchemaLookup,
    scope: string,
    droppedReason: (gk: { group: string; kind: string }) => string | undefined,
  ): ReconciledResource {
    const o = this.#o;
    const base = {
      group: p.group,
      version: p.version,
      kind: p.kind,
      namespace: p.namespace,
      name: p.name,
      ...(p.target ? { target: p.target.obj } : {}),
      ...(p.live ? { live: p.live } : {}),
    };
    if (p.noStatus) {
      const hook = p.live !== undefined && isHook(p.live);
      // Argo CD's RequiresPruning is "no target, live, self-referenced", whatever the object is: a live
      // hook (every live hook: hooks are never targets) gets it, though a sync never prunes hooks.
      const requiresPruning = !p.target && p.live !== undefined && this.#selfReferenced(p.live);
      return {
        ...base,
        status: '',
        difference: 'none',
        requiresPruning,
        ...(hook ? { hook } : {}),
        ...(hook && requiresPruning ? { note: HOOK_PRUNING_NOTE } : {}),
        outOfSync: true,
      };
    }
    const label = `${p.group ? `${p.group}/` : ''}${p.kind} ${p.namespace ? `${p.namespace}/` : ''}${p.name}`;
    const comparisonError = (message: string): ReconciledResource => {
      conditions.push({ type: 'ComparisonError', message: `${label}: ${message}` });
      return {
        ...base,
        status: 'Unknown',
        difference: 'none',
        requiresPruning: false,
        message,
        outOfSync: true,
      };
    };
    if (dryRun && 'error' in dryRun) return comparisonError(dryRun.error);
    // Cheap signals first: a pair compared before, Synced and valid, with the same live resourceVersion,
    // target and options, is not compared again.
    const digest =
      o.reuseComparisons && p.target && p.live && !dryRun
        ? this.#memo.digest(p.target.obj, scope)
        : undefined;
    const kept = digest ? this.#memo.get(p.live!, digest, schemas) : undefined;
    let result: ResourceComparison;
    if (kept) result = kept;
    else
      try {
        result = compareObjects({
          target: p.target?.obj ?? null,
          live: p.live ?? null,
          ...(dryRun && 'predicted' in dryRun ? { predictedLive: dryRun.predicted } : {}),
          ignoreDifferences: rules,
          trackingMethod: o.trackingMethod,
          instanceLabelKey: o.instanceLabelKey,
          fieldManagers: o.fieldManagers,
          ...this.#compare,
          ...strategy,
          schemas,
        });
      } catch (err) {
        if (err instanceof ServerSideDiffError) return comparisonError(err.message);
        throw err;
      }
    const status: ReconciledResource = {
      ...base,
      status: result.status,
      difference: result.difference,
      requiresPruning: !p.target && Boolean(p.live),
      comparison: result,
      outOfSync: result.status !== 'Synced',
      ...(result.note ? { note: result.note } : {}),
    };
    if (p.target && !kept) this.#checkValid(p.target.obj, status, schemas, conditions, label);
    if (digest && !kept && status.status === 'Synced') this.#memo.set(p.live!, digest, schemas, result);
    if (p.target && !p.target.served) {
      status.message = `kind ${p.group ? `${p.group}/` : ''}${p.version}/${p.kind} is not served by the cluster`;
      // A kind the live cache dropped during the run (its CRD deleted) says so.
      const dropped = droppedReason(p);
      if (dropped) status.message += ` (dropped from the live cache: ${dropped})`;
      conditions.push({ type: 'UnknownKind', message: `${label}: ${status.message}` });
    }
    if (p.target && p.live) {
      const owner = owningApp(p.live, {
        method: o.trackingMethod,
        instanceLabelKey: o.instanceLabelKey,
        ...(this.#installationId ? { installationId: this.#installationId } : {}),
      });
      const self = o.trackingMethod === 'label' ? instanceLabelValue(instance) : instance;
      if (owner && owner !== self) {
        status.sharedWith = owner;
        status.message = `live object is tracked by app "${owner}"`;
        conditions.push({
          type: 'SharedResourceWarning',
          message: `${label} is part of applications ${instance} and ${owner}`,
        });
      }
    }
    if (!p.target && p.live) {
      const compareOptions = p.live.metadata?.annotations?.[COMPARE_OPTIONS_ANNOTATION] ?? '';
      if (compareOptions.split(',').some((s) => s.trim() === 'IgnoreExtraneous'))
        status.ignoreExtraneous = true;
    }
    return status;
  }

  /**
   * A target the API server would reject (src/schema `validateObject`: value types, Secret data that is
   * not base64, names, labels; CRD schemas for custom resources) is never Synced: it is OutOfSync, its
   * message names each field as the server would, and a ComparisonError condition says the same (the
   * condition Argo CD reports when its server-side diff's dry run is refused). Sync then fails at its dry
   * run, before anything is written.
   */
  #checkValid(
    target: KubeObject,
    status: ReconciledResource,
    schemas: SchemaLookup,
    conditions: AppCondition[],
    label: string,
  ): void {
    const violations = schemas.validate(target as unknown as JsonMap);
    if (violations.length === 0) return;
    const lines = violations.map(formatViolation);
    const message = lines.length === 1 ? lines[0]! : `[${lines.join(', ')}]`;
    status.status = 'OutOfSync';
    status.outOfSync = true;
    if (status.difference === 'none') status.difference = 'modified';
    status.message = `invalid: ${message}`;
    conditions.push({ type: 'ComparisonError', message: `${label}: ${message}` });
  }

  /** Spec §2.5: a live object whose tracking-id names another key carries a copied annotation. */
  #selfReferenced(obj: KubeObject): boolean {
    if (this.#o.trackingMethod === 'label') return true;
    const raw = obj.metadata?.annotations?.[TRACKING_ID_ANNOTATION];
    const id = raw === undefined ? undefined : parseTrackingId(raw);
    if (!id) return true;
    const k = keyOf(obj);
    return (
      id.group === k.group &&
      id.kind === k.kind &&
      id.name === k.name &&
      (k.namespace === '' || id.namespace === k.namespace)
    );
  }
}

function byKey(a: ReconciledResource, b: ReconciledResource): number {
  for (const f of ['group', 'kind', 'namespace', 'name'] as const) {
    if (a[f] !== b[f]) return a[f] < b[f] ? -1 : 1;
  }
  return 0;
}

/** `Promise.all` that waits for every promise to settle, then rejects with the first failure (in order). */
async function allOrFirstError<T extends readonly unknown[]>(
  promises: T,
): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(promises);
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as {
    -readonly [K in keyof T]: Awaited<T[K]>;
  };
}
