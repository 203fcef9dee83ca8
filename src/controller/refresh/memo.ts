/**
 * `ComparisonMemo`: comparisons of this process kept for reuse (issue 23, "cheap signals first"), as a
 * long-running controller compares the same unchanged objects over and over (the refresh after a sync, the
 * waits for health, every periodic refresh). A comparison is reused only when nothing it read has changed:
 * - the live object: same uid and resourceVersion (the API server bumps it on every write, status included);
 * - the target and the options: the same digest of the target's JSON text and the caller's `scope` string
 *   (the app's ignore rules, diff strategy and every setting the comparison reads), and the same schema
 *   lookup object (a CRD created or changed during the run gives the cluster a new one).
 * Used by runs that compare apps more than once (`StateManagerOptions.reuseComparisons`: sync). Only
 * Synced comparisons are kept (the common case; a difference is compared again, which is cheap next
 * to printing it). Server-side diff comparisons are never kept (their input is a dry-run answer). The
 * memo is bounded (`MAX_ENTRIES`): past it, it starts again empty.
 *
 * Both memos forget what is not used (`AgedMap`): an entry neither read nor written for `agePeriodMs`
 * (default 10 minutes, over twice Argo CD's default resync of 3 minutes + 1 minute jitter, so every live
 * object of a running loop is read again well within it) is dropped by `2 * agePeriodMs` at the latest.
 * Entries are keyed by uid, and a deleted object's uid never comes back: without this a continuous loop
 * kept the comparison (both normalized objects, a few KB) of every object deleted since it started, up to
 * `MAX_ENTRIES` (the soak benchmark, bench/soak.bench.ts, deletes objects that self-heal creates again).
 *
 * `DryRunMemo`: server-side diff's dry-run answers (the predicted live object), kept per live object while
 * its uid and resourceVersion, the target's digest, the cluster (its client) and that cluster's schemas are
 * the same: the answer of a dry run is a function of the stored object and the applied one, and of the
 * served schemas (defaults, a CRD changed during the run gives the cluster new ones); the admission chain
 * (webhooks, LimitRanges) is taken as unchanged while the process runs, as Argo CD's controller takes it when
 * it reuses a cached diff for an unchanged resourceVersion (util/argo/diff `diffArrayCached`). So a second
 * refresh of an unchanged object sends no request. Failed dry runs are not kept (tried again next time).
 * `compareObjects` copies the kept answer before normalizing it (src/diff/compare.ts), so reuse is safe.
 */
import { hash } from 'node:crypto';
import type { KubeObject } from '../../cluster/index.js';
import type { ResourceComparison } from '../../diff/index.js';
import type { DryRunOutcome } from './server-side.js';

/** Entries kept at most (about 100 bytes each, plus the kept comparison). */
export const MAX_ENTRIES = 200_000;
/** An entry unused this long is dropped within as long again (see the header). */
export const DEFAULT_AGE_PERIOD_MS = 10 * 60_000;

export interface MemoOptions {
  /** Default `DEFAULT_AGE_PERIOD_MS`. */
  agePeriodMs?: number;
  /** Milliseconds now (tests: a fake clock). Default `Date.now`. */
  now?: () => number;
}

/**
 * A map whose entries unused (neither `get` nor `set`) for a period are dropped: two generations, the
 * young one written and read, the old one read only (a hit moves back to young); when a period has passed
 * (checked on each call: no timer), young becomes old and the old is let go. Bounded by `MAX_ENTRIES`.
 */
export class AgedMap<V> {
  #young = new Map<string, V>();
  #old = new Map<string, V>();
  #since: number;
  readonly #period: number;
  readonly #now: () => number;

  constructor(options: MemoOptions = {}) {
    this.#period = options.agePeriodMs ?? DEFAULT_AGE_PERIOD_MS;
    this.#now = options.now ?? Date.now;
    this.#since = this.#now();
  }

  get(key: string): V | undefined {
    this.#age();
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old !== undefined) {
      this.#old.delete(key);
      this.#young.set(key, old);
    }
    return old;
  }

  set(key: string, value: V): void {
    this.#age();
    this.#old.delete(key);
    if (this.size >= MAX_ENTRIES && !this.#young.has(key)) {
      this.#young.clear();
      this.#old.clear();
    }
    this.#young.set(key, value);
  }

  delete(key: string): void {
    this.#young.delete(key);
    this.#old.delete(key);
  }

  get size(): number {
    return this.#young.size + this.#old.size;
  }

  #age(): void {
    const now = this.#now();
    if (now - this.#since < this.#period) return;
    // Two periods or more without a call: nothing was used since the last turn, the young go too.
    this.#old = now - this.#since >= 2 * this.#period ? new Map() : this.#young;
    this.#young = new Map();
    this.#since = now;
  }
}

interface Entry {
  resourceVersion: string;
  digest: string;
  schemas: object;
  result: ResourceComparison;
}

export class ComparisonMemo {
  readonly #entries: AgedMap<Entry>;
  hits = 0;
  misses = 0;

  constructor(options: MemoOptions = {}) {
    this.#entries = new AgedMap(options);
  }

  /** The digest of `target` compared with `scope` (what `get` and `set` are given). */
  digest(target: KubeObject, scope: string): string {
    return hash('sha1', `${scope}\0${JSON.stringify(target)}`, 'base64');
  }

  /** The kept comparison of `live` when its resourceVersion, the digest and the schemas are the same. */
  get(live: KubeObject, digest: string, schemas: object): ResourceComparison | undefined {
    const uid = live.metadata?.uid;
    const rv = live.metadata?.resourceVersion;
    const e = uid && rv ? this.#entries.get(uid) : undefined;
    if (e && e.resourceVersion === rv && e.digest === digest && e.schemas === schemas) {
      this.hits++;
      return e.result;
    }
    this.misses++;
    return undefined;
  }

  /** Keeps a Synced comparison of `live`; anything else forgets what was kept for it. */
  set(live: KubeObject, digest: string, schemas: object, result: ResourceComparison): void {
    const uid = live.metadata?.uid;
    const rv = live.metadata?.resourceVersion;
    if (!uid || !rv) return;
    if (result.status !== 'Synced') {
      this.#entries.delete(uid);
      return;
    }
    this.#entries.set(uid, { resourceVersion: rv, digest, schemas, result });
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** Dry-run answers of server-side diff, per live object (see the header). */
export class DryRunMemo {
  readonly #entries: AgedMap<{
    resourceVersion: string;
    digest: string;
    cluster: object;
    schemas: object;
    outcome: DryRunOutcome;
  }>;
  /** Answers reused, and dry runs sent for want of one, since the memo was made. */
  hits = 0;
  misses = 0;

  constructor(options: MemoOptions = {}) {
    this.#entries = new AgedMap(options);
  }

  /** The digest of a target (what `get` and `set` are given). */
  digest(target: KubeObject): string {
    return hash('sha1', JSON.stringify(target), 'base64');
  }

  /**
   * The kept answer for `live` when its uid and resourceVersion, the target's digest, the cluster (its
   * client) and that cluster's schemas are the ones it was kept with.
   */
  get(live: KubeObject, digest: string, cluster: object, schemas: object): DryRunOutcome | undefined {
    const uid = live.metadata?.uid;
    const e = uid ? this.#entries.get(uid) : undefined;
    if (
      e &&
      e.resourceVersion === live.metadata?.resourceVersion &&
      e.digest === digest &&
      e.cluster === cluster &&
      e.schemas === schemas
    ) {
      this.hits++;
      return e.outcome;
    }
    this.misses++;
    return undefined;
  }

  /** Keeps a successful answer; a failed one forgets what was kept for `live` (tried again next time). */
  set(live: KubeObject, digest: string, cluster: object, schemas: object, outcome: DryRunOutcome): void {
    const uid = live.metadata?.uid;
    const rv = live.metadata?.resourceVersion;
    if (!uid || !rv) return;
    if (!('predicted' in outcome)) {
      this.#entries.delete(uid);
      return;
    }
    this.#entries.set(uid, { resourceVersion: rv, digest, cluster, schemas, outcome });
  }

  get size(): number {
    return this.#entries.size;
  }
}
