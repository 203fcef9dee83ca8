/**
 * `RateLimitingQueue`: a `DelayingQueue` whose `addRateLimited(key)` waits as long as its rate limiter says
 * (client-go `rate_limiting_queue.go`). Call `forget(key)` when a key was processed successfully, so its
 * next failure starts from the base delay again; `numRequeues(key)` tells how often it was retried.
 */
import { DelayingQueue } from './delaying-queue.js';
import { defaultControllerRateLimiter } from './rate-limiters.js';
import type { RateLimiter } from './rate-limiters.js';
import type { WorkQueueOptions } from './queue.js';

export interface RateLimitingQueueOptions<K> extends WorkQueueOptions {
  /** Default: `defaultControllerRateLimiter(clock)`. */
  rateLimiter?: RateLimiter<K>;
}

export class RateLimitingQueue<K = string> extends DelayingQueue<K> {
  readonly rateLimiter: RateLimiter<K>;

  constructor(options: RateLimitingQueueOptions<K> = {}) {
    super(options);
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<K>(this.clock);
  }

  /** Adds `key` after the limiter's delay for it (counts as a retry). Ignored after shutdown. */
  addRateLimited(key: K): void {
    if (this.shuttingDown()) return;
    this.counters.retries++;
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** Stops tracking `key`'s failures (it does not remove the key from the queue). */
  forget(key: K): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.rateLimiter.numRequeues(key);
  }
}
