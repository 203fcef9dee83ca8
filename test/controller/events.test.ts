/**
 * The run's progress events (`RunOptions.onEvent`) for a diff run against the embedded API server: the
 * order a printer can rely on, and the counts it shows (apps out of the total, the cache sync's kinds).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RunEvent } from '../../src/controller/index.js';
import { useEmbeddedCluster } from '../support/embedded.js';
import { cm, TestRepo } from '../support/git.js';
import { application, newCacheRoot, refresh } from './setup.js';

describe('run events of a diff run', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();

  it('run-start, the cache sync, then per app render -> compare -> done; every app done once', async () => {
    repo.commit({ 'one/a.yaml': cm('a'), 'two/b.yaml': cm('b'), 'two/c.yaml': cm('c') });
    const apps = [
      application('one', repo.url, 'one', { namespace: 'default' }),
      application('two', repo.url, 'two', { namespace: 'default' }),
      application('broken', repo.url, 'missing-path', { namespace: 'default' }),
    ];
    const events: RunEvent[] = [];
    const report = await refresh(fx, apps, newCacheRoot(), { onEvent: (e) => events.push(e) });
    assert.equal(report.apps.filter((a) => a.error).length, 1);

    const start = events[0]!;
    assert.equal(start.type, 'run-start');
    assert.deepEqual(start.type === 'run-start' ? start : undefined, {
      type: 'run-start',
      apps: [
        { name: 'one', cluster: 'embedded' },
        { name: 'two', cluster: 'embedded' },
        { name: 'broken', cluster: 'embedded' },
      ],
      clusters: ['embedded'],
    });
    // One cache sync for the cluster, its progress counting up to every scope listed.
    const cache = events.filter((e) => e.type.startsWith('cache-sync'));
    assert.equal(cache[0]!.type, 'cache-sync-start');
    assert.equal(cache.at(-1)!.type, 'cache-sync-done');
    assert.equal(cache.filter((e) => e.type === 'cache-sync-start').length, 1);
    const progress = cache.flatMap((e) => (e.type === 'cache-sync-progress' ? [e] : []));
    assert.deepEqual(
      progress.map((p) => p.listed),
      progress.map((_, i) => i + 1),
    );
    const done = cache.at(-1)!;
    const begun = cache[0]!;
    assert.ok(done.type === 'cache-sync-done' && begun.type === 'cache-sync-start');
    assert.equal(done.kinds, begun.kinds);
    assert.ok(done.kinds > 0 && done.objects > 0 && done.error === undefined);
    assert.equal(progress.at(-1)!.listed, progress.at(-1)!.scopes);

    // Per app, in order: render-start, render-done, compare-done (when it compared), app-done last.
    const per = (app: string) => events.filter((e) => 'app' in e && e.app === app).map((e) => e.type);
    assert.deepEqual(per('one'), ['render-start', 'render-done', 'compare-done', 'app-done']);
    assert.deepEqual(per('two'), ['render-start', 'render-done', 'compare-done', 'app-done']);
    assert.deepEqual(per('broken'), ['render-start', 'render-done', 'app-done']);
    const brokenDone = events.find((e) => e.type === 'app-done' && e.app === 'broken');
    assert.match(brokenDone?.type === 'app-done' ? (brokenDone.error ?? '') : '', /^app "broken": /);
    const twoRendered = events.find((e) => e.type === 'render-done' && e.app === 'two');
    assert.equal(twoRendered?.type === 'render-done' ? twoRendered.objects : -1, 2);
    const twoDone = events.find((e) => e.type === 'app-done' && e.app === 'two');
    assert.deepEqual(twoDone, { type: 'app-done', app: 'two', sync: 'OutOfSync', health: 'Missing' });
    // A compare needs the synced cache: no compare-done before the cache is synced.
    const synced = events.indexOf(done);
    assert.ok(events.findIndex((e) => e.type === 'compare-done') > synced);
    assert.equal(events.at(-1)!.type, 'app-done');
  });
});
