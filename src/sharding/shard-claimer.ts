/**
 * `ShardClaimer`: the shard this controller runs as under dynamic cluster distribution (spec 6; Argo CD's
 * `ARGOCD_ENABLE_DYNAMIC_CLUSTER_DISTRIBUTION`), claimed and kept alive in the ConfigMap
 * `argocd-app-controller-shard-cm` exactly as Argo CD's application controller does it.
 *
 * Life cycle (the Argo CD function each step follows is named on it):
 * - `start()`: reads the replica count (a number, or `spec.replicas` of a Deployment: GetClusterSharding;
 *   a missing Deployment is an error), refuses to start when another controller does the work (start-guard.ts;
 *   skipped with `forceTakeover`), then claims: with R > 1 the get-and-update runs 4 times
 *   (`AppControllerHeartbeatUpdateRetryCount` = 3, loop `i <= 3`), even when it succeeds, and stops early
 *   only on an error that is not a 409 Conflict; with R <= 1 the shard is 0 and nothing is written.
 * - every heartbeat period (and on each `readiness()` call, as Argo CD runs it on every readiness probe):
 *   the replica count is read again; R <= 0 makes readiness fail; a missing Deployment skips the run
 *   (readinessHealthCheck); otherwise one get-and-update with the requested shard. A changed shard (or
 *   replica count) is reported to `onShardChange`, where the controller queues every app again.
 * - `stop()`: no more heartbeats. The claim is not released (Argo CD never releases one): it turns stale
 *   after 3 periods and a survivor takes it.
 *
 * One get-and-update (GetOrUpdateShardFromConfigMap): GET the ConfigMap; missing: create it
 * (initialShardMapping); else decode, `claimShard`, and PUT it back with the resourceVersion read, so a
 * concurrent writer makes it fail with 409 Conflict.
 *
 * Deviations from Argo CD, each because Argo CD's behaviour there is a crash or a bug, not a rule:
 * - Two controllers creating the ConfigMap at once: the loser's create gets 409 AlreadyExists, which Argo CD
 *   does not count as a conflict, so its controller exits. Here it counts as a conflict and the next attempt
 *   reads the ConfigMap the winner created.
 * - A conflict on the 4th start-up run makes Argo CD's controller exit (errors.CheckError on the last error),
 *   which two pods starting together hit often. Here start-up runs go on while they conflict
 *   (MAX_STARTUP_CLAIM_RUNS in all).
 * - A changed replica count is reported (`onShardChange`) so the distribution is recomputed with it; Argo
 *   CD's controller keeps the count it started with (argoproj/argo-cd#24520, fix proposed in #24531), which
 *   leaves clusters unmanaged or managed twice after a scale.
 *
 * Runs never overlap: a heartbeat and a readiness call that meet share one run queue.
 */
import { hostname } from 'node:os';
import { isConflict, type ApiError, type KubeClient, type KubeObject } from '../cluster/index.js';
import { ExitCode, GitopsError, oneLine, realClock, UsageError, type Clock } from '../common/index.js';
import { claimShard, initialShardMapping, type ClaimHow } from './claim-procedure.js';
import { CONFIGMAPS, DEPLOYMENTS, getOrUndefined, specReplicas } from './claim-kube.js';
import { checkStart } from './start-guard.js';
import {
  decodeShardMapping,
  encodeShardMapping,
  heartbeatPeriod,
  SHARD_CONFIGMAP,
  SHARD_MAPPING_KEY,
} from './shard-claims.js';

/** Argo CD's startup loop: `for i := 0; i <= common.AppControllerHeartbeatUpdateRetryCount; i++` (3). */
export const STARTUP_CLAIM_RUNS = 4;
/**
 * Deviation: Argo CD exits when the 4th run conflicts; here runs go on while they conflict, up to this many
 * in all (each conflict means another controller's write went through, so a few more runs settle it).
 */
export const MAX_STARTUP_CLAIM_RUNS = 32;

/** Where the replica count R comes from. */
export type ReplicasSource = number | { deployment: string };

export interface ShardChange {
  shard: number;
  replicas: number;
  previousShard: number;
  previousReplicas: number;
}

export interface ShardClaimerOptions {
  client: KubeClient;
  /** The Argo CD namespace (where the ConfigMap lives). */
  namespace: string;
  /** ControllerName written in the ConfigMap; default: the hostname (Argo CD's `os.Hostname()`). */
  controllerName?: string | undefined;
  /** `--shard` (Argo CD's ARGOCD_CONTROLLER_SHARD): -1 (default) claims any; S >= 0 takes over entry S. */
  requestedShard?: number | undefined;
  /** `--replicas N`, or `--replicas-from deployment/NAME` (its spec.replicas, read on every run). */
  replicas: ReplicasSource;
  /** Heartbeat period in seconds, bounded as Argo CD bounds ARGOCD_CONTROLLER_HEARTBEAT_TIME (10..60, else 10). */
  heartbeatSeconds?: number | string | undefined;
  /** Skip the start-up refusal (start-guard.ts). */
  forceTakeover?: boolean | undefined;
  /** Called when the claimed shard or the replica count changes after `start()`. */
  onShardChange?: ((change: ShardChange) => void) | undefined;
  /** Timers (heartbeats). Default: the real clock. */
  clock?: Clock | undefined;
  /** Wall-clock time in epoch milliseconds (heartbeat times). Default: Date.now. */
  now?: (() => number) | undefined;
  signal?: AbortSignal | undefined;
}

export interface ClaimState {
  controllerName: string;
  /** The shard this controller runs as; -1 when it holds none (every entry is held by a live controller). */
  shard: number;
  replicas: number;
  /** How the last successful run got its shard ('start' for R <= 1 at start-up, where nothing is written). */
  how: ClaimHow | 'created' | 'start' | 'skipped';
  /** Epoch ms of the last successful run. */
  lastRunMs?: number;
  /** The last run's error (cleared by a successful run); readiness fails while it is set. */
  lastError?: string;
}

/** `--replicas-from` as kubectl names a Deployment: deployment/NAME, deployments/NAME, deploy/NAME, deployment.apps/NAME. */
export function parseReplicasFrom(text: string): { deployment: string } {
  const m =
    /^(deployment|deployments|deploy|deployment\.apps|deployments\.apps)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(
      text,
    );
  if (!m) {
    throw new UsageError(`failed to parse: expected deployment/NAME, got ${JSON.stringify(text)}`, {
      subject: 'flag --replicas-from',
    });
  }
  return { deployment: m[2]! };
}

export class ShardClaimer {
  readonly #o: ShardClaimerOptions;
  readonly #name: string;
  readonly #requested: number;
  readonly #period: number;
  readonly #clock: Clock;
  readonly #now: () => number;
  #state: ClaimState;
  #queue: Promise<unknown> = Promise.resolve();
  #timer: unknown;
  #started = false;
  #stopped = false;

  constructor(options: ShardClaimerOptions) {
    this.#o = options;
    this.#name = options.controllerName || hostname();
    this.#requested = options.requestedShard ?? -1;
    if (!Number.isSafeInteger(this.#requested) || this.#requested < -1) {
      throw new UsageError(`failed to parse: ${this.#requested} is not -1 or a shard number (0, 1, ...)`, {
        subject: 'flag --shard',
      });
    }
    const hb = options.heartbeatSeconds;
    this.#period = heartbeatPeriod(hb === undefined ? undefined : String(hb));
    this.#clock = options.clock ?? realClock;
    this.#now = options.now ?? Date.now;
    this.#state = { controllerName: this.#name, shard: -1, replicas: 0, how: 'none' };
  }

  /** Heartbeat period in seconds, after Argo CD's bounds. */
  get heartbeatSeconds(): number {
    return this.#period;
  }

  state(): ClaimState {
    return { ...this.#state };
  }

  get #subject(): string {
    return `configmap ${this.#o.namespace}/${SHARD_CONFIGMAP}`;
  }

  /** R, or undefined when the Deployment is gone (a heartbeat then skips; `start` fails). */
  async #readReplicas(): Promise<number | undefined> {
    const source = this.#o.replicas;
    if (typeof source === 'number') return source;
    let deployment: KubeObject | undefined;
    try {
      deployment = await getOrUndefined(
        this.#o.client,
        DEPLOYMENTS,
        this.#o.namespace,
        source.deployment,
        this.#o.signal,
      );
    } catch (err) {
      throw new GitopsError(`failed to read its replica count: ${oneLine(err)}`, {
        subject: `deployment ${this.#o.namespace}/${source.deployment}`,
        cause: err,
      });
    }
    return deployment ? specReplicas(deployment) : undefined;
  }

  /** One GetOrUpdateShardFromConfigMap; conflicts (409) are thrown as they are. */
  async #getOrUpdate(replicas: number, shard: number): Promise<{ shard: number; how: ClaimState['how'] }> {
    const { client, namespace, signal } = this.#o;
    const cm = await getOrUndefined(client, CONFIGMAPS, namespace, SHARD_CONFIGMAP, signal);
    const nowMs = this.#now();
    if (!cm) {
      const initial = initialShardMapping(this.#name, replicas, shard, nowMs);
      await client.create(CONFIGMAPS, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: SHARD_CONFIGMAP, namespace },
        data: { [SHARD_MAPPING_KEY]: encodeShardMapping(initial.entries) },
      });
      return { shard: initial.shard, how: 'created' };
    }
    const data = (cm['data'] as Record<string, string> | undefined) ?? {};
    let entries;
    try {
      // A missing key is Go's json.Unmarshal of "": "unexpected end of JSON input".
      entries = decodeShardMapping(data[SHARD_MAPPING_KEY] ?? '');
    } catch (err) {
      throw new GitopsError(
        `failed to read ${SHARD_MAPPING_KEY}: ${(err as Error).message} (Argo CD's controller fails on it too; fix or delete the ConfigMap)`,
        { subject: this.#subject },
      );
    }
    const result = claimShard(entries, this.#name, replicas, shard, nowMs, this.#period);
    const updated: KubeObject = {
      ...cm,
      data: { ...data, [SHARD_MAPPING_KEY]: encodeShardMapping(result.entries) },
    };
    await client.update(CONFIGMAPS, updated, { subject: this.#subject, ...(signal ? { signal } : {}) });
    return { shard: result.shard, how: result.how };
  }

  #serialize<T>(run: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(run, run);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Reads R, refuses to start when another controller holds the work (unless `forceTakeover`), claims a
   * shard (4 get-and-updates when R > 1; shard 0 when R <= 1), then heartbeats every period. Throws a
   * `GitopsError` (exit 2 for the refusals) and leaves nothing running when it fails.
   */
  start(): Promise<ClaimState> {
    if (this.#started) throw new Error('ShardClaimer.start() called twice');
    this.#started = true;
    return this.#serialize(async () => {
      const replicas = await this.#readReplicas();
      if (replicas === undefined) {
        const source = this.#o.replicas as { deployment: string };
        throw new GitopsError(
          `failed to read its replica count: not found ((dynamic cluster distribution) the Deployment named by --replicas-from must exist)`,
          { subject: `deployment ${this.#o.namespace}/${source.deployment}`, exitCode: ExitCode.USAGE },
        );
      }
      if (!this.#o.forceTakeover) {
        await checkStart({
          client: this.#o.client,
          namespace: this.#o.namespace,
          controllerName: this.#name,
          mode: { dynamic: true, requestedShard: this.#requested, replicas },
          heartbeatSeconds: this.#period,
          nowMs: this.#now(),
          ownDeployment: typeof this.#o.replicas === 'number' ? undefined : this.#o.replicas.deployment,
          signal: this.#o.signal,
        });
      }
      let shard = this.#requested;
      let how: ClaimState['how'] = 'start';
      if (replicas > 1) {
        let failure: unknown;
        for (let i = 0; i < STARTUP_CLAIM_RUNS || (isConflict(failure) && i < MAX_STARTUP_CLAIM_RUNS); i++) {
          try {
            // Quirk (GetClusterSharding): each run is given the previous run's result as the requested
            // shard, and a failed run's result is -1, so after a conflict the requested shard is forgotten
            // until the first heartbeat.
            ({ shard, how } = await this.#getOrUpdate(replicas, shard));
            failure = undefined;
          } catch (err) {
            shard = -1;
            failure = err;
            if (!isConflict(err)) break;
          }
        }
        if (failure !== undefined) {
          if (!isConflict(failure)) throw failure;
          throw new GitopsError(
            `failed to claim a shard: ${MAX_STARTUP_CLAIM_RUNS} runs in a row ended in a conflict: ${(failure as ApiError).detail}`,
            { subject: this.#subject, cause: failure },
          );
        }
      } else {
        shard = 0; // "Processing all cluster shards": nothing is claimed with R <= 1.
      }
      this.#state = {
        controllerName: this.#name,
        shard,
        replicas,
        how,
        lastRunMs: this.#now(),
      };
      this.#schedule();
      return this.state();
    });
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = this.#clock.setTimeout(() => {
      void this.heartbeat().finally(() => this.#schedule());
    }, this.#period * 1000);
  }

  /**
   * One run of the procedure now (readinessHealthCheck). Never throws: a failure is kept in
   * `state().lastError` and the shard stays as it was.
   */
  heartbeat(): Promise<ClaimState> {
    return this.#serialize(async () => {
      if (this.#stopped || !this.#started) return this.state();
      try {
        const replicas = await this.#readReplicas();
        if (replicas === undefined) {
          // The Deployment is gone: Argo CD's probe skips the claim and reports ready.
          this.#state = { ...this.#state, how: 'skipped', lastRunMs: this.#now() };
          delete this.#state.lastError;
          return this.state();
        }
        if (replicas <= 0) {
          throw new GitopsError(
            `failed to claim a shard: the replica count is ${replicas}; the controller is not ready until it is at least 1`,
            { subject: this.#subject },
          );
        }
        const { shard, how } = await this.#getOrUpdate(replicas, this.#requested);
        const previous = this.#state;
        this.#state = { controllerName: this.#name, shard, replicas, how, lastRunMs: this.#now() };
        if (shard !== previous.shard || replicas !== previous.replicas) {
          this.#o.onShardChange?.({
            shard,
            replicas,
            previousShard: previous.shard,
            previousReplicas: previous.replicas,
          });
        }
      } catch (err) {
        this.#state = { ...this.#state, lastError: oneLine(err) };
      }
      return this.state();
    });
  }

  /** For `/readyz`: runs the procedure and throws (one line) when it failed. */
  async readiness(): Promise<void> {
    const state = await this.heartbeat();
    if (state.lastError) throw new GitopsError(state.lastError);
  }

  /** Resolves when the runs started so far have ended (tests step a fake clock, then await this). */
  async settled(): Promise<void> {
    await this.#queue;
  }

  /** Stops heartbeating (the claim is left to turn stale, as Argo CD leaves it); waits for a running run. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    await this.#queue;
  }
}
