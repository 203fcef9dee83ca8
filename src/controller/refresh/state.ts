// Over 400 lines: one idea, an app's refresh (render, pair, compare, health) and its options; grown by issue 34's ReconcileOptions (rendered, onRendered) beside main's local sync; next cut: the reconciliation's assembly (the return object) into its own file.
/**
 * `StateManager.reconcile(app)`: one app's refresh (Argo CD `controller/state.go CompareAppState`), spec
 * §2-5, as a `Reconciliation` (real objects and values: what sync consumes); `compare(app)` is its report
 * (`toReport`, report.ts: masked, for printers).
 *
 * 1. Render the desired state (src/source) while the cluster's shared live cache syncs (cluster.ts).
 * 2. Normalize targets (targets.ts): hooks set aside, namespaces defaulted via discovery, tracking stamped,
 *    the managed namespace added.
 * 3. Live (live.ts `selectPairs`) = the cache's objects tracked by this app (no ownerReferences) plus the
 *    live object at each target key, even untracked (`LiveStateCache.managedLive`, the one read door: a
 *    target whose apiVersion is not the one cached is read there by one GET at its own version, reads in
 *    parallel). A kind the cluster does not serve has no live object.
 * 4. Pair by key (live.ts); leftover live objects are extra (prune candidates) unless they are hooks, ignored
 *    hook objects, or their tracking-id names another key (not self-referenced: copied annotations): those,
 *    and `hook: Skip` targets, are listed with status '' (live hooks flagged `hook`), not compared, never
 *    applied or pruned, as Argo CD's CompareAppState lists them; their health counts as Argo CD counts it (a
 *    copied-id object's does, a hook's and a Skip target's do not). `requiresPruning` is Argo CD's (no
 *    target, live, self-referenced): a live hook has it too, with a `note` (argo-cd#16895).
 * 5. Compare each pair (compare.ts `compareOne`: src/diff; the app's ignoreDifferences then the extra rules,
 *    one array per app), against a server-side dry run when server-side diff is on (compare.ts `dryRunPairs`,
 *    server-side.ts).
 * 6. Health per resource and for the app (src/health `aggregateHealth`).
 * 7. The app's AppProject (`projectOf`, projects.ts, live.ts `projectStatus`; docs/projects.md): live objects
 *    it does not permit are dropped before pairing (step 3), rows of kinds it does not permit become Unknown
 *    (the app's status counts them as compared), orphaned resources are warned about when the project asks,
 *    and the reconciliation carries the project and its `permission` check for sync's validation step.
 * 8. The summary (`status.summary`): from the app's resource tree in the live cache (tree.ts: the live
 *    objects of step 4 and their descendants by ownerReferences), worked out when first read; the
 *    reconciliation's `summarize` works it out again later (the loop's level-0 refreshes).
 * Reported, never fatal: kinds the cluster does not serve (UnknownKind; the resource is OutOfSync and
 * Missing; a kind dropped during the run, its CRD deleted, says so: cluster.ts), resources whose live object
 * is tracked by another app (SharedResourceWarning; `sharedWith`, the diff shows the tracking change; the
 * resource is never treated as ours), excluded kinds, duplicates, failed dry runs (the resource and the app
 * become Unknown, ComparisonError).
 * A source that cannot be rendered (src/source SourceError) or an ignoreDifferences rule that does not
 * compile is Argo CD's `failedToLoadObjs`: the refresh goes on with no targets (a render failure) or no
 * comparison (every row `notCompared`, Unknown), the ComparisonError first among the conditions, sync
 * Unknown, nothing for sync to apply or prune, and `failure` set (app-error.ts `loadFailure`,
 * `normalizerFailure`, `unrenderedApp`). Throws (the app's error) when the cluster is unreachable or on any
 * other failure. App sync: Unknown if any resource is Unknown, else OutOfSync if any resource is OutOfSync
 * (extra resources marked IgnoreExtraneous excepted), else Synced.
 */
import {
  DEFAULT_ARGOCD_NAMESPACE,
  DEFAULT_TRACKING_METHOD,
  INSTANCE_LABEL,
  SyncOption,
} from '../../common/index.js';
import { OWN_FIELD_MANAGERS, UsageError } from '../../common/index.js';
import { deleteHooksOf } from '../../apps/index.js';
import type { Application, ArgoCdSettings } from '../../apps/index.js';
import { syncWave } from '../../sync/index.js';
import {
  DEFAULT_COMPARE_SETTINGS,
  instanceName,
  overrideIgnoreRules,
  syncPermissionError,
} from '../../apps/index.js';
import { keyOf } from '../../cluster/index.js';
import type { KubeObject, TrackingMethod } from '../../cluster/index.js';
import { annotationIgnores, compileIgnoreDifferences, respectIgnoredFields } from '../../diff/index.js';
import type { CompiledIgnore } from '../../diff/index.js';
import type { IgnoreDifference } from '../../diff/index.js';
import { aggregateHealth, HealthOverrides } from '../../health/index.js';
import { observeRenders, SourceError } from '../../source/index.js';
import type { RenderedApp, SourceService } from '../../source/index.js';
import { localRender } from './local.js';
import type { LocalManifests } from './local.js';
import type { ClusterState } from './cluster.js';
import type { ClusterLease } from './destinations.js';
import { compareOne, dryRunPairs, notCompared } from './compare.js';
import { loadFailure, normalizerFailure, unrenderedApp } from './app-error.js';
import type { AppDiffOptions, CompareContext, Pair } from './compare.js';
import { byKey, kindsOf, projectStatus, selectPairs } from './live.js';
import {
  appIncludesMutationWebhook,
  appServerSideDiff,
  DEFAULT_SERVER_SIDE_DIFF_CONCURRENCY,
  DEFAULT_SERVER_SIDE_DIFF_MAX_BATCH_KB,
} from './server-side.js';
import type { DryRunOutcome } from './server-side.js';
import {
  instanceLabelValue,
  prepareHooks,
  prepareTargets,
  withManagedNamespace,
  withTracking,
} from './targets.js';
import { toReport } from './report.js';
import { treeSummarizer } from './tree.js';
import { DiskComparisonMemo } from './disk-memo.js';
import { ComparisonMemo, DryRunMemo } from './memo.js';
import type { AppProjectContext } from './projects.js';
import type {
  AppSyncStatus,
  ComparisonResult,
  ReconciledResource,
  Reconciliation,
  RunEventHandler,
} from './types.js';

export { HOOK_PRUNING_NOTE } from './compare.js';

export interface StateManagerOptions {
  source: SourceService;
  /**
   * The cluster an app's destination resolves to (shared by the apps of that cluster), or a lease on it
   * held until the reconciliation's `release()` (the loop's pool, where a rescope retires clusters:
   * destinations.ts `ClusterPool.lease`).
   */
  clusterOf: (app: Application) => Promise<ClusterState> | ClusterLease;
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
  /**
   * Server-side diff's batches of an app at once (`--server-side-diff-concurrency`); default -1: all, as
   * Argo CD (server-side.ts). A batch's dry runs run one after another.
   */
  serverSideConcurrency?: number;
  /** Server-side diff's batch budget in KB of live + target JSON (`--server-side-diff-max-batch-kb`). Default 250. */
  serverSideMaxBatchKB?: number;
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
   * Keep Synced comparisons on disk in this folder between runs (disk-memo.ts: a second CI run with nothing
   * new compares nothing); written by `saveComparisonMemo`. Default: none.
   */
  comparisonMemoDir?: string | undefined;
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

/** Options of one refresh. */
export interface ReconcileOptions {
  /** A local sync's manifests (operation.sync.manifests), applied as given instead of a render (local.ts). */
  local?: LocalManifests | undefined;
  /**
   * Compare against this render (the app's desired state as an earlier refresh rendered it) instead of
   * rendering again: the refresh after an operation that a stopped run still owes (run.ts), when Git may
   * no longer be asked.
   */
  rendered?: RenderedApp | undefined;
  /** Told the render this refresh compares against. */
  onRendered?: ((rendered: RenderedApp) => void) | undefined;
}

export class StateManager {
  readonly #o: Required<
    Omit<
      StateManagerOptions,
      'ignoreDifferences' | 'settings' | 'onEvent' | 'projectOf' | 'comparisonMemoDir'
    >
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
  /** What every comparison shares (compare.ts): options, argocd-cm's installation id and compare options. */
  readonly #ctx: CompareContext;
  /** argocd-cm `resource.sensitive.mask.annotations`: masked in reports like Secret data. */
  readonly #sensitiveAnnotations: readonly string[];
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
      serverSideConcurrency: DEFAULT_SERVER_SIDE_DIFF_CONCURRENCY,
      serverSideMaxBatchKB: DEFAULT_SERVER_SIDE_DIFF_MAX_BATCH_KB,
      diffText: true,
      reuseComparisons: false,
      ...options,
    };
    const settings = options.settings;
    this.#healthScripts = Object.entries(settings?.overrides ?? {})
      .filter(([, o]) => o.healthLua !== '')
      .map(([key, o]) => [key, { script: o.healthLua, useOpenLibs: o.useOpenLibs }] as const);
    this.#overrideRules = settings ? overrideIgnoreRules(settings) : [];
    const compare = settings?.compare ?? DEFAULT_COMPARE_SETTINGS;
    this.#ctx = {
      trackingMethod: this.#o.trackingMethod,
      instanceLabelKey: this.#o.instanceLabelKey,
      fieldManagers: this.#o.fieldManagers,
      reuseComparisons: this.#o.reuseComparisons,
      installationId: settings?.installationId || undefined,
      compare: {
        ignoreAggregatedRoles: compare.ignoreAggregatedRoles,
        ignoreResourceStatusField: compare.ignoreResourceStatusField,
      },
      // Comparisons kept for reuse while nothing they read changes (memo.ts), and between runs (disk-memo.ts).
      memo: new ComparisonMemo(),
      diskMemo: options.comparisonMemoDir ? new DiskComparisonMemo(options.comparisonMemoDir) : undefined,
    };
    this.#sensitiveAnnotations = settings?.sensitiveAnnotations ?? [];
  }

  /** Pairs the comparison memo on disk answered, and those it did not, in this run (undefined: no memo). */
  comparisonMemoStats(): { hits: number; misses: number } | undefined {
    const m = this.#ctx.diskMemo;
    return m ? { hits: m.hits, misses: m.misses } : undefined;
  }

  /** Writes the comparison memo on disk, when there is one (see `comparisonMemoDir`). */
  saveComparisonMemo(): void {
    this.#ctx.diskMemo?.save();
  }

  /** The app's refresh as its report (masked): `toReport(await reconcile(app))`. */
  async compare(
    app: Application,
    signal?: AbortSignal,
    options?: ReconcileOptions,
  ): Promise<ComparisonResult> {
    const reconciliation = await this.reconcile(app, signal, options);
    try {
      return toReport(reconciliation);
    } finally {
      reconciliation.release?.();
    }
  }

  /**
   * The app's refresh: every resource with its real objects and verdict, and what sync needs besides.
   * With a lease on the cluster (`clusterOf`), the reconciliation holds it until its `release()`.
   */
  async reconcile(
    app: Application,
    signal?: AbortSignal,
    options?: ReconcileOptions,
  ): Promise<Reconciliation> {
    const got = this.#o.clusterOf(app);
    const lease = 'release' in got ? got : undefined;
    try {
      const r = await this.#reconcile(app, 'release' in got ? got.cluster : got, signal, options);
      if (lease) r.release = lease.release;
      return r;
    } catch (err) {
      lease?.release();
      throw err;
    }
  }

  async #reconcile(
    app: Application,
    clusterOf: Promise<ClusterState>,
    signal?: AbortSignal,
    options?: ReconcileOptions,
  ): Promise<Reconciliation> {
    const local = options?.local;
    const o = this.#o;
    const instance = instanceName(app, o.argocdNamespace);
    this.#healthOverrides ??=
      this.#healthScripts.length > 0 ? HealthOverrides.load(this.#healthScripts) : Promise.resolve(undefined);
    const emit = o.onEvent;
    // Render and connect side by side, and wait for both even when one fails: a render left running after
    // a failed connect would race the retry's git fetch in the same cache ("cannot lock ref").
    // A source that cannot be rendered is compared with no targets (Argo CD's failedToLoadObjs).
    let failure: Reconciliation['failure'];
    const render = (
      options?.rendered || local
        ? Promise.resolve(options?.rendered ?? localRender(app, local!))
        : this.#source.renderApp(app)
    ).catch((err: unknown) => {
      if (!(err instanceof SourceError)) throw err;
      failure = { condition: loadFailure(app, err), error: err };
      return unrenderedApp(app);
    });
    const [rendered, cluster, healthOverrides] = await allOrFirstError([
      render,
      clusterOf,
      this.#healthOverrides,
    ] as const);
    if (!failure) options?.onRendered?.(rendered);
    const cache = await cluster.ready(signal);
    // The cluster's schemas (its CRDs included), read once the cache holds them.
    const schemas = cluster.schemas();
    const destNamespace = app.destination.namespace;
    // The tracking value this app's live objects carry (the label value, or the instance name).
    const trackedBy = o.trackingMethod === 'label' ? instanceLabelValue(instance) : instance;
    const { targets, conditions } = await prepareTargets(
      withManagedNamespace(app, rendered.objects, (ns) =>
        cache.byApp(trackedBy).some((obj) => obj.kind === 'Namespace' && obj.metadata?.name === ns),
      ),
      {
        destNamespace,
        instance,
        trackingMethod: o.trackingMethod,
        instanceLabelKey: o.instanceLabelKey,
        installationId: this.#ctx.installationId,
        cluster,
        signal,
      },
    );
    if (failure) conditions.unshift(failure.condition);
    for (const w of rendered.warnings) {
      conditions.push({
        type: /appeared \d+ times/.test(w) ? 'RepeatedResourceWarning' : 'RenderWarning',
        // The condition carries Argo CD's words alone; the `app "<name>": ` prefix is for the terminal.
        message: w.replace(/^app "[^"]*": /, ''),
      });
    }

    // Live objects: tracked by the app, plus those at the target keys, all through the cache's one read
    // door (live.ts), less those the project does not permit, paired with the targets by key.
    const projectContext = o.projectOf?.(app);
    const pairs: Pair[] = await selectPairs({
      cluster,
      cache,
      targets,
      trackedBy,
      projectContext,
      trackingMethod: o.trackingMethod,
      signal,
    });

    // Server-side dry runs (pairs with a live object and a served kind).
    const serverSide = appServerSideDiff(app.annotations) ?? o.serverSideDiff;
    const dryRuns = serverSide
      ? await dryRunPairs(pairs, {
          client: cluster.conn.client,
          limits: { concurrency: o.serverSideConcurrency, maxBatchKB: o.serverSideMaxBatchKB },
          reuseComparisons: o.reuseComparisons,
          memo: this.#dryRunMemo,
          schemas,
          signal,
        })
      : new Map<Pair, DryRunOutcome>();

    // The app's rules, the run's, argocd-cm's, then each target's own annotation (Argo CD 3.6 resolvedIgnores).
    const rules = [
      ...app.ignoreDifferences,
      ...o.ignoreDifferences,
      ...this.#overrideRules,
      ...annotationIgnores(targets.map((t) => t.obj)),
    ];
    // A rule that does not compile: nothing is compared (Argo CD's "failed to create diff normalizer").
    let ignores: CompiledIgnore[] = [];
    if (!failure) {
      try {
        ignores = compileIgnoreDifferences(rules);
      } catch (err) {
        if (!(err instanceof UsageError)) throw err;
        failure = { condition: normalizerFailure(err), error: err };
        conditions.unshift(failure.condition);
      }
    }
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
      this.#ctx.compare,
    ]);
    const resources = pairs.map((p, i): ReconciledResource => {
      const r = failure
        ? notCompared(p, o.trackingMethod)
        : compareOne(
            this.#ctx,
            p,
            rules,
            dryRuns.get(p),
            conditions,
            instance,
            strategy,
            schemas,
            scope,
            (gk) => cluster.droppedReason(gk),
            `${app.namespace ?? o.argocdNamespace}/${app.name}`,
            () => cluster.schemaDigest(),
          );
      const h = health.resources[i];
      if (h) r.health = { status: h.status, ...(h.message ? { message: h.message } : {}) };
      // Argo CD's ResourceStatus.syncWave: the target's wave, else (a live hook) its rendered hook's.
      const waveOf =
        p.target?.obj ??
        (r.hook && r.live
          ? rendered.objects.find(
              (o) =>
                o.kind === r.kind &&
                o.metadata?.name === r.name &&
                (o.metadata?.namespace || destNamespace) === r.namespace,
            )
          : undefined);
      const wave = waveOf ? syncWave(waveOf) : 0;
      if (wave) r.syncWave = wave;
      return r;
    });
    const targetOptions = {
      destNamespace,
      instance,
      trackingMethod: o.trackingMethod,
      instanceLabelKey: o.instanceLabelKey,
      installationId: this.#ctx.installationId,
    };
    const hooks = await prepareHooks(rendered.objects, { ...targetOptions, cluster, signal });
    const { kinds, liveHooks, unserved } = await kindsOf({
      cluster,
      cache,
      targets: [...targets, ...hooks],
      pairs,
      trackedBy,
      signal,
    });
    // Listed-only rows are never applied or pruned.
    const syncPairs = resources.filter((_, i) => !pairs[i]!.noStatus);
    resources.sort(byKey);
    // The project's verdict: rows of kinds it does not permit are Unknown, orphaned resources warned of.
    const statusOf = projectStatus(resources, conditions, {
      projectContext,
      kinds,
      cache,
      destNamespace,
      trackingMethod: o.trackingMethod,
      instanceLabelKey: o.instanceLabelKey,
      installationId: this.#ctx.installationId,
    });

    let sync: AppSyncStatus = 'Synced';
    if (failure || resources.some((r) => statusOf(r) === 'Unknown')) sync = 'Unknown';
    else if (resources.some((r) => statusOf(r) === 'OutOfSync' && !r.ignoreExtraneous)) sync = 'OutOfSync';
    emit?.({ type: 'compare-done', app: app.name, sync, health: health.status, resources: resources.length });
    // The summary, from the resource tree (tree.ts): worked out only when asked (the loop asks after each
    // refresh and on level-0 refreshes; a one-shot diff or sync never does). A plain function, not a getter
    // that caches: the returned object keeps no closure over this scope (measured: a getter here kept
    // 15 MB more alive in a 10,000-object diff).
    const summarize = treeSummarizer(
      cache,
      resources.flatMap((r) => (r.live ? [keyOf(r.live)] : [])),
      app.annotations,
      projectContext,
      // Plain keys: the summarizer keeps no row (no target object) alive.
      resources.flatMap((r) =>
        r.live ? [] : [{ group: r.group, kind: r.kind, namespace: r.namespace, name: r.name }],
      ),
    );
    return {
      revision: rendered.revision,
      sources: rendered.sources.map((s) => ({ revision: s.revision, type: s.type })),
      summarize,
      destNamespace,
      resources,
      status: {
        sync,
        health: { status: health.status, ...(health.message ? { message: health.message } : {}) },
      },
      conditions,
      ...(failure ? { failure } : {}),
      reportOptions: { sensitiveAnnotations: this.#sensitiveAnnotations, diffText: o.diffText },
      // Nothing to apply or prune when the desired state was not loaded or compared.
      pairs: failure ? [] : syncPairs,
      hooks: failure ? [] : hooks.map((h) => h.obj),
      deleteHooks: deleteHooksOf(rendered.objects),
      liveHooks,
      kinds,
      unserved,
      respectIgnored: (target, live) => respectIgnoredFields(target, live, ignores),
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
