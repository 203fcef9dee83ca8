/**
 * Application health, after Argo CD's controller/health_test.go (the `skipped` entries of the vectors'
 * cases.json), plus isWorse and the causes text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HEALTH_ORDER,
  aggregateHealth,
  formatHealthCauses,
  isWorse,
  type ManagedResource,
  type Unstructured,
} from '../../src/health/index.js';
import { annotate, k8s, vector } from './support.js';

const pod = (): Unstructured => vector('pod-running-restart-always.yaml');
const failedJob = (): Unstructured => vector('job-failed.yaml');

/** A managed pair from a live object (and the same object as target unless `live` only). */
function res(obj: Unstructured, side: 'both' | 'live' | 'target' = 'both'): ManagedResource {
  const [group] = String(obj['apiVersion']).includes('/') ? String(obj['apiVersion']).split('/') : [''];
  const metadata = obj['metadata'] as { name: string; namespace?: string };
  return {
    group: group ?? '',
    kind: String(obj['kind']),
    namespace: metadata.namespace,
    name: metadata.name,
    target: side === 'live' ? null : obj,
    live: side === 'target' ? null : obj,
  };
}

test('isWorse follows Argo CD order: Healthy, Suspended, Progressing, Missing, Degraded, Unknown', () => {
  assert.deepEqual(HEALTH_ORDER, ['Healthy', 'Suspended', 'Progressing', 'Missing', 'Degraded', 'Unknown']);
  HEALTH_ORDER.forEach((current, i) => {
    HEALTH_ORDER.forEach((candidate, j) => {
      assert.equal(isWorse(current, candidate), j > i, `${current} -> ${candidate}`);
    });
  });
});

test('healthy pod + failed Job: Degraded, caused by the Job (TestSetApplicationHealth)', () => {
  const got = aggregateHealth([res(pod()), res(failedJob())]);
  assert.equal(got.status, 'Degraded');
  assert.equal(got.message, 'Caused by batch/Job:argoci-workflows/fail');
  assert.deepEqual(got.causes, [
    { group: 'batch', kind: 'Job', namespace: 'argoci-workflows', name: 'fail' },
  ]);
  assert.deepEqual(
    got.resources.map((r) => r?.status),
    ['Healthy', 'Degraded'],
  );
});

test('the same Job as a PreSync hook is skipped: Healthy, no cause', () => {
  const hook = annotate(failedJob(), { 'argocd.argoproj.io/hook': 'PreSync' });
  const got = aggregateHealth([res(pod()), res(hook)]);
  assert.equal(got.status, 'Healthy');
  assert.equal(got.message, undefined);
  assert.deepEqual(got.causes, []);
  assert.equal(got.resources[1], undefined, 'hooks get no health here');
});

test('ignore-healthcheck: the failed Job is not assessed (job-failed-ignore-healthcheck.yaml)', () => {
  const ignored = vector('job-failed-ignore-healthcheck.yaml');
  const got = aggregateHealth([res(pod()), res(ignored)]);
  assert.equal(got.status, 'Healthy');
  assert.deepEqual(got.causes, []);
  assert.equal(got.resources[1], undefined);
});

test('no resources: Healthy; only hooks: Healthy', () => {
  assert.deepEqual(aggregateHealth([]), { status: 'Healthy', causes: [], resources: [] });
  const hook = annotate(pod(), { 'argocd.argoproj.io/hook': 'Sync' });
  assert.equal(aggregateHealth([res(hook)]).status, 'Healthy');
});

test('a missing resource does not worsen the app, but is Missing per resource', () => {
  const missing = annotate(pod(), {});
  (missing['metadata'] as Record<string, unknown>)['name'] = 'other';
  const got = aggregateHealth([res(missing, 'target'), res(pod())]);
  assert.equal(got.status, 'Healthy');
  assert.deepEqual(got.resources, [{ status: 'Missing' }, { status: 'Healthy' }]);
});

test('missing pod + live pod with ignore-healthcheck: Healthy', () => {
  const ignored = annotate(pod(), { 'argocd.argoproj.io/ignore-healthcheck': 'true' });
  assert.equal(aggregateHealth([res(pod(), 'target'), res(ignored)]).status, 'Healthy');
});

test('child Application Unknown or Missing + missing pod: Healthy; child Degraded worsens', () => {
  const child = (status: string) =>
    k8s('argoproj.io/v1alpha1', 'Application', {
      metadata: { name: 'child' },
      status: { health: { status } },
    });
  const opts = { health: { applicationHealth: true } };
  for (const status of ['Unknown', 'Missing']) {
    const got = aggregateHealth([res(child(status)), res(pod(), 'target')], opts);
    assert.equal(got.status, 'Healthy', status);
    assert.equal(got.resources[0]?.status, status, 'still shown per resource');
  }
  const degraded = aggregateHealth([res(child('Degraded')), res(pod())], opts);
  assert.equal(degraded.status, 'Degraded');
  assert.equal(degraded.message, 'Caused by argoproj.io/Application:default/child');
  // Without the option an Application has no health at all.
  assert.equal(aggregateHealth([res(child('Degraded')), res(pod())]).status, 'Healthy');
});

test('every non-hook resource missing: Missing, no causes', () => {
  const got = aggregateHealth([res(pod(), 'target'), res(failedJob(), 'target')]);
  assert.deepEqual(got, {
    status: 'Missing',
    causes: [],
    resources: [{ status: 'Missing' }, { status: 'Missing' }],
  });
});

test('missing pod + live hook pod: Missing (hooks do not count as live resources)', () => {
  const hook = annotate(pod(), { 'argocd.argoproj.io/hook': 'PostSync' });
  (hook['metadata'] as Record<string, unknown>)['name'] = 'hook';
  assert.equal(aggregateHealth([res(pod(), 'target'), res(hook, 'live')]).status, 'Missing');
});

test('Skip targets and ignored live objects (Helm test) are left out entirely', () => {
  const skip = annotate(failedJob(), { 'argocd.argoproj.io/hook': 'Skip' });
  assert.equal(aggregateHealth([res(skip)]).status, 'Healthy');
  assert.equal(
    aggregateHealth([res(skip, 'target')]).status,
    'Healthy',
    'a missing Skip target is not Missing',
  );
  const helmTest = annotate(failedJob(), { 'helm.sh/hook': 'test' });
  assert.equal(aggregateHealth([res(helmTest, 'live')]).status, 'Healthy');
});

test('healthy pod + two failed Jobs: both causes, in order', () => {
  const second = annotate(failedJob(), {});
  (second['metadata'] as Record<string, unknown>)['name'] = 'fail-2';
  const got = aggregateHealth([res(failedJob()), res(pod()), res(second)]);
  assert.equal(got.status, 'Degraded');
  assert.equal(got.message, 'Caused by batch/Job:argoci-workflows/fail, batch/Job:argoci-workflows/fail-2');
});

test('worst wins; causes are only the resources at the worst status', () => {
  const progressing = vector('deployment-progressing.yaml');
  const got = aggregateHealth([res(progressing), res(pod())]);
  assert.equal(got.status, 'Progressing');
  assert.equal(got.causes.length, 1);
  assert.equal(got.causes[0]?.kind, 'Deployment');
  assert.equal(aggregateHealth([res(progressing), res(failedJob())]).status, 'Degraded');
  const unknown = k8s('apps/v1beta2', 'Deployment', { metadata: { name: 'old' } });
  assert.equal(aggregateHealth([res(failedJob()), res(unknown)]).status, 'Unknown');
});

test('resources with no health add nothing', () => {
  const cm = k8s('v1', 'ConfigMap', { metadata: { name: 'cm' } });
  const got = aggregateHealth([res(cm)]);
  assert.deepEqual(got, { status: 'Healthy', causes: [], resources: [undefined] });
});

test('the Application managing itself does not count toward its own health', () => {
  const self = k8s('argoproj.io/v1alpha1', 'Application', {
    metadata: { name: 'root', namespace: 'argocd' },
    status: { health: { status: 'Degraded' } },
  });
  const opts = { health: { applicationHealth: true }, app: { name: 'root', namespace: 'argocd' } };
  const got = aggregateHealth([res(self), res(pod())], opts);
  assert.equal(got.status, 'Healthy');
  assert.equal(got.resources[0], undefined);
});

test('formatHealthCauses: core group and empty namespace left out; at most 3, then "and N more"', () => {
  assert.equal(formatHealthCauses([]), '');
  assert.equal(
    formatHealthCauses([
      { group: '', kind: 'Pod', namespace: 'ns', name: 'p' },
      { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', namespace: '', name: 'r' },
    ]),
    'Caused by Pod:ns/p, rbac.authorization.k8s.io/ClusterRole:r',
  );
  const many = ['a', 'b', 'c', 'd', 'e'].map((name) => ({
    group: 'batch',
    kind: 'Job',
    namespace: 'n',
    name,
  }));
  assert.equal(formatHealthCauses(many), 'Caused by batch/Job:n/a, batch/Job:n/b, batch/Job:n/c and 2 more');
  assert.equal(formatHealthCauses(many.slice(0, 3)), 'Caused by batch/Job:n/a, batch/Job:n/b, batch/Job:n/c');
});
