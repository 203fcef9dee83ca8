/**
 * apps/v1 workloads: the Go-coded paths the upstream vectors do not reach (ReplicaSet has no vector at all;
 * StatefulSet/DaemonSet RollingUpdate; a Deployment whose generation is ahead), with Argo CD's messages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getResourceHealth } from '../../src/health/index.js';
import { cond, k8s, vector } from './support.js';

const deployment = (spec: object, status: object, generation = 2) =>
  k8s('apps/v1', 'Deployment', { metadata: { name: 'web', generation }, spec, status });

test('Deployment: generation ahead of observedGeneration is Progressing, even with a deadline exceeded', () => {
  const d = deployment(
    { replicas: 1 },
    { observedGeneration: 1, conditions: [cond('Progressing', 'False', 'ProgressDeadlineExceeded')] },
  );
  assert.deepEqual(getResourceHealth(d), {
    status: 'Progressing',
    message: 'Waiting for rollout to finish: observed deployment generation less than desired generation',
  });
});

test('Deployment: verdicts and messages in Argo CD order', () => {
  const cases: [object, object, string, string | undefined][] = [
    [
      { replicas: 3 },
      { observedGeneration: 2, conditions: [cond('Progressing', 'False', 'ProgressDeadlineExceeded')] },
      'Degraded',
      'Deployment "web" exceeded its progress deadline',
    ],
    [
      { replicas: 3 },
      { observedGeneration: 2, replicas: 3, updatedReplicas: 1, availableReplicas: 1 },
      'Progressing',
      'Waiting for rollout to finish: 1 out of 3 new replicas have been updated...',
    ],
    [
      { replicas: 2 },
      { observedGeneration: 2, replicas: 3, updatedReplicas: 2, availableReplicas: 2 },
      'Progressing',
      'Waiting for rollout to finish: 1 old replicas are pending termination...',
    ],
    [
      { replicas: 2 },
      { observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 1 },
      'Progressing',
      'Waiting for rollout to finish: 1 of 2 updated replicas are available...',
    ],
    [
      { replicas: 2 },
      { observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 2, readyReplicas: 0 },
      'Healthy',
      undefined,
    ],
    // spec.replicas unset: the updated-vs-desired check is skipped.
    [{}, { observedGeneration: 2 }, 'Healthy', undefined],
  ];
  for (const [spec, status, expected, message] of cases) {
    const got = getResourceHealth(deployment(spec, status));
    assert.deepEqual(
      got,
      message ? { status: expected, message } : { status: expected },
      JSON.stringify(status),
    );
  }
});

test('Deployment: paused wins over everything, with its message', () => {
  const d = deployment({ paused: true, replicas: 1 }, {}, 5);
  assert.deepEqual(getResourceHealth(d), { status: 'Suspended', message: 'Deployment is paused' });
});

const sts = (spec: object, status: object) =>
  k8s('apps/v1', 'StatefulSet', { metadata: { generation: 3 }, spec, status });

test('StatefulSet: observedGeneration 0 or behind is Progressing', () => {
  for (const status of [{}, { observedGeneration: 2 }]) {
    assert.deepEqual(getResourceHealth(sts({ replicas: 1 }, status)), {
      status: 'Progressing',
      message: 'Waiting for statefulset spec update to be observed...',
    });
  }
});

test('StatefulSet: not all ready is Progressing', () => {
  assert.deepEqual(getResourceHealth(sts({ replicas: 3 }, { observedGeneration: 3, readyReplicas: 1 })), {
    status: 'Progressing',
    message: 'Waiting for 2 pods to be ready...',
  });
});

test('StatefulSet: RollingUpdate with a partition waits for replicas - partition updated pods', () => {
  const spec = { replicas: 4, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } };
  const base = { observedGeneration: 3, readyReplicas: 4, currentRevision: 'a', updateRevision: 'b' };
  assert.deepEqual(getResourceHealth(sts(spec, { ...base, updatedReplicas: 1 })), {
    status: 'Progressing',
    message: 'Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated...',
  });
  // Revisions differ but are not compared once the partition is reached.
  assert.deepEqual(getResourceHealth(sts(spec, { ...base, updatedReplicas: 2 })), {
    status: 'Healthy',
    message: 'partitioned roll out complete: 2 new pods have been updated...',
  });
});

test('StatefulSet: RollingUpdate without a rollingUpdate block compares revisions', () => {
  const spec = { replicas: 2, updateStrategy: { type: 'RollingUpdate' } };
  const status = { observedGeneration: 3, readyReplicas: 2, updatedReplicas: 1, currentReplicas: 2 };
  assert.deepEqual(getResourceHealth(sts(spec, { ...status, currentRevision: 'a', updateRevision: 'b' })), {
    status: 'Progressing',
    message: 'waiting for statefulset rolling update to complete 1 pods at revision b...',
  });
  assert.deepEqual(getResourceHealth(sts(spec, { ...status, currentRevision: 'b', updateRevision: 'b' })), {
    status: 'Healthy',
    message: 'statefulset rolling update complete 2 pods at revision b...',
  });
});

test('StatefulSet OnDelete vector: Healthy with the ready count', () => {
  assert.deepEqual(getResourceHealth(vector('statefulset-ondelete.yaml')), {
    status: 'Healthy',
    message: 'statefulset has 1 ready pods',
  });
});

const ds = (spec: object, status: object, generation = 1) =>
  k8s('apps/v1', 'DaemonSet', { metadata: { name: 'agent', generation }, spec, status });

test('DaemonSet: generation ahead, then updated and available counts against desired', () => {
  assert.equal(getResourceHealth(ds({}, { observedGeneration: 0 }))?.status, 'Progressing');
  const rolling = { updateStrategy: { type: 'RollingUpdate' } };
  assert.deepEqual(
    getResourceHealth(
      ds(rolling, { observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 2 }),
    ),
    {
      status: 'Progressing',
      message: 'Waiting for daemon set "agent" rollout to finish: 2 out of 3 new pods have been updated...',
    },
  );
  assert.deepEqual(
    getResourceHealth(
      ds(rolling, {
        observedGeneration: 1,
        desiredNumberScheduled: 3,
        updatedNumberScheduled: 3,
        numberAvailable: 1,
      }),
    ),
    {
      status: 'Progressing',
      message: 'Waiting for daemon set "agent" rollout to finish: 1 of 3 updated pods are available...',
    },
  );
  assert.deepEqual(
    getResourceHealth(
      ds(rolling, {
        observedGeneration: 1,
        desiredNumberScheduled: 3,
        updatedNumberScheduled: 3,
        numberAvailable: 3,
      }),
    ),
    { status: 'Healthy' },
  );
});

test('DaemonSet: OnDelete is Healthy whatever the counts', () => {
  const got = getResourceHealth(
    ds({ updateStrategy: { type: 'OnDelete' } }, { observedGeneration: 1, desiredNumberScheduled: 3 }),
  );
  assert.deepEqual(got, { status: 'Healthy', message: 'daemon set 0 out of 3 new pods have been updated' });
});

const rs = (spec: object, status: object, generation = 1) =>
  k8s('apps/v1', 'ReplicaSet', { metadata: { generation }, spec, status });

test('ReplicaSet: generation ahead is Progressing', () => {
  assert.deepEqual(getResourceHealth(rs({ replicas: 1 }, { observedGeneration: 0 })), {
    status: 'Progressing',
    message: 'Waiting for rollout to finish: observed replica set generation less than desired generation',
  });
});

test('ReplicaSet: ReplicaFailure=True is Degraded with its message; False is not', () => {
  const failure = (status: string) => cond('ReplicaFailure', status, 'FailedCreate', 'quota exceeded');
  assert.deepEqual(
    getResourceHealth(rs({ replicas: 2 }, { observedGeneration: 1, conditions: [failure('True')] })),
    { status: 'Degraded', message: 'quota exceeded' },
  );
  assert.deepEqual(
    getResourceHealth(
      rs({ replicas: 2 }, { observedGeneration: 1, availableReplicas: 2, conditions: [failure('False')] }),
    ),
    { status: 'Healthy' },
  );
});

test('ReplicaSet: fewer available than desired is Progressing, else Healthy', () => {
  assert.deepEqual(getResourceHealth(rs({ replicas: 2 }, { observedGeneration: 1, availableReplicas: 1 })), {
    status: 'Progressing',
    message: 'Waiting for rollout to finish: 1 out of 2 new replicas are available...',
  });
  assert.deepEqual(getResourceHealth(rs({ replicas: 0 }, { observedGeneration: 1 })), { status: 'Healthy' });
});

test('apps kinds in an unsupported version are Unknown with the GVK', () => {
  assert.deepEqual(getResourceHealth(k8s('apps/v1beta2', 'Deployment')), {
    status: 'Unknown',
    message: 'unsupported Deployment GVK: apps/v1beta2, Kind=Deployment',
  });
  assert.deepEqual(
    getResourceHealth(k8s('extensions/v1beta1', 'Deployment')),
    undefined,
    'no check in extensions',
  );
});

test('a field of the wrong type is Unknown with a conversion error naming the field', () => {
  const got = getResourceHealth(deployment({ replicas: '3' }, { observedGeneration: 2 }));
  assert.equal(got?.status, 'Unknown');
  assert.equal(
    got?.message,
    'failed to convert unstructured Deployment to typed: .spec.replicas: expected integer, got string "3"',
  );
  const badConditions = getResourceHealth(rs({}, { observedGeneration: 1, conditions: { type: 'x' } }));
  assert.match(
    badConditions?.message ?? '',
    /^failed to convert unstructured ReplicaSet to typed: \.status\.conditions/,
  );
});
