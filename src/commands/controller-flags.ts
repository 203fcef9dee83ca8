/**
 * The flags of `kubectl gitops controller` (Argo CD's application-controller flags where they exist, with
 * Argo CD's defaults) and what they become: the loop's options (`loopBase`, read again on every reload), the
 * sharding mode (`shardingOf`), the metrics wiring (`controllerMetrics`). docs/controller.md.
 */
import { Flags } from '@oclif/core';
import type {
  ControllerBase,
  ControllerRunOptions,
  ControllerSharding,
  LoopOptions,
  ReconcileLoop,
} from '../controller/index.js';
import { DEFAULT_ARGOCD_NAMESPACE, oneLine, UsageError } from '../common/index.js';
import type { Metrics } from '../metrics/index.js';
import { ALGORITHMS, parseReplicasFrom, type Algorithm, type ShardClaimer } from '../sharding/index.js';
import { createSourceService, execProcess } from '../source/index.js';
import { clientOptionsOf, durationFlag, requestTimeoutFlag, runSettings, sourceSelection } from './flags.js';
import { appsetFlags, type AppsetFlagValues } from './appset-flags.js';

export const controllerFlags = {
  'argocd-namespace': Flags.string({
    description: 'Argo CD control-plane namespace: its Applications, AppProjects, argocd-cm and Secrets.',
    default: DEFAULT_ARGOCD_NAMESPACE,
  }),
  'application-namespaces': Flags.string({
    description:
      "Other namespaces whose Applications are reconciled: names, globs or /regexps/ (Argo CD's --application-namespaces; repeatable or comma-separated). Default: argocd-cmd-params-cm application.namespaces. An app there needs its project's sourceNamespaces.",
    multiple: true,
    delimiter: ',',
  }),
  kubeconfig: Flags.string({ description: 'Kubeconfig file. Default: KUBECONFIG, then ~/.kube/config.' }),
  context: Flags.string({
    description:
      'Kube context of the Argo CD namespace and of in-cluster destinations. Default: the current context.',
  }),
  ...requestTimeoutFlag,
  output: Flags.string({
    char: 'o',
    description: 'Log format.',
    options: ['text', 'json'],
    default: 'text',
  }),
  'status-processors': Flags.integer({
    description: 'Application status processors (refresh workers), as Argo CD.',
    default: 20,
    min: 1,
    max: 1000,
  }),
  'operation-processors': Flags.integer({
    description: 'Application operation processors (sync workers), as Argo CD.',
    default: 10,
    min: 1,
    max: 1000,
  }),
  'app-resync': durationFlag({
    description:
      'Time between periodic refreshes of each app (timeout.reconciliation): seconds, as Argo CD, or 2m, 90s; 0 turns them off.',
    default: '120',
  }),
  'app-resync-jitter': durationFlag({
    description: 'Up to this much time added to each periodic refresh: seconds, or 1m, 30s.',
    default: '60',
  }),
  'self-heal-timeout-seconds': Flags.integer({
    description: 'Flat wait between self-heal attempts, used when --self-heal-backoff-timeout-seconds is 0.',
    default: 0,
    min: 0,
  }),
  'self-heal-backoff-timeout-seconds': Flags.integer({
    description: 'First wait of the exponential backoff between self-heal attempts; 0: the flat timeout.',
    default: 2,
    min: 0,
  }),
  'self-heal-backoff-factor': Flags.integer({
    description: 'Factor of the self-heal backoff.',
    default: 3,
    min: 1,
  }),
  'self-heal-backoff-cap-seconds': Flags.integer({
    description: 'Longest wait of the self-heal backoff.',
    default: 300,
    min: 0,
  }),
  'persist-resource-health': Flags.boolean({
    description:
      "Write each resource's health into status.resources (Argo CD's flag; default: app health only).",
  }),
  shard: Flags.integer({
    description:
      'Static sharding: the shard this controller runs as (with --replicas). Dynamic: the shard to take over; -1 claims any.',
    min: -1,
  }),
  replicas: Flags.integer({
    description: 'Controller replicas the clusters are split over (ARGOCD_CONTROLLER_REPLICAS).',
    min: 0,
    exclusive: ['replicas-from'],
  }),
  'replicas-from': Flags.string({
    description:
      'Dynamic sharding: read the replica count from this Deployment (deployment/NAME), on every heartbeat.',
    dependsOn: ['dynamic-cluster-distribution'],
  }),
  'dynamic-cluster-distribution': Flags.boolean({
    description:
      "Claim a shard in argocd-app-controller-shard-cm with heartbeats (Argo CD's ARGOCD_ENABLE_DYNAMIC_CLUSTER_DISTRIBUTION); see docs/sharding.md.",
    aliases: ['dynamic-cluster-distribution-enabled'],
  }),
  'sharding-method': Flags.string({
    description: 'How clusters are split over the replicas, as Argo CD.',
    options: [...ALGORITHMS],
    default: 'legacy',
  }),
  'controller-name': Flags.string({
    description: 'ControllerName written in the shard ConfigMap. Default: the hostname (the pod name).',
  }),
  'heartbeat-time': Flags.integer({
    description: 'Seconds between shard heartbeats (10 to 60, else 10; ARGOCD_CONTROLLER_HEARTBEAT_TIME).',
  }),
  'force-takeover': Flags.boolean({
    description:
      "Start even where Argo CD's application controller runs, or another controller holds our shard with a live heartbeat.",
  }),
  'shutdown-timeout': Flags.string({
    description: 'On SIGTERM/Ctrl-C, how long running operations may take to end (e.g. 30s).',
    default: '30s',
  }),
  'metrics-addr': Flags.string({
    description:
      "Serve Prometheus metrics (Argo CD's names) on /metrics and the probes /healthz and /readyz at host:port or :port (e.g. :8082).",
  }),
  'metrics-application-labels': Flags.string({
    description: 'Application labels added to argocd_app_labels (repeatable).',
    multiple: true,
  }),
  'metrics-application-conditions': Flags.string({
    description: 'Application condition types counted in argocd_app_condition (repeatable).',
    multiple: true,
  }),
  ...appsetFlags,
};

/** The parsed flags this module reads (oclif's parse result). */
export interface ControllerFlagValues extends AppsetFlagValues {
  'argocd-namespace': string;
  'application-namespaces'?: string[] | undefined;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  'request-timeout'?: string | undefined;
  'status-processors': number;
  'operation-processors': number;
  /** Milliseconds (durationFlag). */
  'app-resync': number;
  'app-resync-jitter': number;
  'self-heal-timeout-seconds': number;
  'self-heal-backoff-timeout-seconds': number;
  'self-heal-backoff-factor': number;
  'self-heal-backoff-cap-seconds': number;
  shard?: number | undefined;
  replicas?: number | undefined;
  'replicas-from'?: string | undefined;
  'dynamic-cluster-distribution': boolean;
  'sharding-method': string;
  'heartbeat-time'?: number | undefined;
  'metrics-addr'?: string | undefined;
  'metrics-application-labels'?: string[] | undefined;
  'metrics-application-conditions'?: string[] | undefined;
}

/** The sharding mode of the flags; usage errors for combinations that cannot work. */
export function shardingOf(flags: ControllerFlagValues): ControllerSharding | undefined {
  const dynamic = flags['dynamic-cluster-distribution'];
  const algorithm = flags['sharding-method'] as Algorithm;
  if (!dynamic && (flags.shard ?? -1) >= 0 && flags.replicas === undefined)
    throw new UsageError('failed to parse: --shard needs --replicas (or --dynamic-cluster-distribution)', {
      subject: `--shard ${flags.shard}`,
    });
  if (dynamic && flags.replicas === undefined && flags['replicas-from'] === undefined)
    throw new UsageError('failed to parse: give --replicas N or --replicas-from deployment/NAME', {
      subject: '--dynamic-cluster-distribution',
    });
  if (dynamic)
    return {
      dynamic: true,
      requestedShard: flags.shard ?? -1,
      replicas: flags['replicas-from'] ? parseReplicasFrom(flags['replicas-from']) : flags.replicas!,
      heartbeatSeconds: flags['heartbeat-time'],
      algorithm,
    };
  if (flags.replicas === undefined) return undefined;
  const shard = Math.max(0, flags.shard ?? 0);
  if (shard >= Math.max(1, flags.replicas))
    throw new UsageError(`failed to parse: --shard must be below --replicas (${flags.replicas})`, {
      subject: `--shard ${flags.shard}`,
    });
  return { dynamic: false, shard, replicas: flags.replicas, algorithm };
}

/**
 * Reads argocd-cm (and, lazily, the repository Secrets) and builds the loop's options: called at start and
 * again on every reload.
 */
export function loopBase(
  flags: ControllerFlagValues,
  o: {
    signal: AbortSignal;
    warn: (m: string) => void;
    metrics?: Metrics | undefined;
    /** The controller's sync (src/controller `defaultOperation`, loaded lazily by the command). */
    defaultOperation: LoopOptions['operation'];
  },
): () => Promise<ControllerBase> {
  const live = { ...flags, 'from-cluster': true };
  const backoff = flags['self-heal-backoff-timeout-seconds'];
  const { metrics } = o;
  const client = clientOptionsOf(flags).client;
  return async () => {
    const settings = await runSettings(live, o.warn);
    const source = createSourceService({
      ...sourceSelection(live, o.warn),
      signal: o.signal,
      ...(metrics ? { exec: metrics.instrumentExec(execProcess) } : {}),
    });
    const operation: LoopOptions['operation'] | undefined = metrics
      ? (app, rec, request, signal, terminate) =>
          metrics.attribute(app, request.dryRun, () =>
            o.defaultOperation(app, rec, request, signal, terminate),
          )
      : undefined;
    return {
      close: () => source.close(),
      loopOptions: {
        source,
        kubeconfig: flags.kubeconfig,
        context: flags.context,
        ...(client || metrics
          ? { client: { ...client, ...(metrics ? { onRequest: metrics.onRequest } : {}) } }
          : {}),
        ...settings,
        statusProcessors: flags['status-processors'],
        operationProcessors: flags['operation-processors'],
        diffText: false,
        appResyncMs: flags['app-resync'],
        appResyncJitterMs: flags['app-resync-jitter'],
        selfHealTimeoutMs: flags['self-heal-timeout-seconds'] * 1000,
        selfHealBackoff:
          backoff > 0
            ? {
                durationMs: backoff * 1000,
                factor: flags['self-heal-backoff-factor'],
                maxDurationMs: flags['self-heal-backoff-cap-seconds'] * 1000,
              }
            : null,
        ...(operation ? { operation } : {}),
        onWarning: o.warn,
      },
    };
  };
}

/**
 * `--metrics-addr`: the metrics (src/metrics) and their server, and the hooks `runController` takes to feed
 * them. `/readyz` is ready once the namespace is listed and, with dynamic sharding, while the last claim
 * run succeeded (Argo CD runs the claim on every readiness probe: so does this).
 */
export async function controllerMetrics(
  flags: ControllerFlagValues,
  signal: AbortSignal,
): Promise<
  | {
      metrics: Metrics;
      hooks: Pick<ControllerRunOptions, 'onApps' | 'onClaimer'>;
      onEvent: (e: { type: string }) => void;
      url: string;
      close: () => Promise<void>;
    }
  | undefined
> {
  const addr = flags['metrics-addr'];
  if (addr === undefined) return undefined;
  // prom-client is loaded only when metrics are asked for.
  const { Metrics, MetricsServer, parseMetricsAddr } = await import('../metrics/index.js');
  parseMetricsAddr(addr);
  /** The apps the controller processes (its shards', and those being deleted), as Argo CD's metrics list them. */
  let apps: Pick<ReconcileLoop, 'states' | 'state'> | undefined;
  let claimer: ShardClaimer | undefined;
  let ready = false;
  const metrics = new Metrics({
    loop: { states: () => apps?.states() ?? [], state: (key) => apps?.state(key) },
    argocdNamespace: flags['argocd-namespace'],
    autoSync: { mode: 'policy' },
    appLabels: flags['metrics-application-labels'] ?? [],
    appConditions: flags['metrics-application-conditions'] ?? [],
  });
  const server = new MetricsServer({
    addr,
    metrics,
    signal,
    ready: async () => {
      if (!ready) return 'the Argo CD namespace is not listed yet';
      if (claimer) {
        try {
          await claimer.readiness();
        } catch (err) {
          return oneLine(err);
        }
      }
      return true;
    },
  });
  const { url } = await server.listen();
  const CONTROLLER_ONLY = new Set([
    'controller-ready',
    'controller-reloading',
    'status-written',
    'app-deleting',
    'shard',
  ]);
  return {
    metrics,
    url,
    hooks: { onApps: (a) => (apps = a), onClaimer: (c) => (claimer = c) },
    onEvent: (e) => {
      if (e.type === 'controller-ready') ready = true;
      if (!CONTROLLER_ONLY.has(e.type)) metrics.onEvent(e as Parameters<Metrics['onEvent']>[0]);
    },
    close: () => server.close(),
  };
}
