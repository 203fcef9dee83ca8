/**
 * The waits on live state of `ClusterSyncClient`: the live cache (list+watch) seen through our own writes.
 *
 * - `live()` reads the cache; right after a write, the server's answer (`remember`) stands in for the
 *   object until the cache has moved past the version it held before the write; after a delete, the answer
 *   says whether the object is gone (nothing remembered) or still terminating. For kinds the cache does not
 *   watch, our own last answer is the best knowledge there is.
 * - `generation()` counts changes (cache events, lost-watch changes, our own writes); `changed()` resolves
 *   on the next one.
 * - Every wait here re-evaluates on `RECHECK_MS` rather than trusting that an event will come, and each is
 *   bounded: `settled()` fails when a watch that would show a write is lost, or after `SETTLE_LIMIT_MS`
 *   without progress; `gone()` (the `Force=true` delete) reads the object from the server when no change
 *   came within the interval (or every interval, when the cache cannot follow the kind), and fails after
 *   `FORCE_DELETE_WAIT_MS` or when the operation stops.
 */
import { sleep } from '../cluster/index.js';
import type { LiveStateCache } from '../cluster/index.js';
import { linkedSignal } from '../common/index.js';
import type { KubeObject } from '../common/index.js';
import { realClock } from '../queue/index.js';
import { formatResourceKey } from './plan.js';
import type { SyncTask } from './types.js';
import { RECHECK_MS } from './waiting.js';

/** How long `settled()` waits without the live cache showing any more of our writes. */
export const SETTLE_LIMIT_MS = 60_000;

/** How long `Force=true` waits for a deleted object to be gone before it gives up (it is not re-created). */
export const FORCE_DELETE_WAIT_MS = 60_000;

type Key = SyncTask['key'];

interface Written {
  key: Key;
  /** The server's answer: the object as written, undefined when a delete left nothing. */
  obj: KubeObject | undefined;
  /** The cache's resourceVersion when we wrote ("" when it had no object). */
  before: string;
  /**
   * True while the cache (covering this key) still holds the version from before the write (or, for a
   * write right after our own delete of the object, shows it gone in between). Once false, never true
   * again: the cache has caught up, and what it shows later is newer than our answer.
   */
  pending: () => boolean;
}

export class LiveView {
  readonly #cache: LiveStateCache;
  readonly #written = new Map<string, Written>();
  #generation = 0;
  #listeners: Array<() => void> = [];
  readonly #unsubscribe: () => void;

  constructor(cache: LiveStateCache) {
    this.#cache = cache;
    const offEvent = cache.onEvent((e) => {
      // Catch up on the write of this key now, so a later change (e.g. a delete) is not taken for "behind".
      this.#written.get(formatResourceKey(e.key))?.pending();
      this.#bump();
    });
    const offLost = cache.onLostChange(() => this.#bump());
    this.#unsubscribe = () => {
      offEvent();
      offLost();
    };
  }

  close(): void {
    this.#unsubscribe();
  }

  /**
   * Resolves once the cache has seen every write it covers (so a refresh after the sync is current).
   * Rejects when the watch that would show a write is lost (`LiveStateCache.lost`): it would never come;
   * and when the cache shows no progress on them for `SETTLE_LIMIT_MS` (a watch that delivers nothing
   * without being lost): the wait is for events, so it is bounded rather than trusted.
   */
  async settled(signal: AbortSignal): Promise<void> {
    let count = Infinity;
    let since = realClock.now();
    for (;;) {
      const generation = this.#generation;
      const behind = [...this.#written.values()].filter((w) => w.pending());
      if (behind.length === 0 || signal.aborted) return;
      for (const w of behind) {
        const lost = this.#cache.lost(w.key);
        if (lost !== undefined)
          throw new Error(`${formatResourceKey(w.key)}: written, but the live cache cannot show it: ${lost}`);
      }
      if (behind.length < count) {
        count = behind.length;
        since = realClock.now();
      } else if (realClock.now() - since >= SETTLE_LIMIT_MS) {
        throw new Error(
          `${formatResourceKey(behind[0]!.key)}: written, but the live cache has not shown it after ${SETTLE_LIMIT_MS / 1000}s`,
        );
      }
      await this.changedOrInterval(generation, signal);
    }
  }

  live(key: Key): KubeObject | undefined {
    const cached = this.#cache.get(key);
    const written = this.#written.get(formatResourceKey(key));
    if (!written) return cached;
    // Kinds the cache does not watch: our own last answer is the best knowledge there is.
    if (!this.#cache.covers(key) || written.pending()) return written.obj;
    return cached;
  }

  /** True when the cache has not caught up with our write of `key` yet (an event missed or late). */
  behind(key: Key): boolean {
    return this.#written.get(formatResourceKey(key))?.pending() === true;
  }

  generation(): number {
    return this.#generation;
  }

  changed(after: number, signal: AbortSignal): Promise<void> {
    if (this.#generation > after || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        const i = this.#listeners.indexOf(done);
        if (i >= 0) this.#listeners.splice(i, 1);
        resolve();
      };
      this.#listeners.push(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** `changed`, or `RECHECK_MS` passed: true when it was a change. */
  async changedOrInterval(after: number, signal: AbortSignal): Promise<boolean> {
    const interval = AbortSignal.timeout(RECHECK_MS);
    // Not AbortSignal.any: `signal` may live as long as the continuous loop (common/signals.ts).
    const linked = linkedSignal(signal, interval);
    try {
      await this.changed(after, linked.signal);
    } finally {
      linked.dispose();
    }
    return !interval.aborted;
  }

  /**
   * Resolves once the object of `key` is gone from the cluster (the `Force=true` delete): on live-cache
   * events, or by reading it again (`read`, from the server) every second (as kubectl polls) when the
   * cache does not watch the kind or its watch is lost. Fails when it is still there after
   * `FORCE_DELETE_WAIT_MS` or when `signal` stops the operation, naming its finalizers; it is then still
   * terminating, not half-replaced.
   */
  async gone(key: Key, read: () => Promise<KubeObject | undefined>, signal?: AbortSignal): Promise<void> {
    const deadline = realClock.now() + FORCE_DELETE_WAIT_MS;
    const linked = linkedSignal(AbortSignal.timeout(FORCE_DELETE_WAIT_MS), signal);
    const limit = linked.signal;
    try {
      await this.#goneWithin(key, read, deadline, limit, signal);
    } finally {
      linked.dispose();
    }
  }

  async #goneWithin(
    key: Key,
    read: () => Promise<KubeObject | undefined>,
    deadline: number,
    limit: AbortSignal,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    // The delete's own answer first (`live`): an object the server removed at once is not waited for.
    let poll = false;
    for (;;) {
      const generation = this.#generation;
      const followed = this.#cache.covers(key) && this.#cache.lost(key) === undefined;
      const current = followed && !poll ? this.live(key) : await read();
      if (current === undefined) return;
      if (limit.aborted || realClock.now() >= deadline) {
        const finalizers = (current.metadata?.['finalizers'] as string[] | undefined) ?? [];
        const why = signal?.aborted ? 'the operation stopped' : `${FORCE_DELETE_WAIT_MS / 1000}s passed`;
        throw new Error(
          `Force=true deleted the object, but it was still terminating when ${why}` +
            (finalizers.length ? ` (finalizers: ${finalizers.join(', ')})` : '') +
            '; it was not created again',
        );
      }
      // No change within the interval: read the object from the server rather than trust an event.
      if (followed) poll = !(await this.changedOrInterval(generation, limit));
      else await sleep(realClock, RECHECK_MS, limit).catch(() => undefined);
    }
  }

  /** The cache's resourceVersion of `key` now ("" when it has no object): the `before` of a write. */
  cachedVersion(key: Key): string {
    return this.#cache.get(key)?.metadata?.resourceVersion ?? '';
  }

  /** Records a write's answer; `before` is the cache's resourceVersion read before the request. */
  remember(key: Key, obj: KubeObject | undefined, before: string): void {
    const cache = this.#cache;
    const id = formatResourceKey(key);
    const written = obj?.metadata?.resourceVersion ?? '';
    // Right after our own delete that left nothing, the cache may show the object gone on its way to ours.
    const previous = this.#written.get(id);
    const afterDelete = previous !== undefined && previous.obj === undefined;
    let caughtUp = false;
    const pending = (): boolean => {
      if (caughtUp || !cache.covers(key)) return false;
      const now = cache.get(key)?.metadata?.resourceVersion ?? '';
      if (now !== written && (now === before || (afterDelete && now === ''))) return true;
      caughtUp = true;
      return false;
    };
    this.#written.set(id, { key, obj, before, pending });
    this.#bump();
  }

  #bump(): void {
    this.#generation++;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const l of listeners) l();
  }
}
