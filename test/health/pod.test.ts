/**
 * Pod rules beyond the vectors: messages, restart policies, the ignore-restart-policy annotation on hooks,
 * init containers, and the Unknown phase.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getResourceHealth } from '../../src/health/index.js';
import { annotate, cond, k8s, vector } from './support.js';

const pod = (restartPolicy: string | undefined, status: object) =>
  k8s('v1', 'Pod', { spec: restartPolicy === undefined ? {} : { restartPolicy }, status });

const waiting = (name: string, reason: string, message = '') => ({
  name,
  state: { waiting: { reason, message } },
});

test('Pod: waiting reasons Err*, *Error, *BackOff degrade an Always pod, whatever the phase', () => {
  for (const reason of [
    'ErrImagePull',
    'CreateContainerConfigError',
    'CrashLoopBackOff',
    'ImagePullBackOff',
  ]) {
    const got = getResourceHealth(
      pod('Always', { phase: 'Pending', containerStatuses: [waiting('app', reason, `${reason}!`)] }),
    );
    assert.deepEqual(got, { status: 'Degraded', message: `${reason}!` }, reason);
  }
  const fine = pod('Always', { phase: 'Pending', containerStatuses: [waiting('app', 'ContainerCreating')] });
  assert.equal(getResourceHealth(fine)?.status, 'Progressing');
});

test('Pod: messages of several failing containers are joined with ", "', () => {
  const got = getResourceHealth(
    pod('Always', {
      phase: 'Running',
      containerStatuses: [
        waiting('a', 'CrashLoopBackOff', 'back-off a'),
        waiting('b', 'ErrImagePull', 'pull b'),
      ],
    }),
  );
  assert.deepEqual(got, { status: 'Degraded', message: 'back-off a, pull b' });
});

test('Pod: init container waiting reasons are not checked', () => {
  const got = getResourceHealth(
    pod('Always', { phase: 'Pending', initContainerStatuses: [waiting('init', 'CrashLoopBackOff')] }),
  );
  assert.equal(got?.status, 'Progressing');
});

test('Pod: Never/OnFailure pods skip the waiting-reason check (hooks must not fail early)', () => {
  for (const policy of ['Never', 'OnFailure']) {
    const got = getResourceHealth(
      pod(policy, { phase: 'Pending', containerStatuses: [waiting('app', 'ImagePullBackOff')] }),
    );
    assert.equal(got?.status, 'Progressing', policy);
  }
});

test('Pod Failed: status.message, else a container termination message, OOMKilled, or the exit code', () => {
  const terminated = (name: string, t: object) => ({ name, state: { terminated: t } });
  const cases: [object, string | undefined][] = [
    [
      { message: 'Pod was evicted', containerStatuses: [terminated('a', { exitCode: 1 })] },
      'Pod was evicted',
    ],
    [{ containerStatuses: [terminated('a', { exitCode: 2, message: 'boom' })] }, 'boom'],
    [{ containerStatuses: [terminated('a', { exitCode: 137, reason: 'OOMKilled' })] }, 'OOMKilled'],
    [{ containerStatuses: [terminated('a', { exitCode: 3 })] }, 'container "a" failed with exit code 3'],
    [
      {
        initContainerStatuses: [terminated('init', { exitCode: 4 })],
        containerStatuses: [terminated('a', { exitCode: 5 })],
      },
      'container "init" failed with exit code 4',
    ],
    [{ containerStatuses: [terminated('a', { exitCode: 0 })] }, undefined],
  ];
  for (const [status, message] of cases) {
    const got = getResourceHealth(pod('Never', { phase: 'Failed', ...status }));
    assert.deepEqual(got, message ? { status: 'Degraded', message } : { status: 'Degraded' }, message);
  }
});

test('Pod Running with restartPolicy Always: Ready, else last termination, else Progressing', () => {
  const ready = { phase: 'Running', message: 'm', conditions: [cond('Ready', 'True')] };
  assert.deepEqual(getResourceHealth(pod('Always', ready)), { status: 'Healthy', message: 'm' });
  const restarted = {
    phase: 'Running',
    conditions: [cond('Ready', 'False')],
    containerStatuses: [{ name: 'a', state: { running: {} }, lastState: { terminated: { exitCode: 1 } } }],
  };
  assert.equal(getResourceHealth(pod('Always', restarted))?.status, 'Degraded');
  const starting = {
    phase: 'Running',
    containerStatuses: [{ name: 'a', state: { running: {} }, lastState: {} }],
  };
  assert.equal(getResourceHealth(pod('Always', starting))?.status, 'Progressing');
});

test('Pod: unknown phase, or Running without a restart policy, is Unknown', () => {
  assert.deepEqual(getResourceHealth(pod('Always', { phase: 'Unknown', message: 'node lost' })), {
    status: 'Unknown',
    message: 'node lost',
  });
  assert.equal(getResourceHealth(pod(undefined, { phase: 'Running' }))?.status, 'Unknown');
  assert.equal(getResourceHealth(pod('Always', {}))?.status, 'Unknown');
});

test('Pod: ignore-restart-policy makes a Never pod long-running, unless it is a hook', () => {
  const base = vector('pod-running-restart-never-with-ignore-annotation.yaml');
  assert.equal(getResourceHealth(base)?.status, 'Healthy');
  const hooks: Record<string, string>[] = [
    { 'argocd.argoproj.io/hook': 'PreSync' },
    { 'argocd.argoproj.io/hook': 'Skip,PostSync' },
    { 'helm.sh/hook': 'pre-install' },
    { 'helm.sh/hook': 'test' },
  ];
  for (const hook of hooks) {
    assert.equal(getResourceHealth(annotate(base, hook))?.status, 'Progressing', JSON.stringify(hook));
  }
  // Not hooks: `hook: Skip` alone, and Helm's crd-install.
  const notHooks: Record<string, string>[] = [
    { 'argocd.argoproj.io/hook': 'Skip' },
    { 'helm.sh/hook': 'crd-install' },
  ];
  for (const notHook of notHooks) {
    assert.equal(getResourceHealth(annotate(base, notHook))?.status, 'Healthy', JSON.stringify(notHook));
  }
  const notTrue = annotate(base, { 'argocd.argoproj.io/ignore-restart-policy': 'yes' });
  assert.equal(getResourceHealth(notTrue)?.status, 'Progressing');
});

test('Pod deletion vector: the generic rule answers, with its message', () => {
  assert.deepEqual(getResourceHealth(vector('pod-deletion.yaml')), {
    status: 'Progressing',
    message: 'Pending deletion',
  });
});

test('Pod: a malformed container status is Unknown with the conversion error', () => {
  const got = getResourceHealth(
    pod('Always', { phase: 'Running', containerStatuses: [{ state: { waiting: 'x' } }] }),
  );
  assert.deepEqual(got, {
    status: 'Unknown',
    message:
      'failed to convert unstructured Pod to typed: .status.containerStatuses[0].state.waiting: expected object, got string "x"',
  });
});
