/**
 * Watch streams: chunked HTTP responses of newline-delimited JSON events `{type, object}`.
 *
 * Guarantees (as the real server):
 * - No resourceVersion (or "0"): synthetic ADDED events for every matching object, then changes.
 *   With `sendInitialEvents=true` and bookmarks allowed, a BOOKMARK annotated
 *   `k8s.io/initial-events-end: "true"` follows the initial events.
 * - A resourceVersion: every change after it, in order, then live changes; if changes after it have left the
 *   history window, one ERROR event carrying a 410 Expired Status, then the stream ends.
 * - Selector transitions: an object that starts matching is ADDED, one that stops matching is DELETED.
 * - `allowWatchBookmarks=true`: BOOKMARK events (object carries only kind, apiVersion and
 *   metadata.resourceVersion) every `bookmarkIntervalMs`, and one 2 s before `timeoutSeconds` ends the
 *   stream (when that is more than 2 s away), as the apiserver's cacher does.
 * - The 410 message is the watch cache's: `too old resource version: <asked> (<oldest retained - 1>)`.
 * - `timeoutSeconds` ends the stream cleanly; `close()` of the server ends every stream.
 * - A watch of a custom resource ends cleanly when its CustomResourceDefinition is removed (after the
 *   DELETED events of its objects), as apiextensions-apiserver's crdHandler tears down the kind's storage
 *   and with it every watch (customresource_handler.go removeDeadStorage); reopening it answers 404.
 *   The same happens when the CRD's spec or accepted names change (crdHandler
 *   updateCustomResourceDefinition -> removeStorage_locked: the storage is rebuilt from the new spec), so
 *   a client watches the new definition (e.g. a version no longer served answers 404); an update that
 *   changes neither (labels, annotations, conditions) leaves the watches open.
 */
import type { ServerResponse } from 'node:http';
import type { ApiCore, RequestContext } from './api.js';
import type { FaultInjector, WatchControl } from './faults.js';
import type { Selector } from './selectors.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { StoreEvent } from './store.js';
import type { KObject, WatchEventType } from './types.js';
import { CRD_GROUP, CRD_PLURAL } from './resources.js';
import { isDeepStrictEqual } from 'node:util';
import { apiVersionOf, typeKey } from './types.js';

export interface WatchHubOptions {
  /** Interval between BOOKMARK events on watches that allow them. */
  bookmarkIntervalMs: number;
}

interface Conn {
  res: ServerResponse;
  stop: () => void;
}

/** Renders an event's object for the response (Table rows for kubectl, plain objects otherwise). */
export type EventRenderer = (type: WatchEventType, obj: KObject) => unknown;

export class WatchHub implements WatchControl {
  private readonly conns = new Set<Conn>();

  constructor(
    private readonly core: ApiCore,
    private readonly faults: FaultInjector,
    private readonly opts: WatchHubOptions,
  ) {}

  get open(): number {
    return this.conns.size;
  }

  serve(ctx: RequestContext, res: ServerResponse, render: EventRenderer): void {
    const q = ctx.query;
    const store = this.core.store;
    const tkey = typeKey(ctx.type);
    const labels = parseLabelSelector(q.get('labelSelector'));
    const fields = parseFieldSelector(q.get('fieldSelector'), ctx.type.kind);
    const ns = ctx.namespace;
    const match: Selector = (o) => (!ns || o.metadata.namespace === ns) && labels(o) && fields(o);
    const rvParam = q.get('resourceVersion') ?? '';
    const bookmarks = q.get('allowWatchBookmarks') === 'true' || q.get('allowWatchBookmarks') === '1';
    const timeoutSeconds = Number(q.get('timeoutSeconds') ?? 0);

    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    const send = (type: WatchEventType, obj: KObject): void => {
      if (!res.writableEnded) res.write(`${JSON.stringify({ type, object: render(type, obj) })}\n`);
    };
    const bookmark = (initialEnd = false): void => {
      const obj: KObject = {
        kind: ctx.type.kind,
        apiVersion: apiVersionOf(ctx.type.group, ctx.version),
        metadata: { resourceVersion: String(store.resourceVersion) },
      };
      if (initialEnd) obj.metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
      send('BOOKMARK', obj);
    };
    const fromRv = rvParam === '' || rvParam === '0' ? undefined : Number(rvParam);
    const history = fromRv === undefined ? [] : store.eventsSince(Number.isNaN(fromRv) ? -1 : fromRv);
    if (this.faults.takeForcedGone() || history === 'expired') {
      send('ERROR', this.goneStatus(fromRv ?? 0) as unknown as KObject);
      res.end();
      return;
    }

    const translate = (e: StoreEvent): void => {
      if (e.tkey !== tkey) return;
      const now = match(e.obj);
      if (e.type === 'MODIFIED') {
        const before = e.prev ? match(e.prev) : false;
        if (before && now) send('MODIFIED', this.core.render(e.obj, ctx.type, ctx.version));
        else if (now) send('ADDED', this.core.render(e.obj, ctx.type, ctx.version));
        else if (before) send('DELETED', this.core.render(e.obj, ctx.type, ctx.version));
      } else if (now) send(e.type, this.core.render(e.obj, ctx.type, ctx.version));
    };

    if (fromRv === undefined) {
      for (const obj of this.core.select(ctx)) send('ADDED', this.core.render(obj, ctx.type, ctx.version));
      if (q.get('sendInitialEvents') === 'true' && bookmarks) bookmark(true);
    } else {
      for (const e of history) translate(e);
    }
    const crdKey = typeKey({ group: CRD_GROUP, plural: CRD_PLURAL });
    const unsubscribe = store.subscribe((e) => {
      if (
        ctx.type.crd &&
        e.tkey === crdKey &&
        e.obj.metadata.name === ctx.type.crd &&
        (e.type === 'DELETED' || (e.type === 'MODIFIED' && storageChanged(e.prev, e.obj)))
      ) {
        conn.stop(); // the kind's storage is gone (or rebuilt): end the stream
        res.end();
        return;
      }
      translate(e);
    });
    const timers: NodeJS.Timeout[] = [];
    if (bookmarks) timers.push(setInterval(() => bookmark(), this.opts.bookmarkIntervalMs));
    const conn: Conn = {
      res,
      stop: () => {
        unsubscribe();
        for (const t of timers) clearInterval(t);
        this.conns.delete(conn);
      },
    };
    // The cacher also sends a bookmark 2 s before the watch's deadline, so a client that reconnects resumes
    // from a recent resourceVersion (k8s.io/apiserver storage/cacher cache_watcher.go nextBookmarkTime).
    if (bookmarks && timeoutSeconds > 2)
      timers.push(setTimeout(() => bookmark(), (timeoutSeconds - 2) * 1000));
    if (timeoutSeconds > 0) {
      timers.push(
        setTimeout(() => {
          conn.stop();
          res.end();
        }, timeoutSeconds * 1000),
      );
    }
    this.conns.add(conn);
    res.on('close', conn.stop);
  }

  private goneStatus(rv: number): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      // The watch cache's form (k8s.io/apiserver storage/cacher watch_cache.go getAllEventsSinceLocked):
      // the second number is the oldest retained event's resourceVersion minus one.
      message: `too old resource version: ${rv} (${this.core.store.compactedRv})`,
      reason: 'Expired',
      code: 410,
    };
  }

  dropAll(): number {
    const n = this.conns.size;
    for (const c of [...this.conns]) {
      c.stop();
      c.res.destroy();
    }
    return n;
  }

  expireAll(): number {
    this.core.store.compact();
    const n = this.conns.size;
    for (const c of [...this.conns]) {
      c.stop();
      c.res.write(
        `${JSON.stringify({ type: 'ERROR', object: this.goneStatus(this.core.store.resourceVersion - 1) })}\n`,
      );
      c.res.end();
    }
    return n;
  }

  /** Ends every stream cleanly (server shutdown). */
  closeAll(): void {
    for (const c of [...this.conns]) {
      c.stop();
      c.res.end();
    }
  }
}

/**
 * Whether a CRD update makes crdHandler rebuild the kind's storage: its spec or its accepted names
 * changed (customresource_handler.go updateCustomResourceDefinition compares exactly these two).
 */
function storageChanged(before: KObject | undefined, after: KObject): boolean {
  if (!before) return true;
  const names = (o: KObject): unknown =>
    (o['status'] as { acceptedNames?: unknown } | undefined)?.acceptedNames;
  return !isDeepStrictEqual(before['spec'], after['spec']) || !isDeepStrictEqual(names(before), names(after));
}
