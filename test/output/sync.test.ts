/** The sync printers on a hand-built report: resource health messages reach the text and -o json (issue 14). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Application } from '../../src/apps/index.js';
import type { ResourceStatus, RunReport } from '../../src/controller/index.js';
import { syncJson, syncText } from '../../src/output/sync.js';

const ROLLOUT = 'Waiting for rollout to finish: 0 of 2 updated replicas are available...';

function deployment(name: string, health: ResourceStatus['health']): ResourceStatus {
  return {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    namespace: 'shop',
    name,
    status: 'Synced',
    difference: 'none',
    requiresPruning: false,
    changes: [],
    ...(health ? { health } : {}),
  };
}

const report: RunReport = {
  apps: [
    {
      app: { name: 'web' } as Application,
      destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' },
      comparison: {
        revision: 'b'.repeat(40),
        resources: [
          deployment('web', { status: 'Progressing', message: ROLLOUT }),
          deployment('api', { status: 'Healthy' }),
        ],
        sync: 'Synced',
        health: { status: 'Progressing' },
        conditions: [],
      },
      operation: {
        phase: 'Succeeded',
        message: 'successfully synced (all tasks run)',
        revision: 'b'.repeat(40),
        startedAt: '2026-01-01T00:00:00Z',
        finishedAt: '2026-01-01T00:00:01Z',
        dryRun: false,
        retries: 0,
        resources: [],
        plan: [],
      },
    },
  ],
  requests: 0,
  interrupted: false,
  durationMs: 0,
};

describe('sync printers: health messages', () => {
  it('text: one line per resource health message after the app line', () => {
    const lines = syncText(report).split('\n');
    assert.match(lines[0]!, /^web: Succeeded: .*health Progressing\)$/);
    assert.equal(lines[1], `  health: apps/Deployment shop/web: Progressing: ${ROLLOUT}`);
    assert.ok(!lines.some((l) => l.includes('shop/api')), 'no line for a resource without a message');
  });

  it('-o json: resourceHealth lists the messages, as argocd app get shows them', () => {
    const doc = JSON.parse(syncJson(report)) as { apps: Record<string, unknown>[] };
    assert.deepEqual(doc.apps[0]!['resourceHealth'], [
      {
        group: 'apps',
        kind: 'Deployment',
        namespace: 'shop',
        name: 'web',
        health: 'Progressing',
        message: ROLLOUT,
      },
    ]);
  });
});
