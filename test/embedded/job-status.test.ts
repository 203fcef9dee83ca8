/**
 * A Job's status writes are judged as kube-apiserver 1.34 judges them (src/embedded/job-status.ts): found
 * by our tests on the real server (docs/conformance.md, "Our tests on the real server"), where a test that
 * patched `Complete=True` alone got 422 while the embedded server took it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, useEmbeddedCluster } from '../support/embedded.js';
import { finishedJobStatus } from '../support/jobs.js';

const JOBS = '/apis/batch/v1/namespaces/default/jobs';
const job = (name: string) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name },
  // Suspended: on a real server the Job controller starts no Pod (no startTime, active 0) to race the test.
  spec: {
    suspend: true,
    template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } },
  },
});
const patchStatus = (fx: ReturnType<typeof useEmbeddedCluster>, name: string, status: object) =>
  api(fx.cluster, 'PATCH', `${JOBS}/${name}/status`, { status }, 'application/merge-patch+json');

describe('Job status rules (embedded API server)', () => {
  const fx = useEmbeddedCluster();

  it('Complete=True alone is refused naming completionTime, SuccessCriteriaMet and startTime', async () => {
    assert.equal((await api(fx.cluster, 'POST', JOBS, job('bare'))).status, 201);
    const res = await patchStatus(fx, 'bare', { conditions: [{ type: 'Complete', status: 'True' }] });
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.details.causes.map((c: { field: string; reason: string }) => `${c.field} ${c.reason}`),
      [
        'status.completionTime FieldValueRequired',
        'status.conditions FieldValueInvalid',
        'status.startTime FieldValueRequired',
      ],
    );
    assert.match(res.body.message, /completionTime is required for Complete jobs/);
  });

  it('Failed=True needs FailureTarget; completionTime without Complete is refused', async () => {
    assert.equal((await api(fx.cluster, 'POST', JOBS, job('half'))).status, 201);
    const failed = await patchStatus(fx, 'half', {
      startTime: '2026-01-01T00:00:00Z',
      conditions: [{ type: 'Failed', status: 'True' }],
    });
    assert.equal(failed.status, 422);
    assert.match(
      failed.body.message,
      /cannot set Failed=True condition without the FailureTarget=true condition/,
    );
    const early = await patchStatus(fx, 'half', { completionTime: '2026-01-01T00:00:00Z' });
    assert.equal(early.status, 422);
    assert.match(early.body.message, /cannot set completionTime when there is no Complete=True condition/);
  });

  it('the status the Job controller writes is taken, Complete or Failed; a main-resource write ignores status', async () => {
    for (const [name, type] of [
      ['done', 'Complete'],
      ['broken', 'Failed'],
    ] as const) {
      assert.equal((await api(fx.cluster, 'POST', JOBS, job(name))).status, 201);
      const res = await patchStatus(fx, name, finishedJobStatus(type));
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const main = await api(
      fx.cluster,
      'PATCH',
      `${JOBS}/bare`,
      { status: { conditions: [{ type: 'Complete', status: 'True' }] } },
      'application/merge-patch+json',
    );
    assert.equal(main.status, 200, JSON.stringify(main.body));
  });
});
