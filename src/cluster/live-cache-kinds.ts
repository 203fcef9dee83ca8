/**
 * Kinds that come and go while the live cache runs (gitops-engine pkg/cache/cluster.go), for
 * `LiveStateCache` (live-cache.ts), which owns the scopes and hands them over as a `KindHost`.
 *
 * - `notServed(scope, err)`: a scope's list or watch answered 404 Not Found. Discovery is refreshed (memory
 *   and disk) first: when it no longer serves the kind at the scope's version (its CRD deleted, or a stale
 *   discovery cache named it), the kind is dropped; when it still does, the scope is listed and watched
 *   again, with a warning, up to `STRAY_404_LIMIT` times in a run before the kind is dropped all the same.
 *   Without discovery, or when it cannot be read, the kind is dropped at once. Every other kind goes on.
 * - `dropKind(gk, reason)`: its lists and watches stop (`kindSignal` aborts), its objects leave the store
 *   with DELETED events, discovery is refreshed, and `onKindChange` subscribers hear of it (`emitKind`
 *   also tells them of kinds added). Waits on a lost watch of the kind are woken (`notifyLost`).
 * - `kindsSettled()`: resolves once the discovery refreshes and relists these started are done.
 * Subscribers that throw are reported through `onWarning`, never stop the others.
 */
import { setMaxListeners } from 'node:events';
import { isNotFound } from './errors.js';
import { listScope } from './live-cache-list.js';
import type { LiveCacheOptions } from './live-cache-options.js';
import type { LoopContext, Scope } from './live-cache-scope.js';
import type { LiveStore } from './live-cache-store.js';
import { watchScope } from './live-cache-watch.js';
import { sleep } from './sleep.js';
import { groupKind } from './types.js';
import type { ResourceInfo } from './types.js';
import type { Discovery } from './discovery.js';
import { oneLine } from '../common/index.js';

/** A kind the cache started or stopped holding after `start`. */
export interface KindChange {
  type: 'added' | 'dropped';
  group: string;
  kind: string;
  /** Why a kind was dropped (one line). */
  reason?: string;
}

/** 404s on a scope that discovery contradicts before its kind is dropped anyway (see `notServed`). */
export const STRAY_404_LIMIT = 3;

/** The live cache's parts a `KindLifecycle` reads and changes. */
export interface KindHost {
  /** The cache's scopes by id (dropped kinds' scopes are removed from it). */
  scopes: Map<string, Scope>;
  store: LiveStore;
  ctx: LoopContext;
  /** Aborts when the cache stops. */
  signal: AbortSignal;
  /** Where restarted scopes' watch loops are kept (the cache's `stopped()` waits for them). */
  watches: Promise<void>[];
  options: Pick<LiveCacheOptions, 'discovery' | 'onWarning' | 'watch'>;
  /** Tells the cache's `onLostChange` subscribers. */
  notifyLost(): void;
}

export class KindLifecycle {
  readonly #host: KindHost;
  /** Per kind ("group/Kind"): aborts that kind's lists and watches when it is dropped. */
  readonly #kindAborts = new Map<string, AbortController>();
  readonly #kindHandlers = new Set<(change: KindChange) => void>();
  /** 404s per scope that discovery contradicted (the kind still served), this run. */
  readonly #stray404s = new Map<string, number>();
  /** Discovery refreshes started by dropped kinds, until they settle. */
  readonly #refreshes = new Set<Promise<void>>();

  constructor(host: KindHost) {
    this.#host = host;
  }

  /**
   * Stops holding a kind (see the header): ends its lists and watches, removes its objects (DELETED
   * events), refreshes discovery and tells `onKindChange` subscribers. False when the kind was not held.
   */
  dropKind(gk: { group: string; kind: string }, reason: string, opts: { refreshed?: boolean } = {}): boolean {
    const id = groupKind(gk);
    const scopes = [...this.#host.scopes.values()].filter(
      (s) => s.info.group === gk.group && s.info.kind === gk.kind,
    );
    if (scopes.length === 0) return false;
    for (const s of scopes) this.#host.scopes.delete(s.id);
    // Waits on a lost watch of this kind hear that it is gone too (`lost` no longer answers for it).
    if (scopes.some((s) => s.lost !== undefined)) this.#host.notifyLost();
    this.#kindAborts.get(id)?.abort(new Error(`${id}: dropped from the live cache`));
    this.#kindAborts.delete(id);
    this.#host.store.replace({ group: gk.group, kind: gk.kind }, []);
    this.#host.options.onWarning?.(`${id}: dropped from the live cache: ${reason}`);
    const discovery: Discovery | undefined = this.#host.options.discovery;
    if (discovery && !opts.refreshed && !this.#host.signal.aborted) {
      const refresh = discovery.refresh(this.#host.signal).then(
        () => undefined,
        (err: unknown) => {
          if (!this.#host.signal.aborted)
            this.#host.options.onWarning?.(
              `discovery: failed to refresh after dropping ${id}: ${oneLine(err)}`,
            );
        },
      );
      this.#refreshes.add(refresh);
      void refresh.finally(() => this.#refreshes.delete(refresh));
    }
    this.emitKind({ type: 'dropped', group: gk.group, kind: gk.kind, reason });
    return true;
  }

  /**
   * A scope's list or watch answered 404 Not Found. Discovery is asked again first (the order, and
   * gitops-engine's: its cache re-reads the API resources): when it no longer serves the kind at the
   * scope's version, the kind is dropped; when it still does, the 404 came from something else (a proxy,
   * a kind's storage being rebuilt), so the scope is listed and watched again, with a warning, up to
   * `STRAY_404_LIMIT` times in a run before the kind is dropped all the same. Without `discovery`, or when
   * discovery cannot be read, the kind is dropped at once.
   */
  notServed(scope: Scope, err: unknown): void {
    const reason = oneLine(err);
    const discovery: Discovery | undefined = this.#host.options.discovery;
    if (!discovery || this.#host.signal.aborted) {
      this.dropKind(scope.info, reason);
      return;
    }
    const { group, version, kind } = scope.info;
    const check = discovery.refresh(this.#host.signal).then(
      (all) => {
        if (this.#host.signal.aborted || this.#host.scopes.get(scope.id) !== scope) return;
        const served = all.some(
          (r) => r.group === group && r.kind === kind && r.version === version && r.verbs.includes('watch'),
        );
        const strayKey = `${version}:${scope.id}`;
        const strays = (this.#stray404s.get(strayKey) ?? 0) + 1;
        if (!served || strays > STRAY_404_LIMIT) {
          const why = served ? `${reason} (${strays} times, though discovery serves ${version})` : reason;
          this.dropKind(scope.info, why, { refreshed: true });
          return;
        }
        this.#stray404s.set(strayKey, strays);
        this.#host.ctx.onWarning(
          scope,
          `${reason}, yet discovery still serves ${version}; listing and watching again`,
        );
        return this.#restartScope(scope);
      },
      (refreshErr: unknown) => {
        if (this.#host.signal.aborted) return;
        this.#host.options.onWarning?.(
          `discovery: failed to refresh after a 404 on ${scope.id}: ${oneLine(refreshErr)}`,
        );
        this.dropKind(scope.info, reason, { refreshed: true });
      },
    );
    this.#refreshes.add(check);
    void check.finally(() => this.#refreshes.delete(check));
  }

  /**
   * Lists a scope again (after the reconnect delay), then watches it from that list. Resolves once the
   * list is done (so `kindsSettled`, and `start` through it, wait for it); the watch goes on.
   */
  #restartScope(scope: Scope): Promise<void> {
    const signal = this.kindSignal(scope.info);
    const listed = (async (): Promise<boolean> => {
      try {
        await sleep(this.#host.ctx.clock, this.#host.ctx.backoff.initialMs, signal);
        this.#host.ctx.stats.relists++;
        await listScope(this.#host.ctx, scope, signal);
      } catch (err) {
        if (signal.aborted) return false;
        if (isNotFound(err)) {
          this.notServed(scope, err);
          return false;
        }
        // The watch loop's own recovery takes over (a failed watch reconnects, a 410 relists).
        this.#host.ctx.onWarning(scope, `relist failed: ${oneLine(err)}`);
      }
      return true;
    })();
    this.#host.watches.push(
      listed.then((watch) =>
        watch && this.#host.options.watch !== false ? watchScope(this.#host.ctx, scope, signal) : undefined,
      ),
    );
    return listed.then(() => undefined);
  }

  /** Subscribes to kinds added (`addResources`) and dropped after start; returns the unsubscribe. */
  onKindChange(handler: (change: KindChange) => void): () => void {
    this.#kindHandlers.add(handler);
    return () => this.#kindHandlers.delete(handler);
  }

  /** Resolves once the discovery refreshes that dropped kinds started have settled. */
  async kindsSettled(): Promise<void> {
    while (this.#refreshes.size > 0) await Promise.all([...this.#refreshes]);
  }

  /** Tells every `onKindChange` subscriber of `change` (a throwing one is reported, the rest still hear). */
  emitKind(change: KindChange): void {
    for (const h of [...this.#kindHandlers]) {
      try {
        h(change);
      } catch (err) {
        this.#host.options.onWarning?.(
          `live cache kind subscriber failed on ${change.type} ${groupKind(change)}: ${oneLine(err)}`,
        );
      }
    }
  }

  /** The signal of a kind's lists and watches: aborts when the cache stops or the kind is dropped. */
  kindSignal(info: ResourceInfo): AbortSignal {
    const id = groupKind(info);
    let ctl = this.#kindAborts.get(id);
    if (!ctl) {
      ctl = new AbortController();
      setMaxListeners(0, ctl.signal);
      this.#kindAborts.set(id, ctl);
    }
    return AbortSignal.any([this.#host.signal, ctl.signal]);
  }
}
