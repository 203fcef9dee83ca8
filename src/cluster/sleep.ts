/** Waits `ms` on `clock`; rejects with the signal's reason when `signal` aborts first. */
import type { Clock } from '../queue/index.js';

export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clock.clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
