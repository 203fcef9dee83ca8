/**
 * "Which live objects does this app manage": the one place a comparison reads live state (gitops-engine
 * `GetManagedLiveObjs`, spec §2.3), answered from the live cache with direct GETs where the cache cannot
 * answer. `LiveStateCache.managedLive` calls `managedLive` with itself as the `ManagedSource`.
 *
 * The result, keyed by `formatKey`: every cached object without ownerReferences whose tracking names the
 * app, plus the live object of each target key even if untracked:
 * - a target the cache covers comes from the cache, unless the cache holds only its stub (an object no
 *   app tracks, transform.ts): that one is read with a GET like the next, and `fill` hands the answer to
 *   the cache (which stores that key in full from then on);
 * - a target the cache does not cover (kind resolved by `discovery`), or one that must be read at another
 *   version than the cached one (`info` given: the target's own apiVersion), is fetched with one GET, at
 *   most `MANAGED_LIVE_READS` in flight, never one awaited after another; the answer (transformed as the
 *   cache would store it) replaces what the cache held for that key, and a 404 removes it.
 * A kind the server does not serve, or a 404, means "absent" (not an error); other failures reject.
 */
import type { KubeClient } from './client.js';
import type { Discovery } from './discovery.js';
import { isNotFound } from './errors.js';
import { isStub } from './transform.js';
import type { Transform } from './transform.js';
import { formatKey, keyOf } from './types.js';
import type { KubeObject, ResourceInfo, ResourceKey } from './types.js';

/** A target of `managedLive`; `info` forces one GET at that version (the cache holds the kind at another). */
export interface ManagedTarget {
  key: ResourceKey;
  info?: ResourceInfo | undefined;
}

/** Direct reads of `managedLive` in flight at once (the client's keep-alive agent allows 32 sockets). */
export const MANAGED_LIVE_READS = 8;

/** What `managedLive` reads: the cache's objects and scope, and the client and discovery for the rest. */
export interface ManagedSource {
  byApp(app: string): KubeObject[];
  covers(key: ResourceKey): boolean;
  get(key: ResourceKey): KubeObject | undefined;
  /** A target's object read because the cache held its stub (see the header). */
  fill?(obj: KubeObject): void;
  /** How the cache lists the kind of a key it covers (the GET of a stubbed target uses it). */
  infoOf?(key: ResourceKey): ResourceInfo | undefined;
  client: Pick<KubeClient, 'get'>;
  discovery: Pick<Discovery, 'lookup'> | undefined;
  transformFor(gk: { group: string; kind: string }): Transform;
}

/** The live objects `app` manages, keyed by `formatKey` (see the header). */
export async function managedLive(
  source: ManagedSource,
  app: string,
  targets: ReadonlyArray<ResourceKey | ManagedTarget>,
  signal?: AbortSignal,
): Promise<Map<string, KubeObject>> {
  const result = new Map<string, KubeObject>();
  for (const obj of source.byApp(app)) {
    if (!obj.metadata?.ownerReferences?.length) result.set(formatKey(keyOf(obj)), obj);
  }
  const reads: ManagedTarget[] = [];
  const stubbed = new Set<string>();
  for (const t of targets) {
    const target: ManagedTarget = 'key' in t ? t : { key: t };
    const id = formatKey(target.key);
    if (target.info === undefined && (result.has(id) || source.covers(target.key))) {
      const obj = result.get(id) ?? source.get(target.key);
      if (!isStub(obj)) {
        if (obj) result.set(id, obj);
        continue;
      }
      stubbed.add(id);
      const info = source.infoOf?.(target.key);
      if (info) {
        reads.push({ key: target.key, info });
        continue;
      }
    }
    reads.push(target);
  }
  let next = 0;
  const reader = async (): Promise<void> => {
    for (let i = next++; i < reads.length; i = next++) {
      const { key, info: given } = reads[i]!;
      const id = formatKey(key);
      const info = given ?? (await source.discovery?.lookup(key, signal));
      if (!info) continue;
      try {
        const obj = await source.client.get(info, info.namespaced ? key.namespace : '', key.name, signal);
        const transformed = source.transformFor(info)(obj);
        result.set(id, transformed);
        if (stubbed.has(id)) source.fill?.(transformed);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        result.delete(id);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(MANAGED_LIVE_READS, reads.length) }, reader));
  return result;
}
