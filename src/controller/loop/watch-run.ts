/**
 * `sync --watch` (issue 22, part 1): the triggers of a developer's continuous loop around a `ReconcileLoop`.
 * The loop (loop.ts) does the reconciling: the first refresh and sync of every app (`initialSync`: a manual
 * sync of each, so later drift at the same revision is drift, not a first auto-sync), drift seen by the live
 * cache, self-heal, the periodic resync, the queues. This module adds what only the foreground command has:
 *
 * - Git: a `RepoPoller` over the apps' repositories (one ls-remote per repository per `pollIntervalMs`);
 *   a moved ref requests a level-3 refresh (`'git'`: revisions resolved afresh) of `loop.appsOfRepo(url)`.
 *   Not with `local` (nothing comes from Git then).
 * - `local`: a `FileWatcher` on the directory; a quiet period after a save, every app is refreshed at
 *   level 3 (`'files'`): all of them render from that directory.
 * - Shutdown (the signal: SIGTERM or the first Ctrl-C): the triggers stop at once, then
 *   `loop.shutdown(shutdownTimeoutMs)`: no new operation starts, running ones may end within the timeout.
 *   `watchApps` resolves after that; the command decides the exit code (0 on SIGTERM, 130 on SIGINT).
 * Everything it learns is an event (`WatchEvent`: the loop's events plus `watch-start`, `ref-moved`,
 * `files-changed`, `watch-stopped`) for the printers (src/output/watch.ts); it never writes to a terminal.
 */
import type { Application } from '../../apps/index.js';
import {
  FileWatcher,
  redactURL,
  RepoPoller,
  repositoriesToPoll,
  type RefChange,
  type SourceService,
} from '../../source/index.js';
import type { LoopEvent, OperationRequest, ReconcileLoop } from './types.js';

/** What `sync --watch` reports: the loop's events and the triggers'. Times are added by printers. */
export type WatchEvent =
  | LoopEvent
  | {
      type: 'watch-start';
      apps: string[];
      /** Redacted URLs of the repositories polled (none with `local`). */
      repositories: string[];
      local?: string;
      pollIntervalMs: number;
    }
  | {
      type: 'ref-moved';
      /** Redacted. */
      repoURL: string;
      ref: string;
      from?: string;
      to?: string;
      /** Names of the apps refreshed for it. */
      apps: string[];
    }
  | { type: 'files-changed'; paths: string[]; apps: string[] }
  | {
      type: 'watch-stopped';
      reason: string;
      /** Apps whose operation was still running when `shutdownTimeoutMs` ran out (it was aborted). */
      cutOff: string[];
    };

export interface WatchRunOptions {
  loop: ReconcileLoop;
  /** The apps the loop reconciles (for the repositories to poll and the start event). */
  apps: readonly Application[];
  /** The loop's source service: `listRefs` for polls. */
  source: Pick<SourceService, 'listRefs'>;
  pollIntervalMs: number;
  /** `--local DIR`: watch this directory instead of polling Git. */
  local?: string;
  /** Quiet period of the file watcher (default 300 ms). */
  quietMs?: number;
  /** How long running operations may take to end after the signal. */
  shutdownTimeoutMs: number;
  /**
   * "Sync the selected apps now": a manual sync of every app when the watch starts (as a one-shot `sync`,
   * also for an app already Synced), so each app has a last sync at its revision and a later edit at that
   * revision is drift (healed only with `--self-heal`), never a first auto-sync. Unset: auto-sync only.
   */
  initialSync?: OperationRequest;
  /** SIGTERM / Ctrl-C: stop. */
  signal: AbortSignal;
  onEvent: (event: WatchEvent) => void;
  onWarning: (message: string) => void;
}

/** Runs the loop with its triggers until the signal (or the loop ends on its own); never throws for a poll. */
export async function watchApps(options: WatchRunOptions): Promise<void> {
  const { loop, source, signal } = options;
  const appName = (key: string) => loop.state(key)?.app.name ?? key.slice(key.indexOf('/') + 1);
  const triggers = new AbortController();
  const stopTriggers = () => triggers.abort();
  signal.addEventListener('abort', stopTriggers, { once: true });

  const repositories =
    options.local || !source.listRefs
      ? []
      : repositoriesToPoll(
          options.apps.flatMap((app) =>
            app.sources.map((s) => ({
              repoURL: s.repoURL,
              targetRevision: s.targetRevision,
              project: app.project,
              ...(s.chart ? { chart: s.chart } : {}),
            })),
          ),
        );
  const onRefMoved = (change: RefChange) => {
    const keys = loop.appsOfRepo(change.repoURL);
    options.onEvent({
      type: 'ref-moved',
      repoURL: redactURL(change.repoURL),
      ref: change.ref,
      ...(change.from ? { from: change.from } : {}),
      ...(change.to ? { to: change.to } : {}),
      apps: keys.map(appName),
    });
    for (const key of keys) loop.requestRefresh(key, 3, 'git');
  };
  const poller =
    repositories.length > 0 && source.listRefs
      ? new RepoPoller({
          repositories,
          listRefs: source.listRefs.bind(source),
          intervalMs: options.pollIntervalMs,
          signal: triggers.signal,
          onChange: onRefMoved,
          onWarning: options.onWarning,
        })
      : undefined;
  const watcher = options.local
    ? new FileWatcher({
        root: options.local,
        ...(options.quietMs !== undefined ? { quietMs: options.quietMs } : {}),
        signal: triggers.signal,
        onWarning: options.onWarning,
        onChange: (paths) => {
          const keys = loop.states().map((s) => s.key);
          options.onEvent({ type: 'files-changed', paths, apps: keys.map(appName) });
          for (const key of keys) loop.requestRefresh(key, 3, 'files');
        },
      })
    : undefined;

  const running = loop.run();
  if (options.initialSync) for (const s of loop.states()) loop.requestOperation(s.key, options.initialSync);
  let loopError: unknown;
  const ended = running.then(
    () => 'loop-ended' as const,
    (err: unknown) => {
      loopError = err;
      return 'loop-ended' as const;
    },
  );
  const aborted = new Promise<'signal'>((resolve) => {
    if (signal.aborted) resolve('signal');
    else signal.addEventListener('abort', () => resolve('signal'), { once: true });
  });
  try {
    // The start event says "watching" once it is true: the directory watched, the first poll's SHAs known.
    const started = Promise.all([watcher?.start(), poller?.start()]);
    started.catch(() => undefined);
    if ((await Promise.race([started.then(() => 'started' as const), aborted, ended])) === 'started')
      options.onEvent({
        type: 'watch-start',
        apps: options.apps.map((a) => a.name),
        repositories: repositories.map((r) => redactURL(r.url)),
        ...(options.local ? { local: options.local } : {}),
        pollIntervalMs: options.pollIntervalMs,
      });
    const why = await Promise.race([aborted, ended]);
    stopTriggers();
    poller?.stop();
    watcher?.close();
    const reason = why === 'signal' ? describeAbort(signal.reason) : 'the loop ended';
    const running = loop.states().filter((s) => s.running);
    const stopAt = Date.now();
    await loop.shutdown(options.shutdownTimeoutMs);
    await ended;
    // The shutdown used all its time while operations ran: they were aborted at its end.
    const overran = running.length > 0 && Date.now() - stopAt >= options.shutdownTimeoutMs;
    options.onEvent({
      type: 'watch-stopped',
      // The loop's own failure is the command's error (thrown below); the event only says it stopped.
      reason: loopError !== undefined ? 'error' : reason,
      cutOff: overran ? running.map((s) => s.app.name) : [],
    });
  } catch (err) {
    // The watcher could not start: stop the loop before reporting it.
    stopTriggers();
    await loop.shutdown(options.shutdownTimeoutMs);
    await ended;
    throw err;
  } finally {
    stopTriggers();
    poller?.stop();
    watcher?.close();
    signal.removeEventListener('abort', stopTriggers);
  }
  if (loopError !== undefined) throw loopError;
}

function describeAbort(reason: unknown): string {
  const signal = (reason as { signal?: unknown } | undefined)?.signal;
  if (typeof signal === 'string') return signal;
  return reason instanceof Error ? reason.message : 'stopped';
}
