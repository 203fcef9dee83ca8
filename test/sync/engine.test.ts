import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SyncEngine } from '../../src/sync/engine.js';
import { planSync } from '../../src/sync/plan.js';
import type { PlanResource } from '../../src/sync/plan.js';
import type { KubeObject } from '../../src/common/index.js';
import type { SyncEngineEvent, SyncTask } from '../../src/sync/types.js';
import { FakeSyncClient, completeJob } from './fake-client.js';

function obj(kind: string, name: string, ann: Record<string, string> = {}): KubeObject {
  const apiVersion =
    kind === 'Job'
      ? 'batch/v1'
      : kind === 'Deployment'
        ? 'apps/v1'
        : kind === 'Widget'
          ? 'example.com/v1'
          : 'v1';
  return { apiVersion, kind, metadata: { name, namespace: 'demo', annotations: ann } };
}
const hook = (name: string, type: string, extra: Record<string, string> = {}) =>
  obj('Job', name, { 'argocd.argoproj.io/hook': type, ...extra });

function engineFor(
  resources: PlanResource[],
  client: FakeSyncClient,
  options: {
    prune?: boolean;
    dryRun?: boolean;
    onEvent?: (e: SyncEngineEvent) => void;
    recheckMs?: number;
    permission?: (task: SyncTask) => string | undefined;
  } = {},
) {
  const plan = planSync({
    app: 'demo',
    destNamespace: 'demo',
    revision: 'abc1234',
    startedAt: new Date(0),
    resources,
    syncOptions: {},
    prune: options.prune ?? true,
  });
  return new SyncEngine(plan.tasks, client, {
    dryRun: options.dryRun ?? false,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.recheckMs ? { recheckMs: options.recheckMs } : {}),
    ...(options.permission ? { permission: options.permission } : {}),
  });
}
const targets = (...objs: KubeObject[]): PlanResource[] => objs.map((o) => ({ target: o, outOfSync: true }));
const writes = (c: FakeSyncClient) => c.log.filter((l) => !l.startsWith('dry-run'));

describe('sync engine', () => {
  it("the project's refusal of any task (hooks and prunes too) fails the operation before the dry run", async () => {
    const client = new FakeSyncClient();
    client.objects.set('/ConfigMap/demo/old', obj('ConfigMap', 'old'));
    const engine = engineFor(
      [
        ...targets(obj('Deployment', 'web'), hook('migrate', 'PreSync'), obj('Widget', 'w')),
        { live: obj('ConfigMap', 'old'), outOfSync: true },
      ],
      client,
      {
        permission: (t) =>
          t.key.kind === 'Job' || t.key.kind === 'ConfigMap'
            ? `resource ${t.key.group}:${t.key.kind} is not permitted in project team`
            : undefined,
      },
    );
    client.unservedKinds.add('Widget');
    const result = await engine.run(new AbortController().signal);
    assert.equal(result.phase, 'Failed');
    assert.equal(
      result.message,
      // The unserved Widget fails there too (gitops-engine getSyncTasks), with discovery's error.
      'one or more synchronization tasks are not valid: failed to discover server resources for group version example.com/v1: the server could not find the requested resource; resource :ConfigMap is not permitted in project team; resource batch:Job is not permitted in project team',
    );
    assert.deepEqual(client.log, [], 'no dry run, no write');
    assert.deepEqual(
      result.resources
        .filter((r) => r.status === 'SyncFailed')
        .map((r) => r.kind)
        .sort(),
      ['ConfigMap', 'Job', 'Widget'],
    );
    // gitops-engine getSyncTasks records them with no operation phase (setResourceResult(task, SyncFailed, "")).
    assert.deepEqual(
      result.resources.filter((r) => r.status === 'SyncFailed').map((r) => r.hookPhase),
      ['', '', ''],
    );
  });

  it('validates every task before the first write, then applies in plan order', async () => {
    const client = new FakeSyncClient();
    client.onWrite = (o) => completeJob(o);
    const engine = engineFor(
      targets(
        obj('Deployment', 'web'),
        obj('ConfigMap', 'cfg', { 'argocd.argoproj.io/sync-wave': '1' }),
        hook('migrate', 'PreSync'),
        obj('Service', 'web'),
      ),
      client,
    );
    const result = await engine.run(new AbortController().signal);
    assert.equal(result.phase, 'Succeeded', result.message);
    const firstWrite = client.log.findIndex((l) => !l.startsWith('dry-run'));
    assert.equal(client.log.slice(0, firstWrite).length, 4);
    assert.deepEqual(writes(client), [
      'apply Job/migrate',
      'unfinalize Job/migrate',
      'apply Service/web',
      'apply Deployment/web',
      'apply ConfigMap/cfg',
    ]);
    assert.deepEqual(
      result.resources.map((r) => [r.kind, r.status, r.syncPhase, r.syncWave, r.hookType, r.hookPhase]),
      [
        // gitops-engine records every task's operation phase: wave 0 re-evaluated (Succeeded once Healthy),
        // the final wave left Running as the operation ends right after applying it.
        ['Job', 'Synced', 'PreSync', 0, 'PreSync', 'Succeeded'],
        ['Service', 'Synced', 'Sync', 0, '', 'Succeeded'],
        ['Deployment', 'Synced', 'Sync', 0, '', 'Succeeded'],
        ['ConfigMap', 'Synced', 'Sync', 1, '', 'Running'],
      ],
    );
  });

  it("reports each result's container images, as gitops-engine GetResourceImages reads them", async () => {
    const client = new FakeSyncClient();
    const web = obj('Deployment', 'web');
    web['spec'] = {
      template: {
        spec: {
          initContainers: [{ name: 'init', image: 'init:1' }],
          containers: [
            { name: 'main', image: 'registry.example/app:1.0' },
            { name: 'side', image: 'sidecar:2' },
          ],
        },
      },
    };
    const result = await engineFor(targets(web, obj('ConfigMap', 'cfg')), client).run(
      new AbortController().signal,
    );
    assert.deepEqual(
      result.resources.map((r) => [r.name, r.images]),
      [
        ['cfg', undefined],
        ['web', ['registry.example/app:1.0', 'sidecar:2']],
      ],
    );
  });

  it('a failed dry run stops the operation with nothing written and names the resource', async () => {
    const client = new FakeSyncClient();
    client.dryRunFailures.set('cfg', 'admission webhook denied the request');
    const result = await engineFor(targets(obj('ConfigMap', 'cfg'), obj('Service', 'web')), client).run(
      new AbortController().signal,
    );
    assert.equal(result.phase, 'Failed');
    assert.equal(result.message, 'one or more objects failed to apply (dry run)');
    assert.deepEqual(writes(client), []);
    assert.deepEqual(
      result.resources.find((r) => r.name === 'cfg')?.message,
      'admission webhook denied the request',
    );
  });

  it('a failed write ends the operation on that pass only when nothing of its wave still runs (gitops-engine Sync, c094)', async () => {
    // Every write of the wave failed: "failed to apply", on that pass.
    const alone = new FakeSyncClient();
    alone.applyFailures.set('w', 'the server refused it');
    const failed = await engineFor(targets(obj('Widget', 'w')), alone).run(new AbortController().signal);
    assert.equal(failed.phase, 'Failed');
    assert.equal(failed.message, 'one or more objects failed to apply, reason: the server refused it');

    // A ConfigMap applied beside the failed write runs (Argo CD: "waiting for healthy state of
    // /ConfigMap/cfg"); the next pass finds it Succeeded and ends on the "completed unsuccessfully"
    // branch. The kinds after a failed one are still applied, as gitops-engine's runTasks does.
    const beside = new FakeSyncClient();
    beside.applyFailures.set('svc', 'the server refused it');
    const later = await engineFor(
      targets(obj('Widget', 'w'), obj('Service', 'svc'), obj('ConfigMap', 'cfg')),
      beside,
    ).run(new AbortController().signal);
    assert.equal(later.phase, 'Failed');
    assert.equal(
      later.message,
      'one or more synchronization tasks completed unsuccessfully, reason: the server refused it',
    );
    assert.deepEqual(writes(beside), ['apply ConfigMap/cfg', 'apply Service/svc', 'apply Widget/w']);
    assert.deepEqual(
      later.resources.map((r) => `${r.kind}:${r.status}:${r.hookPhase}`),
      ['ConfigMap:Synced:Succeeded', 'Service:SyncFailed:Failed', 'Widget:Synced:Succeeded'],
    );

    // A SyncFail hook to run: the operation ends after it, "completed unsuccessfully" too.
    const withHook = new FakeSyncClient();
    withHook.onWrite = (o) => completeJob(o, 'Complete');
    withHook.applyFailures.set('w', 'the server refused it');
    const hooked = await engineFor(targets(obj('Widget', 'w'), hook('notify', 'SyncFail')), withHook).run(
      new AbortController().signal,
    );
    assert.equal(
      hooked.message,
      'one or more synchronization tasks completed unsuccessfully, reason: the server refused it',
    );
  });

  it('an unknown kind fails validation unless its CRD is in the sync or SkipDryRunOnMissingResource', async () => {
    const client = new FakeSyncClient();
    client.unservedKinds.add('Widget');
    const failed = await engineFor(targets(obj('Widget', 'w')), client).run(new AbortController().signal);
    assert.equal(failed.phase, 'Failed');
    // Argo CD's words (util/argo AugmentSyncMsg), before any dry run.
    assert.equal(
      failed.resources[0]!.message,
      'The Kubernetes API could not find example.com/Widget for requested resource demo/w. Make sure the "Widget" CRD is installed on the destination cluster.',
    );
    assert.match(
      failed.message,
      /^one or more synchronization tasks are not valid: failed to discover server resources/,
    );
    // A kind of that name served in another group (or at another version): Argo CD names it (conformance c015
    // beside another case's Widget CRD, 2026-11-28).
    const elsewhere = new FakeSyncClient();
    elsewhere.unservedKinds.add('Widget');
    elsewhere.unservedAs.set('Widget', {
      error:
        'failed to discover server resources for group version example.com/v1: the server could not find the requested resource',
      installed: { group: 'other.example.com', version: 'v1beta1' },
    });
    const named = await engineFor(targets(obj('Widget', 'w')), elsewhere).run(new AbortController().signal);
    assert.equal(
      named.resources[0]!.message,
      'The Kubernetes API could not find version "v1" of example.com/Widget for requested resource demo/w. Version "v1beta1" of other.example.com/Widget is installed on the destination cluster.',
    );
    // Its group version served without the kind: discovery's NotFound, which Argo CD does not reword.
    const kindless = new FakeSyncClient();
    kindless.unservedKinds.add('Widget');
    kindless.unservedAs.set('Widget', { error: 'Widget.example.com "" not found' });
    const bare = await engineFor(targets(obj('Widget', 'w')), kindless).run(new AbortController().signal);
    assert.equal(bare.resources[0]!.message, 'Widget.example.com "" not found');
    assert.equal(
      bare.message,
      'one or more synchronization tasks are not valid: Widget.example.com "" not found',
    );
    const skipping = new FakeSyncClient();
    skipping.unservedKinds.add('Widget');
    const ok = await engineFor(
      targets(obj('Widget', 'w', { 'argocd.argoproj.io/sync-options': 'SkipDryRunOnMissingResource=true' })),
      skipping,
    ).run(new AbortController().signal);
    assert.equal(ok.phase, 'Succeeded', ok.message);
  });

  it("--dry-run validates and writes nothing, each result in kubectl's dry-run words (Argo CD 3.6.1, c087)", async () => {
    const client = new FakeSyncClient();
    client.objects.set('/ConfigMap/demo/old', obj('ConfigMap', 'old'));
    const result = await engineFor(
      [
        ...targets(obj('ConfigMap', 'cfg'), hook('h', 'PreSync')),
        { target: obj('Deployment', 'web'), live: obj('Deployment', 'web'), outOfSync: true },
        { live: obj('ConfigMap', 'old'), outOfSync: true },
      ],
      client,
      { dryRun: true },
    ).run(new AbortController().signal);
    assert.equal(result.phase, 'Succeeded');
    assert.equal(result.message, 'successfully synced (no more tasks)');
    assert.deepEqual(writes(client), []);
    assert.equal(client.log.length, 4);
    assert.deepEqual(
      result.resources.map((r) => [r.name, r.hookPhase, r.message]),
      [
        ['h', 'Succeeded', 'job.batch/h created (dry run)'],
        ['cfg', 'Succeeded', 'configmap/cfg created (dry run)'],
        ['old', 'Succeeded', 'pruned (dry run)'],
        ['web', 'Succeeded', 'deployment.apps/web configured (dry run)'],
      ],
    );
  });

  it('a hook of a kind without health ends "<name> created", as gitops-engine getOperationPhase says', async () => {
    const client = new FakeSyncClient();
    const schema = obj('ConfigMap', 'schema', { 'argocd.argoproj.io/hook': 'PreSync' });
    const result = await engineFor(targets(schema, obj('ConfigMap', 'cfg')), client).run(
      new AbortController().signal,
    );
    assert.equal(result.phase, 'Succeeded', result.message);
    assert.deepEqual(
      result.resources.map((r) => [r.name, r.hookType ? r.hookPhase : '', r.message]),
      [
        ['schema', 'Succeeded', 'schema created'],
        // Not a hook: the write's own message stays (kubectl's words).
        ['cfg', '', 'configmap/cfg created'],
      ],
    );
  });

  it('waits for a PreSync hook to complete before any Sync-phase write', async () => {
    const client = new FakeSyncClient();
    const engine = engineFor(targets(hook('migrate', 'PreSync'), obj('ConfigMap', 'cfg')), client);
    const done = engine.run(new AbortController().signal);
    while (!client.objects.size) await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(writes(client), ['apply Job/migrate']);
    const job = [...client.objects.values()][0]!;
    client.set(
      { key: { group: 'batch', kind: 'Job', namespace: 'demo', name: 'migrate' } },
      completeJob(job),
    );
    const result = await done;
    assert.equal(result.phase, 'Succeeded', result.message);
    assert.deepEqual(writes(client), ['apply Job/migrate', 'unfinalize Job/migrate', 'apply ConfigMap/cfg']);
  });

  it('a failing PreSync hook stops the sync, deletes HookFailed hooks and runs SyncFail hooks', async () => {
    const client = new FakeSyncClient();
    client.onWrite = (o) => completeJob(o, o.metadata?.name === 'migrate' ? 'Failed' : 'Complete');
    const result = await engineFor(
      targets(
        hook('migrate', 'PreSync', { 'argocd.argoproj.io/hook-delete-policy': 'HookFailed' }),
        hook('notify', 'SyncFail'),
        obj('ConfigMap', 'cfg'),
      ),
      client,
    ).run(new AbortController().signal);
    assert.equal(result.phase, 'Failed');
    assert.equal(result.message, 'one or more synchronization tasks completed unsuccessfully');
    assert.deepEqual(writes(client), [
      'apply Job/migrate',
      'unfinalize Job/migrate',
      'delete Job/migrate',
      'apply Job/notify',
      'unfinalize Job/notify',
    ]);
    assert.equal(result.resources.find((r) => r.name === 'cfg')?.status, '');
  });

  it('reports its run as events: validation, each wave started and done, task changes, the end', async () => {
    const client = new FakeSyncClient();
    client.onWrite = (o) => completeJob(o, o.metadata?.name === 'migrate' ? 'Failed' : 'Complete');
    const events: SyncEngineEvent[] = [];
    const result = await engineFor(
      targets(hook('migrate', 'PreSync'), hook('notify', 'SyncFail'), obj('ConfigMap', 'cfg')),
      client,
      { onEvent: (e) => events.push(e) },
    ).run(new AbortController().signal);
    assert.equal(result.phase, 'Failed');
    // `waiting` events (what a wait is for) are checked by the CLI tests (sync-example-apps).
    const shape = events
      .filter((e) => e.type !== 'waiting')
      .map((e) =>
        e.type === 'task'
          ? `task ${e.task.syncPhase} ${e.task.kind}/${e.task.name} ${e.phase} ${e.status}`
          : e.type === 'wave-start'
            ? `start ${e.syncPhase} ${e.syncWave} (${e.tasks})`
            : e.type === 'wave-done'
              ? `done ${e.syncPhase} ${e.syncWave} (${e.succeeded} ok, ${e.failed} failed)`
              : e.type === 'validate-start'
                ? `validate ${e.tasks}`
                : e.type === 'validate-done'
                  ? `validated (${e.failed} failed)`
                  : `operation ${e.phase}`,
      );
    assert.deepEqual(shape, [
      'validate 3',
      'validated (0 failed)',
      'start PreSync 0 (1)',
      'task PreSync Job/migrate Running Synced',
      'task PreSync Job/migrate Failed Synced',
      'done PreSync 0 (0 ok, 1 failed)',
      'start SyncFail 0 (1)',
      'task SyncFail Job/notify Running Synced',
      'task SyncFail Job/notify Succeeded Synced',
      'done SyncFail 0 (1 ok, 0 failed)',
      'operation Failed',
    ]);
  });

  it('replaces a BeforeHookCreation hook only after the old one is gone, deletes HookSucceeded hooks at the end', async () => {
    const client = new FakeSyncClient();
    client.onWrite = (o) => completeJob(o);
    client.slowDeletes = true;
    const old = hook('migrate', 'PreSync');
    client.objects.set('batch/Job/demo/migrate', completeJob(old));
    const engine = engineFor(
      targets(old, hook('smoke', 'PostSync', { 'argocd.argoproj.io/hook-delete-policy': 'HookSucceeded' })),
      client,
    );
    const done = engine.run(new AbortController().signal);
    while (!client.log.includes('delete Job/migrate')) await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    assert.ok(!client.log.includes('apply Job/migrate'));
    client.slowDeletes = false;
    client.objects.delete('batch/Job/demo/migrate');
    client.set({ key: { group: '', kind: 'Noise', namespace: '', name: '' } }, {});
    const result = await done;
    assert.equal(result.phase, 'Succeeded', result.message);
    assert.deepEqual(writes(client), [
      'delete Job/migrate',
      'apply Job/migrate',
      'unfinalize Job/migrate',
      'apply Job/smoke',
      'unfinalize Job/smoke',
      'delete Job/smoke',
    ]);
  });

  it('prunes with --prune and reports skipped prunes without it', async () => {
    const extra = obj('ConfigMap', 'old');
    const run = async (prune: boolean) => {
      const client = new FakeSyncClient();
      client.objects.set('/ConfigMap/demo/old', extra);
      const result = await engineFor(
        [...targets(obj('ConfigMap', 'cfg')), { live: extra, outOfSync: true }],
        client,
        { prune },
      ).run(new AbortController().signal);
      return { client, result };
    };
    const on = await run(true);
    assert.equal(on.result.phase, 'Succeeded', on.result.message);
    assert.deepEqual(writes(on.client), ['delete ConfigMap/old', 'apply ConfigMap/cfg']);
    assert.deepEqual(
      on.result.resources.map((r) => [r.name, r.status]),
      [
        ['cfg', 'Synced'],
        ['old', 'Pruned'],
      ],
    );
    const off = await run(false);
    assert.deepEqual(writes(off.client), ['apply ConfigMap/cfg']);
    assert.deepEqual(
      off.result.resources.find((r) => r.name === 'old'),
      {
        ...off.result.resources.find((r) => r.name === 'old')!,
        status: 'PruneSkipped',
        message: 'ignored (requires pruning)',
      },
    );
  });

  it('a running task whose watch is lost fails with the reason instead of waiting forever', async () => {
    const client = new FakeSyncClient();
    const engine = engineFor(targets(hook('migrate', 'PreSync'), obj('ConfigMap', 'cfg')), client);
    const done = engine.run(new AbortController().signal);
    while (!client.objects.size) await new Promise((r) => setImmediate(r));
    client.loseKind('Job', 'batch/Job@demo: watch failed 3 times in a row over 12s');
    const result = await done;
    assert.equal(result.phase, 'Failed');
    const job = result.resources.find((r) => r.kind === 'Job')!;
    assert.equal(job.hookPhase, 'Failed');
    assert.equal(
      job.message,
      'cannot follow the live state: batch/Job@demo: watch failed 3 times in a row over 12s',
    );
    // The failed hook's finalizer is released; the ConfigMap after it is never written.
    assert.deepEqual(writes(client), ['apply Job/migrate', 'unfinalize Job/migrate']);
  });

  it('an aborted run stops starting tasks and says what was still running', async () => {
    const client = new FakeSyncClient();
    const controller = new AbortController();
    const engine = engineFor(targets(hook('migrate', 'PreSync'), obj('ConfigMap', 'cfg')), client);
    const done = engine.run(controller.signal);
    while (!client.objects.size) await new Promise((r) => setImmediate(r));
    controller.abort(new Error('interrupted'));
    const result = await done;
    assert.equal(result.phase, 'Failed');
    assert.match(
      result.message,
      /operation terminated: interrupted; still running: batch\/Job\/demo\/migrate; 1 task\(s\) not started/,
    );
    assert.deepEqual(writes(client), ['apply Job/migrate']);
  });
});

describe('sync engine: a waiting run as Argo CD persists it (gitops-engine setRunningPhase)', () => {
  it("reports the running message and results; a running hook's message follows its health", async () => {
    const client = new FakeSyncClient();
    const seen: Array<{ message: string; hook: string }> = [];
    const plan = planSync({
      app: 'demo',
      destNamespace: 'demo',
      revision: 'abc1234',
      startedAt: new Date(0),
      resources: targets(hook('migrate', 'PreSync'), hook('seed', 'PreSync'), obj('ConfigMap', 'cfg')),
      syncOptions: {},
      prune: true,
    });
    const engine = new SyncEngine(plan.tasks, client, {
      onRunning: (p) =>
        seen.push({
          message: p.message,
          hook: p.resources.find((r) => r.name === 'migrate')?.message ?? '',
        }),
    });
    const done = engine.run(new AbortController().signal);
    while (client.objects.size < 2) await new Promise((r) => setImmediate(r));
    // The Job controller suspends it: health Suspended, still Running, its message the health's.
    const key = [...client.objects.keys()].find((k) => k.endsWith('/migrate'))!;
    const live = client.objects.get(key)!;
    client.set(
      { key: { group: 'batch', kind: 'Job', namespace: 'demo', name: 'migrate' } },
      { ...live, status: { conditions: [{ type: 'Suspended', status: 'True', message: 'Job suspended' }] } },
    );
    while (!seen.some((s) => s.hook === 'Job suspended')) await new Promise((r) => setImmediate(r));
    assert.equal(seen[0]!.message, 'waiting for completion of hook batch/Job/migrate and 1 more hooks');
    assert.equal(seen[0]!.hook, 'job.batch/migrate created');
    for (const name of ['migrate', 'seed']) {
      const k = { group: 'batch', kind: 'Job', namespace: 'demo', name };
      client.set({ key: k }, completeJob(client.objects.get(`batch/Job/demo/${name}`)!));
    }
    const result = await done;
    assert.equal(result.phase, 'Succeeded');
  });
});

describe('sync engine: terminate (Argo CD Terminating, gitops-engine Terminate)', () => {
  it('a running hook loses its finalizer and is deleted; Failed "Operation terminated"', async () => {
    const client = new FakeSyncClient();
    const terminate = new AbortController();
    const engine = engineFor(targets(hook('migrate', 'PreSync'), obj('ConfigMap', 'cfg')), client);
    const done = engine.run(new AbortController().signal, terminate.signal);
    while (!client.objects.size) await new Promise((r) => setImmediate(r));
    terminate.abort(new Error('Operation terminated'));
    const result = await done;
    assert.deepEqual([result.phase, result.message], ['Failed', 'Operation terminated']);
    const job = result.resources.find((r) => r.kind === 'Job')!;
    assert.deepEqual([job.hookPhase, job.message], ['Failed', 'Terminated']);
    // The ConfigMap of the next phase never starts: no status.
    assert.equal(result.resources.find((r) => r.kind === 'ConfigMap')!.status, '');
    assert.deepEqual(writes(client), ['apply Job/migrate', 'unfinalize Job/migrate', 'delete Job/migrate']);
  });

  it('a hook already complete keeps its outcome and is not deleted (no HookFailed policy)', async () => {
    const client = new FakeSyncClient();
    const terminate = new AbortController();
    const engine = engineFor(targets(hook('migrate', 'PreSync'), obj('ConfigMap', 'cfg')), client);
    const done = engine.run(new AbortController().signal, terminate.signal);
    while (!client.objects.size) await new Promise((r) => setImmediate(r));
    // Completed in the cluster, terminated before the engine saw it.
    const live = [...client.objects.values()][0]!;
    client.objects.set([...client.objects.keys()][0]!, completeJob(live));
    terminate.abort(new Error('Operation terminated'));
    const result = await done;
    assert.equal(result.message, 'Operation terminated');
    assert.equal(result.resources.find((r) => r.kind === 'Job')!.hookPhase, 'Succeeded');
    assert.equal(writes(client).includes('delete Job/migrate'), false);
  });
});

describe('sync engine: never waits for a change that cannot come', () => {
  const cm = (name: string, wave: number): KubeObject =>
    obj('ConfigMap', name, { 'argocd.argoproj.io/sync-wave': String(wave) });
  const keyOf = (o: KubeObject) => ({
    key: { group: '', kind: o.kind!, namespace: 'demo', name: o.metadata!.name! },
  });

  it('a no-op multi-wave sync on a quiet cluster re-evaluates at once and never waits', async () => {
    const client = new FakeSyncClient();
    client.quiet = true;
    const objs = [cm('early', -1), cm('middle', 0), cm('late', 1)];
    for (const o of objs) client.setSilently(keyOf(o), structuredClone(o));
    const result = await engineFor(targets(...objs), client).run(new AbortController().signal);
    assert.equal(result.phase, 'Succeeded', result.message);
    assert.deepEqual(
      result.resources.map((r) => `${r.syncWave}/${r.name}:${r.status}`),
      ['-1/early:Synced', '0/middle:Synced', '1/late:Synced'],
    );
    assert.equal(client.waits, 0, 'no step waited for a live-state change');
  });

  it('a prune of an object already gone, and a wave whose tasks are all skipped, do not wait', async () => {
    const client = new FakeSyncClient();
    client.quiet = true;
    const objs = [cm('early', -1), cm('late', 1)];
    for (const o of objs) client.setSilently(keyOf(o), structuredClone(o));
    const gone = cm('gone', 0);
    const result = await engineFor(
      [...targets(...objs), { live: gone, outOfSync: true }, { live: cm('kept', 0), outOfSync: true }],
      client,
      { prune: true },
    ).run(new AbortController().signal);
    assert.equal(result.phase, 'Succeeded', result.message);
    assert.equal(result.resources.find((r) => r.name === 'gone')?.status, 'Pruned');
    assert.equal(client.waits, 0);
  });

  it('a hook that completes without a watch event is seen on the re-check interval', async () => {
    const client = new FakeSyncClient();
    client.quiet = true;
    const job = hook('migrate', 'PreSync');
    const late = cm('late', 1);
    client.setSilently(keyOf(late), structuredClone(late));
    const engine = engineFor(targets(job, late), client, { recheckMs: 20 });
    const run = engine.run(new AbortController().signal);
    // The Job completes, but its event is never seen.
    setTimeout(() => {
      const live = client.objects.get('batch/Job/demo/migrate')!;
      client.setSilently(
        { key: { group: 'batch', kind: 'Job', namespace: 'demo', name: 'migrate' } },
        completeJob(live),
      );
    }, 50);
    const result = await run;
    assert.equal(result.phase, 'Succeeded', result.message);
    assert.ok(client.waits > 0, 'the running hook was waited for');
  });
});
