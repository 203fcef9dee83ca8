/**
 * `buildStatus`: the Application status as Argo CD's controller writes it (docs/controller.md), as tables of
 * previous status + loop state -> expected status JSON and merge patch.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { buildStatus, goDuration, mergePatch, parseApplication } from '../../src/apps/index.js';
import type { StatusSource } from '../../src/apps/index.js';
import type { AppLoopState } from '../../src/controller/loop/types.js';

const T0 = '2026-11-25T10:00:00.123Z';
const T1 = '2026-11-25T10:05:00.000Z';
const T2 = '2026-11-25T10:10:00.000Z';

const manifest = {
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'web', namespace: 'argocd' },
  spec: {
    project: 'default',
    source: { repoURL: 'https://git.example.com/repo.git', path: 'web', targetRevision: 'HEAD' },
    destination: { server: 'https://kubernetes.default.svc', namespace: 'web' },
  },
};
const app = parseApplication(structuredClone(manifest), 'test');

const comparison = (over: Partial<NonNullable<StatusSource['comparison']>> = {}) => ({
  revision: 'abc123',
  resources: [
    {
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      namespace: 'web',
      name: 'web',
      status: 'Synced',
      health: { status: 'Healthy' },
      requiresPruning: false,
    },
    {
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
      namespace: 'web',
      name: 'extra',
      status: 'OutOfSync',
      requiresPruning: true,
    },
  ],
  sync: 'OutOfSync',
  health: { status: 'Healthy' },
  conditions: [],
  ...over,
});

const firstStatus = {
  sync: {
    status: 'OutOfSync',
    comparedTo: {
      source: { repoURL: 'https://git.example.com/repo.git', path: 'web', targetRevision: 'HEAD' },
      destination: { server: 'https://kubernetes.default.svc', namespace: 'web' },
    },
    revision: 'abc123',
  },
  resources: [
    { group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'web', name: 'web', status: 'Synced' },
    {
      version: 'v1',
      kind: 'ConfigMap',
      namespace: 'web',
      name: 'extra',
      status: 'OutOfSync',
      requiresPruning: true,
    },
  ],
  health: { status: 'Healthy', lastTransitionTime: '2026-11-25T10:00:00Z' },
  resourceHealthSource: 'appTree',
  reconciledAt: '2026-11-25T10:00:00Z',
  controllerNamespace: 'argocd',
  // Structs Go's encoding/json always writes.
  summary: {},
  sourceHydrator: {},
};

describe('buildStatus (Argo CD ApplicationStatus)', () => {
  it('first reconcile: the whole status, as one patch', () => {
    const out = buildStatus({
      previous: undefined,
      state: { app, comparison: comparison(), reconciledAt: T0 },
      now: T0,
      controllerNamespace: 'argocd',
    });
    assert.deepEqual(out.status, firstStatus);
    assert.deepEqual(out.patch, { status: firstStatus });
  });

  it('nothing changed: no patch', () => {
    const out = buildStatus({
      previous: firstStatus,
      state: { app, comparison: comparison(), reconciledAt: T0 },
      now: T1,
      controllerNamespace: 'argocd',
    });
    assert.equal(out.patch, undefined);
  });

  const table: Array<{
    name: string;
    state: Partial<StatusSource>;
    previous?: Record<string, unknown>;
    level?: number;
    patch: unknown;
  }> = [
    {
      name: 'a level-2 refresh moves reconciledAt only',
      state: { reconciledAt: T1 },
      patch: { status: { reconciledAt: '2026-11-25T10:05:00Z' } },
    },
    {
      name: 'a level-1 refresh (watch event) leaves reconciledAt',
      state: { reconciledAt: T1 },
      level: 1,
      patch: undefined,
    },
    {
      name: 'health changes: status, and lastTransitionTime now',
      state: { comparison: comparison({ health: { status: 'Degraded', message: 'web: failed' } }) },
      patch: {
        status: {
          health: { status: 'Degraded', message: 'web: failed', lastTransitionTime: '2026-11-25T10:05:00Z' },
        },
      },
    },
    {
      name: 'same health, other message: message kept (resourceHealthSource appTree)',
      previous: { ...firstStatus, health: { status: 'Healthy', message: 'old', lastTransitionTime: 'x' } },
      state: { comparison: comparison({ health: { status: 'Healthy', message: 'new' } }) },
      patch: undefined,
    },
    {
      name: 'a resource leaves: resources replaced whole (arrays are replaced by merge patches)',
      state: { comparison: comparison({ sync: 'Synced', resources: comparison().resources.slice(0, 1) }) },
      patch: {
        status: {
          sync: { status: 'Synced' },
          resources: [firstStatus.resources[0]],
        },
      },
    },
    {
      name: 'a refresh error: sync and health Unknown, an InvalidSpecError (exit 2), resources kept',
      state: { comparison: undefined, error: { message: 'app "web": project "x" not found', exitCode: 2 } },
      patch: {
        status: {
          sync: { status: 'Unknown' },
          health: { status: 'Unknown', lastTransitionTime: '2026-11-25T10:05:00Z' },
          conditions: [
            {
              type: 'InvalidSpecError',
              message: 'app "web": project "x" not found',
              lastTransitionTime: '2026-11-25T10:05:00Z',
            },
          ],
        },
      },
    },
    {
      name: "a project refusal: Argo CD's own conditions, one per rule with its type (refreshAppConditions), sorted by type as SetConditions",
      state: {
        comparison: undefined,
        error: {
          message: 'app "web": failed to compare: a; b',
          exitCode: 2,
          conditions: [
            {
              type: 'UnknownError',
              message: "application 'web' in namespace 'team' is not permitted to use project 'p'",
            },
            { type: 'InvalidSpecError', message: "application repo r is not permitted in project 'p'" },
          ],
        },
      },
      patch: {
        status: {
          sync: { status: 'Unknown' },
          health: { status: 'Unknown', lastTransitionTime: '2026-11-25T10:05:00Z' },
          conditions: [
            {
              type: 'InvalidSpecError',
              message: "application repo r is not permitted in project 'p'",
              lastTransitionTime: '2026-11-25T10:05:00Z',
            },
            {
              type: 'UnknownError',
              message: "application 'web' in namespace 'team' is not permitted to use project 'p'",
              lastTransitionTime: '2026-11-25T10:05:00Z',
            },
          ],
        },
      },
    },
  ];
  for (const row of table) {
    it(row.name, () => {
      const out = buildStatus({
        previous: row.previous ?? firstStatus,
        state: { app, comparison: comparison(), reconciledAt: T0, ...row.state },
        now: T1,
        controllerNamespace: 'argocd',
        level: row.level,
      });
      assert.deepEqual(out.patch, row.patch);
    });
  }

  it('conditions: unchanged ones keep their time, new ones get now, gone ones leave; other types stay', () => {
    const previous = {
      ...firstStatus,
      conditions: [
        { type: 'RepeatedResourceWarning', message: 'dup', lastTransitionTime: '2026-11-24T00:00:00Z' },
        { type: 'SharedResourceWarning', message: 'shared', lastTransitionTime: '2026-11-24T00:00:00Z' },
        {
          type: 'SyncError',
          message: 'Failed last sync attempt',
          lastTransitionTime: '2026-11-24T00:00:00Z',
        },
      ],
    };
    const out = buildStatus({
      previous,
      state: {
        app,
        comparison: comparison({
          conditions: [
            { type: 'RepeatedResourceWarning', message: 'dup' },
            { type: 'ExcludedResourceWarning', message: 'excluded' },
          ],
        }),
        reconciledAt: T0,
      },
      now: T1,
      controllerNamespace: 'argocd',
    });
    assert.deepEqual(out.status['conditions'], [
      { type: 'ExcludedResourceWarning', message: 'excluded', lastTransitionTime: '2026-11-25T10:05:00Z' },
      { type: 'RepeatedResourceWarning', message: 'dup', lastTransitionTime: '2026-11-24T00:00:00Z' },
      { type: 'SyncError', message: 'Failed last sync attempt', lastTransitionTime: '2026-11-24T00:00:00Z' },
    ]);
  });

  it('--persist-resource-health: resource health inline, no resourceHealthSource', () => {
    const out = buildStatus({
      previous: firstStatus,
      state: { app, comparison: comparison(), reconciledAt: T0 },
      now: T1,
      controllerNamespace: 'argocd',
      persistResourceHealth: true,
    });
    assert.deepEqual(out.patch, {
      status: {
        resources: [{ ...firstStatus.resources[0], health: { status: 'Healthy' } }, firstStatus.resources[1]],
        resourceHealthSource: null,
      },
    });
  });

  it('a first refresh that fails writes no resourceHealthSource (set by a comparison only)', () => {
    const out = buildStatus({
      previous: undefined,
      state: {
        app,
        comparison: undefined,
        error: { message: 'app "web": project "x" not found', exitCode: 2 },
        reconciledAt: T0,
      },
      now: T1,
      controllerNamespace: 'argocd',
    });
    assert.equal(out.status['resourceHealthSource'], undefined);
    assert.equal((out.status['health'] as { status: string }).status, 'Unknown');
  });

  it('source types and summary when known', () => {
    const out = buildStatus({
      previous: firstStatus,
      state: { app, comparison: comparison(), reconciledAt: T0 },
      now: T1,
      controllerNamespace: 'argocd',
      sources: [{ revision: 'abc123', type: 'Kustomize' }],
      summary: { images: ['nginx:1.25'], externalURLs: [], isAppOfApps: false },
    });
    assert.deepEqual(out.patch, { status: { sourceType: 'Kustomize', summary: { images: ['nginx:1.25'] } } });
  });

  it('multi-source: comparedTo.sources and revisions, one per source', () => {
    const multi = parseApplication(
      {
        ...structuredClone(manifest),
        spec: {
          ...structuredClone(manifest.spec),
          source: undefined,
          sources: [
            { repoURL: 'https://git.example.com/a.git', path: 'a', targetRevision: 'main' },
            { repoURL: 'https://git.example.com/b.git', path: 'b' },
          ],
        },
      },
      'test',
    );
    const out = buildStatus({
      previous: undefined,
      state: { app: multi, comparison: comparison({ resources: [] }), reconciledAt: T0 },
      now: T0,
      controllerNamespace: 'argocd',
      sources: [
        { revision: 'aaa', type: 'Directory' },
        { revision: 'bbb', type: 'Helm' },
      ],
    });
    assert.deepEqual(out.status['sync'], {
      status: 'OutOfSync',
      comparedTo: {
        source: { repoURL: '' },
        sources: [
          { repoURL: 'https://git.example.com/a.git', path: 'a', targetRevision: 'main' },
          { repoURL: 'https://git.example.com/b.git', path: 'b' },
        ],
        destination: { server: 'https://kubernetes.default.svc', namespace: 'web' },
      },
      revisions: ['aaa', 'bbb'],
    });
    assert.deepEqual(out.status['sourceTypes'], ['Directory', 'Helm']);
    assert.equal(out.status['resources'], undefined);
  });
});

describe('buildStatus: operationState and history', () => {
  const request = { initiatedBy: { automated: false, username: 'alice' }, prune: true, dryRun: false };
  const report = {
    phase: 'Succeeded',
    message: 'successfully synced (all tasks run)',
    revision: 'abc123',
    startedAt: T1,
    finishedAt: T2,
    dryRun: false,
    retries: 0,
    resources: [
      {
        group: 'apps',
        version: 'v1',
        kind: 'Deployment',
        namespace: 'web',
        name: 'web',
        status: 'Synced',
        message: 'deployment.apps/web configured',
        hookType: '',
        hookPhase: 'Running',
        syncPhase: 'Sync',
      },
    ],
  };
  const source = { repoURL: 'https://git.example.com/repo.git', path: 'web', targetRevision: 'HEAD' };

  it('running: operationState Running with the requested operation', () => {
    const out = buildStatus({
      previous: firstStatus,
      state: { app, comparison: comparison(), reconciledAt: T0, running: { request, startedAt: T1 } },
      now: T1,
      controllerNamespace: 'argocd',
    });
    assert.deepEqual(out.patch, {
      status: {
        operationState: {
          operation: { sync: { prune: true }, initiatedBy: { username: 'alice' }, retry: {} },
          phase: 'Running',
          startedAt: '2026-11-25T10:05:00Z',
        },
      },
    });
  });

  const done = {
    operation: { sync: { prune: true }, initiatedBy: { username: 'alice' }, retry: {} },
    phase: 'Succeeded',
    message: 'successfully synced (all tasks run)',
    syncResult: {
      resources: [
        {
          group: 'apps',
          version: 'v1',
          kind: 'Deployment',
          namespace: 'web',
          name: 'web',
          status: 'Synced',
          message: 'deployment.apps/web configured',
          hookPhase: 'Running',
          syncPhase: 'Sync',
        },
      ],
      revision: 'abc123',
      source,
    },
    startedAt: '2026-11-25T10:05:00Z',
    finishedAt: '2026-11-25T10:10:00Z',
  };
  const entry = (id: number) => ({
    revision: 'abc123',
    deployedAt: '2026-11-25T10:10:00Z',
    id,
    source,
    deployStartedAt: '2026-11-25T10:05:00Z',
    initiatedBy: { username: 'alice' },
  });

  it('done: operationState with its sync result, history appended, operation cleared, in one patch', () => {
    const out = buildStatus({
      previous: firstStatus,
      state: { app, comparison: comparison(), reconciledAt: T0, lastOperation: { request, report } },
      now: T2,
      controllerNamespace: 'argocd',
      clearOperation: true,
    });
    assert.deepEqual(out.patch, { status: { operationState: done, history: [entry(0)] }, operation: null });
    // The same state again (the refresh after the operation): nothing new, the entry is not added twice.
    const again = buildStatus({
      previous: out.status,
      state: { app, comparison: comparison(), reconciledAt: T0, lastOperation: { request, report } },
      now: T2,
      controllerNamespace: 'argocd',
    });
    assert.equal(again.patch, undefined);
  });

  it('history: next id after the last, truncated to spec.revisionHistoryLimit', () => {
    const limited = parseApplication(
      { ...structuredClone(manifest), spec: { ...structuredClone(manifest.spec), revisionHistoryLimit: 2 } },
      'test',
    );
    const old = [5, 6].map((id) => ({ ...entry(id), deployStartedAt: `2026-11-2${id - 4}T00:00:00Z` }));
    const out = buildStatus({
      previous: { ...firstStatus, history: old },
      state: { app: limited, comparison: comparison(), reconciledAt: T0, lastOperation: { request, report } },
      now: T2,
      controllerNamespace: 'argocd',
    });
    assert.deepEqual(out.status['history'], [old[1], entry(7)]);
  });

  const noHistory: Array<
    [string, Partial<typeof request> & Record<string, unknown>, Partial<typeof report>]
  > = [
    ['a dry run', { dryRun: true }, { dryRun: true }],
    ['a partial sync (resources)', { resources: [{ group: 'apps', kind: 'Deployment', name: 'web' }] }, {}],
    ['a failed sync', {}, { phase: 'Failed', message: 'one or more objects failed to apply' }],
  ];
  for (const [name, req, rep] of noHistory) {
    it(`no history entry for ${name}`, () => {
      const out = buildStatus({
        previous: firstStatus,
        state: {
          app,
          comparison: comparison(),
          reconciledAt: T0,
          lastOperation: { request: { ...request, ...req }, report: { ...report, ...rep } },
        },
        now: T2,
        controllerNamespace: 'argocd',
      });
      assert.equal(out.status['history'], undefined);
      assert.equal((out.status['operationState'] as { phase: string }).phase, rep.phase ?? 'Succeeded');
    });
  }

  it('an automated sync is written as autoSync builds it (source, spec options, retry limit 5)', () => {
    const auto = parseApplication(
      {
        ...structuredClone(manifest),
        spec: {
          ...structuredClone(manifest.spec),
          syncPolicy: { automated: { prune: true }, syncOptions: ['CreateNamespace=true'] },
        },
      },
      'test',
    );
    const out = buildStatus({
      previous: firstStatus,
      state: {
        app: auto,
        comparison: comparison(),
        running: {
          request: { initiatedBy: { automated: true }, prune: true, dryRun: false, revision: 'abc123' },
          startedAt: T1,
        },
      },
      now: T1,
      controllerNamespace: 'argocd',
    });
    assert.deepEqual((out.status['operationState'] as Record<string, unknown>)['operation'], {
      sync: { revision: 'abc123', prune: true, source, syncOptions: ['CreateNamespace=true'] },
      initiatedBy: { automated: true },
      retry: { limit: 5 },
    });
  });

  it('terminating (argocd app terminate-op): phase Terminating is kept, never written back to Running', () => {
    const out = buildStatus({
      previous: firstStatus,
      state: { app, comparison: comparison(), running: { request, startedAt: T1, terminating: true } },
      now: T1,
      controllerNamespace: 'argocd',
    });
    assert.deepEqual(out.status['operationState'], {
      operation: { sync: { prune: true }, initiatedBy: { username: 'alice' }, retry: {} },
      phase: 'Terminating',
      message: 'operation is terminating',
      startedAt: '2026-11-25T10:05:00Z',
    });
  });

  it('terminated: Failed "Operation terminated"; tasks never started have no row, no history', () => {
    const terminated = {
      ...report,
      phase: 'Failed',
      message: 'Operation terminated',
      resources: [
        {
          ...report.resources[0]!,
          kind: 'Job',
          group: 'batch',
          name: 'migrate',
          hookType: 'PreSync',
          hookPhase: 'Failed',
          message: 'Terminated',
          syncPhase: 'PreSync',
        },
        { ...report.resources[0]!, status: '', message: '', hookPhase: '' },
      ],
    };
    const out = buildStatus({
      previous: firstStatus,
      state: { app, comparison: comparison(), lastOperation: { request, report: terminated } },
      now: T2,
      controllerNamespace: 'argocd',
    });
    const st = out.status['operationState'] as {
      phase: string;
      message: string;
      syncResult: { resources: unknown[] };
    };
    assert.deepEqual([st.phase, st.message], ['Failed', 'Operation terminated']);
    assert.deepEqual(st.syncResult.resources, [
      {
        group: 'batch',
        version: 'v1',
        kind: 'Job',
        namespace: 'web',
        name: 'migrate',
        status: 'Synced',
        message: 'Terminated',
        hookType: 'PreSync',
        hookPhase: 'Failed',
        syncPhase: 'PreSync',
      },
    ]);
    assert.equal(out.status['history'], undefined);
  });

  it("a rollback: operation, syncResult and history carry the operation's source (argocd app rollback)", () => {
    const old = { ...source, path: 'web-old' };
    const rollback = {
      initiatedBy: { automated: false, username: 'bob' },
      revision: 'abc123',
      prune: false,
      dryRun: false,
      strategy: 'apply' as const,
      source: old,
    };
    const out = buildStatus({
      previous: firstStatus,
      state: { app, comparison: comparison(), lastOperation: { request: rollback, report } },
      now: T2,
      controllerNamespace: 'argocd',
      appendHistory: true,
    });
    const st = out.status['operationState'] as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    assert.deepEqual(st['operation'], {
      sync: { revision: 'abc123', syncStrategy: { apply: {} }, source: old },
      initiatedBy: { username: 'bob' },
      retry: {},
    });
    assert.deepEqual(st['syncResult'].source, old);
    assert.deepEqual(out.status['history'], [{ ...entry(0), source: old, initiatedBy: { username: 'bob' } }]);
  });

  it("the loop's AppLoopState is a StatusSource (the contract's types fit)", () => {
    const state: AppLoopState = { key: 'argocd/web', app, selfHealAttempts: 0 };
    const source: StatusSource = state;
    assert.equal(source.app.name, 'web');
  });
});

describe('status JSON helpers', () => {
  it('merge patch: nulls for removed members, nested objects patched, arrays replaced', () => {
    assert.deepEqual(
      mergePatch({ a: 1, b: { c: 1, d: 2 }, e: [1] }, { b: { c: 1, d: 3 }, e: [1, 2], f: 'x' }),
      {
        a: null,
        b: { d: 3 },
        e: [1, 2],
        f: 'x',
      },
    );
    assert.equal(mergePatch({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), undefined);
  });

  it('Go durations as time.Duration prints them', () => {
    assert.deepEqual([5_000, 180_000, 3_600_000, 1_500, 90_061_000, 250].map(goDuration), [
      '5s',
      '3m0s',
      '1h0m0s',
      '1.5s',
      '25h1m1s',
      '250ms',
    ]);
  });
});
