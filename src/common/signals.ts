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
 * one growing constructor). Here the links of one source share one plain listener on it (however many
 * requests or waits are linked at once), removed with the last link's `dispose()`, so nothing stays on the
 * source once the requests and waits are over. `dispose()` is idempotent; after it the linked signal no
 * longer follows the sources.
 */
export interface LinkedSignal {
  readonly signal: AbortSignal;
  dispose(): void;
}

/**
 * The links hooked on each source: one 'abort' listener per source however many links it has (a sync's
 * parallel dry runs each link the operation's signal: one listener each made Node warn,
 * MaxListenersExceededWarning, 11 abort listeners, issue 34), added with the first link and removed with
 * the last, so nothing stays on a long-lived source either.
 */
const hubs = new WeakMap<AbortSignal, { links: Set<() => void>; onAbort: () => void }>();

/**
 * Calls `fn` once when `source` aborts; returns the unhook (idempotent). Every caller of one source shares
 * its one listener (above): use it for waits and requests that may be many at once on one signal.
 */
export function onAbort(source: AbortSignal, fn: () => void): () => void {
  return hook(source, fn);
}

function hook(source: AbortSignal, link: () => void): () => void {
  let hub = hubs.get(source);
  if (!hub) {
    const links = new Set<() => void>();
    const onAbort = (): void => {
      hubs.delete(source);
      for (const l of [...links]) l();
    };
    hub = { links, onAbort };
    hubs.set(source, hub);
    source.addEventListener('abort', onAbort, { once: true });
  }
  hub.links.add(link);
  const h = hub;
  return () => {
    if (!h.links.delete(link) || h.links.size > 0 || hubs.get(source) !== h) return;
    hubs.delete(source);
    source.removeEventListener('abort', h.onAbort);
  };
}

export function linkedSignal(...sources: Array<AbortSignal | undefined>): LinkedSignal {
  const ctl = new AbortController();
  const present = sources.filter((s): s is AbortSignal => s !== undefined);
  const aborted = present.find((s) => s.aborted);
  if (aborted) {
    ctl.abort(aborted.reason);
    return { signal: ctl.signal, dispose: () => undefined };
  }
  const unhooks: Array<() => void> = [];
  const dispose = (): void => {
    for (const unhook of unhooks.splice(0)) unhook();
  };
  for (const s of present) {
    unhooks.push(
      hook(s, () => {
        dispose();
        ctl.abort(s.reason);
      }),
    );
  }
  return { signal: ctl.signal, dispose };
}
