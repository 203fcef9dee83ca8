/**
 * Waiting on the live cache: `waitForObject` resolves when an object satisfies a predicate (checked now and
 * after every change of its key, from the cache's events), `raceAbort` makes any promise give up when a
 * signal aborts. Both reject with the signal's reason on abort and remove their listeners when settled;
 * a predicate that throws fails the wait with its error (the cache's other subscribers never see it).
 * `LiveStateCache.waitFor` and `waitForSync` are these.
 */
import type { CacheEvent, CacheEventHandler } from './live-cache-store.js';
import { formatKey } from './types.js';
import type { KubeObject, ResourceKey } from './types.js';
import { onAbort as onAbortOf } from '../common/index.js';
import { abortReason } from '../queue/index.js';

/** What `waitForObject` reads: the object now and the cache's change events. */
export interface WaitSource {
  get(key: ResourceKey): KubeObject | undefined;
  onEvent(handler: CacheEventHandler): () => void;
}

/**
 * Resolves with the object at `key` (undefined when absent) as soon as `predicate` holds for it, checking
 * now and after every change of that key. Rejects when `signal` aborts.
 */
export function waitForObject(
  source: WaitSource,
  key: ResourceKey,
  predicate: (obj: KubeObject | undefined) => boolean,
  signal?: AbortSignal,
): Promise<KubeObject | undefined> {
  const now = source.get(key);
  try {
    if (predicate(now)) return Promise.resolve(now);
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const id = formatKey(key);
  return new Promise((resolve, reject) => {
    const settle = (): void => {
      unsubscribe();
      unhook();
    };
    const onAbort = (): void => {
      settle();
      reject(abortReason(signal!));
    };
    const unsubscribe = source.onEvent((e: CacheEvent) => {
      if (formatKey(e.key) !== id) return;
      const current = e.type === 'DELETED' ? undefined : e.object;
      let done: boolean;
      try {
        done = predicate(current);
      } catch (err) {
        // The wait that depends on this predicate fails with its error (the store never sees it).
        settle();
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      if (!done) return;
      settle();
      resolve(current);
    });
    // Many waits may share one signal (a sync's): one listener on it for all (common/signals.ts).
    const unhook = signal ? onAbortOf(signal, onAbort) : () => undefined;
  });
}

/** `promise`, or a rejection with `signal`'s reason as soon as it aborts. */
export function raceAbort<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const unhook = onAbortOf(signal, () => reject(abortReason(signal)));
    promise.then(
      (v) => {
        unhook();
        resolve(v);
      },
      (e: unknown) => {
        unhook();
        reject(e);
      },
    );
  });
}
