/**
 * The triggers of `sync --watch` (src/controller/loop/watch-run.ts) around a recording `ReconcileLoop`: a real
 * Git repository polled through the real source service (a commit -> a level-3 'git' refresh of the
 * loop's apps of that repository), a real directory for `--local`
 * (a save -> a level-3 'files' refresh of every app), and the shutdown on the signal (triggers stop, then
 * `loop.shutdown(timeout)`). Each test waits for the call it expects; nothing is timed.
 */
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { adHocApplication, type Application } from '../../../src/apps/index.js';
import {
  watchApps,
  type AppLoopState,
  type CompareLevel,
  type ReconcileLoop,
  type RefreshReason,
  type WatchEvent,
} from '../../../src/controller/index.js';
import { createSourceService } from '../../../src/source/index.js';
import { TestRepo, tempDir, tree } from '../../support/git.js';

interface Refresh {
  key: string;
  level: CompareLevel;
  reason: RefreshReason;
}

/** A loop that records what the triggers ask of it; `run()` ends on `shutdown`. */
class RecordingLoop implements ReconcileLoop {
  readonly refreshes: Refresh[] = [];
  shutdowns: number[] = [];
  #end: (() => void) | undefined;
  #waiters: (() => void)[] = [];
  constructor(
    readonly apps: Application[],
    readonly repoApps: (url: string) => string[],
  ) {}
  run(): Promise<void> {
    return new Promise((resolve) => (this.#end = resolve));
  }
  upsertApp(): void {}
  removeApp(): void {}
  requestRefresh(key: string, level: CompareLevel, reason: RefreshReason): void {
    this.refreshes.push({ key, level, reason });
    for (const w of this.#waiters.splice(0)) w();
  }
  requestOperation(): void {}
  terminateOperation(): boolean {
    return false;
  }
  appsOfRepo(url: string): string[] {
    return this.repoApps(url);
  }
  state(key: string): AppLoopState | undefined {
    return this.states().find((s) => s.key === key);
  }
  states(): AppLoopState[] {
    return this.apps.map((app) => ({ key: `argocd/${app.name}`, app, selfHealAttempts: 0 }));
  }
  shutdown(timeoutMs: number): Promise<void> {
    this.shutdowns.push(timeoutMs);
    this.#end?.();
    return Promise.resolve();
  }
  /** Resolves once a refresh matching `reason` was requested. */
  async refreshed(reason: RefreshReason): Promise<Refresh[]> {
    while (!this.refreshes.some((r) => r.reason === reason))
      await new Promise<void>((r) => this.#waiters.push(r));
    return this.refreshes.filter((r) => r.reason === reason);
  }
}

/** Records events; `started` resolves with the watch-start event. */
function recorder() {
  const events: WatchEvent[] = [];
  let resolve: (e: WatchEvent) => void = () => undefined;
  const started = new Promise<WatchEvent>((r) => (resolve = r));
  const push = events.push.bind(events);
  events.push = (...es: WatchEvent[]) => {
    for (const e of es) if (e.type === 'watch-start') resolve(e);
    return push(...es);
  };
  return { events, started };
}

const app = (name: string, url: string): Application =>
  adHocApplication({ repo: url, path: 'app', name, destNamespace: 'web' });

describe('watchApps: Git poll and --local triggers around the loop', () => {
  const repo = new TestRepo();
  const other = new TestRepo();
  repo.commit({ 'app/a.yaml': 'a: 1\n' });
  other.commit({ 'app/b.yaml': 'b: 1\n' });
  const source = createSourceService({ cacheRoot: tempDir('kg-cache-') });
  after(async () => {
    await source.close();
    repo.remove();
    other.remove();
  });

  it('a commit refreshes (level 3, git) the apps of that repository only; the signal shuts the loop down', async () => {
    const apps = [app('web', repo.url), app('api', repo.url), app('other', other.url)];
    const loop = new RecordingLoop(apps, (url) => (url === repo.url ? ['argocd/web', 'argocd/api'] : []));
    const { events, started } = recorder();
    const warnings: string[] = [];
    const stop = new AbortController();
    const done = watchApps({
      loop,
      apps,
      source: { listRefs: (u, p) => source.listRefs!(u, p) },
      pollIntervalMs: 50,
      shutdownTimeoutMs: 1234,
      signal: stop.signal,
      onEvent: (e) => events.push(e),
      onWarning: (m) => warnings.push(m),
    });
    // Reported once the first poll has recorded the SHAs: a commit from now on is a move.
    assert.deepEqual(await started, {
      type: 'watch-start',
      apps: ['web', 'api', 'other'],
      repositories: [repo.url, other.url],
      pollIntervalMs: 50,
    });
    const before = repo.head();
    const after = repo.commit({ 'app/a.yaml': 'a: 2\n' });
    const refreshes = await loop.refreshed('git');
    assert.deepEqual(refreshes, [
      { key: 'argocd/web', level: 3, reason: 'git' },
      { key: 'argocd/api', level: 3, reason: 'git' },
    ]);
    const moved = events.find((e) => e.type === 'ref-moved');
    assert.deepEqual(moved, {
      type: 'ref-moved',
      repoURL: repo.url,
      ref: 'HEAD',
      from: before,
      to: after,
      apps: ['web', 'api'],
    });
    stop.abort(new Error('stop'));
    await done;
    assert.deepEqual(loop.shutdowns, [1234]);
    assert.equal(events.at(-1)?.type, 'watch-stopped');
    assert.deepEqual(warnings, []);
  });

  it('--local: a save refreshes every app (level 3, files); no Git poll', async () => {
    const dir = tree({ 'app/a.yaml': 'a: 1\n' });
    const apps = [app('web', repo.url), app('other', other.url)];
    const loop = new RecordingLoop(apps, () => assert.fail('no Git lookup with --local'));
    const { events, started } = recorder();
    const stop = new AbortController();
    const done = watchApps({
      loop,
      apps,
      source: { listRefs: () => assert.fail('no ls-remote with --local') },
      pollIntervalMs: 10,
      local: dir,
      quietMs: 30,
      shutdownTimeoutMs: 10,
      signal: stop.signal,
      onEvent: (e) => events.push(e),
      onWarning: (m) => assert.fail(m),
    });
    await started;
    writeFileSync(join(dir, 'app/a.yaml'), 'a: 2\n');
    assert.deepEqual(await loop.refreshed('files'), [
      { key: 'argocd/web', level: 3, reason: 'files' },
      { key: 'argocd/other', level: 3, reason: 'files' },
    ]);
    assert.deepEqual(
      events.find((e) => e.type === 'files-changed'),
      { type: 'files-changed', paths: ['app/a.yaml'], apps: ['web', 'other'] },
    );
    stop.abort();
    await done;
    assert.deepEqual(loop.shutdowns, [10]);
  });

  it('a loop that fails ends the watch with its error, after shutting it down', async () => {
    const apps = [app('web', repo.url)];
    const loop = new RecordingLoop(apps, () => []);
    loop.run = () => Promise.reject(new Error('kubeconfig x: failed to load: ENOENT'));
    const events: WatchEvent[] = [];
    await assert.rejects(
      watchApps({
        loop,
        apps,
        source: { listRefs: (u, p) => source.listRefs!(u, p) },
        pollIntervalMs: 60_000,
        shutdownTimeoutMs: 5,
        signal: new AbortController().signal,
        onEvent: (e) => events.push(e),
        onWarning: () => undefined,
      }),
      /kubeconfig x: failed to load/,
    );
    assert.deepEqual(loop.shutdowns, [5]);
    assert.deepEqual(events.at(-1), { type: 'watch-stopped', reason: 'error', cutOff: [] });
  });
});
