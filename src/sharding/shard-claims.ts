/**
 * Dynamic cluster distribution (spec 6): the `argocd-app-controller-shard-cm` ConfigMap, key
 * `shardControllerMapping`, a JSON array of {ShardNumber, ControllerName, HeartbeatTime}.
 *
 * Two readers of the same value:
 * - `decodeShardMapping` / `encodeShardMapping`: exactly what Argo CD's controller reads and writes
 *   (`json.Unmarshal` / `json.Marshal` of `[]shardApplicationControllerMapping`, controller/sharding/sharding.go),
 *   used by the shard claimer. A value Go cannot decode is an error, as it is for the controller.
 * - `parseShardClaims`: the lenient view `kubectl gitops shards` prints (an unparsable time shows as stale).
 *
 * A claim is stale when now is strictly after HeartbeatTime + 3 x heartbeat period; a null time (Go's zero
 * time, year 1) is always stale. The period is ARGOCD_CONTROLLER_HEARTBEAT_TIME seconds: default 10, and
 * anything unparsable, below 10 or above 60 means 10 (`env.ParseNumFromEnv(..., 10, 10, 60)`).
 */
export const SHARD_CONFIGMAP = 'argocd-app-controller-shard-cm';
export const SHARD_MAPPING_KEY = 'shardControllerMapping';
export const DEFAULT_HEARTBEAT_SECONDS = 10;
/** Argo CD's `HeartbeatTimeout = 3 * HeartbeatDuration`. */
export const HEARTBEAT_TIMEOUT_PERIODS = 3;

export interface ShardClaim {
  shard: number;
  /** Hostname of the controller pod holding the shard; null when unclaimed. */
  controller: string | null;
  /** RFC 3339 heartbeat, or null when never set. */
  heartbeat: string | null;
  stale: boolean;
}

export interface ShardClaims {
  heartbeatSeconds: number;
  timeoutSeconds: number;
  claims: ShardClaim[];
}

/** ARGOCD_CONTROLLER_HEARTBEAT_TIME as the controller reads it. */
export function heartbeatPeriod(env: string | undefined): number {
  if (env === undefined || !/^[+-]?\d+$/.test(env.trim())) return DEFAULT_HEARTBEAT_SECONDS;
  const n = Number(env.trim());
  return n < 10 || n > 60 ? DEFAULT_HEARTBEAT_SECONDS : n;
}

/** Parses the ConfigMap value; throws a plain Error with the reason when it is not the expected JSON. */
export function parseShardClaims(json: string, now: Date, heartbeatSeconds: number): ShardClaims {
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed)) throw new Error(`${SHARD_MAPPING_KEY} is not a JSON array`);
  const timeoutMs = HEARTBEAT_TIMEOUT_PERIODS * heartbeatSeconds * 1000;
  const claims = parsed.map((entry: unknown, i): ShardClaim => {
    const e = (entry ?? {}) as { ShardNumber?: unknown; ControllerName?: unknown; HeartbeatTime?: unknown };
    if (typeof e.ShardNumber !== 'number') throw new Error(`${SHARD_MAPPING_KEY}[${i}] has no ShardNumber`);
    const heartbeat = typeof e.HeartbeatTime === 'string' ? e.HeartbeatTime : null;
    const at = heartbeat === null ? NaN : Date.parse(heartbeat);
    return {
      shard: e.ShardNumber,
      controller: typeof e.ControllerName === 'string' && e.ControllerName !== '' ? e.ControllerName : null,
      heartbeat,
      // A null or unparsable time counts as year 1: always stale.
      stale: Number.isNaN(at) ? true : now.getTime() > at + timeoutMs,
    };
  });
  return { heartbeatSeconds, timeoutSeconds: heartbeatSeconds * HEARTBEAT_TIMEOUT_PERIODS, claims };
}

// ---------------------------------------------------------------------------------------------------------
// The controller's exact codec.

/** One element of the mapping as Argo CD's `shardApplicationControllerMapping` holds it. */
export interface ShardMappingEntry {
  /** Go `int`; 0 when the JSON element has no ShardNumber. */
  shardNumber: number;
  /** "" means unclaimed. */
  controllerName: string;
  /** Milliseconds since the epoch; null is Go's zero `metav1.Time` (year 1, written as JSON null). */
  heartbeatMs: number | null;
}

/** Go's RFC 3339 layout as `time.Parse(time.RFC3339, s)` accepts it (fractional seconds, Z or an offset). */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function parseGoTime(text: string, where: string): number {
  const m = RFC3339.exec(text);
  const ms = m ? Date.parse(text) : NaN;
  if (!m || Number.isNaN(ms)) {
    throw new Error(`${where}: parsing time ${JSON.stringify(text)} as RFC 3339 failed`);
  }
  return ms;
}

/**
 * Go's encoding/json maps every key that equals a field name, exactly or ignoring case, to that field, in
 * the order the keys come: the last such key wins.
 */
function field(obj: Record<string, unknown>, name: string): unknown {
  let found: unknown;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(obj)) if (k.toLowerCase() === lower) found = v;
  return found;
}

const typeName = (v: unknown): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

/**
 * The mapping as `json.Unmarshal` into `[]shardApplicationControllerMapping` reads it: `null` is an empty
 * list; an element `null` is the zero entry (shard 0, unclaimed, never); unknown keys are ignored and key
 * case does not matter; a field of the wrong type, a non-integer ShardNumber or a HeartbeatTime that is
 * not RFC 3339 is an error. Go also rejects integers written with an exponent (`1e0`); JSON.parse cannot
 * tell them apart, so they are accepted here.
 */
export function decodeShardMapping(text: string): ShardMappingEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(text.trim() === '' ? 'unexpected end of JSON input' : (err as Error).message);
  }
  if (parsed === null) return [];
  if (!Array.isArray(parsed))
    throw new Error(`cannot unmarshal ${typeName(parsed)} into a list of shard mappings`);
  return parsed.map((element: unknown, i): ShardMappingEntry => {
    const where = `[${i}]`;
    const entry: ShardMappingEntry = { shardNumber: 0, controllerName: '', heartbeatMs: null };
    if (element === null) return entry;
    if (typeof element !== 'object' || Array.isArray(element)) {
      throw new Error(`${where}: cannot unmarshal ${typeName(element)} into a shard mapping`);
    }
    const obj = element as Record<string, unknown>;
    const shard = field(obj, 'ShardNumber');
    if (shard !== undefined && shard !== null) {
      if (typeof shard !== 'number' || !Number.isSafeInteger(shard)) {
        throw new Error(`${where}.ShardNumber: cannot unmarshal ${JSON.stringify(shard)} into an integer`);
      }
      entry.shardNumber = shard;
    }
    const name = field(obj, 'ControllerName');
    if (name !== undefined && name !== null) {
      if (typeof name !== 'string') {
        throw new Error(`${where}.ControllerName: cannot unmarshal ${typeName(name)} into a string`);
      }
      entry.controllerName = name;
    }
    const time = field(obj, 'HeartbeatTime');
    if (time !== undefined && time !== null) {
      if (typeof time !== 'string') {
        throw new Error(`${where}.HeartbeatTime: cannot unmarshal ${typeName(time)} into a time`);
      }
      entry.heartbeatMs = parseGoTime(time, `${where}.HeartbeatTime`);
    }
    return entry;
  });
}

/** metav1.Time's JSON: RFC 3339 in UTC with whole seconds; Go's zero time is `null`. */
export function formatHeartbeat(ms: number | null): string | null {
  if (ms === null) return null;
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The mapping as `json.Marshal` writes it: compact, keys ShardNumber, ControllerName, HeartbeatTime. */
export function encodeShardMapping(entries: readonly ShardMappingEntry[]): string {
  return JSON.stringify(
    entries.map((e) => ({
      ShardNumber: e.shardNumber,
      ControllerName: e.controllerName,
      HeartbeatTime: formatHeartbeat(e.heartbeatMs),
    })),
  );
}

/**
 * Whether the entry may be claimed by anyone: `ControllerName == "" ||
 * metav1.Now().After(HeartbeatTime.Add(HeartbeatTimeout * time.Second))` (getOrUpdateShardNumberForController).
 * A null time is year 1, so always stale.
 */
export function isClaimable(entry: ShardMappingEntry, nowMs: number, heartbeatSeconds: number): boolean {
  return entry.controllerName === '' || isStale(entry, nowMs, heartbeatSeconds);
}

/** Strictly after HeartbeatTime + 3 x period. */
export function isStale(entry: ShardMappingEntry, nowMs: number, heartbeatSeconds: number): boolean {
  if (entry.heartbeatMs === null) return true;
  return nowMs > entry.heartbeatMs + HEARTBEAT_TIMEOUT_PERIODS * heartbeatSeconds * 1000;
}
