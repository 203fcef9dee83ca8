/**
 * `WorkQueue`: client-go's `util/workqueue` FIFO with a dirty set and a processing set.
 *
 * Guarantees (each has a test in test/queue/work-queue.test.ts):
 * - A key is handed to at most one worker at a time: between `get()` returning it and `done(key)`, it is not
 *   handed out again, however many workers wait.
 * - Adding a key that is already waiting is a no-op (keys coalesce); adding a key that is being processed
 *   marks it dirty, and it is queued again (once, however many adds) when `done(key)` is called.
 * - Every `add(key)` before shutdown is followed by a processing of `key` that starts after that add.
 * - Keys are handed out in the order they became waiting (FIFO); waiting workers are served in call order.
 * - After `shutDown()`, adds are ignored; `get()` still hands out keys that were waiting, then resolves
 *   `{ shutdown: true }` for every waiter. `shutDownWithDrain()` also waits until no key is being processed.
 *
 * Caller duties: call `done(key)` exactly once for every key `get()` returned, also when processing failed.
 * Keys are compared by identity (`Set` semantics): use strings such as `<namespace>/<name>`.
 */
import { onAbort, realClock } from '../common/index.js';
import type { Clock } from '../common/index.js';

export interface WorkQueueOptions {
  /** Shown in metrics, e.g. "refresh". */
  name?: string;
  /** Time source for metrics and (in subclasses) delays. Default: the real clock. */
  clock?: Clock;
}

export type GetResult<K> = { key: K; shutdown: false } | { key: undefined; shutdown: true };

/** Counters a run summary can print. Durations in milliseconds. */
export interface QueueMetrics {
  name: string;
  /** Adds that made a key dirty (coalesced adds are not counted). */
  adds: number;
  /** `addRateLimited` calls (rate limiting queue only). */
  retries: number;
  /** Keys waiting to be handed out now. */
  depth: number;
  /** Keys waiting for their `addAfter` delay now (delaying queue only). */
  delayed: number;
  /** Keys held by workers now. */
  processing: number;
  /** Completed processings (`done` calls for a held key). */
  processed: number;
  /** The longest a key has waited between becoming dirty and being handed out (including keys still waiting). */
  longestWaitMs: number;
  /** Total time keys spent between `get` and `done` (completed processings). */
  processingMs: number;
  /** The longest single processing, including ones still running. */
  longestProcessingMs: number;
}

interface Waiter<K> {
  resolve(result: GetResult<K>): void;
  reject(reason: unknown): void;
  cleanup(): void;
}

/** FIFO of keys: an array with a moving head, compacted when the head passes half the array. */
class Fifo<K> {
  #items: K[] = [];
  #head = 0;
  get length(): number {
    return this.#items.length - this.#head;
  }
  push(key: K): void {
    this.#items.push(key);
  }
  shift(): K | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const key = this.#items[this.#head++];
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return key;
  }
  *[Symbol.iterator](): IterableIterator<K> {
    for (let i = this.#head; i < this.#items.length; i++) yield this.#items[i]!;
  }
}

export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

export class WorkQueue<K = string> {
  protected readonly clock: Clock;
  readonly name: string;
  /** Keys waiting to be handed out, in order. Invariant: each is in #dirty and not in #processing. */
  #queue = new Fifo<K>();
  /** Keys that need processing: every key in #queue, plus held keys that were added again while held. */
  #dirty = new Set<K>();
  /** Keys held by a worker, with the time `get` handed them out. Invariant: disjoint from #queue. */
  #processing = new Map<K, number>();
  /** When each dirty key became dirty (for the wait metric). Same key set as #dirty. */
  #dirtySince = new Map<K, number>();
  /** Pending `get()` calls, served in call order. Invariant: non-empty only while #queue is empty. */
  #waiters: Waiter<K>[] = [];
  /** Pending `shutDownWithDrain()` calls, resolved when #processing empties. */
  #drainWaiters: Array<() => void> = [];
  #shuttingDown = false;
  protected counters = {
    adds: 0,
    retries: 0,
    processed: 0,
    longestWaitMs: 0,
    processingMs: 0,
    longestProcessingMs: 0,
  };

  constructor(options: WorkQueueOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.name = options.name ?? 'queue';
  }

  /** Marks `key` as needing processing. No-op after shutdown or when the key is already dirty. */
  add(key: K): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.counters.adds++;
    this.#dirty.add(key);
    this.#dirtySince.set(key, this.clock.now());
    if (this.#processing.has(key)) return; // queued again by done(key)
    this.#queue.push(key);
    this.#serve();
  }

  /**
   * Resolves with the next key (now marked processing), or `{ shutdown: true }` once the queue is shut down
   * and empty. Rejects with the signal's reason if `signal` aborts first (the waiter then takes no key).
   */
  get(signal?: AbortSignal): Promise<GetResult<K>> {
    if (this.#queue.length > 0) return Promise.resolve({ key: this.#take(), shutdown: false });
    if (this.#shuttingDown) return Promise.resolve({ key: undefined, shutdown: true });
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<GetResult<K>>((resolve, reject) => {
      // The workers of a run wait on one signal: they share one listener on it (common/signals.ts).
      const unhook = signal
        ? onAbort(signal, () => {
            const i = this.#waiters.indexOf(waiter);
            if (i >= 0) this.#waiters.splice(i, 1);
            reject(abortReason(signal));
          })
        : undefined;
      const waiter: Waiter<K> = { resolve, reject, cleanup: () => unhook?.() };
      this.#waiters.push(waiter);
    });
  }

  /** Ends processing of `key` (caller duty: once per key from `get`); requeues it if it was added meanwhile. */
  done(key: K): void {
    const started = this.#processing.get(key);
    if (started === undefined) return;
    this.#processing.delete(key);
    const took = this.clock.now() - started;
    this.counters.processed++;
    this.counters.processingMs += took;
    this.counters.longestProcessingMs = Math.max(this.counters.longestProcessingMs, took);
    if (this.#dirty.has(key)) {
      this.#queue.push(key);
      this.#serve();
    } else if (this.#processing.size === 0) {
      for (const resolve of this.#drainWaiters.splice(0)) resolve();
    }
  }

  /** Keys waiting to be handed out. */
  len(): number {
    return this.#queue.length;
  }

  /** Whether `key` is held by a worker now. */
  isProcessing(key: K): boolean {
    return this.#processing.has(key);
  }

  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Ignores further adds and wakes every waiting `get()` with `{ shutdown: true }`. Idempotent. */
  shutDown(): void {
    this.#shuttingDown = true;
    for (const w of this.#waiters.splice(0)) {
      w.cleanup();
      w.resolve({ key: undefined, shutdown: true });
    }
  }

  /**
   * Shuts down, then resolves once no key is being processed (workers must keep calling `done`). Rejects
   * with the signal's reason if `signal` aborts first; the queue stays shut down.
   */
  shutDownWithDrain(signal?: AbortSignal): Promise<void> {
    this.shutDown();
    if (this.#processing.size === 0) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.#drainWaiters.indexOf(done);
        if (i >= 0) this.#drainWaiters.splice(i, 1);
        reject(abortReason(signal!));
      };
      const done = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#drainWaiters.push(done);
    });
  }

  metrics(): QueueMetrics {
    const now = this.clock.now();
    let longestWaitMs = this.counters.longestWaitMs;
    for (const key of this.#queue)
      longestWaitMs = Math.max(longestWaitMs, now - (this.#dirtySince.get(key) ?? now));
    let longestProcessingMs = this.counters.longestProcessingMs;
    for (const started of this.#processing.values())
      longestProcessingMs = Math.max(longestProcessingMs, now - started);
    return {
      name: this.name,
      adds: this.counters.adds,
      retries: this.counters.retries,
      depth: this.#queue.length,
      delayed: 0,
      processing: this.#processing.size,
      processed: this.counters.processed,
      longestWaitMs,
      processingMs: this.counters.processingMs,
      longestProcessingMs,
    };
  }

  /** Moves the head key from waiting to processing. Precondition: #queue is non-empty. */
  #take(): K {
    const key = this.#queue.shift() as K;
    const now = this.clock.now();
    this.#dirty.delete(key);
    const since = this.#dirtySince.get(key) ?? now;
    this.#dirtySince.delete(key);
    this.counters.longestWaitMs = Math.max(this.counters.longestWaitMs, now - since);
    this.#processing.set(key, now);
    return key;
  }

  /** Hands waiting keys to waiting workers (keys are marked processing synchronously, at hand-over). */
  #serve(): void {
    while (this.#waiters.length > 0 && this.#queue.length > 0) {
      const w = this.#waiters.shift()!;
      w.cleanup();
      w.resolve({ key: this.#take(), shutdown: false });
    }
  }
}
