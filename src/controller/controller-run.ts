/**
 * `runController`: `kubectl gitops controller`, Argo CD's application controller in one process
 * (docs/controller.md): the continuous `Loop` fed by the live Argo CD namespace, its results written back
 * into the Applications.
 *
 * 1. Connects to the control-plane cluster (`--kubeconfig`/`--context`) and lists, then watches, the
 *    namespace's Applications, AppProjects, argocd-cm and Argo CD Secrets (src/apps `ArgoNamespaceWatch`).
 * 2. Runs the loop over the Applications listed (`autoSync: policy`: each app's `spec.syncPolicy.automated`)
 *    with the AppProjects listed; `loopOptions` carries what the command read (settings, cluster Secrets,
 *    source service, processors, resync, self-heal).
 * 3. Watch events, as Argo CD's informer handlers: an Application added or changed is upserted (the loop
 *    refreshes it when its spec changed); its `operation` is requested once (an invalid one is answered
 *    with operationState Error and cleared, as SyncAppState does); an `argocd.argoproj.io/refresh`
 *    annotation asks a level-3 refresh and is removed with the next status write; a deleted Application
 *    is forgotten; one being deleted stops being reconciled and, with the resources finalizer, has its
 *    resources deleted step by step (`AppFinalizer`, retried every `finalizerRetryMs`) before the finalizer
 *    is removed. An AppProject added, changed or deleted gives the loop the new project set (every app is
 *    held to it again and refreshed). argocd-cm and Secret changes are reported: they apply on restart.
 * 4. Status (`StatusWriter`): on each loop event about an app, one merge patch of what changed; when a
 *    requested operation ends, that patch also clears `operation`.
 * 5. Shutdown (the signal): the loop stops starting operations and lets running ones end
 *    (`shutdownTimeoutMs`), status writes in flight finish, the watch stops. Resolves then.
 */
import { hostname } from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  ArgoNamespaceWatch,
  cascades,
  isDeleting,
  kubeTime,
  parseApplication,
  parseOperation,
  parseProject,
  ProjectSet,
  APPLICATION_RESOURCE,
} from '../apps/index.js';
import type { Application, NamespaceEvent } from '../apps/index.js';
import { connect as defaultConnect, loadKubeConfig, isNotFound } from '../cluster/index.js';
import type {
  ClientOptions,
  ClusterAccess,
  ClusterConnection,
  ConnectOptions,
  KubeObject,
  TrackingOptions,
} from '../cluster/index.js';
import { DEFAULT_TRACKING_METHOD, GitopsError, oneLine } from '../common/index.js';
import { checkStart, clustersFromSecrets, shardOwnership, ShardClaimer } from '../sharding/index.js';
import type { Algorithm, ReplicasSource, ShardChange, ShardOwnership } from '../sharding/index.js';
import { runOperation } from '../sync/index.js';
import { AppFinalizer } from './app-finalizer.js';
import { Loop } from './loop.js';
import { syncRequestOf } from './loop-state.js';
import type { LoopOptions } from './loop.js';
import type { LoopEvent, OperationRequest, ReconcileLoop } from './loop-types.js';
import { REFRESH_ANNOTATION, StatusWriter } from './status-writer.js';

export interface ControllerRunOptions {
  argocdNamespace: string;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  client?: ClientOptions | undefined;
  /** What the loop takes beyond the apps, projects and policy (settings, source, processors...). */
  loopOptions: Omit<LoopOptions, 'apps' | 'projects' | 'autoSync' | 'onEvent' | 'operation' | 'signal'> &
    Partial<Pick<LoopOptions, 'operation'>>;
  /** Cluster Secrets to use; default: those of the namespace (the watch's, read again on every reload). */
  clusterSecrets?: readonly ClusterAccess[] | undefined;
  /**
   * Reads argocd-cm and the Argo CD Secrets again (the command's readers) when they change: the loop is
   * then stopped (running operations get `shutdownTimeoutMs`) and started again with the new settings,
   * cluster Secrets and source service (`close` ends the previous one). Unset: changes are only reported.
   */
  reload?: (() => Promise<ControllerBase>) | undefined;
  /** Ends what `loopOptions` holds (the first source service); called when it is replaced or at the end. */
  close?: (() => Promise<void>) | undefined;
  /** Changes of argocd-cm and the Secrets are gathered this long before a reload. Default 2000. */
  reloadDelayMs?: number | undefined;
  /**
   * Which apps this controller owns (docs/sharding.md): static (`--shard I --replicas N`), dynamic
   * (`--dynamic-cluster-distribution`: a shard claimed in argocd-app-controller-shard-cm, heartbeats), or
   * unset: every app. In every mode the start is refused where another application controller does the
   * work (src/sharding start-guard.ts), unless `forceTakeover`.
   */
  sharding?: ControllerSharding | undefined;
  /** Skip the start-up refusal. */
  forceTakeover?: boolean | undefined;
  /** ControllerName (dynamic mode; the start-up refusal). Default: the hostname. */
  controllerName?: string | undefined;
  /** Each loop once built (metrics read its states; a reload builds a new one). */
  onLoop?: ((loop: ReconcileLoop) => void) | undefined;
  /** The dynamic shard claimer, once started (readiness probes, metrics). */
  onClaimer?: ((claimer: ShardClaimer) => void) | undefined;
  /** Argo CD's `--persist-resource-health`. */
  persistResourceHealth?: boolean | undefined;
  signal?: AbortSignal | undefined;
  /** Time running operations get at shutdown. */
  shutdownTimeoutMs?: number | undefined;
  /** Delay between the steps of a cascading deletion. Default 5000 (Argo CD requeues deleting apps). */
  finalizerRetryMs?: number | undefined;
  onEvent?: ((event: LoopEvent | ControllerEvent) => void) | undefined;
  onWarning?: ((message: string) => void) | undefined;
  /** Injected I/O (tests). */
  connect?: ((options: ConnectOptions) => Promise<ClusterConnection>) | undefined;
  now?: () => number;
  watchTimeoutSeconds?: number | undefined;
}

export type ControllerSharding =
  | { dynamic: false; shard: number; replicas: number; algorithm: Algorithm }
  | {
      dynamic: true;
      /** `--shard`: -1 claims any. */
      requestedShard: number;
      replicas: ReplicasSource;
      heartbeatSeconds?: number | undefined;
      algorithm: Algorithm;
    };

/** What a (re)load of argocd-cm and the Secrets gives the loop. */
export interface ControllerBase {
  loopOptions: ControllerRunOptions['loopOptions'];
  clusterSecrets?: readonly ClusterAccess[] | undefined;
  /** Ends what the base holds (its source service). */
  close?: (() => Promise<void>) | undefined;
}

/** What the controller itself adds to the loop's events. */
export type ControllerEvent =
  | { type: 'controller-ready'; apps: number; projects: number }
  | { type: 'controller-reloading'; reason: string }
  | { type: 'shard'; shard: number; replicas: number; owned: string[] }
  | { type: 'status-written'; app: string; key: string; fields: string[] }
  | { type: 'app-deleting'; app: string; key: string; step: string; detail: string };

export interface ControllerSummary {
  patches: number;
}

const keyOfManifest = (obj: KubeObject, ns: string): string =>
  `${obj.metadata?.namespace ?? ns}/${obj.metadata?.name ?? ''}`;

export async function runController(o: ControllerRunOptions): Promise<ControllerSummary> {
  const ns = o.argocdNamespace;
  const warn = (m: string): void => o.onWarning?.(m);
  const emit = (e: LoopEvent | ControllerEvent): void => o.onEvent?.(e);
  const now = o.now ?? Date.now;
  const connectTo = o.connect ?? defaultConnect;
  const kubeConfig: KubeConfig = await loadKubeConfig({ kubeconfig: o.kubeconfig, context: o.context });
  const discovery = o.loopOptions.discovery;
  const conn = await connectTo({
    kubeConfig,
    ...(o.client ? { client: o.client } : {}),
    ...(discovery ? { discovery } : {}),
  });
  const client = conn.client;

  let loop: Loop | undefined;
  let ready = false;
  /** Requests we asked from an Application's `operation`, by key (cleared when the operation ends). */
  const requested = new Map<string, { request: OperationRequest; raw: string }>();
  /** The `operation` we answered, until the Application is seen without it. */
  const handled = new Map<string, string>();
  const deleting = new Map<string, ReturnType<typeof setTimeout> | 'running'>();
  /** What the loop was last given of each app (spec, labels, annotations). */
  const upserted = new Map<string, string>();
  const stopped = { value: false };

  let base: ControllerBase = { loopOptions: o.loopOptions, clusterSecrets: o.clusterSecrets, close: o.close };
  let reloadAgain = false;
  let reloadReason: string | undefined;
  let reloadTimer: ReturnType<typeof setTimeout> | undefined;
  const trackingOf = (lo: ControllerRunOptions['loopOptions']): TrackingOptions => ({
    method: lo.trackingMethod ?? DEFAULT_TRACKING_METHOD,
    ...(lo.instanceLabelKey ? { instanceLabelKey: lo.instanceLabelKey } : {}),
    ...(lo.settings?.installationId ? { installationId: lo.settings.installationId } : {}),
  });
  const finalizer = new AppFinalizer({
    client,
    argocdNamespace: ns,
    kubeConfig,
    clusterSecrets: o.clusterSecrets,
    tracking: trackingOf(o.loopOptions),
    connect: (options) =>
      connectTo({
        ...options,
        ...(o.client ? { client: o.client } : {}),
        ...(discovery ? { discovery } : {}),
      }),
    onWarning: warn,
    onStep: (key, step) =>
      emit({
        type: 'app-deleting',
        app: key.slice(key.indexOf('/') + 1),
        key,
        step: step.kind,
        detail:
          step.kind === 'delete'
            ? step.objects.map((x) => `${x.kind}/${x.metadata?.name}`).join(', ')
            : step.kind === 'waiting'
              ? step.reason
              : '',
      }),
  });

  const watch = new ArgoNamespaceWatch({
    client,
    namespace: ns,
    context: conn.context,
    onWarning: warn,
    watchTimeoutSeconds: o.watchTimeoutSeconds,
    onEvent: (e) => {
      // argocd-cm and Secrets: heard while a reload runs too (not in the first list: loop is unset then).
      if (ready || ((e.type === 'settings' || e.type === 'secret') && loop)) onNamespaceEvent(e);
    },
  });
  const writer = new StatusWriter({
    client,
    argocdNamespace: ns,
    current: (namespace, name) => watch.application(namespace, name),
    state: (key) => loop?.state(key),
    persistResourceHealth: o.persistResourceHealth,
    now,
    onWarning: warn,
    onPatch: (key, patch) =>
      emit({
        type: 'status-written',
        app: key.slice(key.indexOf('/') + 1),
        key,
        fields: [
          ...Object.keys((patch['status'] as Record<string, unknown> | undefined) ?? {}).map(
            (f) => `status.${f}`,
          ),
          ...Object.keys(patch).filter((f) => f !== 'status'),
        ],
      }),
  });

  const parseApp = (obj: KubeObject): Application | undefined => {
    const manifest: KubeObject = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', ...obj };
    try {
      return parseApplication(manifest, `cluster ${keyOfManifest(obj, ns)}`);
    } catch (err) {
      warn(oneLine(err));
      return undefined;
    }
  };
  const projectSet = (): ProjectSet => {
    const set = new ProjectSet();
    for (const p of watch.projects()) {
      try {
        set.add(
          parseProject(
            { apiVersion: 'argoproj.io/v1alpha1', kind: 'AppProject', ...p },
            `cluster ${keyOfManifest(p, ns)}`,
          ),
        );
      } catch (err) {
        warn(oneLine(err));
      }
    }
    return set;
  };

  /** An operation that cannot run: answered as SyncAppState answers an invalid request, and cleared. */
  const refuseOperation = async (key: string, obj: KubeObject, message: string): Promise<void> => {
    const t = kubeTime(now());
    const patch = {
      status: {
        operationState: { operation: obj['operation'], phase: 'Error', message, startedAt: t, finishedAt: t },
      },
      operation: null,
    };
    try {
      await client.patch(
        APPLICATION_RESOURCE,
        obj.metadata?.namespace ?? ns,
        obj.metadata?.name ?? '',
        patch,
        'merge',
        {
          subject: `application ${key}`,
        },
      );
    } catch (err) {
      if (!isNotFound(err)) warn(`app ${key}: failed to write status: ${oneLine(err)}`);
    }
  };

  const onApp = (obj: KubeObject, old?: KubeObject): void => {
    const key = keyOfManifest(obj, ns);
    if (isDeleting(obj)) {
      upserted.delete(key);
      loop?.removeApp(key);
      requested.delete(key);
      // The shard that owns the app finalizes it (canProcessApp).
      const dest = (obj['spec'] as { destination?: { server?: string; name?: string } } | undefined)
        ?.destination;
      if (cascades(obj) && owns({ name: obj.metadata?.name ?? '', destination: dest ?? {} }))
        scheduleDeletion(key, 0);
      return;
    }
    const app = parseApp(obj);
    if (!app) {
      upserted.delete(key);
      loop?.removeApp(key);
      return;
    }
    // Our own status writes come back as MODIFIED events: only a change of what the loop reads (spec,
    // labels, annotations) replaces the app in the loop.
    const seen = JSON.stringify([obj['spec'], obj.metadata?.labels, obj.metadata?.annotations]);
    if (upserted.get(key) !== seen) {
      upserted.set(key, seen);
      loop?.upsertApp(app);
    }
    const refresh = obj.metadata?.annotations?.[REFRESH_ANNOTATION];
    if (refresh !== undefined && refresh !== old?.metadata?.annotations?.[REFRESH_ANNOTATION]) {
      writer.removeRefreshAnnotation(key);
      loop?.requestRefresh(key, 3, 'requested');
    }
    const op = obj['operation'];
    if (op === undefined || op === null) {
      handled.delete(key);
      return;
    }
    const raw = JSON.stringify(op);
    if (handled.get(key) === raw || requested.get(key)?.raw === raw) return;
    let request: OperationRequest | undefined;
    try {
      request = parseOperation(app);
    } catch (err) {
      handled.set(key, raw);
      warn(oneLine(err));
      void refuseOperation(
        key,
        obj,
        err instanceof GitopsError ? err.message.replace(/^[^:]*: /, '') : oneLine(err),
      );
      return;
    }
    if (!request) return;
    requested.set(key, { request, raw });
    loop?.requestOperation(key, request);
  };

  const scheduleDeletion = (key: string, afterMs: number): void => {
    if (stopped.value || deleting.has(key)) return;
    const timer = setTimeout(() => {
      deleting.set(key, 'running');
      void runDeletionStep(key).finally(() => {
        if (deleting.get(key) === 'running') deleting.delete(key);
      });
    }, afterMs);
    timer.unref?.();
    deleting.set(key, timer);
  };
  const runDeletionStep = async (key: string): Promise<void> => {
    const slash = key.indexOf('/');
    const obj = watch.application(key.slice(0, slash), key.slice(slash + 1));
    if (!obj || !isDeleting(obj) || !cascades(obj)) return;
    try {
      const step = await finalizer.step(obj, o.signal);
      if (step && step.kind !== 'done' && step.kind !== 'not-cascading') {
        deleting.delete(key);
        scheduleDeletion(key, o.finalizerRetryMs ?? 5_000);
      }
    } catch (err) {
      warn(`app ${key}: failed to delete resources: ${oneLine(err)}`);
      deleting.delete(key);
      scheduleDeletion(key, o.finalizerRetryMs ?? 5_000);
    }
  };

  const onNamespaceEvent = (e: NamespaceEvent): void => {
    switch (e.type) {
      case 'app':
        if (!e.old && o.sharding?.algorithm === 'consistent-hashing') reshard(false);
        onApp(e.object, e.old);
        break;
      case 'app-deleted': {
        const key = keyOfManifest(e.object, ns);
        upserted.delete(key);
        loop?.removeApp(key);
        writer.forget(key);
        if (o.sharding?.algorithm === 'consistent-hashing') reshard(false);
        requested.delete(key);
        handled.delete(key);
        break;
      }
      case 'project':
        void loop?.setProjects(projectSet()).catch((err: unknown) => warn(`AppProjects: ${oneLine(err)}`));
        break;
      case 'settings':
      case 'secret': {
        const what = `${e.type === 'settings' ? 'configmap' : `${e.secretType} secret`} ${keyOfManifest(e.object, ns)} ${e.change === 'DELETED' ? 'deleted' : e.change === 'ADDED' ? 'added' : 'changed'}`;
        if (!o.reload) {
          warn(`${what}: restart the controller to apply it`);
          break;
        }
        // Gathered, then the loop restarts with what the readers find then (Argo CD's settings manager
        // applies them live; this loop takes its settings at start).
        reloadReason ??= what;
        clearTimeout(reloadTimer);
        reloadTimer = setTimeout(() => {
          reloadTimer = undefined;
          if (stopped.value || !loop) return;
          if (!ready) {
            reloadAgain = true; // a reload is under way: one more after it
            return;
          }
          emit({ type: 'controller-reloading', reason: reloadReason ?? what });
          restart = true;
          void loop.shutdown(o.shutdownTimeoutMs ?? 0);
        }, o.reloadDelayMs ?? 2_000);
        reloadTimer.unref?.();
        break;
      }
    }
  };

  const onLoopEvent = (e: LoopEvent): void => {
    if (e.type === 'operation-done' && 'key' in e) {
      const mine = requested.get(e.key);
      if (mine && mine.request === e.request) {
        requested.delete(e.key);
        handled.set(e.key, mine.raw);
        writer.clearOperation(e.key);
      }
    }
    writer.onEvent(e);
    emit(e);
  };

  /** The cluster Secrets of the namespace as the watch holds them (unless the caller gave them). */
  const clusterAccess = (): readonly ClusterAccess[] => {
    if (base.clusterSecrets) return base.clusterSecrets;
    const list = clustersFromSecrets(
      watch.secrets('cluster').map((object) => ({ object, file: '', doc: 0 })),
      { idFrom: 'name', inClusterEnabled: base.loopOptions.settings?.inClusterEnabled !== false },
    );
    for (const w of list.warnings) warn(w);
    return list.access;
  };
  let restart = false;
  let claimer: ShardClaimer | undefined;
  let shard = 0;
  let replicas = 1;
  let ownership: ShardOwnership | undefined;
  const computeOwnership = (): ShardOwnership | undefined => {
    const sh = o.sharding;
    if (!sh) return undefined;
    const own = shardOwnership({
      shard,
      replicas,
      algorithm: sh.algorithm,
      clusterSecrets: watch.secrets('cluster'),
      applications: watch.applications(),
      inClusterEnabled: base.loopOptions.settings?.inClusterEnabled !== false,
    });
    for (const w of own.warnings) warn(w);
    return own;
  };
  const owns = (app: { name: string; destination: { server?: string; name?: string } }): boolean =>
    ownership ? ownership.ownsApp(app) : true;
  /** Recomputes what this shard owns; the loop hears of it when the owned clusters changed. */
  const reshard = (force: boolean): void => {
    if (!o.sharding) return;
    const before = ownership?.ownedServers.join('\n');
    ownership = computeOwnership();
    if (!force && before === ownership?.ownedServers.join('\n')) return;
    emit({ type: 'shard', shard, replicas, owned: ownership?.ownedServers ?? [] });
    loop?.setOwnership(owns);
  };
  const onShardChange = (change: ShardChange): void => {
    shard = change.shard;
    replicas = change.replicas;
    reshard(true);
  };
  try {
    await watch.start(o.signal);
    const sh = o.sharding;
    if (sh?.dynamic) {
      claimer = new ShardClaimer({
        client,
        namespace: ns,
        controllerName: o.controllerName,
        requestedShard: sh.requestedShard,
        replicas: sh.replicas,
        heartbeatSeconds: sh.heartbeatSeconds,
        forceTakeover: o.forceTakeover,
        onShardChange,
        signal: o.signal,
      });
      const claimed = await claimer.start();
      shard = claimed.shard;
      replicas = claimed.replicas;
      o.onClaimer?.(claimer);
    } else {
      if (sh) {
        shard = sh.shard;
        replicas = sh.replicas;
      }
      if (!o.forceTakeover)
        await checkStart({
          client,
          namespace: ns,
          controllerName: o.controllerName || hostname(),
          mode: { dynamic: false, shard },
          heartbeatSeconds: 10,
          nowMs: now(),
          signal: o.signal,
        });
    }
    for (;;) {
      // (Again after a reload: the cluster Secrets may have changed.)
      ownership = computeOwnership();
      if (ownership) emit({ type: 'shard', shard, replicas, owned: ownership.ownedServers });
      const apps: Application[] = [];
      for (const obj of watch.applications()) {
        if (!isDeleting(obj)) {
          const app = parseApp(obj);
          if (app) apps.push(app);
        }
      }
      const projects = projectSet();
      const clusterSecrets = clusterAccess();
      finalizer.update({ clusterSecrets, tracking: trackingOf(base.loopOptions) });
      loop = new Loop({
        ...base.loopOptions,
        clusterSecrets,
        argocdNamespace: ns,
        apps,
        projects,
        autoSync: { mode: 'policy' },
        ownsApp: owns,
        onEvent: onLoopEvent,
        operation: base.loopOptions.operation ?? defaultOperation,
        ...(o.signal ? { signal: o.signal } : {}),
        shutdownTimeoutMs: o.shutdownTimeoutMs ?? 0,
      });
      o.onLoop?.(loop);
      // Operations the previous loop did not finish are asked again (Argo CD resumes them on restart).
      requested.clear();
      upserted.clear();
      writer.resetOperations();
      for (const app of apps)
        upserted.set(
          keyOfManifest(app.manifest, ns),
          JSON.stringify([
            app.manifest['spec'],
            app.manifest.metadata?.labels,
            app.manifest.metadata?.annotations,
          ]),
        );
      ready = true;
      emit({ type: 'controller-ready', apps: apps.length, projects: projects.size });
      // Operations and refresh requests already written, and deletions already under way (onApp).
      for (const obj of watch.applications()) onApp(obj);
      if (reloadAgain) {
        reloadAgain = false;
        restart = true;
        void loop.shutdown(o.shutdownTimeoutMs ?? 0);
      }
      await loop.run();
      if (!restart || o.signal?.aborted || !o.reload) break;
      restart = false;
      reloadReason = undefined;
      ready = false;
      await writer.idle();
      const previous = base;
      base = await o.reload();
      await previous.close?.();
    }
  } finally {
    stopped.value = true;
    await claimer?.stop();
    clearTimeout(reloadTimer);
    await base.close?.();
    for (const t of deleting.values()) if (t !== 'running') clearTimeout(t);
    await writer.idle();
    watch.stop();
    await watch.stopped().catch(() => undefined);
    conn.close();
  }
  return { patches: writer.patches };
}

/** A sync as the request says (src/sync `runOperation`), with the app's own sync options beneath. */
export const defaultOperation: LoopOptions['operation'] = (app, reconciliation, request, signal) =>
  runOperation(
    {
      name: app.name,
      syncOptions: app.syncPolicy.options,
      ...(app.syncPolicy.managedNamespaceMetadata
        ? { managedNamespaceMetadata: app.syncPolicy.managedNamespaceMetadata }
        : {}),
    },
    reconciliation,
    syncRequestOf(request),
    signal,
  );
