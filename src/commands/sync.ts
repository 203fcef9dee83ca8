import { Args } from '@oclif/core';
import {
  clientOptionsOf,
  clusterSecretsOf,
  selectApps,
  sourceSelection,
  serverSideDiffLimits,
  runProjects,
  runSettings,
  useParseCache,
  comparisonMemoOf,
} from './flags.js';
import { BaseCommand } from './base-command.js';
import { UsageError } from '../common/index.js';
import { parseDuration } from '../apps/index.js';
import type { SourcedObject } from '../util/yaml-docs.js';
import type { RunReport } from '../controller/index.js';
import { stillWaitedFor, syncJsonChunks, syncText } from '../output/sync.js';
import { createSourceService } from '../source/index.js';
import { prose } from './prose.js';
import { syncWatch } from './sync-watch.js';
import { syncFlags } from './sync-flags.js';

type SyncOptionFlags = Record<'force' | 'replace' | 'server-side' | 'apply-out-of-sync-only', boolean> & {
  'sync-option'?: string[] | undefined;
};

/**
 * `--sync-option` values with the shorthand flags laid over them. `Force` in the result is the sync
 * strategy's force (`--force`, as `argocd app sync --force`): `--sync-option Force=true` is left out with a
 * warning, as Argo CD's controller ignores Force among an operation's sync options.
 */
function syncOptionsOf(
  flags: SyncOptionFlags,
  parse: (values: string[]) => Record<string, string>,
  warn: (message: string) => void,
): Record<string, string> {
  const syncOptions = parse(flags['sync-option'] ?? []);
  if ('Force' in syncOptions) {
    delete syncOptions['Force'];
    if (!flags.force)
      warn(
        '--sync-option Force is ignored, as Argo CD ignores Force among sync options: use --force, or the ' +
          "resource's annotation argocd.argoproj.io/sync-options: Force=true",
      );
  }
  for (const [flag, option] of [
    ['force', 'Force'],
    ['replace', 'Replace'],
    ['server-side', 'ServerSideApply'],
    ['apply-out-of-sync-only', 'ApplyOutOfSyncOnly'],
  ] as const) {
    if (flags[flag]) syncOptions[option] = 'true';
  }
  return syncOptions;
}

export default class Sync extends BaseCommand {
  static override summary = 'Sync Applications from Git to the cluster, as Argo CD runs a sync operation.';

  static override description = prose`Compares each selected Application as diff does, then runs Argo CD's sync operation in the
foreground: every task validated by a server-side dry run before anything is written, then phases (PreSync,
Sync, PostSync) and waves in order, hooks, prunes (with --prune), waiting for health between waves. As
argocd app sync, it returns when the operations end: each app is compared again after its operation and
that sync and health reported (Progressing is fine). With --health it also waits until every app is
Healthy (as argocd app wait --health), saying which resources it waits for and why. A sync is a manual
sync to the app's AppProject syncWindows: one they refuse now is that app's error, naming the window, and
writes nothing (--dry-run still plans).

With --watch it keeps going after that, until SIGTERM or Ctrl-C: new commits (polled), or saved files
with --local, are synced; drift is reported, or synced back with --self-heal; one line (or JSON object) per
event, a live table on a terminal. SIGTERM exits 0, Ctrl-C 130 (docs/usage/watch.md).

Exit codes: 0 every operation Succeeded and no app ends Degraded (with --health: every app ends Healthy);
1 an operation Failed, an app ends Degraded (or, with --health, not Healthy), or --timeout passed; 2 bad
input or an app that could not be rendered or compared, or whose sync its project's sync windows refuse
(the other apps still run); 130 interrupted.`;

  static override usage = [
    'sync [APP...] -f FILE... [FLAGS]',
    'sync [APP...] --from-cluster [FLAGS]',
    'sync --repo URL --path DIR [--revision REV] [--dest-namespace NS] [FLAGS]',
  ];

  static override examples = [
    { description: 'Sync every Application in a folder.', command: '<%= config.bin %> sync -f apps/' },
    {
      description: 'Sync one app, deleting what Git no longer has; report as JSON.',
      command: '<%= config.bin %> sync -f apps/ web --prune -o json',
    },
    {
      description: 'Print the plan and change nothing.',
      command: '<%= config.bin %> sync -f apps/ --dry-run',
    },
    {
      description: 'Keep the apps in sync, healing drift, until Ctrl-C; JSON lines for a log shipper.',
      command: '<%= config.bin %> sync -f apps/ --watch --self-heal -o json',
    },
    {
      description: 'Sync one resource, creating its namespace.',
      command:
        '<%= config.bin %> sync -f apps/ web --resource apps:Deployment:web --sync-option CreateNamespace=true',
    },
  ];

  static override strict = false;

  static override args = {
    app: Args.string({
      description: 'Application names to sync (default: all selected).',
      // oclif reads standard input into a missing argument; stdin is -f -'s, never an app name.
      ignoreStdin: true,
    }),
  };

  static override flags = syncFlags;

  async run(): Promise<void> {
    const { flags, argv: names } = await this.parse(Sync);
    // Server-side diff's batches (a bad value fails before anything is read).
    const ssdLimits = serverSideDiffLimits(flags);
    if (flags.watch) {
      const { parseSyncOptions } = await import('../sync/index.js');
      return syncWatch({
        flags,
        names: names as string[],
        signal: this.signal,
        syncOptions: syncOptionsOf(flags, parseSyncOptions, (m) => this.warnLine(m)),
      });
    }
    const [{ Run, prepareRun, syncAppOf }, sync] = await Promise.all([
      import('../controller/index.js'),
      import('../sync/index.js'),
    ]);
    const duration = (flag: string, text: string): number => {
      const ms = parseDuration(text);
      if (ms === undefined)
        throw new UsageError(`failed to parse duration "${text}"`, { subject: `--${flag}` });
      return ms;
    };
    const timeoutMs = duration('timeout', flags.timeout);
    const syncOptions = syncOptionsOf(flags, sync.parseSyncOptions, (m) => this.warnLine(m));
    const resources = (flags.resource ?? []).map((r) => sync.parseResourceFilter(r));
    const retry =
      flags['retry-limit'] === undefined
        ? undefined
        : {
            limit: flags['retry-limit'],
            refresh: false,
            backoff: {
              durationMs: duration('retry-backoff-duration', flags['retry-backoff-duration']),
              factor: flags['retry-backoff-factor'],
              maxDurationMs: duration('retry-backoff-max-duration', flags['retry-backoff-max-duration']),
            },
          };
    // A bad --argocd-cm file fails before anything is rendered; the live one is read after the apps.
    const fileSettings =
      flags['argocd-cm'] !== undefined ? await runSettings(flags, (m) => this.warnLine(m)) : undefined;
    useParseCache();
    // The kubeconfig, a connection and discovery start now, while the Application files load (issue 23).
    const prepared = prepareRun({
      kubeconfig: flags.kubeconfig,
      context: flags.context,
      ...clientOptionsOf(flags),
    });
    let apps: Awaited<ReturnType<typeof selectApps>>;
    let settings: Awaited<ReturnType<typeof runSettings>>;
    let projects: Awaited<ReturnType<typeof runProjects>>;
    try {
      // AppProjects of the -f files come from the same pass that reads their Applications.
      const projectDocs: SourcedObject[] = [];
      apps = await selectApps(flags, names as string[], 'sync', undefined, projectDocs);
      settings = fileSettings ?? (await runSettings(flags, (m) => this.warnLine(m)));
      projects = await runProjects(flags, projectDocs);
    } catch (err) {
      (await prepared.connection)?.close();
      throw err;
    }
    // The reason names the flag, so the report says why the operation stopped.
    const timeoutController = new AbortController();
    const timer =
      timeoutMs > 0
        ? setTimeout(() => timeoutController.abort(new Error(`timeout ${flags.timeout} passed`)), timeoutMs)
        : undefined;
    timer?.unref();
    const timeout = timer ? timeoutController.signal : undefined;
    const signal = timeout ? AbortSignal.any([this.signal, timeout]) : this.signal;
    const json = flags.output === 'json';
    const source = createSourceService({ ...sourceSelection(flags, (m) => this.warnLine(m)), signal });
    let report: RunReport;
    /** Read as the run ends, not after the teardown: a run done in time is not "timed out" by it. */
    let timedOut = false;
    const progress = await this.startProgress('sync', { machineOutput: json, quiet: flags.quiet });
    try {
      report = await new Run({
        ...comparisonMemoOf(flags),
        prepared,
        apps,
        source,
        kubeconfig: flags.kubeconfig,
        context: flags.context,
        clusterSecrets: await clusterSecretsOf(flags, (m) => this.warnLine(m)),
        argocdNamespace: flags['argocd-namespace'],
        ...settings,
        projects,
        // A CLI sync is a manual sync; a dry run plans even when a window refuses it.
        syncWindows: flags['dry-run'] ? 'report' : 'enforce',
        statusProcessors: flags['status-processors'],
        ...ssdLimits,
        ...clientOptionsOf(flags),
        operationProcessors: flags['operation-processors'],
        diffText: false,
        signal,
        retry,
        waitForHealth: flags.health,
        onWarning: (m) => this.warnLine(m),
        onEvent: progress.onEvent,
        operation: (app, reconciliation, opSignal) =>
          sync.runOperation(
            syncAppOf(app),
            reconciliation,
            {
              prune: flags.prune,
              dryRun: flags['dry-run'],
              allowEmpty: flags['allow-empty'],
              strategy: flags.strategy as 'apply' | 'hook',
              resources,
              syncOptions,
              onEvent: progress.onEvent,
            },
            opSignal,
          ),
      }).run();
    } finally {
      clearTimeout(timer);
      timedOut = timeout?.aborted ?? false;
      await this.stopProgress();
      await source.close();
    }
    // -o json is written app by app (issue 23): a big run's document is never one string.
    if (json) for (const text of syncJsonChunks(report)) this.write(text);
    else this.write(syncText(report));
    this.conclude({
      command: 'sync',
      errors: report.apps.flatMap((a) => (a.error ? [a.error] : [])),
      interrupted: this.signal.aborted,
      timedOut: timedOut && !this.signal.aborted ? flags.timeout : undefined,
      waitedFor: stillWaitedFor(report, flags.health),
      operations: report.apps.map((a) => ({
        phase: a.operation?.phase,
        dryRun: a.operation?.dryRun,
        health: a.comparison?.health.status,
      })),
      requireHealthy: flags.health,
    });
  }
}
