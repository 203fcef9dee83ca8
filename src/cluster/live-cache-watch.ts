/**
 * The watch half of the live cache: one loop per scope that keeps the store current until aborted.
 *
 * - Every watch asks the server to end it after `timeoutSeconds` (default client-go's random 5 to 10
 *   minutes, live-cache-scope.ts `watchTimeoutOf`), then the loop watches again from the last seen
 *   resourceVersion (list, event or BOOKMARK): a dropped connection or a server-side timeout loses no
 *   events and costs no list. A quiet kind's watch is healthy: only 410, an error or a stall relists.
 * - `410 Gone` (at open, or as an ERROR event) means the resourceVersion is too old: relist the scope
 *   (deleting what vanished meanwhile) and watch from the new list.
 * - Other failures reconnect after an exponential backoff (initial..max, reset once a connection delivered
 *   events). A stream that ends cleanly (server timeout, dropped connection) reconnects at once, unless it
 *   and the previous one both ended early (before their timeoutSeconds and within `WATCH_LOST.ms`) without
 *   delivering anything: then it backs off too, so a server that keeps closing watches is not hammered (a
 *   quiet watch that lasted its timeout is not that).
 * - `404 Not Found` (at open, as an ERROR event, or on a relist) means the kind is no longer served (its
 *   CRD deleted: kube-apiserver ends the kind's watches when it tears down its storage, and answers 404
 *   for its paths from then on): the loop ends and reports it (`ctx.onGone`), as gitops-engine's
 *   cluster cache stops the watch of a kind whose list or watch is NotFound.
 * - A watch that fails to (re)open `WATCH_LOST.attempts` times in a row, over at least `WATCH_LOST.ms`, is
 *   lost: `scope.lost` says why (one warning, not one per attempt) and the loop keeps reconnecting; the
 *   next watch that delivers an event or BOOKMARK clears it (with a warning that it is back). A stream
 *   that ends within `WATCH_LOST.ms` having delivered nothing counts as a failed attempt. The first failure of a row is
 *   reported, the ones between it and the loss are not, so a dead server does not flood the terminal.
 * - A watch that delivers nothing (no event, no BOOKMARK) for `watchIdleMs` (default: its timeoutSeconds
 *   plus a minute), opening included, is stalled (a server or proxy holding the connection open without a
 *   word past the timeout it was asked for): it is dropped with a warning and the scope goes through the 410
 *   path (relist, then watch from the new list), so nothing missed meanwhile stays missed.
 */
import { ApiError, isGone, isNotFound } from './errors.js';
import { listScope } from './live-cache-list.js';
import { inScope } from './live-cache-scope.js';
import { WATCH_LOST, WATCH_TIMEOUT_GRACE_MS, watchTimeoutOf } from './live-cache-scope.js';
import type { LoopContext, Scope } from './live-cache-scope.js';
import { sleep } from './sleep.js';
import { linkedSignal, oneLine } from '../common/index.js';

export async function watchScope(ctx: LoopContext, scope: Scope, signal: AbortSignal): Promise<void> {
  let failures = 0;
  /** Streams in a row that ended cleanly without delivering an event. */
  let quietEnds = 0;
  // Failed attempts in a row, kept on the scope so a restarted loop (src/cluster/live-cache.ts
  // #restartScope) goes on counting.
  const down = (scope.down ??= { attempts: 0, since: 0 });
  const failed = (message: string, started: number, quiet = false): void => {
    if (down.attempts++ === 0) {
      down.since = started;
      if (!quiet) ctx.onWarning(scope, `${message}; reconnecting`);
    }
    const forMs = ctx.clock.now() - down.since;
    if (scope.lost === undefined && down.attempts >= WATCH_LOST.attempts && forMs >= WATCH_LOST.ms) {
      scope.lost = `watch failed ${down.attempts} times in a row over ${Math.round(forMs / 1000)}s (last: ${message})`;
      ctx.onWarning(scope, `${scope.lost}; live state of this kind is not followed until it opens again`);
      ctx.onLostChange(scope);
    }
  };
  const opened = (): void => {
    if (scope.lost !== undefined) {
      scope.lost = undefined;
      ctx.onWarning(scope, `watch open again after ${Math.round((ctx.clock.now() - down.since) / 1000)}s`);
      ctx.onLostChange(scope);
    }
    down.attempts = 0;
  };
  while (!signal.aborted) {
    let delivered = false;
    const timeoutSeconds = watchTimeoutOf(ctx);
    const idleMs = ctx.watchIdleMs ?? timeoutSeconds * 1000 + WATCH_TIMEOUT_GRACE_MS;
    const idle = idleTimer(ctx, idleMs, signal);
    const started = ctx.clock.now();
    try {
      const events = await ctx.client.watch(scope.info, {
        namespace: scope.namespace,
        labelSelector: scope.labelSelector,
        resourceVersion: scope.resourceVersion,
        timeoutSeconds,
        signal: idle.signal,
      });
      ctx.stats.watchesOpened++;
      for await (const event of events) {
        idle.reset();
        delivered = true;
        const obj = event.object;
        if (event.type === 'ERROR') {
          throw new ApiError(`${scope.id}`, 'watch', obj.code ?? 500, obj);
        }
        // Open for real once it delivers (an event or a BOOKMARK), not when its headers arrive: a server
        // that answers 200 and then fails at once must still count as failing.
        if (down.attempts > 0 || scope.lost !== undefined) opened();
        const rv = obj.metadata?.resourceVersion;
        if (event.type === 'ADDED' || event.type === 'MODIFIED') {
          if (inScope(scope, obj)) ctx.store.upsert(scope.transform(obj));
        } else if (event.type === 'DELETED') {
          ctx.store.remove(obj);
        }
        if (rv) scope.resourceVersion = rv;
      }
      if (signal.aborted) return;
      if (idle.fired()) throw new Error('watch stalled'); // the stream was cut by the idle limit
      ctx.stats.reconnects++;
      // A stream that ended at once with nothing delivered (a server or proxy that accepts watches and
      // closes them) counts towards the loss too, without a warning of its own. A quiet stream that lasted
      // (an idle-timeout cut) does not.
      // Lasted: the server ended it at the timeout asked for (or it lived long enough not to be a refusal).
      const elapsed = ctx.clock.now() - started;
      const lasted = elapsed >= Math.min(timeoutSeconds * 1000, WATCH_LOST.ms);
      if (!delivered && !lasted) failed('watch ended at once without an event', started, true);
      // A quiet watch that lasted (its timeoutSeconds ended it) is healthy: watched again at once.
      if (delivered || lasted || quietEnds++ === 0) {
        if (delivered || lasted) quietEnds = 0;
        failures = 0;
        continue;
      }
      failures++;
    } catch (err) {
      if (signal.aborted) return;
      if (isNotFound(err)) {
        ctx.onGone(scope, err);
        return;
      }
      const stalled = idle.fired();
      if (stalled || isGone(err)) {
        ctx.stats.relists++;
        ctx.onWarning(
          scope,
          stalled
            ? `watch stalled: no event or bookmark for ${idleMs / 1000}s; relisting`
            : 'watch resourceVersion expired (410 Gone); relisting',
        );
        try {
          await listScope(ctx, scope, signal);
          failures = 0;
          continue;
        } catch (listErr) {
          if (signal.aborted) return;
          if (isNotFound(listErr)) {
            ctx.onGone(scope, listErr);
            return;
          }
          failed(`relist failed: ${oneLine(listErr)}`, started);
        }
      } else {
        ctx.stats.watchErrors++;
        ctx.stats.reconnects++;
        failed(`watch failed: ${oneLine(err)}`, started);
      }
      if (delivered) quietEnds = 0;
      failures = delivered ? 1 : failures + 1;
    } finally {
      idle.stop();
    }
    const delay = Math.min(ctx.backoff.maxMs, ctx.backoff.initialMs * 2 ** Math.max(0, failures - 1));
    try {
      await sleep(ctx.clock, delay, signal);
    } catch {
      return; // aborted
    }
  }
}

/** The idle limit of one watch: its signal aborts when `reset` was not called for `ms` (0: never). */
function idleTimer(
  ctx: LoopContext,
  ms: number,
  signal: AbortSignal,
): { signal: AbortSignal; reset(): void; stop(): void; fired(): boolean } {
  if (!(ms > 0)) return { signal, reset: () => undefined, stop: () => undefined, fired: () => false };
  const idle = new AbortController();
  let handle = ctx.clock.setTimeout(() => idle.abort(new Error('watch idle')), ms);
  // Not AbortSignal.any: `signal` lives as long as the cache (one watch after another; common/signals.ts).
  const linked = linkedSignal(signal, idle.signal);
  return {
    signal: linked.signal,
    reset() {
      ctx.clock.clearTimeout(handle);
      handle = ctx.clock.setTimeout(() => idle.abort(new Error('watch idle')), ms);
    },
    stop: () => {
      ctx.clock.clearTimeout(handle);
      linked.dispose();
    },
    fired: () => idle.signal.aborted,
  };
}
