/**
 * The controller's log lines (src/output/controller-log.ts): the loop's operation events are logged under
 * their documented names (`operation-start`, `operation-done` in `-o json`), the sync engine's own
 * per-attempt `operation-start` / `operation-done` are not logged at all.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LoopEvent, OperationRequest } from '../../src/controller/index.js';
import { controllerLogLine } from '../../src/output/controller-log.js';

const time = new Date('2026-11-25T21:00:00Z');
const request: OperationRequest = {
  initiatedBy: { automated: true },
  revision: 'abcdef0123456789abcdef0123456789abcdef01',
  prune: false,
  dryRun: false,
};

describe('controllerLogLine', () => {
  const loopEvents: LoopEvent[] = [
    { type: 'app-operation-start', app: 'web', key: 'argocd/web', request },
    {
      type: 'app-operation-done',
      app: 'web',
      key: 'argocd/web',
      request,
      phase: 'Succeeded',
      message: 'successfully synced',
      revision: request.revision!,
      durationMs: 1200,
    },
  ];
  const engineEvents: LoopEvent[] = [
    { type: 'operation-start', app: 'web', dryRun: false, groups: [] },
    { type: 'operation-done', app: 'web', phase: 'Succeeded', message: 'successfully synced' },
  ];

  it('-o json: the loop operation events under their documented names, with key and fields', () => {
    const lines = loopEvents.map((e) => controllerLogLine(e, { json: true, time, verbosity: 1 }));
    const objects = lines.map((l) => JSON.parse(l!) as Record<string, unknown>);
    assert.deepEqual(
      objects.map((o) => [o['event'], o['key'], o['phase']]),
      [
        ['operation-start', 'argocd/web', undefined],
        ['operation-done', 'argocd/web', 'Succeeded'],
      ],
    );
    assert.equal(objects[1]!['time'], '2026-11-25T21:00:00.000Z');
  });

  it('text: one line each; the engine events of each attempt are not logged', () => {
    assert.deepEqual(
      loopEvents.map((e) => controllerLogLine(e, { json: false, time, verbosity: 1 })),
      [
        '2026-11-25T21:00:00.000Z argocd/web sync started (automated) to abcdef0',
        '2026-11-25T21:00:00.000Z argocd/web sync Succeeded: successfully synced',
      ],
    );
    for (const json of [true, false])
      for (const e of engineEvents)
        assert.equal(controllerLogLine(e, { json, time, verbosity: 3 }), undefined, `${e.type} json=${json}`);
  });
});
