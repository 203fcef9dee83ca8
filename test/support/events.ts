/**
 * Records a component's events and lets a test wait for one: `until(match, from)` resolves with the first
 * event at index `from` or later that matches (already recorded, or when it comes).
 */
export interface EventRecorder<E> {
  events: E[];
  onEvent(e: E): void;
  until(match: (e: E) => boolean, from?: number): Promise<E>;
}

export function eventRecorder<E>(): EventRecorder<E> {
  const events: E[] = [];
  const waiters: Array<{ match: (e: E) => boolean; resolve: (e: E) => void; from: number }> = [];
  return {
    events,
    onEvent(e) {
      events.push(e);
      for (const w of [...waiters])
        if (events.length - 1 >= w.from && w.match(e)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(e);
        }
    },
    until(match, from = 0) {
      const seen = events.slice(from).find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match, resolve, from }));
    },
  };
}
