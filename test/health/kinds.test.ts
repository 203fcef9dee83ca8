/**
 * Dispatch and the other kinds: the deletion rule, no-health kinds, Service/Ingress/PVC, HPA, APIService,
 * CRD (ported Lua), Workflow (the upstream inline test), Application (opt-in) and the opt-in conditions
 * fallback.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KIND_CHECKS, getResourceHealth } from '../../src/health/index.js';
import { annotate, cond, k8s, vector } from './support.js';

test('deletionTimestamp: Pending deletion for every kind, also kinds with no check', () => {
  const deleting = (apiVersion: string, kind: string) =>
    k8s(apiVersion, kind, { metadata: { deletionTimestamp: '2024-01-01T00:00:00Z' } });
  for (const [apiVersion, kind] of [
    ['v1', 'ConfigMap'],
    ['apps/v1', 'Deployment'],
    ['example.com/v1', 'Widget'],
  ] as const) {
    assert.deepEqual(getResourceHealth(deleting(apiVersion, kind)), {
      status: 'Progressing',
      message: 'Pending deletion',
    });
  }
});

test('deletionTimestamp with the hook finalizer: the kind rule answers (no check: no health)', () => {
  const hook = (kind: string, apiVersion: string, rest: object) =>
    k8s(apiVersion, kind, {
      ...rest,
      metadata: {
        deletionTimestamp: '2024-01-01T00:00:00Z',
        finalizers: ['argocd.argoproj.io/hook-finalizer'],
      },
    });
  assert.deepEqual(
    getResourceHealth(hook('Job', 'batch/v1', { status: { conditions: [cond('Complete', 'True')] } })),
    {
      status: 'Healthy',
    },
  );
  assert.equal(getResourceHealth(hook('ConfigMap', 'v1', {})), undefined);
});

test('kinds without a check have no health (undefined, never Unknown)', () => {
  for (const [apiVersion, kind] of [
    ['v1', 'ConfigMap'],
    ['v1', 'Secret'],
    ['v1', 'Namespace'],
    ['v1', 'ServiceAccount'],
    ['argoproj.io/v1alpha1', 'Rollout'],
    ['serving.knative.dev/v1', 'Service'],
  ] as const) {
    assert.equal(getResourceHealth(k8s(apiVersion, kind)), undefined, `${apiVersion} ${kind}`);
  }
  assert.equal(getResourceHealth({}), undefined, 'no apiVersion/kind');
});

test('the check table holds each group/kind once', () => {
  const keys = KIND_CHECKS.map((c) => `${c.group}/${c.kind}`);
  assert.equal(new Set(keys).size, keys.length);
});

test('Service: LoadBalancer waits for an ingress entry; other types are Healthy without looking', () => {
  const svc = (type: string | undefined, status: object) =>
    k8s('v1', 'Service', { spec: type ? { type } : {}, status });
  assert.deepEqual(getResourceHealth(svc('LoadBalancer', { loadBalancer: { ingress: [] } })), {
    status: 'Progressing',
  });
  assert.deepEqual(getResourceHealth(svc('NodePort', {})), { status: 'Healthy' });
  assert.deepEqual(getResourceHealth(svc(undefined, {})), { status: 'Healthy' });
  assert.deepEqual(getResourceHealth(k8s('v2', 'Service')), {
    status: 'Unknown',
    message: 'unsupported Service GVK: /v2, Kind=Service',
  });
});

test('Ingress: any version of both groups; a malformed ingress list reads as empty', () => {
  const ingress = (apiVersion: string, status: unknown) => k8s(apiVersion, 'Ingress', { status });
  assert.equal(
    getResourceHealth(ingress('extensions/v1beta1', { loadBalancer: { ingress: [{}] } }))?.status,
    'Healthy',
  );
  assert.equal(getResourceHealth(ingress('networking.k8s.io/v1beta1', {}))?.status, 'Progressing');
  assert.equal(
    getResourceHealth(ingress('networking.k8s.io/v1', { loadBalancer: 'x' }))?.status,
    'Progressing',
  );
});

test('PVC: Lost is Degraded; an unknown or missing phase is Unknown', () => {
  const pvc = (phase?: string) => k8s('v1', 'PersistentVolumeClaim', { status: phase ? { phase } : {} });
  assert.deepEqual(getResourceHealth(pvc('Lost')), { status: 'Degraded' });
  assert.deepEqual(getResourceHealth(pvc('Weird')), { status: 'Unknown' });
  assert.deepEqual(getResourceHealth(pvc()), { status: 'Unknown' });
  assert.deepEqual(getResourceHealth(pvc('constructor')), { status: 'Unknown' });
});

const hpaV1 = (conditions?: string) =>
  k8s('autoscaling/v1', 'HorizontalPodAutoscaler', {
    metadata:
      conditions === undefined
        ? {}
        : { annotations: { 'autoscaling.alpha.kubernetes.io/conditions': conditions } },
  });

test('HPA v1: no, null or empty conditions wait to autoscale; unparsable JSON is Unknown', () => {
  for (const raw of [undefined, '[]', 'null']) {
    assert.deepEqual(
      getResourceHealth(hpaV1(raw)),
      { status: 'Progressing', message: 'Waiting to Autoscale' },
      raw,
    );
  }
  for (const raw of ['{not json', '{"type":"AbleToScale"}', '[1]']) {
    const got = getResourceHealth(hpaV1(raw));
    assert.equal(got?.status, 'Unknown', raw);
    assert.match(got?.message ?? '', /^failed to convert conditions annotation to typed: /);
  }
});

test('HPA: failure pairs beat healthy conditions wherever they are in the list; message is the condition', () => {
  const degraded = vector('hpa-v1-degraded-failedgetobjectmetric.yaml');
  assert.equal(getResourceHealth(degraded)?.status, 'Degraded');
  assert.match(
    getResourceHealth(degraded)?.message ?? '',
    /^the HPA was unable to compute the replica count/,
  );
  const pairs = [
    ['AbleToScale', 'FailedUpdateScale'],
    ['ScalingActive', 'FailedGetPodsMetric'],
    ['ScalingActive', 'FailedGetExternalMetric'],
    ['ScalingActive', 'FailedComputeMetricsReplicas'],
    ['ScalingActive', 'InvalidSelector'],
  ];
  for (const [type, reason] of pairs) {
    const list = JSON.stringify([
      cond('ScalingLimited', 'True', 'TooFewReplicas'),
      cond(type!, 'True', reason, 'bad'),
    ]);
    assert.deepEqual(getResourceHealth(hpaV1(list)), { status: 'Degraded', message: 'bad' }, reason);
  }
  assert.deepEqual(
    getResourceHealth(hpaV1(JSON.stringify([cond('ScalingLimited', 'True', 'TooMany', 'capped')]))),
    {
      status: 'Healthy',
      message: 'capped',
    },
  );
});

test('HPA: v2beta1/v2beta2 are unsupported (Unknown)', () => {
  for (const version of ['v2beta1', 'v2beta2']) {
    assert.deepEqual(getResourceHealth(k8s(`autoscaling/${version}`, 'HorizontalPodAutoscaler')), {
      status: 'Unknown',
      message: `unsupported HPA GVK: autoscaling/${version}, Kind=HorizontalPodAutoscaler`,
    });
  }
});

test('APIService: messages "reason: message"; no Available condition waits', () => {
  assert.deepEqual(
    getResourceHealth(vector('apiservice-v1-true.yaml'))?.message?.startsWith('Passed: '),
    true,
  );
  const svc = (conditions: object[]) =>
    k8s('apiregistration.k8s.io/v1', 'APIService', { status: { conditions } });
  assert.deepEqual(getResourceHealth(svc([])), { status: 'Progressing', message: 'Waiting to be processed' });
  assert.deepEqual(getResourceHealth(svc([cond('Available', 'Unknown', 'Checking', 'wait')])), {
    status: 'Progressing',
    message: 'Checking: wait',
  });
});

test('CustomResourceDefinition: ported Lua verdicts', () => {
  const crd = (conditions: object[] | undefined) =>
    k8s('apiextensions.k8s.io/v1', 'CustomResourceDefinition', conditions ? { status: { conditions } } : {});
  const established = cond(
    'Established',
    'True',
    'InitialNamesAccepted',
    'the initial names have been accepted',
  );
  const names = cond('NamesAccepted', 'True', 'NoConflicts', 'no conflicts found');
  const cases: [object[] | undefined, string, string][] = [
    [undefined, 'Progressing', 'Status conditions not found'],
    [[], 'Progressing', 'Status conditions not found'],
    [[names, established], 'Healthy', 'CRD is healthy'],
    [
      [established, cond('NamesAccepted', 'False', 'X', 'taken')],
      'Degraded',
      'CRD names have not been accepted: taken',
    ],
    // As in the script (3.6.0), conditions are read in order and the first decisive one returns.
    [
      [cond('NamesAccepted', 'False', 'X', 'taken'), established],
      'Degraded',
      'CRD names have not been accepted: taken',
    ],
    [[names], 'Degraded', 'CRD is not established'],
    [
      [names, cond('Established', 'False', 'Installing', 'installing')],
      'Progressing',
      'CRD is being installed',
    ],
    [
      [names, established, cond('NonStructuralSchema', 'True', 'Violations', 'bad schema')],
      'Degraded',
      'Schema violations found: bad schema',
    ],
    [
      [established, cond('Terminating', 'True', 'InstanceDeletionInProgress', 'deleting')],
      'Progressing',
      'CRD is terminating: deleting',
    ],
  ];
  for (const [conditions, status, message] of cases) {
    assert.deepEqual(getResourceHealth(crd(conditions)), { status, message }, message);
  }
});

test('Workflow: the upstream inline cases (phase and message), plus Failed/Error and unknown phases', () => {
  const wf = (status?: object) => k8s('argoproj.io/v1alpha1', 'Workflow', status ? { status } : {});
  assert.deepEqual(getResourceHealth(wf({ phase: 'Running', message: 'This node is running' })), {
    status: 'Progressing',
    message: 'This node is running',
  });
  assert.deepEqual(getResourceHealth(wf({ phase: 'Succeeded', message: 'This node is has succeeded' })), {
    status: 'Healthy',
    message: 'This node is has succeeded',
  });
  assert.deepEqual(getResourceHealth(wf()), { status: 'Progressing' });
  assert.equal(getResourceHealth(wf({ phase: 'Error' }))?.status, 'Degraded');
  assert.equal(getResourceHealth(wf({ phase: 'Failed' }))?.status, 'Degraded');
  assert.equal(getResourceHealth(wf({ phase: 'Omitted' }))?.status, 'Unknown');
  assert.deepEqual(getResourceHealth(wf({ phase: 7 })), {
    status: 'Unknown',
    message: 'failed to convert unstructured to argoworkflow: .status.phase: expected string, got number',
  });
});

test('Application: no health by default; opt-in reads status.health', () => {
  const app = vector('application-degraded.yaml');
  assert.equal(getResourceHealth(app), undefined);
  assert.equal(getResourceHealth(app, { applicationHealth: true })?.status, 'Degraded');
  assert.equal(
    getResourceHealth(vector('application-healthy.yaml'), { applicationHealth: true })?.status,
    'Healthy',
  );
  const fresh = k8s('argoproj.io/v1alpha1', 'Application', { spec: {} });
  assert.deepEqual(getResourceHealth(fresh, { applicationHealth: true }), { status: 'Progressing' });
  const odd = k8s('argoproj.io/v1alpha1', 'Application', { status: { health: { status: 'Great' } } });
  assert.equal(getResourceHealth(odd, { applicationHealth: true })?.status, 'Unknown');
});

test('conditions fallback: off by default; opt-in for kinds with no check only', () => {
  const widget = (status: object, generation = 1) =>
    k8s('example.com/v1', 'Widget', { metadata: { generation }, status });
  const ready = widget({ conditions: [cond('Ready', 'True', 'Ok', 'all good')] });
  assert.equal(getResourceHealth(ready), undefined);
  const on = { conditionsFallback: true };
  assert.deepEqual(getResourceHealth(ready, on), { status: 'Healthy', message: 'all good' });
  assert.deepEqual(getResourceHealth(widget({ conditions: [cond('Ready', 'False', 'Broken')] }), on), {
    status: 'Degraded',
    message: 'Broken',
  });
  assert.equal(
    getResourceHealth(widget({ conditions: [cond('Ready', 'Unknown')] }), on)?.status,
    'Progressing',
  );
  assert.equal(
    getResourceHealth(widget({ conditions: [cond('Ready', 'True'), cond('Stalled', 'True')] }), on)?.status,
    'Degraded',
  );
  assert.equal(
    getResourceHealth(widget({ conditions: [cond('Ready', 'True'), cond('Reconciling', 'True')] }), on)
      ?.status,
    'Progressing',
  );
  assert.equal(getResourceHealth(widget({ conditions: [cond('Available', 'True')] }), on)?.status, 'Healthy');
  assert.deepEqual(
    getResourceHealth(widget({ observedGeneration: 1, conditions: [cond('Ready', 'True')] }, 2), on),
    {
      status: 'Progressing',
      message: 'Waiting for generation 2 to be observed (observed 1)',
    },
  );
  assert.equal(getResourceHealth(widget({ conditions: [cond('Synced', 'True')] }), on), undefined);
  assert.equal(getResourceHealth(k8s('v1', 'ConfigMap'), on), undefined);
  // Kinds with a check keep it; Application stays without health unless its own option is on.
  assert.equal(getResourceHealth(vector('application-healthy.yaml'), on), undefined);
  assert.equal(getResourceHealth(vector('knative-service.yaml'), on), undefined, 'no status at all');
});

test('annotations that are not strings fail the schema for kinds that read them', () => {
  const pod = annotate(vector('pod-running-restart-always.yaml'), {});
  (pod['metadata'] as Record<string, unknown>)['annotations'] = {
    'argocd.argoproj.io/ignore-restart-policy': true,
  };
  assert.equal(getResourceHealth(pod)?.status, 'Unknown');
});

test('PodDisruptionBudget: InsufficientPods is not Degraded; the last condition names the reason', () => {
  const pdb = (conditions: object[] | undefined) =>
    k8s('policy/v1', 'PodDisruptionBudget', conditions === undefined ? {} : { status: { conditions } });
  assert.deepEqual(getResourceHealth(pdb(undefined)), {
    status: 'Progressing',
    message: 'Waiting for status',
  });
  assert.deepEqual(getResourceHealth(pdb([])), { status: 'Progressing', message: 'Waiting for status' });
  assert.deepEqual(getResourceHealth(pdb([cond('DisruptionAllowed', 'False', 'InsufficientPods')])), {
    status: 'Healthy',
    message: 'PodDisruptionBudget has InsufficientPods',
  });
  assert.deepEqual(
    getResourceHealth(
      pdb([
        cond('DisruptionAllowed', 'False', 'SyncFailed'),
        cond('DisruptionAllowed', 'True', 'SufficientPods'),
      ]),
    ),
    { status: 'Degraded', message: 'PodDisruptionBudget has SyncFailed' },
    'a failing condition decides at once',
  );
  assert.deepEqual(
    getResourceHealth(
      k8s('policy/v1beta1', 'PodDisruptionBudget', {
        status: { conditions: [cond('DisruptionAllowed', 'True', 'SufficientPods')] },
      }),
    ),
    {
      status: 'Healthy',
      message: 'PodDisruptionBudget has SufficientPods',
    },
  );
});
