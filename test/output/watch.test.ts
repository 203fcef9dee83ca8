/**
 * The printers of `sync --watch` (src/output/watch.ts): JSON lines with the app's status after each event,
 * text lines that skip quiet resyncs, and the TTY table redrawn in place with warnings printed above it.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { OperationRequest, WatchEvent } from '../../src/controller/index.js';
import { watchOutputMode, WatchPrinter } from '../../src/output/watch.js';

const SHA = '0123456789abcdef0123456789abcdef01234567';
const NEXT = 'fedcba9876543210fedcba9876543210fedcba98';
const heal: OperationRequest = {
  initiatedBy: { automated: true },
  prune: false,
  dryRun: false,
  selfHeal: true,
};

const events: WatchEvent[] = [
  { type: 'watch-start', apps: ['web'], repositories: ['https://git.example.com/x'], pollIntervalMs: 30_000 },
  {
    type: 'refreshed',
    app: 'web',
    key: 'argocd/web',
    reason: 'initial',
    level: 3,
    sync: 'Synced',
    health: 'Healthy',
    revision: SHA,
    durationMs: 12,
  },
  {
    type: 'refreshed',
    app: 'web',
    key: 'argocd/web',
    reason: 'resync',
    level: 2,
    sync: 'Synced',
    health: 'Healthy',
    revision: SHA,
    durationMs: 9,
  },
  { type: 'drift', app: 'web', key: 'argocd/web', resources: ['/ConfigMap/default/web'], healing: true },
  { type: 'app-operation-start', app: 'web', key: 'argocd/web', request: heal },
  // The sync engine's own event (the plan of one attempt): not shown by the watch.
  { type: 'operation-start', app: 'web', dryRun: false, groups: [] },
  {
    type: 'app-operation-done',
    app: 'web',
    key: 'argocd/web',
    request: heal,
    phase: 'Succeeded',
    message: 'successfully synced (all tasks run)',
    revision: SHA,
    durationMs: 1500,
  },
  {
    type: 'ref-moved',
    repoURL: 'https://git.example.com/x',
    ref: 'HEAD',
    from: SHA,
    to: NEXT,
    apps: ['web'],
  },
  { type: 'watch-stopped', reason: 'SIGTERM', cutOff: [] },
];

function collect() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    streams: { out: { write: (t: string) => out.push(t) }, err: { write: (t: string) => err.push(t) } },
  };
}

const at = () => new Date('2026-11-25T21:00:00Z');

describe('sync --watch printers', () => {
  it('chooses json for -o json, a table on a TTY, lines otherwise', () => {
    assert.equal(watchOutputMode('json', { isTTY: true }), 'json');
    assert.equal(watchOutputMode('text', { isTTY: true }), 'table');
    assert.equal(watchOutputMode('text', {}), 'lines');
  });

  it('-o json: one object per line with app, event, sync, health, revision and time', () => {
    const { out, streams } = collect();
    const p = new WatchPrinter({ mode: 'json', ...streams, now: at });
    for (const e of events) p.onEvent(e);
    const objects = out.map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(
      out.every((l) => l.endsWith('\n') && l.indexOf('\n') === l.length - 1),
      'one line each',
    );
    assert.deepEqual(
      objects.map((o) => `${String(o['app'] ?? '-')} ${String(o['event'])}`),
      [
        '- watch-start',
        'web refreshed',
        'web refreshed',
        'web drift',
        'web operation-start',
        'web operation-done',
        '- ref-moved',
        '- watch-stopped',
      ],
    );
    assert.deepEqual(objects[3], {
      time: '2026-11-25T21:00:00.000Z',
      app: 'web',
      event: 'drift',
      sync: 'OutOfSync',
      health: 'Healthy',
      revision: SHA,
      resources: ['/ConfigMap/default/web'],
      healing: true,
    });
    assert.equal(objects[5]!['phase'], 'Succeeded');
    assert.equal(objects[5]!['operation'], 'self-heal');
  });

  it('lines: a quiet resync prints nothing; drift, operations and Git moves do', () => {
    const { out, streams } = collect();
    const p = new WatchPrinter({ mode: 'lines', ...streams, now: at });
    for (const e of events) p.onEvent(e);
    const lines = out.map((l) => l.slice(9).trimEnd());
    assert.deepEqual(lines, [
      'watching 1 app: 1 repository every 30s; Ctrl-C to stop',
      'web Synced Healthy at 0123456 (refresh: initial)',
      'web drift: /ConfigMap/default/web (healing)',
      'web self-heal started',
      'web self-heal Succeeded at 0123456: successfully synced (all tasks run) (1.5s)',
      'git https://git.example.com/x HEAD: 0123456 -> fedcba9 (refreshing web)',
      'stopped (SIGTERM)',
    ]);
  });

  it('table: redrawn in place; warnings and events of no app go above it; the last table stays', async () => {
    const { out, err, streams } = collect();
    const p = new WatchPrinter({ mode: 'table', ...streams, now: at, redrawMs: 1 });
    p.onEvent(events[1]!);
    await new Promise((r) => setTimeout(r, 20));
    assert.match(
      out.join(''),
      /APP +SYNC +HEALTH +REVISION +LAST OPERATION +LAST EVENT\nweb +Synced +Healthy +0123456 +refreshed \(initial\)\n$/,
    );
    out.length = 0;
    p.warn('repository https://git.example.com/x: failed to poll refs: timeout');
    // Erase the 2 lines drawn, print the warning, draw again.
    assert.equal(out[0], '\u001B[2A\r\u001B[J');
    assert.deepEqual(err, ['warning: repository https://git.example.com/x: failed to poll refs: timeout\n']);
    for (const e of events.slice(3, 7)) p.onEvent(e);
    p.stop();
    const last = out.at(-1)!;
    assert.match(last, /web +OutOfSync +Healthy +0123456 +self-heal Succeeded +sync Succeeded\n$/);
    p.onEvent(events[1]!);
    assert.equal(out.at(-1), last, 'nothing after stop');
  });
});
