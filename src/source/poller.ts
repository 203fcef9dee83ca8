/**
 * The Git poller of the continuous loop (`sync --watch`; issue 22): watches the refs that Applications
 * track and reports when one moves. Argo CD's controller learns of new commits from the repo-server's
 * revision cache expiring (`timeout.reconciliation`) or from a webhook; a laptop has no webhook, so we poll.
 *
 * Guarantees:
 * - ONE `git ls-remote` per repository per poll, whatever the number of apps and refs watched in it
 *   (`listRefs`, normally `SourceService.listRefs`: the same credentials Argo CD would use, passed to git
 *   through its environment only; messages carry the redacted URL). Repositories are polled in parallel.
 * - The first poll (at `start()`) only records the SHAs; every later poll reports each watched ref whose SHA
 *   changed as `{repoURL, ref, from, to}` (`to` undefined: the ref is gone). A full SHA is never watched
 *   (it cannot move).
 * - A failing poll is a warning naming the repository (redacted URL) and keeps the last SHAs: the next
 *   poll compares against them, so a commit made while the remote was unreachable is still reported. It is
 *   never fatal.
 * - Polls never overlap: the next starts `intervalMs` after the previous one ended (default 30 s).
 * - `stop()` (or the signal) clears the timer; a poll in flight is not reported after it.
 *
 * Refs are resolved as Argo CD resolves a symbolic targetRevision (git.ts `refOf`): "" and HEAD, branches,
 * tags (peeled), full `refs/...` names. Which repository a URL is: `normalizeGitURL`, so
 * `https://host/x.git` and `https://host/x` are polled once.
 */
import { oneLine, realClock, type Clock, type TimerHandle } from '../common/index.js';
import { FULL_SHA, refOf } from './git.js';
import { normalizeGitURL, redactText, redactURL } from './url.js';

/** One repository to poll and the refs (targetRevisions) to watch in it. */
export interface PolledRepository {
  /** The URL as the apps spell it (the first one seen); reported back in changes. */
  url: string;
  /** The AppProject whose credentials are used (Argo CD's repository lookup is per project). */
  project: string;
  /** targetRevisions to watch ("" = HEAD); full SHAs are ignored. */
  refs: string[];
}

/** A watched ref that moved. */
export interface RefChange {
  repoURL: string;
  ref: string;
  /** SHA before; undefined when the ref did not exist at the previous poll. */
  from: string | undefined;
  /** SHA now; undefined when the ref is gone. */
  to: string | undefined;
}

export interface RepoPollerOptions {
  repositories: readonly PolledRepository[];
  /** One fresh ls-remote: ref name -> SHA (`SourceService.listRefs`). */
  listRefs: (repoURL: string, project: string) => Promise<Map<string, string>>;
  /** Time between the end of a poll and the start of the next (default 30 s). */
  intervalMs?: number;
  clock?: Clock;
  signal?: AbortSignal;
  onChange: (change: RefChange) => void;
  /** One line per failed poll, naming the repository (redacted). */
  onWarning?: (message: string) => void;
  /** After every poll (tests, status lines): how many repositories answered. */
  onPolled?: (result: { ok: number; failed: number }) => void;
}

export const DEFAULT_POLL_INTERVAL_MS = 30_000;

/**
 * Groups the sources of apps into repositories to poll: one entry per normalized URL, the refs of every
 * source in it (deduplicated), the project of the first app using it. Charts (Helm repositories) and full
 * SHAs are left out.
 */
export function repositoriesToPoll(
  sources: readonly { repoURL: string; targetRevision: string; project: string; chart?: string }[],
): PolledRepository[] {
  const byURL = new Map<string, PolledRepository>();
  for (const s of sources) {
    if (s.chart) continue;
    const rev = s.targetRevision.trim() || 'HEAD';
    if (FULL_SHA.test(rev)) continue;
    const key = normalizeGitURL(s.repoURL) || s.repoURL;
    let repo = byURL.get(key);
    if (!repo) {
      repo = { url: s.repoURL, project: s.project, refs: [] };
      byURL.set(key, repo);
    }
    if (!repo.refs.includes(rev)) repo.refs.push(rev);
  }
  return [...byURL.values()].filter((r) => r.refs.length > 0);
}

export class RepoPoller {
  readonly intervalMs: number;
  /** Polls finished (every repository answered or failed). */
  polls = 0;
  readonly #options: RepoPollerOptions;
  readonly #clock: Clock;
  /** Per repository URL: watched ref -> last SHA seen (undefined: absent). */
  readonly #known = new Map<string, Map<string, string | undefined>>();
  #timer: TimerHandle | undefined;
  #stopped = false;
  #started = false;
  readonly #onAbort = () => this.stop();

  constructor(options: RepoPollerOptions) {
    this.#options = options;
    this.intervalMs = options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    if (!(this.intervalMs > 0))
      throw new RangeError(`poll interval must be positive, got ${this.intervalMs}`);
    this.#clock = options.clock ?? realClock;
  }

  /** Records the current SHAs (first poll), then polls every `intervalMs` until stopped. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    const signal = this.#options.signal;
    if (signal?.aborted) return this.stop();
    signal?.addEventListener('abort', this.#onAbort, { once: true });
    await this.poll();
    this.#schedule();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#options.signal?.removeEventListener('abort', this.#onAbort);
  }

  /** One poll of every repository (exposed for tests and for a poll on demand). */
  async poll(): Promise<RefChange[]> {
    const changes: RefChange[] = [];
    const results = await Promise.all(this.#options.repositories.map((repo) => this.#pollOne(repo)));
    for (const r of results) if (r) changes.push(...r);
    this.polls++;
    const failed = results.filter((r) => r === undefined).length;
    if (this.#stopped) return [];
    this.#options.onPolled?.({ ok: results.length - failed, failed });
    for (const change of changes) this.#options.onChange(change);
    return changes;
  }

  /** The changes of one repository, or undefined when its ls-remote failed. */
  async #pollOne(repo: PolledRepository): Promise<RefChange[] | undefined> {
    let refs: Map<string, string>;
    try {
      refs = await this.#options.listRefs(repo.url, repo.project);
    } catch (err) {
      if (!this.#stopped)
        this.#options.onWarning?.(
          `repository ${redactURL(repo.url)}: failed to poll refs: ${redactText(oneLine(err))} (retrying in ${formatMs(this.intervalMs)})`,
        );
      return undefined;
    }
    const first = !this.#known.has(repo.url);
    const known = this.#known.get(repo.url) ?? new Map<string, string | undefined>();
    this.#known.set(repo.url, known);
    const changes: RefChange[] = [];
    for (const ref of repo.refs) {
      const to = refOf(refs, ref);
      const from = known.get(ref);
      known.set(ref, to);
      if (!first && from !== to) changes.push({ repoURL: repo.url, ref, from, to });
    }
    return changes;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      const next = () => this.#schedule();
      void this.poll().then(next, next);
    }, this.intervalMs);
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
