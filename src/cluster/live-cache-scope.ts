/**
 * What one list+watch of the live cache covers (a "scope"), and the context its loops share.
 * A scope is one resource type in one namespace (server-side `namespace`), or cluster-wide; a cluster-wide
 * scope standing in for several namespaces filters them on the client (`namespaces`).
 */
import type { KubeClient } from './client.js';
import type { LiveStore } from './live-cache-store.js';
import type { Transform } from './transform.js';
import type { KubeObject, ResourceInfo } from './types.js';
import type { Clock } from '../queue/index.js';

export interface Scope {
  /** "group/Kind@namespace" ("@*" for cluster-wide). */
  id: string;
  info: ResourceInfo;
  /** Namespace sent to the server; undefined for cluster-wide requests. */
  namespace: string | undefined;
  /** Client-side namespace filter of a cluster-wide scope; undefined keeps every object. */
  namespaces: ReadonlySet<string> | undefined;
  labelSelector: string | undefined;
  transform: Transform;
  /** resourceVersion the next watch resumes from. */
  resourceVersion: string;
  /**
   * Set while the scope's watch is lost (see `WATCH_LOST`): why, in one line. Cleared when a watch of
   * the scope opens again.
   */
  lost?: string | undefined;
  /** The watch loop's failed attempts in a row and when the first began (kept across restarts). */
  down?: { attempts: number; since: number };
}

/**
 * When a watch that fails to (re)open is lost: after this many failed attempts in a row, spanning at
 * least this long. Until then a failure is a passing problem (a restarted API server, a dropped proxy)
 * that a reconnect mends; from then on the cache cannot say what the kind looks like now, and waits
 * that depend on it fail instead of waiting forever (docs/timeouts.md).
 */
export const WATCH_LOST = { attempts: 3, ms: 10_000 };

/**
 * Watch timeouts as client-go's reflector sets them (tools/cache/reflector.go: `minWatchTimeout` 5 min,
 * `timeoutSeconds = minWatchTimeout * (1 + rand)`): each watch asks the server to end it after 5 to 10
 * minutes, the jitter spreading the re-watches of many kinds. A watch that ends so is resumed from the last
 * resourceVersion seen, never relisted: a real API server sends no BOOKMARK to a watch that has seen no
 * event, so silence alone says nothing about a watch's health.
 */
export const MIN_WATCH_TIMEOUT_SECONDS = 300;
/** How long past its own timeoutSeconds a silent watch may stay open before it counts as stalled. */
export const WATCH_TIMEOUT_GRACE_MS = 60_000;

/** timeoutSeconds of the next watch: the configured one, or client-go's random 5 to 10 minutes. */
export function watchTimeoutOf(ctx: Pick<LoopContext, 'watchTimeoutSeconds' | 'random'>): number {
  return ctx.watchTimeoutSeconds ?? Math.floor(MIN_WATCH_TIMEOUT_SECONDS * (1 + ctx.random()));
}

export interface LoopStats {
  lists: number;
  listPages: number;
  relists: number;
  watchesOpened: number;
  reconnects: number;
  watchErrors: number;
}

export interface LoopContext {
  client: KubeClient;
  store: LiveStore;
  clock: Clock;
  pageSize: number;
  backoff: { initialMs: number; maxMs: number };
  /** timeoutSeconds of every watch; undefined: client-go's, a random 5 to 10 minutes per watch. */
  watchTimeoutSeconds: number | undefined;
  /**
   * A watch with no event and no BOOKMARK for this long is stalled: it is dropped and the scope relisted.
   * undefined: the watch's timeoutSeconds plus `WATCH_TIMEOUT_GRACE_MS` (a healthy quiet watch is ended by
   * the server at its timeout first); 0: off.
   */
  watchIdleMs: number | undefined;
  /** Random number in [0, 1) (the watch timeout's jitter); injected by tests. */
  random: () => number;
  stats: LoopStats;
  /** Reports a problem that the loops recover from (reconnects, relists). */
  onWarning: (scope: Scope, message: string) => void;
  /**
   * The scope's list or watch answered 404 Not Found: its kind is no longer served (its CRD deleted).
   * The loop has ended; the cache drops the kind.
   */
  onGone: (scope: Scope, err: unknown) => void;
  /** The scope's watch was lost (`scope.lost` set) or opened again after being lost (cleared). */
  onLostChange: (scope: Scope) => void;
}

/** Whether `obj` belongs in `scope`: its namespace is the scope's, or passes the client-side filter. */
export function inScope(scope: Scope, obj: KubeObject): boolean {
  const ns = obj.metadata?.namespace ?? '';
  if (scope.namespace !== undefined) return ns === scope.namespace;
  return !scope.namespaces || scope.namespaces.has(ns);
}
