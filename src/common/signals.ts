/**
 * `linkedSignal(...sources)`: a signal that aborts when any source does (with that source's reason), and
 * `dispose()`, which unhooks it from every source. Use it instead of `AbortSignal.any` wherever a source
 * lives long (the continuous loop's refresh and operation signals, a live cache's stop signal) and the
 * linked signal is made per request, wait or watch.
 *
 * Why: on Node 20 every `AbortSignal.any([source, ...])` leaves a WeakRef in each source's set of
 * dependant signals that is never pruned while the source lives (Node 22 prunes it), and a dependant with
 * an 'abort' listener is held strongly until a source aborts. A loop that runs for days with one source
 * signal grew by about 100 bytes per API request (the request deadline joined the caller's signal), found
 * by the soak benchmark (bench/soak.bench.ts, a heap comparison of minute 1 and minute 3: WeakRef was the
 * one growing constructor). Here each link is a plain listener, removed by `dispose()`, so nothing stays on
 * the source once the request or wait is over. `dispose()` is idempotent; after it the linked signal no
 * longer follows the sources.
 */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  dispose(): void;
}

export function linkedSignal(...sources: Array<AbortSignal | undefined>): LinkedSignal {
  const ctl = new AbortController();
  const present = sources.filter((s): s is AbortSignal => s !== undefined);
  const aborted = present.find((s) => s.aborted);
  if (aborted) {
    ctl.abort(aborted.reason);
    return { signal: ctl.signal, dispose: () => undefined };
  }
  const hooked: Array<[AbortSignal, () => void]> = [];
  const dispose = (): void => {
    for (const [s, f] of hooked.splice(0)) s.removeEventListener('abort', f);
  };
  for (const s of present) {
    const onAbort = (): void => {
      dispose();
      ctl.abort(s.reason);
    };
    s.addEventListener('abort', onAbort, { once: true });
    hooked.push([s, onAbort]);
  }
  return { signal: ctl.signal, dispose };
}
