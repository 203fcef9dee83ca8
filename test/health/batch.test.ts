/**
 * batch: Job condition rules beyond the vectors, and CronJob (ported from Argo CD's built-in
 * `batch/CronJob/health.lua`; its verdicts and messages follow that script's own health_test cases).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getResourceHealth } from '../../src/health/index.js';
import { cond, k8s, vector } from './support.js';

const job = (conditions: object[], spec: object = {}) =>
  k8s('batch/v1', 'Job', { spec, status: { conditions } });

test('Job: Failed wins (whatever its status) with its message', () => {
  const got = getResourceHealth(
    job([cond('Complete', 'True', '', 'done'), cond('Failed', 'False', 'BackoffLimitExceeded', 'too many')]),
  );
  assert.deepEqual(got, { status: 'Degraded', message: 'too many' });
  assert.deepEqual(getResourceHealth(vector('job-failed.yaml')), {
    status: 'Degraded',
    message: 'Job has reached the specified backoff limit',
  });
});

test('Job: a resumed Job (Suspended=False) counts as finished, so Healthy', () => {
  assert.deepEqual(getResourceHealth(job([cond('Suspended', 'False', 'JobResumed', 'Job resumed')])), {
    status: 'Healthy',
    message: 'Job resumed',
  });
});

test('Job: spec.suspend alone is not read; no terminal condition is Progressing', () => {
  assert.deepEqual(getResourceHealth(job([], { suspend: true })), { status: 'Progressing' });
  const newer = [cond('FailureTarget', 'True'), cond('SuccessCriteriaMet', 'True')];
  assert.deepEqual(getResourceHealth(job(newer)), { status: 'Progressing' });
});

test('Job: Complete is Healthy with its message; batch/v1beta1 is unsupported', () => {
  assert.deepEqual(getResourceHealth(job([cond('Complete', 'True', '', 'all good')])), {
    status: 'Healthy',
    message: 'all good',
  });
  assert.deepEqual(getResourceHealth(k8s('batch/v1beta1', 'Job')), {
    status: 'Unknown',
    message: 'unsupported Job GVK: batch/v1beta1, Kind=Job',
  });
});

const cron = (spec: object, status?: object) =>
  k8s('batch/v1', 'CronJob', status === undefined ? { spec } : { spec, status });

test('CronJob: verdicts of the built-in Lua script', () => {
  const cases: [object, object | undefined, string, string][] = [
    [{ suspend: true }, {}, 'Healthy', 'CronJob is Suspended'],
    [{}, undefined, 'Progressing', 'Waiting for CronJob'],
    [{}, {}, 'Healthy', 'CronJob has not been scheduled yet'],
    [
      {},
      { lastScheduleTime: '2024-01-01T10:00:00Z' },
      'Healthy',
      'The CronJob never completed successfully. It may not be healthy',
    ],
    [
      {},
      { lastScheduleTime: '2024-01-01T10:00:00Z', lastSuccessfulTime: '2024-01-01T09:00:00Z', active: [{}] },
      'Healthy',
      'The job is running. Its last execution may not have been successful',
    ],
    [
      {},
      { lastScheduleTime: '2024-01-01T10:00:00Z', lastSuccessfulTime: '2024-01-01T09:00:00Z' },
      'Degraded',
      'CronJob has not completed its last execution successfully',
    ],
    [
      {},
      { lastScheduleTime: '2024-01-01T10:00:00Z', lastSuccessfulTime: '2024-01-01T10:00:07Z', active: [] },
      'Healthy',
      'CronJob has completed its last execution successfully',
    ],
  ];
  for (const [spec, status, expected, message] of cases) {
    assert.deepEqual(getResourceHealth(cron(spec, status)), { status: expected, message }, message);
  }
});

test('CronJob: any version of the batch group is judged (Lua scripts are keyed by group and kind)', () => {
  assert.equal(
    getResourceHealth(k8s('batch/v1beta1', 'CronJob', { spec: {}, status: {} }))?.status,
    'Healthy',
  );
});

test('CronJob hook being deleted with the hook finalizer: the script names the finalizers', () => {
  const hook = cron({}, {});
  hook['metadata'] = {
    name: 'x',
    deletionTimestamp: '2024-01-01T00:00:00Z',
    finalizers: ['argocd.argoproj.io/hook-finalizer', 'example.com/cleanup'],
  };
  assert.deepEqual(getResourceHealth(hook), {
    status: 'Progressing',
    message:
      'Pending deletion; blocked by finalizers: argocd.argoproj.io/hook-finalizer, example.com/cleanup',
  });
});
