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
  watchTimeoutSeconds: number | undefined;
  /** A watch with no event and no BOOKMARK for this long is stalled: it is dropped and the scope relisted. */
  watchIdleMs: number;
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
