/**
 * `-o json` streamed app by app (issue 23): the chunks of `diff` and `sync` join to exactly the bytes of
 * the whole-document printers, and come one per app (the document is never built as one string).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Application } from '../../src/apps/index.js';
import type { AppReport, ResourceStatus, RunReport } from '../../src/controller/index.js';
import { diffJsonChunks, renderDiffStructured } from '../../src/output/diff.js';
import { diffReportChunks, renderDiffReport } from '../../src/output/diff-format.js';
import { jsonListChunks } from '../../src/output/structured.js';
import { syncJson, syncJsonChunks } from '../../src/output/sync.js';

function resource(name: string, extra: Partial<ResourceStatus> = {}): ResourceStatus {
  return {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    namespace: 'shop',
    name,
    status: 'OutOfSync',
    difference: 'modified',
    requiresPruning: false,
    changes: [
      {
        type: 'UPDATE',
        key: 'data',
        changes: [
          { type: 'UPDATE', key: 'motd', value: 'line 1\nline 2 "quoted" \u00e9\u2028', oldValue: '' },
        ],
      },
    ] as ResourceStatus['changes'],
    health: { status: 'Progressing', message: 'Waiting for rollout to finish: 0 of 2 updated' },
    ...extra,
  };
}

function app(name: string, resources: ResourceStatus[], error?: string): AppReport {
  return {
    app: { name, namespace: name === 'b' ? 'team' : undefined } as Application,
    destination: { server: 'https://kubernetes.default.svc', namespace: 'shop', context: 'kind' },
    ...(error
      ? { error: { message: error, exitCode: 3 } }
      : {
          comparison: {
            revision: 'c'.repeat(40),
            resources,
            sync: 'OutOfSync',
            health: { status: 'Progressing', message: 'one of 2 resources progressing' },
            conditions: [{ type: 'SharedResourceWarning', message: 'x is part of a and b' }],
          },
          operation: {
            phase: 'Succeeded',
            message: 'successfully synced (all tasks run)',
            revision: 'c'.repeat(40),
            startedAt: '2026-01-01T00:00:00Z',
            finishedAt: '2026-01-01T00:00:01Z',
            dryRun: name === 'b',
            retries: name === 'b' ? 2 : 0,
            resources: [],
            plan: [],
          },
        }),
  };
}

const report = (apps: AppReport[]): RunReport => ({ apps, requests: 7, interrupted: false, durationMs: 1 });

const REPORTS: Record<string, RunReport> = {
  'no apps': report([]),
  'one app, no resources': report([app('a', [])]),
  'several apps, an error, hooks, notes and nested changes': report([
    app('a', [resource('web'), resource('api', { hook: true, note: 'see argo-cd#1', message: 'm' })]),
    app('b', [resource('db', { sharedWith: 'a', health: undefined })]),
    app('c', [], 'app "c": cluster kind: failed to connect: refused'),
  ]),
};

describe('-o json streamed app by app', () => {
  for (const [name, r] of Object.entries(REPORTS)) {
    it(`diff: the chunks are the whole document's bytes (${name})`, () => {
      const chunks = [...diffJsonChunks(r)];
      assert.equal(chunks.join(''), renderDiffStructured(r, 'json'));
      assert.equal([...diffReportChunks(r, 'json')].join(''), renderDiffReport(r, 'json'));
      // Opening, one chunk per app, closing (an empty list is one chunk).
      assert.equal(chunks.length, r.apps.length === 0 ? 1 : r.apps.length + 2);
    });

    it(`sync: the chunks are the whole document's bytes (${name})`, () => {
      assert.equal([...syncJsonChunks(r)].join(''), syncJson(r));
    });
  }

  it('other formats are one chunk, the printer text', () => {
    const r = REPORTS['several apps, an error, hooks, notes and nested changes']!;
    for (const format of ['yaml', 'name', 'diff', 'markdown'] as const)
      assert.deepEqual([...diffReportChunks(r, format)], [renderDiffReport(r, format)]);
  });

  it('jsonListChunks matches JSON.stringify for awkward values', () => {
    const items: unknown[] = [
      {},
      [],
      'a\nb',
      null,
      0,
      { a: undefined, b: [undefined, () => 1], c: { d: [] } },
      { nested: { deeper: [{ x: '\u2028' }] } },
    ];
    const text = [...jsonListChunks('items', items, (x) => x)].join('');
    assert.equal(text, `${JSON.stringify({ items }, null, 2)}\n`);
    // An item whose JSON is undefined is null inside an array, as JSON.stringify writes it.
    const odd = [...jsonListChunks('items', [1, 2], (x) => (x === 1 ? undefined : x))].join('');
    assert.equal(odd, `${JSON.stringify({ items: [undefined, 2] }, null, 2)}\n`);
  });
});
