/**
 * A sync never waits for a live-state change that cannot come (issue 21, item 1). Each test runs on a quiet
 * embedded server (only the workload simulator writes, and only in answer to the sync's own writes) and
 * gives the operation no timeout. Before the engine re-evaluated from the live state, a step that wrote
 * nothing waited for a watch event forever: the first three tests hung until the test runner's own limit
 * (or, for the third, failed first: a HookSucceeded hook was never deleted). The last one guards the
 * operation retry path (src/controller/run/processors.ts): a retry replaces the failed hook and must finish too.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterConnection, ResourceInfo } from '../../src/cluster/index.js';
import { useEmbeddedCluster, needsEmbedded } from '../support/embedded.js';
import { TestRepo, cm } from '../support/git.js';
import { application, connectAs, newCacheRoot, reportOf, sync, syncRequest } from '../controller/setup.js';

const hookJob = (name: string, hook: string, policy = ''): string => `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  annotations:
    argocd.argoproj.io/hook: ${hook}
${policy ? `    argocd.argoproj.io/hook-delete-policy: ${policy}\n` : ''}spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
`;
const wave = (n: number): string => `  annotations:\n    argocd.argoproj.io/sync-wave: "${n}"\n`;

const JOB: ResourceInfo = {
  group: 'batch',
  version: 'v1',
  kind: 'Job',
  plural: 'jobs',
  namespaced: true,
  verbs: [],
};

/** The app of issue 21: a PreSync hook Job, ConfigMaps in waves -1, 0 and 1, a PostSync hook Job. */
function multiWave(dir: string): Record<string, string> {
  return {
    [`${dir}/pre.yaml`]: hookJob('migrate', 'PreSync'),
    [`${dir}/early.yaml`]: cm('early', wave(-1)),
    [`${dir}/middle.yaml`]: cm('middle', wave(0)),
    [`${dir}/late.yaml`]: cm('late', wave(1)),
    [`${dir}/post.yaml`]: hookJob('smoke', 'PostSync'),
  };
}

describe('a sync never waits for a change that cannot come', () => {
  const fx = useEmbeddedCluster({ simulateWorkloads: true });
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;

  before(async () => {
    conn = await connectAs(fx);
  });
  after(() => conn?.close());

  const writes = (): Record<string, number> => {
    const byVerb = fx.cluster.stats.snapshot().byVerbResource;
    const out: Record<string, number> = {};
    for (const [k, n] of Object.entries(byVerb))
      if (/^(create|update|patch|delete|deletecollection) /.test(k)) out[k] = n;
    return out;
  };

  it('a no-op re-sync of a multi-wave app with PreSync and PostSync hooks finishes', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    repo.commit(multiWave('noop'));
    const app = application('noop', repo.url, 'noop', { namespace: 'noop' });
    const first = reportOf(await sync(fx, [app], cacheRoot, syncRequest()), 'noop');
    assert.equal(first.operation?.phase, 'Succeeded', first.operation?.message);
    fx.cluster.stats.reset();
    const again = reportOf(await sync(fx, [app], cacheRoot, syncRequest()), 'noop');
    assert.equal(again.error, undefined);
    assert.equal(again.operation?.phase, 'Succeeded', again.operation?.message);
    assert.deepEqual(
      again.operation!.resources.map((x) => `${x.syncPhase}/${x.syncWave}/${x.kind}/${x.name}:${x.status}`),
      [
        'PreSync/0/Job/migrate:Synced',
        'Sync/-1/ConfigMap/early:Synced',
        'Sync/0/ConfigMap/middle:Synced',
        'Sync/1/ConfigMap/late:Synced',
        'PostSync/0/Job/smoke:Synced',
      ],
    );
    // Only the hooks are written again (deleted as BeforeHookCreation, created, finalizer removed); the
    // server counts dry runs as writes, and the ConfigMaps' empty patches need none.
    const nonHook = Object.entries(writes()).filter(([k]) => !/ jobs\.batch$/.test(k));
    assert.deepEqual(nonHook, [], JSON.stringify(writes()));
  });

  it('a sync whose only change is a prune finishes', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    repo.commit({
      'prune/early.yaml': cm('early', wave(-1)),
      'prune/middle.yaml': cm('middle', wave(0)),
      'prune/old.yaml': cm('old', wave(1)),
      'prune/late.yaml': cm('late', wave(2)),
    });
    const app = application('prune', repo.url, 'prune', { namespace: 'prune' });
    const first = reportOf(await sync(fx, [app], cacheRoot, syncRequest()), 'prune');
    assert.equal(first.operation?.phase, 'Succeeded', first.operation?.message);
    repo.commit({ 'prune/old.yaml': null });
    fx.cluster.stats.reset();
    const pruned = reportOf(await sync(fx, [app], cacheRoot, syncRequest({ prune: true })), 'prune');
    assert.equal(pruned.error, undefined);
    assert.equal(pruned.operation?.phase, 'Succeeded', pruned.operation?.message);
    assert.deepEqual(
      pruned.operation!.resources.map((x) => `${x.syncWave}/${x.name}:${x.status}`),
      ['-1/early:Synced', '0/middle:Synced', '1/old:Pruned', '2/late:Synced'],
    );
    assert.deepEqual(writes(), { 'delete configmaps': 2 }, 'the dry run of the prune, then the prune');
  });

  it('a re-sync after the hook Jobs already completed finishes, and runs no kept hook again', async () => {
    repo.commit({
      'done/pre.yaml': hookJob('migrate', 'PreSync', 'HookSucceeded'),
      'done/check.yaml': hookJob('check', 'PreSync', 'HookFailed'),
      'done/a.yaml': cm('a', wave(0)),
      'done/b.yaml': cm('b', wave(1)),
      'done/c.yaml': cm('c', wave(2)),
    });
    const app = application('done', repo.url, 'done', { namespace: 'done' });
    const first = reportOf(await sync(fx, [app], cacheRoot, syncRequest()), 'done');
    assert.equal(first.operation?.phase, 'Succeeded', first.operation?.message);
    const gone = async (name: string): Promise<void> => {
      const left = await conn.client.get(JOB, 'done', name).catch((e: unknown) => e);
      assert.match(String(left), /not found/i, `${name} is deleted (HookSucceeded)`);
    };
    await gone('migrate');
    // The other PreSync hook of the first sync is complete and kept (HookFailed only).
    const report = await conn.client.get(JOB, 'done', 'check');
    const conditions = (report['status'] as { conditions?: Array<{ type: string }> } | undefined)?.conditions;
    assert.ok(
      conditions?.some((c) => c.type === 'Complete'),
      JSON.stringify(report['status']),
    );
    const again = reportOf(await sync(fx, [app], cacheRoot, syncRequest()), 'done');
    assert.equal(again.error, undefined);
    assert.equal(again.operation?.phase, 'Succeeded', again.operation?.message);
    await gone('migrate');
    const after = await conn.client.get(JOB, 'done', 'check');
    assert.equal(after.metadata?.uid, report.metadata?.uid, 'the completed hook is the same object');
    assert.deepEqual(after.metadata?.['finalizers'] ?? [], [], 'the hook finalizer is removed again');
  });

  it('a retried operation whose PreSync hook fails again (the failed Job replaced) finishes', async () => {
    const failing = `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    argocd.argoproj.io/hook: PreSync
    gitops.kubectl.io/simulate-fail: "true"
spec:
  backoffLimit: 0
  template:
    metadata:
      # On the Pod too: a real server's Job controller copies the template, not the Job's annotations.
      annotations:
        gitops.kubectl.io/simulate-fail: "true"
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
`;
    repo.commit({
      'retry/pre.yaml': failing,
      'retry/a.yaml': cm('a', wave(0)),
      'retry/b.yaml': cm('b', wave(1)),
    });
    const app = application('retry', repo.url, 'retry', { namespace: 'retry' });
    const r = reportOf(
      await sync(fx, [app], cacheRoot, syncRequest(), {
        retry: { limit: 1, backoff: { durationMs: 10, factor: 2, maxDurationMs: 100 }, refresh: false },
      }),
      'retry',
    );
    assert.equal(r.operation?.phase, 'Failed', r.operation?.message);
    assert.equal(r.operation?.retries, 1, 'the operation ran twice');
    assert.match(r.operation?.message ?? '', /^one or more synchronization tasks completed unsuccessfully/);
    assert.equal(r.operation?.resources.find((x) => x.name === 'migrate')?.hookPhase, 'Failed');
  });
});
