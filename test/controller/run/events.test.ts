/**
 * The run's progress events (`RunOptions.onEvent`) for a diff run and a sync run against the embedded API
 * server: the order a printer can rely on, and the counts it shows (apps out of the total, the cache
 * sync's kinds, an operation's phases, waves and tasks). The recorded events are then folded by the
 * progress renderers' model (src/output/progress-model.ts), so the renderers are fed a tested contract.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RunEvent } from '../../../src/controller/index.js';
import { ProgressModel } from '../../../src/output/progress-model.js';
import { useEmbeddedCluster } from '../../support/embedded.js';
import { cm, TestRepo } from '../../support/git.js';
import { application, newCacheRoot, refresh, sync, syncRequest } from '../setup.js';

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
    // A source that does not render is still compared (with no targets, as Argo CD), and stays an error.
    assert.deepEqual(per('broken'), ['render-start', 'render-done', 'compare-done', 'app-done']);
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

    // The progress model folds the same events into what the display shows at the end.
    const model = new ProgressModel();
    for (const e of events) model.apply(e);
    assert.deepEqual([model.total, model.rendered, model.finished], [3, 3, 3]);
    assert.equal(model.clusters.get('embedded')?.state, 'done');
    assert.deepEqual(
      [...model.apps.values()].map((a) => [a.name, a.stage, a.sync, a.health, a.error?.slice(0, 14)]),
      [
        ['one', 'done', 'OutOfSync', 'Missing', undefined],
        ['two', 'done', 'OutOfSync', 'Missing', undefined],
        ['broken', 'done', 'Unknown', 'Healthy', 'app "broken": '],
      ],
    );
  });
});

const waveAnnotation = (n: number) => `  annotations:\n    argocd.argoproj.io/sync-wave: "${n}"\n`;
const preSyncHook = '  annotations:\n    argocd.argoproj.io/hook: PreSync\n';

/** An event as one line: its type, and for an operation's events the group or task it is about. */
function line(e: RunEvent): string {
  switch (e.type) {
    case 'wave-start':
    case 'wave-done':
      return `${e.type} ${e.syncPhase}/${e.syncWave}`;
    case 'task':
      return `task ${e.task.syncPhase}/${e.task.syncWave} ${e.task.kind}/${e.task.name} ${e.phase}`;
    case 'operation-done':
      return `${e.type} ${e.phase}`;
    case 'compare-done':
      return `${e.type} ${e.sync}/${e.health}`;
    default:
      return e.type;
  }
}

describe('run events of a sync run', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();

  it('refresh, then the operation by phase and wave (validated first), then the final refresh', async () => {
    repo.commit({
      'web/early.yaml': cm('early', waveAnnotation(-1)),
      'web/late.yaml': cm('late', waveAnnotation(1)),
      'web/pre.yaml': cm('pre', preSyncHook),
    });
    const events: RunEvent[] = [];
    const onEvent = (e: RunEvent): void => {
      events.push(e);
    };
    const report = await sync(
      fx,
      [application('web', repo.url, 'web', { namespace: 'web' })],
      newCacheRoot(),
      syncRequest({ onEvent }),
      { onEvent },
    );
    assert.equal(report.apps[0]!.operation?.phase, 'Succeeded');

    assert.equal(events[0]!.type, 'run-start');
    const cacheDone = events.findIndex((e) => e.type === 'cache-sync-done');
    assert.ok(cacheDone > 0 && cacheDone < events.findIndex((e) => e.type === 'compare-done'));
    assert.equal(events.filter((e) => e.type === 'cache-sync-start').length, 1);

    // The app's events in the order emitted. Within a group, the tasks of a wave are written (Running)
    // before any is Succeeded: Argo CD applies a whole wave, then waits for it.
    const app = events.filter((e) => 'app' in e && e.app === 'web').map(line);
    assert.deepEqual(app, [
      'render-start',
      'render-done',
      'compare-done OutOfSync/Missing',
      'operation-start',
      'validate-start',
      'validate-done',
      'wave-start PreSync/0',
      'task PreSync/0 Namespace/web Running',
      'task PreSync/0 ConfigMap/pre Running',
      'task PreSync/0 Namespace/web Succeeded',
      'task PreSync/0 ConfigMap/pre Succeeded',
      'wave-done PreSync/0',
      'wave-start Sync/-1',
      'task Sync/-1 ConfigMap/early Running',
      'task Sync/-1 ConfigMap/early Succeeded',
      'wave-done Sync/-1',
      'wave-start Sync/1',
      'task Sync/1 ConfigMap/late Running',
      'task Sync/1 ConfigMap/late Succeeded',
      'wave-done Sync/1',
      'operation-done Succeeded',
      'render-start',
      'render-done',
      'compare-done Synced/Healthy',
      'app-done',
    ]);
    assert.equal(events.at(-1)!.type, 'app-done');

    // The plan announced by operation-start is the groups the waves then run, with their tasks.
    const start = events.find((e) => e.type === 'operation-start');
    assert.ok(start?.type === 'operation-start');
    assert.deepEqual(
      start.groups.map((g) => `${g.syncPhase}/${g.syncWave}: ${g.tasks.map((t) => t.name).join(',')}`),
      ['PreSync/0: web,pre', 'Sync/-1: early', 'Sync/1: late'],
    );
    const validate = events.find((e) => e.type === 'validate-start');
    assert.deepEqual(validate?.type === 'validate-start' ? validate.tasks : -1, 4);
    const waveCounts = events.flatMap((e) =>
      e.type === 'wave-done' ? [`${e.syncPhase}/${e.syncWave} ${e.succeeded}/${e.failed}`] : [],
    );
    assert.deepEqual(waveCounts, ['PreSync/0 2/0', 'Sync/-1 1/0', 'Sync/1 1/0']);

    // Folded by the progress model: every group done, every task Succeeded, the final state shown.
    const model = new ProgressModel();
    for (const e of events) model.apply(e);
    const view = model.apps.get('web')!;
    assert.deepEqual([view.stage, view.sync, view.health], ['done', 'Synced', 'Healthy']);
    assert.deepEqual(
      view.operation?.groups.map((g) => [g.state, g.tasks.map((t) => `${t.ref.name}:${t.phase}`)]),
      [
        ['done', ['web:Succeeded', 'pre:Succeeded']],
        ['done', ['early:Succeeded']],
        ['done', ['late:Succeeded']],
      ],
    );
    assert.equal(view.operation?.phase, 'Succeeded');
  });
});
