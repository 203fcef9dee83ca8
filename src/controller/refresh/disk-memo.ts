/**
 * The comparison memo on disk (issue 31): a CI job that runs `diff` (or `sync`) again with nothing new
 * skips the comparison of every unchanged pair. A verdict is a pure function of what the comparison reads:
 * the target (its JSON), the live object at its uid and resourceVersion (the API server bumps the
 * resourceVersion on every write, status included; a deleted and re-created object has a new uid), the
 * options (the caller's `scope`: the app's ignore rules, diff strategy, tracking, field managers, argocd-cm's
 * compare options), the cluster's schemas (`schemaDigest`: the CRDs' uids and resourceVersions and
 * knownTypeFields; the published schemas are part of our code) and our code (`stamp`).
 *
 * - What is kept: only pairs compared Synced with no difference and a valid target (the common case of an
 *   unchanged fleet). Their report row needs nothing of the comparison but its verdict: no changes, no diff
 *   text (report.ts builds those only for resources that differ), so a hit gives the same output as a
 *   comparison. Anything else is compared every time, and a pair whose comparison is no longer Synced
 *   forgets its entry. Server-side diff comparisons are never kept (their input is a dry-run answer).
 * - Key: sha256 of (sha256 of (format, salt, stamp, scope, schema digest), uid, resourceVersion, target
 *   JSON), 128 bits.
 *   The salt is random per memo file, so a key says nothing about a target (a Secret's values) without the
 *   file, which is owner-only.
 * - Where: `<cache>/comparisons/memo.json` beside the manifest cache; directory 0700, file 0600, written
 *   atomically (temp file + rename) once at the end of a run, only when something changed. A corrupt,
 *   unreadable or other-format file, or one written by other code (`stamp`: our modules' path, size and
 *   mtime, and the User-Agent with our version), is an empty memo, replaced by the next save.
 * - Bounded: at most `DISK_MEMO_MAX_ENTRIES` entries (about 60 bytes each on disk): the entries used or
 *   made by this run first, then the older ones, newest first.
 */
import { createHash, hash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../cluster/index.js';
import { userAgent } from '../../common/index.js';
import type { DiffStrategy, ResourceComparison } from '../../diff/index.js';
import { codeStamp } from '../../util/fs.js';

const FORMAT = 2;
export const DISK_MEMO_MAX_ENTRIES = 100_000;
const FILE = 'memo.json';

/** A kept verdict: Synced, no difference; what its comparison said besides. */
type Kept = [strategy: DiffStrategy, label: string, note?: string];

/**
 * A digest of a cluster's schemas beyond our code's published ones: each CRD's name, uid and
 * resourceVersion, and argocd-cm's knownTypeFields (the `schemaDigest` of a memo key).
 */
export function schemaDigestOf(crds: readonly KubeObject[], knownTypeFields: readonly unknown[]): string {
  const ids = crds.map((c) => `${c.metadata?.name}/${c.metadata?.uid}/${c.metadata?.resourceVersion}`).sort();
  return createHash('sha256')
    .update(JSON.stringify([ids, knownTypeFields]))
    .digest('base64url');
}

/** Our code, as the memo's entries depend on it (see the header). */
export function ourCodeStamp(): string {
  return `${userAgent()} ${codeStamp(import.meta.url)}`;
}

export class DiskComparisonMemo {
  readonly #dir: string;
  readonly #stamp: string;
  #salt: string;
  /** Entries of the file, in its order (newest first). */
  #old = new Map<string, Kept>();
  /** Entries used or made by this run. */
  #used = new Map<string, Kept>();
  #changed = false;
  hits = 0;
  misses = 0;

  readonly #max: number;

  /** Reads `<dir>/memo.json` (nothing is created before `save`). Tests pass their own stamp and bound. */
  constructor(dir: string, options: { stamp?: string; maxEntries?: number } = {}) {
    const stamp = options.stamp ?? ourCodeStamp();
    this.#dir = dir;
    this.#stamp = stamp;
    this.#max = options.maxEntries ?? DISK_MEMO_MAX_ENTRIES;
    this.#salt = '';
    try {
      const file = JSON.parse(readFileSync(join(dir, FILE), 'utf8')) as {
        format?: unknown;
        stamp?: unknown;
        salt?: unknown;
        entries?: unknown;
      };
      if (
        file.format === FORMAT &&
        file.stamp === stamp &&
        typeof file.salt === 'string' &&
        file.entries &&
        typeof file.entries === 'object'
      ) {
        this.#salt = file.salt;
        for (const [k, v] of Object.entries(file.entries as Record<string, unknown>))
          if (Array.isArray(v) && typeof v[0] === 'string' && typeof v[1] === 'string')
            this.#old.set(k, v as Kept);
      }
    } catch {
      // absent or unreadable: an empty memo
    }
    if (!this.#salt) {
      this.#salt = randomBytes(16).toString('base64');
      this.#changed = this.#old.size > 0;
    }
  }

  /** The last (scope, schema digest) asked and its digest: an app's pairs share both. */
  #prefix: { scope: string; schemaDigest: string; digest: string } | undefined;

  /**
   * The key of a pair (see the header): the digest of (format, salt, stamp, scope, schema digest), worked
   * out once per app rather than hashed again with each of its pairs, then uid, resourceVersion, target.
   */
  key(target: KubeObject, live: KubeObject, scope: string, schemaDigest: string): string | undefined {
    const uid = live.metadata?.uid;
    const rv = live.metadata?.resourceVersion;
    if (!uid || !rv) return undefined;
    let prefix = this.#prefix;
    if (prefix?.scope !== scope || prefix.schemaDigest !== schemaDigest) {
      const text = `${FORMAT}\0${this.#salt}\0${this.#stamp}\0${scope}\0${schemaDigest}`;
      prefix = this.#prefix = { scope, schemaDigest, digest: hash('sha256', text, 'base64url') };
    }
    // One-shot `hash`: no Hash object per pair.
    const text = `${prefix.digest}\0${uid}\0${rv}\0${JSON.stringify(target)}`;
    return hash('sha256', text, 'base64url').slice(0, 22);
  }

  /** The kept comparison at `key`: Synced, no difference (see the header). */
  get(key: string): ResourceComparison | undefined {
    const kept = this.#used.get(key) ?? this.#old.get(key);
    if (!kept) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    if (!this.#used.has(key)) {
      this.#used.set(key, kept);
      this.#changed = true; // moves to the front of the file
    }
    const [strategy, label, note] = kept;
    return {
      status: 'Synced',
      difference: 'none',
      normalizedTarget: null,
      normalizedLive: null,
      strategy,
      label,
      ...(note !== undefined ? { note } : {}),
    };
  }

  /** Keeps a Synced comparison with no difference of a valid target; anything else forgets `key`. */
  set(key: string, result: ResourceComparison, valid: boolean): void {
    if (result.status === 'Synced' && result.difference === 'none' && valid) {
      const kept: Kept = [result.strategy, result.label];
      if (result.note !== undefined) kept.push(result.note);
      this.#used.set(key, kept);
      this.#changed = true;
    } else if (this.#used.delete(key) || this.#old.delete(key)) this.#changed = true;
  }

  get size(): number {
    let n = this.#used.size;
    for (const k of this.#old.keys()) if (!this.#used.has(k)) n++;
    return n;
  }

  /** Writes the memo when it changed (see the header); failures are ignored (the memo is an optimisation). */
  save(): void {
    if (!this.#changed) return;
    const entries: Record<string, Kept> = {};
    let n = 0;
    for (const [k, v] of this.#used) {
      if (n++ >= this.#max) break;
      entries[k] = v;
    }
    for (const [k, v] of this.#old) {
      if (n >= this.#max) break;
      if (this.#used.has(k)) continue;
      entries[k] = v;
      n++;
    }
    const path = join(this.#dir, FILE);
    const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      chmodSync(this.#dir, 0o700);
      writeFileSync(tmp, JSON.stringify({ format: FORMAT, stamp: this.#stamp, salt: this.#salt, entries }), {
        mode: 0o600,
      });
      renameSync(tmp, path);
      this.#changed = false;
    } catch {
      // the memo is an optimisation
    }
  }
}
