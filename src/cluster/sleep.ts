/** Waits `ms` on `clock`; rejects with the signal's reason when `signal` aborts first. */
import { onAbort } from '../common/index.js';
import type { Clock } from '../queue/index.js';

export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    // One listener on the signal however many requests sleep on it at once (common/signals.ts).
    const unhook = signal
      ? onAbort(signal, () => {
          clock.clearTimeout(timer);
          reject(signal.reason);
        })
      : undefined;
    const timer = clock.setTimeout(() => {
      unhook?.();
      resolve();
    }, ms);
  });
}
