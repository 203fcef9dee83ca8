import { Flags } from '@oclif/core';
import { BaseCommand } from './base-command.js';
import { clientOptionsOf, requestTimeoutFlag, runSettings, sourceSelection } from './flags.js';
import { parseDuration } from '../apps/index.js';
import {
  DEFAULT_ARGOCD_NAMESPACE,
  ExitCode,
  handleInterruptInCommand,
  InterruptError,
  UsageError,
  verbosity,
} from '../common/index.js';
import { controllerLogLine } from '../output/controller-log.js';
import { ALGORITHMS, parseReplicasFrom, type Algorithm } from '../sharding/index.js';
import type { ControllerSharding } from '../controller/index.js';
import { createSourceService } from '../source/index.js';
import { prose } from './prose.js';

export default class Controller extends BaseCommand {
  static override summary =
    "Run Argo CD's application controller in one process: reconcile the Applications of a live Argo CD namespace and write their status.";

  static override description = prose`Reads the Applications, AppProjects, argocd-cm, cluster and repository Secrets of
--argocd-namespace on the current kube context and watches them. Every Application is refreshed on changes, on
live drift and every --app-resync seconds; apps with spec.syncPolicy.automated are auto-synced and self-healed
with Argo CD's rules; operations written to an Application's operation field (argocd app sync --core, the UI,
kubectl patch) are run. Each Application's status (sync, health, resources, conditions, operationState,
history, reconciledAt) is written as Argo CD's controller writes it, one merge patch of what changed. An
Application deleted with the resources-finalizer.argocd.argoproj.io finalizer has its resources deleted first.
Runs until SIGTERM (exit 0) or Ctrl-C (exit 130); running operations get --shutdown-timeout to end. One line
per event on stdout (-o json: one JSON object per line). See docs/controller.md.`;

  static override usage = ['controller [--argocd-namespace NS] [--context NAME] [FLAGS]'];

  static override examples = [
    {
      description: 'Reconcile the Applications of the argocd namespace of the current context.',
      command: '<%= config.bin %> controller',
    },
    {
      description: 'JSON log lines, resync every 5 minutes, 4 syncs at once.',
      command: '<%= config.bin %> controller -o json --app-resync 300 --operation-processors 4',
    },
  ];

  static override flags = {
    'argocd-namespace': Flags.string({
      description: 'Argo CD control-plane namespace: its Applications, AppProjects, argocd-cm and Secrets.',
      default: DEFAULT_ARGOCD_NAMESPACE,
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
    'app-resync': Flags.integer({
      description:
        'Seconds between periodic refreshes of each app (timeout.reconciliation); 0 turns them off.',
      default: 120,
      min: 0,
    }),
    'app-resync-jitter': Flags.integer({
      description: 'Up to this many seconds added to each periodic refresh.',
      default: 60,
      min: 0,
    }),
    'self-heal-timeout-seconds': Flags.integer({
      description:
        'Flat wait between self-heal attempts, used when --self-heal-backoff-timeout-seconds is 0.',
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
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Controller);
    handleInterruptInCommand();
    const shutdownMs = parseDuration(flags['shutdown-timeout']);
    if (shutdownMs === undefined)
      throw new UsageError(`failed to parse duration "${flags['shutdown-timeout']}"`, {
        subject: '--shutdown-timeout',
      });
    const { runController } = await import('../controller/index.js');
    const live = { ...flags, 'from-cluster': true };
    const warn = (m: string): void => this.warnLine(m);
    const signal = this.signal;
    const json = flags.output === 'json';
    const backoff = flags['self-heal-backoff-timeout-seconds'];
    // What argocd-cm and the Argo CD Secrets say; read again when they change (docs/controller.md).
    const loadBase = async () => {
      const settings = await runSettings(live, warn);
      const source = createSourceService({ ...sourceSelection(live, warn), signal });
      return {
        close: () => source.close(),
        loopOptions: {
          source,
          kubeconfig: flags.kubeconfig,
          context: flags.context,
          ...clientOptionsOf(flags),
          ...settings,
          statusProcessors: flags['status-processors'],
          operationProcessors: flags['operation-processors'],
          diffText: false,
          appResyncMs: flags['app-resync'] * 1000,
          appResyncJitterMs: flags['app-resync-jitter'] * 1000,
          selfHealTimeoutMs: flags['self-heal-timeout-seconds'] * 1000,
          selfHealBackoff:
            backoff > 0
              ? {
                  durationMs: backoff * 1000,
                  factor: flags['self-heal-backoff-factor'],
                  maxDurationMs: flags['self-heal-backoff-cap-seconds'] * 1000,
                }
              : null,
          onWarning: warn,
        },
      };
    };
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
    const sharding: ControllerSharding | undefined = dynamic
      ? {
          dynamic: true,
          requestedShard: flags.shard ?? -1,
          replicas: flags['replicas-from'] ? parseReplicasFrom(flags['replicas-from']) : flags.replicas!,
          heartbeatSeconds: flags['heartbeat-time'],
          algorithm,
        }
      : flags.replicas !== undefined
        ? { dynamic: false, shard: Math.max(0, flags.shard ?? 0), replicas: flags.replicas, algorithm }
        : undefined;
    if (sharding && !sharding.dynamic && sharding.shard >= Math.max(1, sharding.replicas))
      throw new UsageError(`failed to parse: --shard must be below --replicas (${flags.replicas})`, {
        subject: `--shard ${flags.shard}`,
      });
    await runController({
      ...(await loadBase()),
      sharding,
      forceTakeover: flags['force-takeover'],
      controllerName: flags['controller-name'],
      reload: loadBase,
      argocdNamespace: flags['argocd-namespace'],
      kubeconfig: flags.kubeconfig,
      context: flags.context,
      ...clientOptionsOf(flags),
      persistResourceHealth: flags['persist-resource-health'],
      signal,
      shutdownTimeoutMs: shutdownMs,
      onWarning: warn,
      onEvent: (e) => {
        const line = controllerLogLine(e, { json, time: new Date(), verbosity: verbosity() });
        if (line) this.write(line);
      },
    });
    // SIGTERM is how Kubernetes stops a pod: a clean stop. Ctrl-C keeps the shell's 130.
    const reason: unknown = signal.reason;
    process.exitCode =
      reason instanceof InterruptError && reason.signal === 'SIGINT' ? ExitCode.INTERRUPTED : ExitCode.OK;
  }
}
