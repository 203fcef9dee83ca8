/**
 * The `--local DIR` watcher of the continuous loop (`sync --watch --local`; issue 22): reports which files
 * under a directory changed, once the tree has been quiet for a while, so a save re-renders the apps once.
 *
 * Why not `fs.watch(dir, {recursive: true})`: on Linux, Node 20 builds it from one watcher per FILE, which
 * loses a file for good once an editor saves it by writing a temporary file and renaming it over the old
 * one (measured on Node 20.20: the save is seen, every later save of that file is not). Here every
 * DIRECTORY has its own (inotify) watcher, which sees entries by name, so rename-on-save is just another
 * event; directories created later are watched when they appear, removed ones are dropped.
 *
 * Guarantees:
 * - `onChange(paths)` is called after `quietMs` (default 300 ms) without any event, with the changed
 *   paths relative to the root, sorted, each once; at most one call per quiet period.
 * - Editors' temporary files (written then renamed or removed before the quiet period ends, e.g.
 *   `.x.swp`, `x~`, `4913`) are not reported: a path that does not exist when reported is reported only
 *   if it existed before (a real deletion).
 * - `.git` directories are not watched (a working copy's own bookkeeping is not a change of manifests).
 * - `close()` (or the signal) stops every watcher and the pending report; nothing is reported after it.
 * - A directory that cannot be watched (permissions, inotify limit) is a warning naming it, not fatal.
 */
import { watch as fsWatch, type Dirent, type FSWatcher } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { oneLine, realClock, type Clock, type TimerHandle } from '../common/index.js';

export interface FileWatcherOptions {
  /** The directory to watch (recursively). */
  root: string;
  /** Quiet period before a report (default 300 ms). */
  quietMs?: number;
  onChange: (paths: string[]) => void;
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
  clock?: Clock;
  /** Directory names never entered (default `.git`). */
  ignoreDirs?: readonly string[];
}

export const DEFAULT_QUIET_MS = 300;

export class FileWatcher {
  readonly root: string;
  readonly quietMs: number;
  readonly #options: FileWatcherOptions;
  readonly #clock: Clock;
  readonly #ignore: ReadonlySet<string>;
  /** Absolute directory -> its watcher. */
  readonly #watchers = new Map<string, FSWatcher>();
  /** Relative paths of every file and directory seen (to tell a deletion from a temporary file). */
  readonly #known = new Set<string>();
  /** Relative paths changed since the last report. */
  #pending = new Set<string>();
  #timer: TimerHandle | undefined;
  #closed = false;
  readonly #onAbort = () => this.close();

  constructor(options: FileWatcherOptions) {
    this.#options = options;
    this.root = resolve(options.root);
    this.quietMs = options.quietMs ?? DEFAULT_QUIET_MS;
    this.#clock = options.clock ?? realClock;
    this.#ignore = new Set(options.ignoreDirs ?? ['.git']);
  }

  /** Watches the root and every directory under it; resolves once all are watched. */
  async start(): Promise<void> {
    const signal = this.#options.signal;
    if (signal?.aborted) return this.close();
    signal?.addEventListener('abort', this.#onAbort, { once: true });
    const root = await lstat(this.root).catch(() => undefined);
    if (!root?.isDirectory()) throw new Error(`${this.root}: failed to watch: not a directory`);
    await this.#watchTree(this.root);
  }

  /** Directories watched now (tests). */
  get directories(): string[] {
    return [...this.#watchers.keys()].map((d) => relative(this.root, d) || '.').sort();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const w of this.#watchers.values()) w.close();
    this.#watchers.clear();
    this.#options.signal?.removeEventListener('abort', this.#onAbort);
  }

  async #watchTree(dir: string): Promise<void> {
    if (this.#closed || this.#watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = fsWatch(dir, { persistent: true }, (_event, name) => {
        if (name !== null) this.#changed(join(dir, name.toString()));
      });
    } catch (err) {
      this.#options.onWarning?.(`${dir}: failed to watch: ${oneLine(err)}`);
      return;
    }
    // The directory was removed or became unreadable: forget its watcher (its parent reports the removal).
    watcher.on('error', () => this.#unwatch(dir));
    this.#watchers.set(dir, watcher);
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return this.#unwatch(dir);
    }
    await Promise.all(
      entries.map((e) => {
        const path = join(dir, e.name);
        this.#known.add(relative(this.root, path));
        return e.isDirectory() && !this.#ignore.has(e.name) ? this.#watchTree(path) : undefined;
      }),
    );
  }

  #unwatch(dir: string): void {
    for (const [d, w] of this.#watchers) {
      if (d === dir || d.startsWith(dir + sep)) {
        w.close();
        this.#watchers.delete(d);
      }
    }
  }

  #changed(path: string): void {
    if (this.#closed) return;
    const rel = relative(this.root, path);
    if (rel.split(sep).some((part) => this.#ignore.has(part))) return;
    this.#pending.add(rel);
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = this.#clock.setTimeout(() => void this.#flush(), this.quietMs);
  }

  async #flush(): Promise<void> {
    this.#timer = undefined;
    const pending = this.#pending;
    this.#pending = new Set();
    const report: string[] = [];
    for (const rel of pending) {
      const full = join(this.root, rel);
      const stat = await lstat(full).catch(() => undefined);
      if (this.#closed) return;
      if (!stat) {
        // Removed: a real deletion only if it existed before; its watchers (if a directory) go.
        this.#unwatch(full);
        if (this.#known.delete(rel)) report.push(rel);
        continue;
      }
      this.#known.add(rel);
      report.push(rel);
      if (stat.isDirectory() && !this.#watchers.has(full)) await this.#watchTree(full);
    }
    if (this.#closed || report.length === 0) return;
    this.#options.onChange(report.sort());
  }
}
