import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hookName, parseResourceFilter, planSync } from '../../src/sync/plan.js';
import type { PlanInput, PlanResource } from '../../src/sync/plan.js';
import { kindRank } from '../../src/sync/order.js';
import type { KubeObject } from '../../src/common/index.js';
import { GitopsError } from '../../src/common/index.js';

const STARTED = new Date('2026-01-02T03:04:05Z');

function obj(
  kind: string,
  name: string,
  extra: {
    ns?: string;
    apiVersion?: string;
    ann?: Record<string, string>;
    spec?: unknown;
    generateName?: string;
  } = {},
): KubeObject {
  return {
    apiVersion: extra.apiVersion ?? (kind === 'Deployment' ? 'apps/v1' : kind === 'Job' ? 'batch/v1' : 'v1'),
    kind,
    metadata: {
      ...(name ? { name } : { generateName: extra.generateName }),
      ...(extra.ns !== undefined ? { namespace: extra.ns } : {}),
      ...(extra.ann ? { annotations: extra.ann } : {}),
    },
    ...(extra.spec !== undefined ? { spec: extra.spec } : {}),
  };
}

const target = (o: KubeObject): PlanResource => ({ target: o, outOfSync: true });
const prune = (o: KubeObject): PlanResource => ({ live: o, outOfSync: true });

function plan(resources: PlanResource[], over: Partial<PlanInput> = {}) {
  return planSync({
    app: 'demo',
    destNamespace: 'demo',
    revision: 'ABCDEF0123456789',
    startedAt: STARTED,
    resources,
    syncOptions: {},
    prune: true,
    ...over,
  });
}

const order = (p: ReturnType<typeof plan>) =>
  p.tasks.map((t) => `${t.phase}/${t.wave}/${t.key.kind}/${t.key.name}`);

describe('sync plan: order', () => {
  it('sorts by phase, wave, kind rank, then name', () => {
    const p = plan([
      target(obj('Deployment', 'b', { ns: 'demo' })),
      target(obj('Deployment', 'a', { ns: 'demo' })),
      target(obj('Service', 'z', { ns: 'demo' })),
      target(obj('ConfigMap', 'late', { ns: 'demo', ann: { 'argocd.argoproj.io/sync-wave': '2' } })),
      target(obj('Widget', 'w', { ns: 'demo', apiVersion: 'example.com/v1' })),
      target(obj('Job', 'migrate', { ns: 'demo', ann: { 'argocd.argoproj.io/hook': 'PreSync' } })),
      target(obj('Job', 'smoke', { ns: 'demo', ann: { 'argocd.argoproj.io/hook': 'PostSync' } })),
      target(obj('ConfigMap', 'early', { ns: 'demo', ann: { 'argocd.argoproj.io/sync-wave': '-1' } })),
    ]);
    assert.deepEqual(order(p), [
      'PreSync/0/Job/migrate',
      'Sync/-1/ConfigMap/early',
      'Sync/0/Service/z',
      'Sync/0/Deployment/a',
      'Sync/0/Deployment/b',
      'Sync/0/Widget/w',
      'Sync/2/ConfigMap/late',
      'PostSync/0/Job/smoke',
    ]);
  });

  it('ranks unknown kinds after every listed kind', () => {
    assert.ok(kindRank('Namespace') < kindRank('APIService'));
    assert.ok(kindRank('APIService') < kindRank('Widget'));
    assert.equal(kindRank('Widget'), 0);
  });

  it('hoists a Namespace before the first task in it, taking its phase and wave', () => {
    const p = plan([
      target(obj('ConfigMap', 'cm', { ns: 'team', ann: { 'argocd.argoproj.io/sync-wave': '-5' } })),
      target(obj('Namespace', 'team', { ann: { 'argocd.argoproj.io/sync-wave': '3' } })),
    ]);
    assert.deepEqual(order(p), ['Sync/-5/Namespace/team', 'Sync/-5/ConfigMap/cm']);
  });

  it('hoists a CRD before the first custom resource of its group/kind', () => {
    const crd = obj('CustomResourceDefinition', 'widgets.example.com', {
      apiVersion: 'apiextensions.k8s.io/v1',
      ann: { 'argocd.argoproj.io/sync-wave': '1' },
      spec: { group: 'example.com', names: { kind: 'Widget' } },
    });
    const p = plan([target(obj('Widget', 'w', { ns: 'demo', apiVersion: 'example.com/v1' })), target(crd)]);
    assert.deepEqual(order(p), ['Sync/0/CustomResourceDefinition/widgets.example.com', 'Sync/0/Widget/w']);
  });
});

describe('sync plan: hooks', () => {
  it('names a generateName hook as Argo CD does, one task per listed hook type', () => {
    const hook = obj('Job', '', {
      ns: 'demo',
      generateName: 'migrate-',
      ann: {
        'argocd.argoproj.io/hook': 'PreSync,PostSync',
        'argocd.argoproj.io/hook-delete-policy': 'HookSucceeded',
      },
    });
    const p = plan([target(hook)]);
    const secs = Math.floor(STARTED.getTime() / 1000);
    assert.deepEqual(
      p.tasks.map((t) => [t.phase, t.key.name, t.hookType, t.deletePolicies]),
      [
        ['PreSync', `migrate-abcdef0-presync-${secs}`, 'PreSync', ['HookSucceeded']],
        ['PostSync', `migrate-abcdef0-postsync-${secs}`, 'PostSync', ['HookSucceeded']],
      ],
    );
    assert.equal(hookName('x-', 'abc', 'Sync', STARTED), `x-abc-sync-${secs}`);
  });

  it('defaults the delete policy to BeforeHookCreation and maps Helm hooks', () => {
    const p = plan([
      target(obj('Job', 'h', { ns: 'demo', ann: { 'helm.sh/hook': 'pre-install,pre-upgrade' } })),
    ]);
    assert.deepEqual(
      p.tasks.map((t) => [t.phase, t.deletePolicies]),
      [['PreSync', ['BeforeHookCreation']]],
    );
  });

  it('never applies or prunes Skip objects, and leaves hooks out with strategy apply or a resource filter', () => {
    const skip = obj('ConfigMap', 's', { ns: 'demo', ann: { 'argocd.argoproj.io/hook': 'Skip' } });
    const hook = obj('Job', 'h', { ns: 'demo', ann: { 'argocd.argoproj.io/hook': 'Sync' } });
    const cm = obj('ConfigMap', 'c', { ns: 'demo' });
    assert.deepEqual(order(plan([target(skip), prune(skip), target(hook), target(cm)])), [
      'Sync/0/ConfigMap/c',
      'Sync/0/Job/h',
    ]);
    const apply = plan([target(hook), target(cm)], { strategy: 'apply' });
    assert.deepEqual(order(apply), ['Sync/0/ConfigMap/c']);
    assert.equal(apply.hooksSkipped, true);
    const filtered = plan([target(hook), target(cm), target(obj('ConfigMap', 'd', { ns: 'demo' }))], {
      resourceFilter: [parseResourceFilter(':ConfigMap:demo/d')],
    });
    assert.deepEqual(order(filtered), ['Sync/0/ConfigMap/d']);
  });
});

describe('sync plan: prune', () => {
  it('skips prunes without --prune and with Prune=false, and never deletes twice', () => {
    const keep = obj('ConfigMap', 'keep', { ns: 'demo' });
    const noPrune = obj('ConfigMap', 'pinned', {
      ns: 'demo',
      ann: { 'argocd.argoproj.io/sync-options': 'Prune=false' },
    });
    const gone: KubeObject = { ...obj('ConfigMap', 'going', { ns: 'demo' }) };
    gone.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z';
    const off = plan([target(keep), prune(obj('ConfigMap', 'old', { ns: 'demo' }))], { prune: false });
    assert.deepEqual(
      off.tasks.filter((t) => !t.target).map((t) => [t.action, t.message]),
      [['prune-skip', 'ignored (requires pruning)']],
    );
    const on = plan([
      target(keep),
      prune(noPrune),
      prune(gone),
      prune(obj('ConfigMap', 'old', { ns: 'demo' })),
    ]);
    assert.deepEqual(
      on.tasks.filter((t) => !t.target).map((t) => [t.key.name, t.action, t.message]),
      [
        ['going', 'none', 'already terminating'],
        ['old', 'prune', undefined],
        ['pinned', 'prune-skip', 'ignored (no prune)'],
      ],
    );
  });

  it('mirrors prune waves and moves PruneLast prunes after the last Sync wave', () => {
    const w = (name: string, wave: number, ann: Record<string, string> = {}) =>
      obj('ConfigMap', name, { ns: 'demo', ann: { 'argocd.argoproj.io/sync-wave': String(wave), ...ann } });
    const p = plan([target(w('keep', 4)), prune(w('p1', 1)), prune(w('p2', 2)), prune(w('p3', 3))]);
    assert.deepEqual(order(p), [
      'Sync/1/ConfigMap/p3',
      'Sync/2/ConfigMap/p2',
      'Sync/3/ConfigMap/p1',
      'Sync/4/ConfigMap/keep',
    ]);
    const last = plan([
      target(w('keep', 4)),
      prune(w('p1', 1, { 'argocd.argoproj.io/sync-options': 'PruneLast=true' })),
      prune(w('p2', 2)),
    ]);
    assert.deepEqual(order(last), ['Sync/1/ConfigMap/p2', 'Sync/4/ConfigMap/keep', 'Sync/5/ConfigMap/p1']);
    const appLast = plan([target(w('keep', 0)), prune(w('p1', 1))], { syncOptions: { PruneLast: 'true' } });
    assert.deepEqual(order(appLast), ['Sync/0/ConfigMap/keep', 'Sync/2/ConfigMap/p1']);
  });

  it('refuses when every resource would be pruned, unless allowEmpty', () => {
    assert.throws(
      () => plan([prune(obj('ConfigMap', 'a', { ns: 'demo' }))]),
      (e: unknown) =>
        e instanceof GitopsError &&
        e.exitCode === 2 &&
        /app demo: failed to sync: every resource would be pruned/.test(e.message),
    );
    assert.equal(plan([prune(obj('ConfigMap', 'a', { ns: 'demo' }))], { allowEmpty: true }).tasks.length, 1);
  });
});

describe('sync plan: options', () => {
  it('CreateNamespace adds a PreSync Namespace task with managedNamespaceMetadata', () => {
    const p = plan([target(obj('ConfigMap', 'c', { ns: 'demo' }))], {
      syncOptions: { CreateNamespace: 'true' },
      managedNamespaceMetadata: { labels: { team: 'a' }, annotations: {} },
    });
    assert.deepEqual(order(p), ['PreSync/0/Namespace/demo', 'Sync/0/ConfigMap/c']);
    assert.deepEqual(p.tasks[0]!.target!.metadata!.labels, { team: 'a' });
    const existing = plan([target(obj('ConfigMap', 'c', { ns: 'demo' }))], {
      syncOptions: { CreateNamespace: 'true' },
      liveNamespace: obj('Namespace', 'demo'),
    });
    assert.deepEqual(order(existing), ['Sync/0/ConfigMap/c']);
    // gitops-engine makes the namespace from a typed Namespace: `spec: {}` and `status: {}` are in what it
    // applies (and in the last-applied annotation Argo CD 3.6.1 writes, conformance case opt-create-namespace).
    const created = plan([target(obj('ConfigMap', 'c', { ns: 'demo' }))], {
      syncOptions: { CreateNamespace: 'true' },
    });
    assert.deepEqual(created.tasks[0]!.target, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'demo' },
      spec: {},
      status: {},
    });
  });

  it('ApplyOutOfSyncOnly drops Synced resources, Replace=true picks replace', () => {
    const live = obj('ConfigMap', 'same', { ns: 'demo' });
    const p = plan(
      [
        { target: live, live, outOfSync: false },
        {
          target: obj('ConfigMap', 'changed', {
            ns: 'demo',
            ann: { 'argocd.argoproj.io/sync-options': 'Replace=true' },
          }),
          live: obj('ConfigMap', 'changed', { ns: 'demo' }),
          outOfSync: true,
        },
      ],
      { syncOptions: { ApplyOutOfSyncOnly: 'true' } },
    );
    assert.deepEqual(
      p.tasks.map((t) => [t.key.name, t.action]),
      [['changed', 'replace']],
    );
  });

  it('rejects a malformed --resource', () => {
    assert.throws(
      () => parseResourceFilter('ConfigMap/x'),
      /--resource ConfigMap\/x: failed to parse resource filter/,
    );
    assert.deepEqual(parseResourceFilter('apps:Deployment:web'), {
      group: 'apps',
      kind: 'Deployment',
      name: 'web',
    });
  });
});
