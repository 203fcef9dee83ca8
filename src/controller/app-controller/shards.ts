/**
 * `ControllerShards`: which apps this `kubectl gitops controller` owns (docs/sharding.md, docs/controller.md).
 *
 * - `start()`: dynamic mode claims a shard (src/sharding `ShardClaimer`: start-up runs, heartbeats, the
 *   start-up refusal unless `forceTakeover`); static mode (`--shard I --replicas N`) and no sharding (shard
 *   0 of 1) only run the start-up refusal (`checkStart`) unless `forceTakeover`.
 * - `owns(app)`: Argo CD's canProcessApp over `shardOwnership` (the distribution `shards` prints), from the
 *   namespace's cluster Secrets and Applications as `inputs()` gives them; every app without sharding.
 * - `recompute(force)`: the ownership again (a claimed shard or replica count changed, apps came or went
 *   under consistent-hashing, cluster Secrets were reloaded); `onChange` hears of it when the owned
 *   clusters changed (or `force`), and is where the loop gets its new ownership.
 * - `stop()`: no more heartbeats (the claim is left to turn stale, as Argo CD leaves it).
 */
import { hostname } from 'node:os';
import type { KubeClient, KubeObject } from '../../cluster/index.js';
import { checkStart, shardOwnership, ShardClaimer } from '../../sharding/index.js';
import type { Algorithm, ReplicasSource, ShardOwnership } from '../../sharding/index.js';

export type ControllerSharding =
  | { dynamic: false; shard: number; replicas: number; algorithm: Algorithm }
  | {
      dynamic: true;
      /** `--shard`: -1 claims any. */
      requestedShard: number;
      replicas: ReplicasSource;
      heartbeatSeconds?: number | undefined;
      algorithm: Algorithm;
    };

export interface ControllerShardsOptions {
  client: KubeClient;
  namespace: string;
  sharding?: ControllerSharding | undefined;
  forceTakeover?: boolean | undefined;
  controllerName?: string | undefined;
  signal?: AbortSignal | undefined;
  now: () => number;
  /** What the distribution is computed from, read at each recompute. */
  inputs: () => {
    clusterSecrets: readonly KubeObject[];
    applications: readonly KubeObject[];
    inClusterEnabled: boolean;
  };
  /** The owned clusters changed (or a forced recompute): `owned` are their servers. */
  onChange: (change: { shard: number; replicas: number; owned: string[] }) => void;
  onClaimer?: ((claimer: ShardClaimer) => void) | undefined;
  onWarning?: ((message: string) => void) | undefined;
}

type OwnableApp = { name: string; destination: { server?: string | undefined; name?: string | undefined } };

export class ControllerShards {
  readonly #o: ControllerShardsOptions;
  #claimer: ShardClaimer | undefined;
  #shard = 0;
  #replicas = 1;
  #ownership: ShardOwnership | undefined;

  constructor(options: ControllerShardsOptions) {
    this.#o = options;
  }

  /** Claims (dynamic) or checks (static, none) before anything is reconciled; throws the refusal. */
  async start(): Promise<void> {
    const o = this.#o;
    const sh = o.sharding;
    if (sh?.dynamic) {
      this.#claimer = new ShardClaimer({
        client: o.client,
        namespace: o.namespace,
        controllerName: o.controllerName,
        requestedShard: sh.requestedShard,
        replicas: sh.replicas,
        heartbeatSeconds: sh.heartbeatSeconds,
        forceTakeover: o.forceTakeover,
        onShardChange: (change) => {
          this.#shard = change.shard;
          this.#replicas = change.replicas;
          this.recompute(true);
        },
        signal: o.signal,
      });
      const claimed = await this.#claimer.start();
      this.#shard = claimed.shard;
      this.#replicas = claimed.replicas;
      o.onClaimer?.(this.#claimer);
      return;
    }
    if (sh) {
      this.#shard = sh.shard;
      this.#replicas = sh.replicas;
    }
    if (!o.forceTakeover)
      await checkStart({
        client: o.client,
        namespace: o.namespace,
        controllerName: o.controllerName || hostname(),
        mode: { dynamic: false, shard: this.#shard },
        heartbeatSeconds: 10,
        nowMs: o.now(),
        signal: o.signal,
      });
  }

  /** True when this controller runs the app (always without sharding). */
  readonly owns = (app: OwnableApp): boolean => (this.#ownership ? this.#ownership.ownsApp(app) : true);

  /** The ownership again; `onChange` when the owned clusters changed or `force`. */
  recompute(force: boolean): void {
    const sh = this.#o.sharding;
    if (!sh) return;
    const before = this.#ownership?.ownedServers.join('\n');
    const own = shardOwnership({
      shard: this.#shard,
      replicas: this.#replicas,
      algorithm: sh.algorithm,
      ...this.#o.inputs(),
    });
    for (const w of own.warnings) this.#o.onWarning?.(w);
    this.#ownership = own;
    if (!force && before === own.ownedServers.join('\n')) return;
    this.#o.onChange({ shard: this.#shard, replicas: this.#replicas, owned: own.ownedServers });
  }

  /** Apps came or went: only consistent-hashing's distribution depends on them. */
  appsChanged(): void {
    if (this.#o.sharding?.algorithm === 'consistent-hashing') this.recompute(false);
  }

  async stop(): Promise<void> {
    await this.#claimer?.stop();
  }
}
