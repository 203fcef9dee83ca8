import { BaseCommand } from './base-command.js';
import { clientOptionsOf } from './flags.js';
import { controllerFlags, controllerMetrics, loopBase, shardingOf } from './controller-flags.js';
import { runApplicationSets } from './appset-flags.js';
import { parseDuration } from '../apps/index.js';
import {
  ExitCode,
  handleInterruptInCommand,
  InterruptError,
  UsageError,
  verbosity,
} from '../common/index.js';
import { controllerLogLine } from '../output/controller-log.js';
import { prose } from './prose.js';

export default class Controller extends BaseCommand {
  static override summary =
    "Run Argo CD's application controller in one process: reconcile the Applications of a live Argo CD namespace and write their status.";

  static override description = prose`Reads the Applications, AppProjects, argocd-cm, cluster and repository Secrets of
--argocd-namespace on the current kube context and watches them. Every Application is refreshed on changes, on
live drift and every --app-resync (seconds, or 2m); apps with spec.syncPolicy.automated are auto-synced and self-healed
with Argo CD's rules; operations written to an Application's operation field (argocd app sync --core, the UI,
kubectl patch) are run. Each Application's status (sync, health, resources, conditions, operationState,
history, reconciledAt) is written as Argo CD's controller writes it, one merge patch of what changed. An
Application deleted with the resources-finalizer.argocd.argoproj.io finalizer has its resources deleted first.
ApplicationSets of the namespace are reconciled too, as Argo CD's ApplicationSet controller (generators, the
generated Applications, status; --no-applicationsets turns it off; docs/appset-controller.md).
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

  static override flags = controllerFlags;

  async run(): Promise<void> {
    const { flags } = await this.parse(Controller);
    handleInterruptInCommand();
    const shutdownMs = parseDuration(flags['shutdown-timeout']);
    if (shutdownMs === undefined)
      throw new UsageError(`failed to parse duration "${flags['shutdown-timeout']}"`, {
        subject: '--shutdown-timeout',
      });
    if (!flags.applications && !flags.applicationsets)
      throw new UsageError('failed to parse: nothing to run with both turned off', {
        subject: '--no-applications --no-applicationsets',
      });
    const sharding = shardingOf(flags);
    const { runController, defaultOperation } = await import('../controller/index.js');
    const warn = (m: string): void => this.warnLine(m);
    const signal = this.signal;
    const json = flags.output === 'json';
    const served = await controllerMetrics(flags, signal);
    if (served) this.infoLine(`metrics and probes at ${served.url}/metrics, /healthz, /readyz`);
    const load = loopBase(flags, { signal, warn, metrics: served?.metrics, defaultOperation });
    const log = (e: { type: string }): void => {
      const line = controllerLogLine(e, { json, time: new Date(), verbosity: verbosity() });
      if (line) this.write(line);
    };
    // The ApplicationSet controller runs beside the application controller until the same signal; a
    // failure of one stops the other.
    const stopBoth = new AbortController();
    const both = AbortSignal.any([signal, stopBoth.signal]);
    const appsets = runApplicationSets(flags, { signal: both, warn, onEvent: log }).catch((err: unknown) => {
      stopBoth.abort(err);
      throw err;
    });
    try {
      if (!flags.applications) {
        await appsets;
        return this.exitAfter(signal);
      }
      await runController({
        ...(await load()),
        reload: load,
        sharding,
        forceTakeover: flags['force-takeover'],
        controllerName: flags['controller-name'],
        argocdNamespace: flags['argocd-namespace'],
        ...(flags['application-namespaces']
          ? { applicationNamespaces: flags['application-namespaces'].map((x) => x.trim()).filter(Boolean) }
          : {}),
        kubeconfig: flags.kubeconfig,
        context: flags.context,
        ...clientOptionsOf(flags),
        persistResourceHealth: flags['persist-resource-health'],
        signal: both,
        shutdownTimeoutMs: shutdownMs,
        ...served?.hooks,
        onWarning: warn,
        onEvent: (e) => {
          served?.onEvent(e);
          log(e);
        },
      });
      stopBoth.abort();
      await appsets;
    } catch (err) {
      stopBoth.abort();
      await appsets.catch(() => undefined);
      throw err;
    } finally {
      await served?.close();
    }
    this.exitAfter(signal);
  }

  /** SIGTERM is how Kubernetes stops a pod: a clean stop. Ctrl-C keeps the shell's 130. */
  private exitAfter(signal: AbortSignal): void {
    const reason: unknown = signal.reason;
    process.exitCode =
      reason instanceof InterruptError && reason.signal === 'SIGINT' ? ExitCode.INTERRUPTED : ExitCode.OK;
  }
}
