/**
 * The object store: objects per resource type in JS Maps, one global resourceVersion counter, and a
 * bounded window of recent change events that watches replay from.
 *
 * Guarantees:
 * - Every write (put/remove) takes the next resourceVersion; it is stamped on the stored (or, for DELETED,
 *   the returned) object, so resourceVersions of events are strictly increasing.
 * - Stored objects are replaced, never mutated: callers pass a fresh object and must not change it after.
 * - The event history keeps the last `historySize` events, and none older than the last `compactTo`
 *   (the server's periodic compaction, index.ts). `compactedRv` is the resourceVersion of the newest event
 *   that fell out of the window; a watch from an older resourceVersion is 410 Gone, and so is an exact
 *   LIST at one (`snapshot`).
 * - Listeners run synchronously after each write, in write order.
 */
import type { KObject } from './types.js';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  rv: number;
  type: ChangeType;
  /** Type key, e.g. "apps/deployments". */
  tkey: string;
  obj: KObject;
  /**
   * The object before a MODIFIED or DELETED change (watches use it to turn selector transitions into
   * ADDED/DELETED; exact LISTs to rebuild an older state).
   */
  prev?: KObject;
}

export type StoreListener = (e: StoreEvent) => void;

function objKey(ns: string | undefined, name: string): string {
  return `${ns ?? ''}/${name}`;
}

export class ObjectStore {
  private rv = 0;
  private readonly data = new Map<string, Map<string, KObject>>();
  private history: StoreEvent[] = [];
  private readonly listeners = new Set<StoreListener>();
  /** Invariant: every event with rv > compactedRv is still in `history`. */
  compactedRv = 0;

  constructor(private readonly historySize = 1000) {}

  get resourceVersion(): number {
    return this.rv;
  }

  get(tkey: string, ns: string | undefined, name: string): KObject | undefined {
    return this.data.get(tkey)?.get(objKey(ns, name));
  }

  /** Objects of a type (in one namespace, or all), sorted by namespace then name. */
  list(tkey: string, ns?: string): KObject[] {
    const m = this.data.get(tkey);
    if (!m) return [];
    const out: KObject[] = [];
    for (const o of m.values()) if (ns === undefined || o.metadata.namespace === ns) out.push(o);
    return out.sort((a, b) => compareKeys(a, b));
  }

  /** Objects of a type in no particular order (cheaper than `list` when order does not matter). */
  each(tkey: string): IterableIterator<KObject> {
    return (this.data.get(tkey) ?? new Map<string, KObject>()).values();
  }

  /** Whether any object of the type lives in the namespace. */
  hasIn(tkey: string, ns: string): boolean {
    for (const o of this.each(tkey)) if (o.metadata.namespace === ns) return true;
    return false;
  }

  count(tkey?: string): number {
    if (tkey !== undefined) return this.data.get(tkey)?.size ?? 0;
    let n = 0;
    for (const m of this.data.values()) n += m.size;
    return n;
  }

  typeKeys(): string[] {
    return [...this.data.keys()];
  }

  /** Stores `obj` (stamping the next resourceVersion) and emits ADDED or MODIFIED. */
  put(tkey: string, obj: KObject): KObject {
    const name = obj.metadata.name ?? '';
    let m = this.data.get(tkey);
    if (!m) this.data.set(tkey, (m = new Map()));
    const key = objKey(obj.metadata.namespace, name);
    const prev = m.get(key);
    obj.metadata.resourceVersion = String(++this.rv);
    m.set(key, obj);
    this.emit({ rv: this.rv, type: prev ? 'MODIFIED' : 'ADDED', tkey, obj, ...(prev ? { prev } : {}) });
    return obj;
  }

  /** Removes an object; the returned copy carries the deletion's resourceVersion. */
  remove(tkey: string, ns: string | undefined, name: string): KObject | undefined {
    const m = this.data.get(tkey);
    const key = objKey(ns, name);
    const prev = m?.get(key);
    if (!m || !prev) return undefined;
    m.delete(key);
    if (m.size === 0) this.data.delete(tkey);
    const obj = { ...prev, metadata: { ...prev.metadata, resourceVersion: String(++this.rv) } };
    this.emit({ rv: this.rv, type: 'DELETED', tkey, obj, prev });
    return obj;
  }

  /** Events after `rv` (oldest first), or 'expired' when some of them fell out of the window. */
  eventsSince(rv: number): StoreEvent[] | 'expired' {
    if (rv < this.compactedRv) return 'expired';
    let lo = 0;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.history[mid]!.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return this.history.slice(lo);
  }

  /** Drops the whole history: a watch from any resourceVersion before now is 410 Gone. */
  compact(): void {
    this.compactTo(this.rv);
  }

  /** Drops the events up to and including `rv` (etcd's compaction to a revision). */
  compactTo(rv: number): void {
    if (rv <= this.compactedRv) return;
    this.compactedRv = Math.min(rv, this.rv);
    const keep = this.history.findIndex((e) => e.rv > this.compactedRv);
    this.history = keep < 0 ? [] : this.history.slice(keep);
  }

  /**
   * The objects of a type (in one namespace, or all) as they were at resourceVersion `rv`, sorted as
   * `list`: the current objects with every later event of the type undone. 'expired' when events after
   * `rv` were compacted away; undefined when `rv` is newer than the store.
   */
  snapshot(tkey: string, rv: number, ns?: string): KObject[] | 'expired' | undefined {
    if (rv > this.rv) return undefined;
    const events = this.eventsSince(rv);
    if (events === 'expired') return 'expired';
    const objects = new Map<string, KObject>();
    for (const o of this.list(tkey, ns)) objects.set(objKey(o.metadata.namespace, o.metadata.name ?? ''), o);
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      if (e.tkey !== tkey || (ns !== undefined && e.obj.metadata.namespace !== ns)) continue;
      const key = objKey(e.obj.metadata.namespace, e.obj.metadata.name ?? '');
      if (e.type === 'ADDED') objects.delete(key);
      else if (e.prev) objects.set(key, e.prev);
    }
    return [...objects.values()].sort(compareKeys);
  }

  subscribe(fn: StoreListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** For `--data` files: every object, in type insertion order. */
  dump(): KObject[] {
    const out: KObject[] = [];
    for (const m of this.data.values()) out.push(...m.values());
    return out;
  }

  /** Stores an object as loaded from a `--data` file, keeping its resourceVersion (no event). */
  load(tkey: string, obj: KObject): void {
    let m = this.data.get(tkey);
    if (!m) this.data.set(tkey, (m = new Map()));
    m.set(objKey(obj.metadata.namespace, obj.metadata.name ?? ''), obj);
    this.rv = Math.max(this.rv, Number(obj.metadata.resourceVersion ?? 0) || 0);
  }

  /** Restores the counter after loading a `--data` file (events of the loaded state are not replayable). */
  restoreResourceVersion(rv: number): void {
    this.rv = Math.max(this.rv, rv);
    this.compact();
  }

  private emit(e: StoreEvent): void {
    this.history.push(e);
    if (this.history.length > this.historySize * 2) {
      const drop = this.history.length - this.historySize;
      this.compactedRv = this.history[drop - 1]!.rv;
      this.history = this.history.slice(drop);
    }
    for (const fn of this.listeners) fn(e);
  }
}

function compareKeys(a: KObject, b: KObject): number {
  const an = a.metadata.namespace ?? '';
  const bn = b.metadata.namespace ?? '';
  if (an !== bn) return an < bn ? -1 : 1;
  const x = a.metadata.name ?? '';
  const y = b.metadata.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}
