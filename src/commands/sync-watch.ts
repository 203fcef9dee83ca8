/**
 * `sync --watch` (issue 22; docs/usage/watch.md): the command side of the continuous loop. Reads the same
 * inputs as the one-shot `sync` (apps, settings, projects, cluster and repository Secrets), builds the
 * `Loop` with every app automated (`--prune`, `--self-heal`, `--allow-empty`), hands it to `watchApps`
 * (src/controller/loop/watch-run.ts: Git poller or `--local` watcher, shutdown) and prints its events
 * (src/output/watch.ts). Exit code: 0 on SIGTERM, 130 on Ctrl-C (a second Ctrl-C exits at once).
 */
import type { Interfaces } from '@oclif/core';
import { parseDuration } from '../apps/index.js';
import { handleInterruptInCommand, InterruptError, ExitCode, UsageError } from '../common/index.js';
import type { SourcedObject } from '../util/yaml-docs.js';
import { watchOutputMode, WatchPrinter } from '../output/watch.js';
import { createSourceService } from '../source/index.js';
import {
  clientOptionsOf,
  clusterSecretsOf,
  runProjects,
  runSettings,
  selectApps,
  sourceSelection,
  useParseCache,
} from './flags.js';
import type { syncFlags } from './sync-flags.js';

type SyncFlags = Interfaces.InferredFlags<typeof syncFlags>;

export interface SyncWatchContext {
  flags: SyncFlags;
  names: string[];
  /** Interrupt signal (SIGINT/SIGTERM) of the process. */
  signal: AbortSignal;
  syncOptions: Record<string, string>;
}

function duration(flag: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms < 0)
    throw new UsageError(`failed to parse duration "${text}"`, { subject: `--${flag}` });
  return ms;
}

export async function syncWatch(c: SyncWatchContext): Promise<void> {
  const { flags } = c;
  // The command ends itself after the shutdown; no grace-period exit after the first signal.
  handleInterruptInCommand();
  const pollIntervalMs = duration('poll-interval', flags['poll-interval'] ?? '30s');
  if (pollIntervalMs <= 0) throw new UsageError('must be more than 0', { subject: '--poll-interval' });
  const appResyncMs = flags['app-resync'] ?? 180_000; // 3m
  const selfHealMs = duration('self-heal-timeout', flags['self-heal-timeout'] ?? '2s');
  const shutdownTimeoutMs = duration('shutdown-timeout', flags['shutdown-timeout'] ?? '30s');
  const [{ Loop, watchApps, syncAppOf }, sync] = await Promise.all([
    import('../controller/index.js'),
    import('../sync/index.js'),
  ]);
  const printer = new WatchPrinter({
    mode: watchOutputMode(flags.output, process.stdout),
    out: process.stdout,
    err: process.stderr,
    columns: () => process.stdout.columns,
  });
  const warn = (m: string) => printer.warn(m);
  const fileSettings = flags['argocd-cm'] !== undefined ? await runSettings(flags, warn) : undefined;
  useParseCache();
  const projectDocs: SourcedObject[] = [];
  const selected = await selectApps(flags, c.names, 'sync', warn, projectDocs);
  // --retry-limit replaces each app's syncPolicy.retry for the automated syncs (as for a one-shot sync).
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
  const apps = retry ? selected.map((a) => ({ ...a, syncPolicy: { ...a.syncPolicy, retry } })) : selected;
  const settings = fileSettings ?? (await runSettings(flags, warn));
  const projects = await runProjects(flags, projectDocs);
  // With --local, a save must look like a new revision to auto-sync (and a live edit like drift): a digest.
  // Not the interrupt signal: operations running at SIGTERM / the first Ctrl-C may still render during
  // --shutdown-timeout; the source stops (its git and renderers with it) once the loop has shut down.
  const sourceStop = new AbortController();
  const source = createSourceService({
    ...sourceSelection(flags, warn),
    localRevision: 'digest',
    signal: sourceStop.signal,
  });
  const strategy = flags.strategy as 'apply' | 'hook';
  try {
    const loop = new Loop({
      apps,
      source,
      kubeconfig: flags.kubeconfig,
      context: flags.context,
      clusterSecrets: await clusterSecretsOf(flags, warn),
      argocdNamespace: flags['argocd-namespace'],
      ...settings,
      projects,
      statusProcessors: flags['status-processors'],
      operationProcessors: flags['operation-processors'],
      ...clientOptionsOf(flags),
      diffText: false,
      onWarning: warn,
      onEvent: printer.onEvent,
      autoSync: {
        mode: 'all',
        prune: flags.prune,
        selfHeal: flags['self-heal'],
        allowEmpty: flags['allow-empty'],
      },
      appResyncMs,
      // The poller re-resolves a moved branch (level 3); a resync reuses a resolution up to 3 minutes old,
      // as Argo CD's repo-server revision cache.
      revisionCacheMs: 180_000,
      selfHealBackoff: { durationMs: selfHealMs, factor: 3, maxDurationMs: 300_000 },
      // Ctrl-C / SIGTERM: a sync still running after --shutdown-timeout is terminated as Argo CD's
      // terminate-op does (Failed "Operation terminated").
      terminateOnShutdown: true,
      operation: (app, reconciliation, request, opSignal, terminate) =>
        sync.runOperation(
          syncAppOf(app),
          reconciliation,
          {
            prune: request.prune,
            dryRun: request.dryRun,
            allowEmpty: request.allowEmpty ?? flags['allow-empty'],
            strategy: request.strategy ?? strategy,
            resources: request.resources ?? [],
            // The flags' sync options over the app's (as for a one-shot sync).
            syncOptions: { ...request.syncOptions, ...c.syncOptions },
            terminate,
          },
          opSignal,
        ),
    });
    await watchApps({
      loop,
      apps,
      // Sync the selected apps now (a manual sync, as the one-shot command), then keep them in sync.
      initialSync: {
        initiatedBy: { automated: false },
        prune: flags.prune,
        dryRun: false,
        allowEmpty: flags['allow-empty'],
        ...(retry ? { retry } : {}),
      },
      source,
      pollIntervalMs,
      ...(flags.local ? { local: flags.local } : {}),
      shutdownTimeoutMs,
      signal: c.signal,
      onEvent: printer.onEvent,
      onWarning: warn,
    });
  } finally {
    printer.stop();
    sourceStop.abort(c.signal.reason);
    await source.close();
  }
  // SIGTERM is how a service manager asks for a stop: a clean one. Ctrl-C keeps the shell's 130.
  const reason: unknown = c.signal.reason;
  process.exitCode =
    reason instanceof InterruptError && reason.signal === 'SIGTERM' ? ExitCode.OK : ExitCode.INTERRUPTED;
  if (!c.signal.aborted) process.exitCode = ExitCode.OK;
}
