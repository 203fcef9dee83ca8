/**
 * The progress renderers: which one a command gets (`progressMode`), the TTY display (listr2 on a fake
 * TTY stream: it draws the titles of what runs, and holds warnings until it is gone) and the plain lines.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createProgress, progressMode } from '../../src/output/progress.js';
import { ProgressLines } from '../../src/output/progress-lines.js';
import type { RunEvent } from '../../src/controller/index.js';
import type { TaskRef } from '../../src/sync/index.js';

type FakeTty = NodeJS.WriteStream & {
  text: () => string;
  /** Resolves once what was written matches `pattern` (the display drew it); no clock involved. */
  drawn: (pattern: RegExp) => Promise<void>;
};

/** A TTY-like stream that keeps what is written. */
function fakeTty(): FakeTty {
  const chunks: string[] = [];
  const waiting: Array<{ pattern: RegExp; resolve: () => void }> = [];
  const text = () => chunks.join('');
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(chunk.toString());
      for (const w of waiting.splice(0)) {
        if (w.pattern.test(text())) w.resolve();
        else waiting.push(w);
      }
      done();
    },
  }) as unknown as FakeTty;
  Object.assign(stream, {
    isTTY: true,
    columns: 120,
    rows: 40,
    text,
    drawn: (pattern: RegExp) =>
      new Promise<void>((resolve) => {
        if (pattern.test(text())) resolve();
        else waiting.push({ pattern, resolve });
      }),
  });
  return stream;
}

const ref = (kind: string, name: string, syncPhase: TaskRef['syncPhase'], syncWave = 0): TaskRef => ({
  id: `${syncPhase}:${kind}:${name}`,
  syncPhase,
  syncWave,
  group: kind === 'Job' ? 'batch' : '',
  kind,
  namespace: 'web',
  name,
  hookType: kind === 'Job' ? syncPhase : '',
});

const diffRun: RunEvent[] = [
  {
    type: 'run-start',
    apps: [
      { name: 'web', cluster: 'dev' },
      { name: 'db', cluster: 'dev' },
    ],
    clusters: ['dev'],
  },
  { type: 'cache-sync-start', cluster: 'dev', kinds: 3 },
  { type: 'render-start', app: 'web' },
  { type: 'render-start', app: 'db' },
  { type: 'cache-sync-progress', cluster: 'dev', listed: 1, scopes: 3 },
  { type: 'render-done', app: 'web', revision: 'abc', objects: 2 },
  { type: 'cache-sync-done', cluster: 'dev', kinds: 3, objects: 7 },
  { type: 'compare-done', app: 'web', sync: 'Synced', health: 'Healthy', resources: 2 },
  { type: 'app-done', app: 'web', sync: 'Synced', health: 'Healthy' },
  { type: 'render-done', app: 'db', error: 'app "db": failed to render: boom' },
  { type: 'app-done', app: 'db', error: 'app "db": failed to render: boom' },
];

const migrate = ref('Job', 'migrate', 'PreSync');
const cfg = ref('ConfigMap', 'cfg', 'Sync', 1);
const syncRun: RunEvent[] = [
  { type: 'run-start', apps: [{ name: 'web', cluster: 'dev' }], clusters: ['dev'] },
  { type: 'cache-sync-start', cluster: 'dev', kinds: 3 },
  { type: 'cache-sync-done', cluster: 'dev', kinds: 3, objects: 7 },
  {
    type: 'operation-start',
    app: 'web',
    dryRun: false,
    groups: [
      { syncPhase: 'PreSync', syncWave: 0, tasks: [migrate] },
      { syncPhase: 'Sync', syncWave: 1, tasks: [cfg] },
    ],
  },
  { type: 'validate-start', app: 'web', tasks: 2 },
  { type: 'validate-done', app: 'web', failed: 0 },
  { type: 'wave-start', app: 'web', syncPhase: 'PreSync', syncWave: 0, tasks: 1 },
  {
    type: 'task',
    app: 'web',
    task: migrate,
    phase: 'Running',
    status: 'Synced',
    message: 'job/migrate created',
  },
  {
    type: 'task',
    app: 'web',
    task: migrate,
    phase: 'Succeeded',
    status: 'Synced',
    message: 'job/migrate created',
  },
  { type: 'wave-done', app: 'web', syncPhase: 'PreSync', syncWave: 0, succeeded: 1, failed: 0 },
  { type: 'wave-start', app: 'web', syncPhase: 'Sync', syncWave: 1, tasks: 1 },
  {
    type: 'task',
    app: 'web',
    task: cfg,
    phase: 'Running',
    status: 'Synced',
    message: 'configmap/cfg created',
  },
  {
    type: 'task',
    app: 'web',
    task: cfg,
    phase: 'Succeeded',
    status: 'Synced',
    message: 'configmap/cfg created',
  },
  { type: 'wave-done', app: 'web', syncPhase: 'Sync', syncWave: 1, succeeded: 1, failed: 0 },
  { type: 'operation-done', app: 'web', phase: 'Succeeded', message: 'successfully synced (all tasks run)' },
  { type: 'app-done', app: 'web', sync: 'Synced', health: 'Healthy' },
];

describe('progress: which renderer', () => {
  const base = { stream: { isTTY: true }, machineOutput: false, quiet: false };
  it('a TTY display on a TTY, for every command', () => {
    for (const command of ['diff', 'sync', 'render'] as const)
      assert.equal(progressMode({ ...base, command }), 'tty');
  });
  it('off with --quiet or machine output, whatever the stream', () => {
    for (const command of ['diff', 'sync', 'render'] as const) {
      assert.equal(progressMode({ ...base, command, quiet: true }), 'off');
      assert.equal(progressMode({ ...base, command, machineOutput: true }), 'off');
      assert.equal(progressMode({ ...base, command, stream: {}, machineOutput: true }), 'off');
    }
  });
  it('not a TTY: plain lines for sync, nothing for diff and render', () => {
    assert.equal(progressMode({ ...base, command: 'sync', stream: { isTTY: false } }), 'lines');
    assert.equal(progressMode({ ...base, command: 'diff', stream: {} }), 'off');
    assert.equal(progressMode({ ...base, command: 'render', stream: {} }), 'off');
  });
  it('-v 6 (request logs) keeps each log line whole: no TTY display', () => {
    assert.equal(progressMode({ ...base, command: 'sync', verbosity: 6 }), 'lines');
    assert.equal(progressMode({ ...base, command: 'diff', verbosity: 6 }), 'off');
    assert.equal(progressMode({ ...base, command: 'diff', verbosity: 5 }), 'tty');
  });
});

describe('progress: the TTY display (listr2)', () => {
  it('diff: draws the cache sync and apps rendered / compared out of the total on the stream', async () => {
    const stream = fakeTty();
    const progress = await createProgress('tty', 'diff', stream);
    assert.equal(progress.mode, 'tty');
    for (const e of diffRun.slice(0, 5)) progress.onEvent(e);
    await stream.drawn(/dev: live cache listing 1\/3 kinds/);
    await stream.drawn(/Rendering apps: 0\/2/);
    progress.warn('watch reconnected');
    for (const e of diffRun.slice(5)) progress.onEvent(e);
    await stream.drawn(/Compared 2\/2 apps/);
    await progress.stop();
    const text = stream.text();
    assert.match(text, /Rendered 2\/2 apps/);
    assert.match(text, /Compared 2\/2 apps/);
    assert.match(text, /dev: live cache synced \(3 kinds, 7 objects\), watching/);
    // The warning was held while the display drew, and printed once it was gone, whole.
    const warning = text.indexOf('warning: watch reconnected\n');
    assert.ok(warning > text.lastIndexOf('Compared 2/2 apps'), text);
  });

  it('render: counts apps rendered as they come (app-of-apps add to the total)', async () => {
    const stream = fakeTty();
    const progress = await createProgress('tty', 'render', stream);
    progress.onEvent({ type: 'render-start', app: 'root' });
    progress.onEvent({ type: 'render-done', app: 'root', revision: 'abc', objects: 2 });
    progress.onEvent({ type: 'render-start', app: 'child' });
    await stream.drawn(/Rendering apps: 1\/2/);
    progress.onEvent({ type: 'render-done', app: 'child', revision: 'abc', objects: 1 });
    await progress.stop();
    assert.match(stream.text(), /Rendered 2\/2 apps/);
    assert.doesNotMatch(stream.text(), /Live state|Comparing/);
  });

  it('sync: draws apps, their waves and tasks with live counts', async () => {
    const stream = fakeTty();
    const progress = await createProgress('tty', 'sync', stream);
    const feed = (from: number, to: number) => {
      for (const e of syncRun.slice(from, to)) progress.onEvent(e);
    };
    feed(0, 8); // ...the PreSync hook was created and runs
    await stream.drawn(/Apps: 0\/1 done/);
    await stream.drawn(/web: syncing/);
    await stream.drawn(/PreSync wave 0: 0\/1 tasks done/);
    await stream.drawn(/batch\/Job web\/migrate: Synced \(job\/migrate created\)/);
    feed(8, 13); // ...the hook completed, wave 1 runs
    await stream.drawn(/Sync wave 1: 0\/1 tasks done/);
    await stream.drawn(/ConfigMap web\/cfg: Synced \(configmap\/cfg created\)/);
    feed(13, syncRun.length);
    await stream.drawn(/web: Succeeded, sync Synced, health Healthy/);
    await stream.drawn(/Apps: 1\/1 done/);
    await progress.stop();
    assert.match(stream.text(), /PreSync wave 0: 1\/1 tasks done/);
  });

  it('off: nothing is written; lines: one line per event', async () => {
    const stream = fakeTty();
    const off = await createProgress('off', 'sync', stream);
    for (const e of syncRun) off.onEvent(e);
    await off.stop();
    assert.equal(stream.text(), '');
    const lines = new ProgressLines();
    assert.deepEqual(
      syncRun.flatMap((e) => lines.lines(e)),
      [
        'cluster dev: live cache syncing 3 kinds',
        'cluster dev: live cache synced: 3 kinds, 7 objects',
        'web: operation started: 2 tasks in 2 waves',
        'web: PreSync wave 0: started (1 task)',
        'web: PreSync wave 0 batch/Job web/migrate: Synced (job/migrate created)',
        'web: PreSync wave 0: done (1 succeeded, 0 failed)',
        'web: Sync wave 1: started (1 task)',
        'web: Sync wave 1 ConfigMap web/cfg: Synced (configmap/cfg created)',
        'web: Sync wave 1: done (1 succeeded, 0 failed)',
        'web: operation Succeeded: successfully synced (all tasks run)',
        'web: done: sync Synced, health Healthy',
      ],
    );
  });

  it('lines: what a wait is for, each resource when it first appears or its health or reason changes', () => {
    const lines = new ProgressLines();
    const svc = { group: '', kind: 'Service', namespace: 'shop', name: 'front' };
    const dep = { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'web' };
    const events: RunEvent[] = [
      { type: 'waiting', app: 'shop', resources: [{ ...dep, health: 'Progressing', reason: 'rollout 0/2' }] },
      { type: 'waiting', app: 'shop', resources: [{ ...dep, health: 'Progressing', reason: 'rollout 0/2' }] },
      { type: 'waiting', app: 'shop', resources: [{ ...dep, health: 'Progressing', reason: 'rollout 1/2' }] },
      {
        type: 'health-wait',
        app: 'shop',
        resources: [{ ...svc, health: 'Progressing', reason: 'waiting for load balancer' }],
      },
      {
        type: 'health-wait',
        app: 'shop',
        resources: [{ ...svc, health: 'Progressing', reason: 'waiting for load balancer' }],
      },
    ];
    assert.deepEqual(
      events.flatMap((e) => lines.lines(e)),
      [
        'shop: waiting for apps/Deployment shop/web: Progressing: rollout 0/2',
        'shop: waiting for apps/Deployment shop/web: Progressing: rollout 1/2',
        'shop: waiting for health: Service shop/front: Progressing: waiting for load balancer',
      ],
    );
  });
});
