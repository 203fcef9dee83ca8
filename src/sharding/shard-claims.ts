/**
 * Dynamic cluster distribution (spec 6): the `argocd-app-controller-shard-cm` ConfigMap, key
 * `shardControllerMapping`, a JSON array of {ShardNumber, ControllerName, HeartbeatTime}. A claim is stale
 * when now is strictly after HeartbeatTime + 3 x heartbeat period; a null time (year 1) is always stale.
 * The period is ARGOCD_CONTROLLER_HEARTBEAT_TIME seconds: default 10, and anything unparsable, below 10 or
 * above 60 means 10.
 */
export const SHARD_CONFIGMAP = 'argocd-app-controller-shard-cm';
export const SHARD_MAPPING_KEY = 'shardControllerMapping';
export const DEFAULT_HEARTBEAT_SECONDS = 10;

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
  const timeoutMs = 3 * heartbeatSeconds * 1000;
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
  return { heartbeatSeconds, timeoutSeconds: heartbeatSeconds * 3, claims };
}
