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
 * `DryRunMemo`: server-side diff's dry-run answers (the predicted live object), kept per live object while
 * its uid and resourceVersion, the target's digest, the cluster (its client) and that cluster's schemas are
 * the same: the answer of a dry run is a function of the stored object and the applied one, and of the
 * served schemas (defaults, a CRD changed during the run gives the cluster new ones); the admission chain
 * (webhooks, LimitRanges) is taken as unchanged while the process runs, as Argo CD's controller takes it when
 * it reuses a cached diff for an unchanged resourceVersion (util/argo/diff `diffArrayCached`). So a second
 * refresh of an unchanged object sends no request. Failed dry runs are not kept (tried again next time).
 * `compareObjects` copies the kept answer before normalizing it (src/diff/compare.ts), so reuse is safe.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../cluster/index.js';
import type { ResourceComparison } from '../diff/index.js';
import type { DryRunOutcome } from './server-side.js';

/** Entries kept at most (about 100 bytes each, plus the kept comparison). */
export const MAX_ENTRIES = 200_000;

interface Entry {
  resourceVersion: string;
  digest: string;
  schemas: object;
  result: ResourceComparison;
}

export class ComparisonMemo {
  readonly #entries = new Map<string, Entry>();
  hits = 0;
  misses = 0;

  /** The digest of `target` compared with `scope` (what `get` and `set` are given). */
  digest(target: KubeObject, scope: string): string {
    return createHash('sha1').update(scope).update('\0').update(JSON.stringify(target)).digest('base64');
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
    if (this.#entries.size >= MAX_ENTRIES && !this.#entries.has(uid)) this.#entries.clear();
    this.#entries.set(uid, { resourceVersion: rv, digest, schemas, result });
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** Dry-run answers of server-side diff, per live object (see the header). */
export class DryRunMemo {
  readonly #entries = new Map<
    string,
    { resourceVersion: string; digest: string; cluster: object; schemas: object; outcome: DryRunOutcome }
  >();
  /** Answers reused, and dry runs sent for want of one, since the memo was made. */
  hits = 0;
  misses = 0;

  /** The digest of a target (what `get` and `set` are given). */
  digest(target: KubeObject): string {
    return createHash('sha1').update(JSON.stringify(target)).digest('base64');
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
    if (this.#entries.size >= MAX_ENTRIES && !this.#entries.has(uid)) this.#entries.clear();
    this.#entries.set(uid, { resourceVersion: rv, digest, cluster, schemas, outcome });
  }

  get size(): number {
    return this.#entries.size;
  }
}
