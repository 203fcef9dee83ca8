/**
 * The shard-claim procedure of Argo CD's dynamic cluster distribution (spec 6), as pure functions over the
 * decoded `shardControllerMapping` (shard-claims.ts). Each function names the Argo CD function it follows
 * (controller/sharding/sharding.go); the quirks are kept on purpose and marked "Quirk".
 *
 * - `initialShardMapping`: the ConfigMap does not exist (generateDefaultShardMappingCM).
 * - `claimShard`: the ConfigMap exists (getOrUpdateShardNumberForController).
 *
 * Heartbeats are written as `now` truncated to whole seconds, which is what metav1.Time's JSON keeps.
 */
import { GitopsError, ExitCode } from '../common/index.js';
import { isClaimable, SHARD_CONFIGMAP, type ShardMappingEntry } from './shard-claims.js';

/** `getDefaultShardMappingData(replicas)`: entries 0..R-1, unclaimed, never heartbeated. */
export function defaultShardMapping(replicas: number): ShardMappingEntry[] {
  const entries: ShardMappingEntry[] = [];
  for (let i = 0; i < replicas; i++) entries.push({ shardNumber: i, controllerName: '', heartbeatMs: null });
  return entries;
}

const wholeSeconds = (ms: number): number => Math.floor(ms / 1000) * 1000;

export interface InitialMapping {
  entries: ShardMappingEntry[];
  /** What GetOrUpdateShardFromConfigMap returns after creating the ConfigMap. */
  shard: number;
}

/**
 * The ConfigMap is missing: GetOrUpdateShardFromConfigMap turns a requested shard of -1 into 0, then
 * generateDefaultShardMappingCM claims entry `shard` of R fresh entries, or entry 0 when the shard is -1 or
 * greater than R. The function returns the requested shard as given (or 0 for -1).
 *
 * Quirk: the returned shard is the requested one even when entry 0 was claimed instead (S > R); the next
 * run then finds this hostname on entry 0.
 * Quirk: a shard equal to R, or below -1, indexes past the list and Argo CD's controller panics (index out
 * of range). That is reproduced as an error here, never as a claim of some other entry.
 */
export function initialShardMapping(
  hostname: string,
  replicas: number,
  requestedShard: number,
  nowMs: number,
): InitialMapping {
  const shard = requestedShard === -1 ? 0 : requestedShard;
  const entries = defaultShardMapping(replicas);
  const index = shard === -1 || shard > replicas ? 0 : shard;
  const entry = entries[index];
  if (index < 0 || !entry) {
    throw new GitopsError(
      `failed to create the shard mapping: shard ${shard} is outside 0..${replicas - 1} (Argo CD's controller panics here with index out of range); use a shard below the replica count`,
      { subject: `configmap ${SHARD_CONFIGMAP}`, exitCode: ExitCode.USAGE },
    );
  }
  entry.controllerName = hostname;
  entry.heartbeatMs = wholeSeconds(nowMs);
  return { entries, shard };
}

export type ClaimHow =
  /** The requested shard's entry was taken, whoever held it. */
  | 'takeover'
  /** This hostname's own entry was found and its heartbeat refreshed. */
  | 'own'
  /** The first unclaimed or stale entry was claimed. */
  | 'free'
  /** Nothing was claimed: the result is the requested shard (>= R) or -1 (every entry held). */
  | 'none';

export interface ClaimResult {
  /** The shard this controller now runs as; -1 when it holds none. */
  shard: number;
  entries: ShardMappingEntry[];
  how: ClaimHow;
  /** The list had more entries than R and was replaced by R fresh ones. */
  reset: boolean;
  /** Entries appended because the list had fewer than R. */
  appended: number;
  /** The entry as it was before this claim (on takeover, the previous holder), when one was claimed. */
  previous?: ShardMappingEntry;
}

/**
 * getOrUpdateShardNumberForController, step by step (spec 6, steps 2-4):
 * 1. fewer entries than R: append unclaimed entries numbered len..R-1 (numbered by position, whatever
 *    numbers the existing entries carry);
 * 2. more entries than R: replace the list with R fresh entries, so every controller claims again;
 * 3. requested shard S with S != -1 and S < R: the first entry whose ShardNumber is S is taken over (this
 *    hostname, now) whoever holds it; otherwise the first entry whose ControllerName is this hostname gives
 *    the shard and gets a fresh heartbeat;
 * 4. still -1: the first entry in array order that is unclaimed or stale is claimed.
 *
 * Quirk: with S >= R and no entry of this hostname the result is S itself, and step 4 is skipped.
 * Quirk: with S < R but no entry numbered S (hand-edited numbers), the result is S and nothing is claimed.
 * Quirk: S below -1 counts as "S < R": no entry carries a negative number, so the result is S itself (the
 * claimer rejects such a shard before it gets here).
 */
export function claimShard(
  current: readonly ShardMappingEntry[],
  hostname: string,
  replicas: number,
  requestedShard: number,
  nowMs: number,
  heartbeatSeconds: number,
): ClaimResult {
  let entries = current.map((e) => ({ ...e }));
  let appended = 0;
  let reset = false;
  if (entries.length < replicas) {
    for (let n = entries.length; n < replicas; n++) {
      entries.push({ shardNumber: n, controllerName: '', heartbeatMs: null });
      appended++;
    }
  }
  if (entries.length > replicas) {
    entries = defaultShardMapping(replicas);
    reset = true;
  }
  const heartbeat = wholeSeconds(nowMs);
  let shard = requestedShard;
  let how: ClaimHow = 'none';
  let previous: ShardMappingEntry | undefined;
  const claim = (i: number, kind: ClaimHow) => {
    const e = entries[i]!;
    previous = { ...e };
    shard = e.shardNumber;
    e.controllerName = hostname;
    e.heartbeatMs = heartbeat;
    how = kind;
  };
  if (shard !== -1 && shard < replicas) {
    const i = entries.findIndex((e) => e.shardNumber === shard);
    if (i >= 0) claim(i, 'takeover');
  } else {
    const i = entries.findIndex((e) => e.controllerName === hostname);
    if (i >= 0) claim(i, 'own');
  }
  if (shard === -1) {
    const i = entries.findIndex((e) => isClaimable(e, nowMs, heartbeatSeconds));
    if (i >= 0) claim(i, 'free');
  }
  return { shard, entries, how, reset, appended, ...(previous ? { previous } : {}) };
}
