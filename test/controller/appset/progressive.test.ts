/**
 * Progressive syncs (`strategy.type: RollingSync`, Argo CD's alpha feature) end to end on the embedded
 * API server: the ApplicationSet controller and the application controller in one process over a real
 * Git repository. The generated apps have auto-sync disabled; step 1's app is synced first (an operation
 * written by the ApplicationSet controller), step 2's only once step 1's is Healthy; `status.
 * applicationStatus` and RolloutProgressing follow. Plus the rollout configuration checks.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildSteps,
  progressStatuses,
  rolloutConfigCondition,
} from '../../../src/controller/appset/progressive.js';
import { useEmbeddedCluster, waitForObject } from '../../support/embedded.js';
import { TestRepo, cm } from '../../support/git.js';
import { startController } from '../app-controller/harness.js';
import type { ControllerHarness } from '../app-controller/harness.js';
import { newCacheRoot } from '../setup.js';
import { APPS, SETS, startAppSets } from './harness.js';
import type { AppSetHarness } from './harness.js';

const T = { timeout: 90_000 };
type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const rolling = (steps: unknown[]): Record<string, unknown> => ({
  spec: { strategy: { type: 'RollingSync', rollingSync: { steps } } },
});
const app = (name: string, env: string): Record<string, unknown> => ({ metadata: { name, labels: { env } } });

describe('RollingSync steps (unit)', () => {
  it('places each app in its first matching step and reports invalid configurations as Argo CD does', () => {
    const set = rolling([
      { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] },
      { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['qa'] }] },
      { matchExpressions: [{ key: 'env', operator: 'In', values: ['none'] }] },
    ]);
    const { steps, stepOf, issues } = buildSteps(set, [app('a', 'dev'), app('b', 'prod'), app('c', 'qa')]);
    assert.deepEqual(steps, [['a'], ['a', 'b'], []]);
    assert.deepEqual(
      [...stepOf],
      [
        ['a', 0],
        ['b', 1],
      ],
    );
    assert.deepEqual(rolloutConfigCondition(issues), {
      type: 'InvalidRolloutConfig',
      status: 'True',
      reason: 'ApplicationSetInvalidRolloutConfig',
      message: "Application 'a' is selected by multiple steps: (1-2)",
    });
    const bad = buildSteps(rolling([{ matchExpressions: [{ key: 'env', operator: 'Exists' }] }]), [
      app('a', 'dev'),
    ]);
    assert.equal(
      rolloutConfigCondition(bad.issues).message,
      "Step 1 has invalid matchExpression operators: Exists. Supported Operators are 'In' and 'NotIn'",
    );
  });

  it('moves at most maxUpdate Waiting apps of a step to Pending (percent rounded down, at least 1)', () => {
    const set = rolling([{ matchExpressions: [], maxUpdate: '40%' }]);
    const names = ['a', 'b', 'c', 'd', 'e'];
    const { stepOf, issues } = buildSteps(
      set,
      names.map((n) => app(n, 'x')),
    );
    const waiting = names.map((n) => ({
      application: n,
      status: 'Waiting',
      message: '',
      step: '1',
      targetRevisions: [],
    }));
    const out = progressStatuses(set, waiting, new Set(names), stepOf, issues, '2026-01-01T00:00:00Z');
    assert.deepEqual(
      out.map((s) => s.status),
      ['Pending', 'Pending', 'Waiting', 'Waiting', 'Waiting'],
    );
    const one = rolling([{ matchExpressions: [], maxUpdate: '10%' }]);
    assert.deepEqual(
      progressStatuses(one, waiting, new Set(names), stepOf, issues, 'x').map((s) => s.status),
      ['Pending', 'Waiting', 'Waiting', 'Waiting', 'Waiting'],
    );
  });
});

describe('progressive syncs with the application controller', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let c: ControllerHarness;
  let h: AppSetHarness;

  before(async () => {
    repo.commit({ 'envs/dev/cm.yaml': cm('roll-dev'), 'envs/prod/cm.yaml': cm('roll-prod') });
    c = await startController(fx, cacheRoot, ['dev', 'prod']);
    h = await startAppSets(fx, cacheRoot, { progressiveSyncs: true });
  });

  after(async () => {
    await h.stop();
    await c.stop();
    repo.remove();
  });

  it('syncs step 1, then step 2 once step 1 is Healthy; the rollout completes', T, async () => {
    await h.createSet(`
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: roll
spec:
  generators:
    - list:
        elements: [{env: dev}, {env: prod}]
  strategy:
    type: RollingSync
    rollingSync:
      steps:
        - matchExpressions: [{key: env, operator: In, values: [dev]}]
        - matchExpressions: [{key: env, operator: In, values: [prod]}]
          maxUpdate: 1
  template:
    metadata:
      name: 'roll-{{env}}'
      labels: {env: '{{env}}'}
    spec:
      project: default
      source: {repoURL: ${repo.url}, targetRevision: HEAD, path: 'envs/{{env}}'}
      destination: {server: https://kubernetes.default.svc, namespace: '{{env}}'}
      syncPolicy:
        automated: {prune: true}
`);
    const done = await waitForObject(
      fx.cluster,
      `${SETS}/roll`,
      (o) =>
        o?.status?.applicationStatus?.length === 2 &&
        o.status.applicationStatus.every((s: Any) => s.status === 'Healthy') &&
        o.status.conditions?.some((x: Any) => x.type === 'RolloutProgressing' && x.status === 'False'),
      60_000,
    );
    const rp = done.status.conditions.find((x: Any) => x.type === 'RolloutProgressing');
    assert.deepEqual(
      [rp.reason, rp.message],
      ['ApplicationSetRolloutComplete', 'ApplicationSet Rollout has completed'],
    );
    const ic = done.status.conditions.find((x: Any) => x.type === 'InvalidRolloutConfig');
    assert.deepEqual([ic.status, ic.message], ['False', 'Rolling Sync Configured correctly']);
    assert.deepEqual(
      done.status.applicationStatus.map((s: Any) => [s.application, s.step]),
      [
        ['roll-dev', '1'],
        ['roll-prod', '2'],
      ],
    );
    const dev = await waitForObject(
      fx.cluster,
      `${APPS}/roll-dev`,
      (o) => o?.status?.operationState?.phase === 'Succeeded',
    );
    const prod = await waitForObject(
      fx.cluster,
      `${APPS}/roll-prod`,
      (o) => o?.status?.operationState?.phase === 'Succeeded',
    );
    // Auto-sync is disabled on the generated apps; the syncs were the ApplicationSet controller's.
    assert.deepEqual(dev.spec.syncPolicy.automated, { prune: true, enabled: false });
    assert.equal(dev.status.operationState.operation.initiatedBy.username, 'applicationset-controller');
    assert.equal(dev.status.operationState.operation.sync.prune, true);
    // Step 2 started only after step 1 had finished.
    assert.ok(
      Date.parse(prod.status.operationState.startedAt) >= Date.parse(dev.status.operationState.finishedAt),
      `${prod.status.operationState.startedAt} < ${dev.status.operationState.finishedAt}`,
    );
  });
});
