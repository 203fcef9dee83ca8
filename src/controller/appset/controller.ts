/**
 * `runAppSetController`: Argo CD's ApplicationSet controller in this process (docs/appset-controller.md),
 * next to the application controller in `kubectl gitops controller`.
 *
 * - Watches (one LiveStateCache: list then watch) the ApplicationSets and Applications of the Argo CD
 *   namespace and of the namespaces `namespaces` allows (Argo CD's --applicationset-namespaces; any
 *   glob or /regexp/ entry makes the watch cluster-wide, filtered here), and the cluster Secrets and
 *   AppProjects of the Argo CD namespace. No ApplicationSet CRD: a warning, and nothing runs.
 * - Work queue with client-go semantics (src/queue; one set never twice at once), `workers` at a time;
 *   a failed reconcile is retried rate-limited (5 ms doubling to 1000 s), a successful one is queued again
 *   after its requeue delay (reconcile.ts).
 * - What queues a set, as Argo CD's event handlers: the set added; changed in spec, labels, finalizers,
 *   deletion or annotations (not the removal of the refresh annotation), or, with progressive syncs, in
 *   `status.applicationStatus`; an Application it controls deleted, or changed in spec, labels,
 *   annotations or finalizers (with progressive syncs also health, sync status, operation phase or
 *   start); any change of a cluster Secret, for sets with a clusters generator (in a matrix / merge too).
 * Resolves when `signal` aborts and the running reconciles have ended.
 */
import {
  APP_PROJECT_RESOURCE,
  APPLICATION_RESOURCE,
  CONFIG_MAPS,
  isLiteralPattern,
  matchStringInList,
  SECRET_TYPE_LABEL,
  SECRETS,
} from '../../apps/index.js';
import { usesClusters } from '../../apps/appset/index.js';
import type { AppSetCluster } from '../../apps/appset/index.js';
import { isNotFound, LiveStateCache } from '../../cluster/index.js';
import type { CacheEvent, KubeObject } from '../../cluster/index.js';
import { oneLine } from '../../common/index.js';
import { deepEqual } from '../../diff/index.js';
import { RateLimitingQueue } from '../../queue/index.js';
import { appSetClustersFromSecrets } from '../../sharding/index.js';
import { controllerOwner } from './apply.js';
import { reconcileAppSet, REFRESH_ANNOTATION } from './reconcile.js';
import type { ReconcileDeps } from './reconcile.js';
import { APPLICATIONSET_RESOURCE } from './status.js';
import type { AppSetControllerOptions } from './types.js';

type Json = Record<string, unknown>;

/** shouldRequeueForApplicationSet. */
export function appSetChanged(old: KubeObject, now: KubeObject, progressive: boolean): boolean {
  const o = old as Json;
  const n = now as Json;
  if (
    progressive &&
    !deepEqual(
      ((o['status'] as Json | undefined)?.['applicationStatus'] ?? []) as never,
      ((n['status'] as Json | undefined)?.['applicationStatus'] ?? []) as never,
    )
  )
    return true;
  const same = (a: unknown, b: unknown): boolean => deepEqual((a ?? null) as never, (b ?? null) as never);
  if (
    !same(o['spec'], n['spec']) ||
    !same(old.metadata?.labels ?? {}, now.metadata?.labels ?? {}) ||
    !same(old.metadata?.finalizers ?? [], now.metadata?.finalizers ?? []) ||
    !same(old.metadata?.deletionTimestamp, now.metadata?.deletionTimestamp)
  )
    return true;
  if (!same(old.metadata?.annotations ?? {}, now.metadata?.annotations ?? {})) {
    const had = old.metadata?.annotations?.[REFRESH_ANNOTATION] !== undefined;
    const has = now.metadata?.annotations?.[REFRESH_ANNOTATION] !== undefined;
    return !(had && !has);
  }
  return false;
}

/** shouldRequeueForApplication. */
export function applicationChanged(old: KubeObject, now: KubeObject, progressive: boolean): boolean {
  const same = (a: unknown, b: unknown): boolean => deepEqual((a ?? null) as never, (b ?? null) as never);
  if (
    !same((old as Json)['spec'], (now as Json)['spec']) ||
    !same(old.metadata?.annotations ?? {}, now.metadata?.annotations ?? {}) ||
    !same(old.metadata?.labels ?? {}, now.metadata?.labels ?? {}) ||
    !same(old.metadata?.finalizers ?? [], now.metadata?.finalizers ?? [])
  )
    return true;
  if (!progressive) return false;
  const st = (x: KubeObject): Json => ((x as Json)['status'] as Json | undefined) ?? {};
  const f = (x: KubeObject, a: string, b: string): unknown => (st(x)[a] as Json | undefined)?.[b];
  if (
    f(old, 'health', 'status') !== f(now, 'health', 'status') ||
    f(old, 'sync', 'status') !== f(now, 'sync', 'status')
  )
    return true;
  const oo = st(old)['operationState'] as Json | undefined;
  const no = st(now)['operationState'] as Json | undefined;
  return !!oo && !!no && (oo['phase'] !== no['phase'] || oo['startedAt'] !== no['startedAt']);
}

export async function runAppSetController(o: AppSetControllerOptions): Promise<void> {
  const ns = o.argocdNamespace;
  const patterns = [...(o.namespaces ?? [])];
  const allowed = (n: string): boolean => n === ns || matchStringInList(patterns, n);
  const warn = (m: string): void => o.onWarning?.(m);
  const emit = o.onEvent ?? (() => undefined);
  const progressive = o.progressiveSyncs ?? false;
  try {
    await o.client.list(APPLICATIONSET_RESOURCE, {
      namespace: ns,
      limit: 1,
      ...(o.signal ? { signal: o.signal } : {}),
    });
  } catch (err) {
    if (o.signal?.aborted) return;
    if (!isNotFound(err)) throw err;
    warn(
      `namespace ${ns}: ApplicationSets are not reconciled: the ApplicationSet CRD (applicationsets.argoproj.io) is not installed`,
    );
    return;
  }
  const clusterWide = !patterns.every(isLiteralPattern);
  const namespaces = clusterWide ? undefined : [...new Set([ns, ...patterns])];
  const cache = new LiveStateCache({
    client: o.client,
    resources: [APPLICATIONSET_RESOURCE, APPLICATION_RESOURCE, SECRETS, APP_PROJECT_RESOURCE],
    ...(namespaces
      ? { namespaces, namespaceMode: 'per-namespace' as const }
      : { namespaceMode: 'cluster' as const }),
    byGroupKind: {
      '/Secret': { labelSelector: `${SECRET_TYPE_LABEL}=cluster`, namespaces: [ns] },
      'argoproj.io/AppProject': { namespaces: [ns] },
    },
    onWarning: warn,
    ...(o.watchTimeoutSeconds !== undefined ? { watchTimeoutSeconds: o.watchTimeoutSeconds } : {}),
  });
  const queue = new RateLimitingQueue<string>();
  const appsets = (): KubeObject[] =>
    cache.list('argoproj.io', 'ApplicationSet').filter((a) => allowed(String(a.metadata?.namespace ?? '')));
  const keyOf = (obj: KubeObject): string => `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
  const onEvent = (e: CacheEvent): void => {
    const obj = e.object;
    if (e.key.kind === 'Secret') {
      for (const set of appsets()) {
        const gens = ((set as Json)['spec'] as Json | undefined)?.['generators'];
        if (Array.isArray(gens) && gens.some(usesClusters)) queue.add(keyOf(set));
      }
      return;
    }
    if (!allowed(e.key.namespace)) return;
    if (e.key.kind === 'ApplicationSet') {
      if (e.type === 'ADDED' || e.type === 'DELETED' || (e.old && appSetChanged(e.old, obj, progressive)))
        queue.add(keyOf(obj));
    } else if (e.key.kind === 'Application') {
      const owner = controllerOwner(obj);
      if (!owner) return;
      if (
        e.type === 'DELETED' ||
        (e.type === 'MODIFIED' && e.old && applicationChanged(e.old, obj, progressive))
      )
        queue.add(`${e.key.namespace}/${owner}`);
    }
  };
  cache.onEvent(onEvent);
  const clusters = (): AppSetCluster[] =>
    appSetClustersFromSecrets(
      cache.list('', 'Secret', ns).map((object) => ({ object, file: '', doc: 0 })),
    ).clusters.map((c) => ({ ...c }));
  const policy = o.policy ?? '';
  const resolvedAt = new Map<string, number>();
  const deps: ReconcileDeps = {
    client: o.client,
    argocdNamespace: ns,
    policy,
    policyOverride: o.policyOverride ?? policy === '',
    progressiveSyncs: progressive,
    preservedAnnotations: o.preservedAnnotations ?? [],
    preservedLabels: o.preservedLabels ?? [],
    maxResources: o.maxResources ?? 5000,
    appset: (n, name) => cache.get({ group: 'argoproj.io', kind: 'ApplicationSet', namespace: n, name }),
    applications: (n) => cache.list('argoproj.io', 'Application', n),
    projectExists: (name) => !!cache.get({ group: 'argoproj.io', kind: 'AppProject', namespace: ns, name }),
    clusters,
    inClusterEnabled: o.inClusterEnabled ?? true,
    checkout: (url, rev, fresh) => {
      const now = (o.now ?? Date.now)();
      const at = resolvedAt.get(url);
      if (o.forgetRevisions && (fresh || at === undefined || now - at > (o.revisionCacheMs ?? 180_000))) {
        o.forgetRevisions(url);
        resolvedAt.set(url, now);
      }
      return o.checkout(url, rev);
    },
    ...(o.scm !== false
      ? {
          scm: (namespace: string) => ({
            ...(o.scm || {}),
            secret: async (name: string, key: string) => {
              let secret: KubeObject;
              try {
                secret = await o.client.get(SECRETS, namespace, name);
              } catch (err) {
                throw new Error(
                  `error fetching secret ${namespace}/${name}: ${isNotFound(err) ? `secrets "${name}" not found` : oneLine(err)}`,
                );
              }
              // utils.GetSecretRef: the label is checked before the key.
              if (o.tokenRefStrictMode && secret.metadata?.labels?.[SECRET_TYPE_LABEL] !== 'scm-creds')
                throw new Error(
                  `secret ${namespace}/${name} is not a valid SCM creds secret: secret must have label "${SECRET_TYPE_LABEL}"="scm-creds"`,
                );
              const data = ((secret as Json)['data'] as Record<string, string> | undefined) ?? {};
              if (data[key] === undefined)
                throw new Error(`key "${key}" in secret ${namespace}/${name} not found`);
              return Buffer.from(data[key], 'base64').toString('utf8');
            },
            // utils.GetConfigMapData: the client's error as it is, or its own for a missing key.
            configMap: async (name: string, key: string) => {
              let cm: KubeObject;
              try {
                cm = await o.client.get(CONFIG_MAPS, namespace, name);
              } catch (err) {
                throw new Error(isNotFound(err) ? `configmaps "${name}" not found` : oneLine(err));
              }
              const data = ((cm as Json)['data'] as Record<string, string> | undefined) ?? {};
              if (data[key] === undefined) throw new Error(`key ${key} not found in ConfigMap ${name}`);
              return data[key];
            },
          }),
        }
      : {}),
    now: o.now ?? Date.now,
    emit,
  };
  await cache.start(o.signal);
  emit({ type: 'appset-controller-ready', appsets: appsets().length });
  const onAbort = (): void => queue.shutDown();
  if (o.signal?.aborted) onAbort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const worker = async (): Promise<void> => {
    for (;;) {
      const { key, shutdown } = await queue.get();
      if (shutdown || key === undefined) return;
      const slash = key.indexOf('/');
      try {
        const requeue = await reconcileAppSet(deps, key.slice(0, slash), key.slice(slash + 1));
        queue.forget(key);
        if (requeue > 0) queue.addAfter(key, requeue);
      } catch (err) {
        if (!o.signal?.aborted) {
          emit({ type: 'appset-error', appset: key, reason: 'reconcile', message: oneLine(err) });
          queue.addRateLimited(key);
        }
      } finally {
        queue.done(key);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, o.workers ?? 4) }, () => worker()));
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    cache.stop();
    await cache.stopped().catch(() => undefined);
  }
}
