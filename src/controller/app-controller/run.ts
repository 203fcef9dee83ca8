// Over 400 lines: runController is one wiring function (watch -> loop -> status writer); not split in issue 33 (its parts are already apps.ts, operations.ts, shards.ts).
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
 * 3. Watch events, as Argo CD's informer handlers (canProcessApp: an Application annotated
 *    `argocd.argoproj.io/skip-reconcile: "true"` is left alone): an Application added or changed is upserted (the loop
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
import type { KubeConfig } from '@kubernetes/client-node';
import {
  ArgoNamespaceWatch,
  CONFIG_MAPS,
  finalizes,
  isDeleting,
  parseApplication,
  parseProject,
  ProjectSet,
} from '../../apps/index.js';
import type { Application, NamespaceEvent } from '../../apps/index.js';
import { connect as defaultConnect, isNotFound, loadKubeConfig } from '../../cluster/index.js';
import type { ClusterAccess, KubeClient, KubeObject, TrackingOptions } from '../../cluster/index.js';
import { DEFAULT_TRACKING_METHOD, oneLine } from '../../common/index.js';
import { clustersFromSecrets } from '../../sharding/index.js';
import { AppFinalizer, FinalizerQueue } from './finalizer.js';
import { ProcessedApps } from './apps.js';
import { defaultOperation, RequestedOperations } from './operations.js';
import { ControllerShards } from './shards.js';
import type { ControllerBase, ControllerEvent, ControllerRunOptions, ControllerSummary } from './types.js';
import { Loop } from '../loop/index.js';
import type { LoopEvent } from '../loop/index.js';
import { REFRESH_ANNOTATION, StatusWriter } from './status-writer.js';

export type {
  ControllerBase,
  ControllerEvent,
  ControllerRunOptions,
  ControllerSharding,
  ControllerSummary,
} from './types.js';

/** `argocd.argoproj.io/skip-reconcile` parsed as Go's strconv.ParseBool (a value it refuses: not skipped). */
export function skipsReconcile(obj: KubeObject): boolean {
  const v = obj.metadata?.annotations?.['argocd.argoproj.io/skip-reconcile'];
  return v !== undefined && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v);
}

/** Argo CD's command-line parameters ConfigMap (the stock manifests feed the controller's env from it). */
const CMD_PARAMS_CM = 'argocd-cmd-params-cm';

const keyOfManifest = (obj: KubeObject, ns: string): string =>
  `${obj.metadata?.namespace ?? ns}/${obj.metadata?.name ?? ''}`;

export async function runController(o: ControllerRunOptions): Promise<ControllerSummary> {
  const ns = o.argocdNamespace;
  const warn = (m: string): void => o.onWarning?.(m);
  // A malformed cluster Secret's warning comes back at every ownership recompute and reload: once each.
  const warned = new Set<string>();
  const warnOnce = (m: string): void => {
    if (warned.has(m)) return;
    warned.add(m);
    warn(m);
  };
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
    render: (manifest, signal) => renderForDeletion(manifest, signal),
    now,
    onStep: (key, step) =>
      emit({
        type: 'app-deleting',
        app: key.slice(key.indexOf('/') + 1),
        key,
        step: step.kind,
        detail:
          step.kind === 'delete'
            ? step.objects.map((x) => `${x.kind}/${x.metadata?.name}`).join(', ')
            : step.kind === 'waiting' || step.kind === 'hooks'
              ? step.reason
              : '',
      }),
  });

  const applicationNamespaces = o.applicationNamespaces ?? (await cmdParamsNamespaces(client, ns));
  const watch = new ArgoNamespaceWatch({
    client,
    namespace: ns,
    applicationNamespaces,
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

  // What Argo CD's metrics list: the loop's apps of this controller's shards, and those being deleted here.
  const processed = new ProcessedApps({ loop: () => loop, owns: (app) => shards.owns(app) });
  o.onApps?.(processed);

  const parseApp = (obj: KubeObject): Application | undefined => {
    const manifest: KubeObject = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', ...obj };
    try {
      return parseApplication(manifest, `cluster ${keyOfManifest(obj, ns)}`);
    } catch (err) {
      warn(oneLine(err));
      return undefined;
    }
  };
  /** A deleting app's render at its spec (its PreDelete / PostDelete hooks), with the current source service. */
  const renderForDeletion = async (manifest: KubeObject, signal?: AbortSignal): Promise<KubeObject[]> => {
    signal?.throwIfAborted();
    const app = parseApplication(
      { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', ...manifest },
      `cluster ${keyOfManifest(manifest, ns)}`,
    );
    return (await base.loopOptions.source.renderApp(app)).objects;
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

  const operations = new RequestedOperations({
    client,
    argocdNamespace: ns,
    loop: () => loop,
    now,
    onWarning: warn,
  });
  const finalizing = new FinalizerQueue(finalizer, {
    current: (key) => {
      const obj = watch.application(key.slice(0, key.indexOf('/')), key.slice(key.indexOf('/') + 1));
      return obj && isDeleting(obj) && finalizes(obj) ? obj : undefined;
    },
    retryMs: o.finalizerRetryMs ?? 5_000,
    signal: o.signal,
    onWarning: warn,
  });

  const onApp = (obj: KubeObject, old?: KubeObject): void => {
    const key = keyOfManifest(obj, ns);
    if (skipsReconcile(obj)) {
      // canProcessApp: an app annotated skip-reconcile is left alone (no refresh, operation or deletion).
      upserted.delete(key);
      loop?.removeApp(key);
      operations.forget(key);
      processed.forget(key);
      return;
    }
    if (isDeleting(obj)) {
      upserted.delete(key);
      loop?.removeApp(key);
      operations.forget(key);
      processed.deleting(key, obj);
      // The shard that owns the app finalizes it (canProcessApp).
      const dest = (obj['spec'] as { destination?: { server?: string; name?: string } } | undefined)
        ?.destination;
      if (finalizes(obj) && shards.owns({ name: obj.metadata?.name ?? '', destination: dest ?? {} }))
        finalizing.schedule(key);
      return;
    }
    processed.forget(key);
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
    // Argo CD's canProcessApp: only an app of this controller's shards has its operation run here.
    if (shards.owns(app)) {
      operations.seen(key, app, obj);
      operations.terminating(key, obj);
    } else operations.forget(key);
  };

  const onNamespaceEvent = (e: NamespaceEvent): void => {
    switch (e.type) {
      case 'app':
        if (!e.old) shards.appsChanged();
        onApp(e.object, e.old);
        break;
      case 'app-deleted': {
        const key = keyOfManifest(e.object, ns);
        upserted.delete(key);
        loop?.removeApp(key);
        writer.forget(key);
        processed.forget(key);
        operations.forget(key, true);
        shards.appsChanged();
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
    if (e.type === 'app-operation-done' && operations.done(e)) writer.clearOperation(e.key);
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
    for (const w of list.warnings) warnOnce(w);
    return list.access;
  };
  let restart = false;
  const shards = new ControllerShards({
    client,
    namespace: ns,
    sharding: o.sharding,
    forceTakeover: o.forceTakeover,
    controllerName: o.controllerName,
    signal: o.signal,
    now,
    inputs: () => ({
      clusterSecrets: watch.secrets('cluster'),
      applications: watch.applications(),
      inClusterEnabled: base.loopOptions.settings?.inClusterEnabled !== false,
    }),
    onChange: (change) => {
      emit({ type: 'shard', ...change });
      loop?.setOwnership(shards.owns);
      // A shard taken over (its controller died): the operations its apps wait for are asked here now.
      for (const obj of watch.applications()) {
        const app = isDeleting(obj) || skipsReconcile(obj) ? undefined : parseApp(obj);
        if (!app) continue;
        const key = keyOfManifest(obj, ns);
        if (shards.owns(app)) operations.seen(key, app, obj);
        else operations.forget(key);
      }
    },
    onClaimer: o.onClaimer,
    onWarning: warnOnce,
  });
  try {
    await watch.start(o.signal);
    await shards.start();
    for (;;) {
      // (Again after a reload: the cluster Secrets may have changed.)
      shards.recompute(true);
      const apps: Application[] = [];
      for (const obj of watch.applications()) {
        if (!isDeleting(obj) && !skipsReconcile(obj)) {
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
        // Argo CD's repo-server keeps a branch's resolved commit 3 minutes (--revision-cache-expiration):
        // a resync reuses it; a refresh annotation (level 3) re-resolves. Without it, 1,000 apps on one
        // remote repository would run an ls-remote each per resync.
        revisionCacheMs: base.loopOptions.revisionCacheMs ?? 180_000,
        ownsApp: shards.owns,
        onEvent: onLoopEvent,
        operation: base.loopOptions.operation ?? defaultOperation,
        ...(o.signal ? { signal: o.signal } : {}),
        shutdownTimeoutMs: o.shutdownTimeoutMs ?? 0,
      });
      o.onLoop?.(loop);
      // Operations the previous loop did not finish are asked again (Argo CD resumes them on restart).
      operations.reset();
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
    await shards.stop();
    clearTimeout(reloadTimer);
    await base.close?.();
    finalizing.stop();
    await writer.idle();
    watch.stop();
    await watch.stopped().catch(() => undefined);
    conn.close();
  }
  return { patches: writer.patches };
}

export { defaultOperation };

/** argocd-cmd-params-cm's `application.namespaces` (comma-separated, as the controller's env reads it). */
async function cmdParamsNamespaces(client: KubeClient, ns: string): Promise<string[]> {
  try {
    const cm = await client.get(CONFIG_MAPS, ns, CMD_PARAMS_CM);
    const value = (cm?.['data'] as Record<string, string> | undefined)?.['application.namespaces'] ?? '';
    return value
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '');
  } catch (err) {
    if (isNotFound(err)) return [];
    throw err;
  }
}
