/**
 * Sync end to end on the embedded API server with real Git repositories: the controller's Run with the
 * sync operation processor. Kinds without health (ConfigMap, Service, Secret...) are done once written;
 * hook Jobs are completed (or failed) by the test writing their status, as a Job controller would.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import type { ClusterConnection, KubeObject, ResourceInfo } from '../../src/cluster/index.js';
import { useEmbeddedCluster, needsEmbedded } from '../support/embedded.js';
import { JOB, jobController } from './job-controller.js';
import { TestRepo, cm } from '../support/git.js';
import { application, connectAs, newCacheRoot, reportOf, sync, syncRequest } from '../controller/setup.js';

const hookJob = (name: string, hook: string, extra = ''): string => `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  annotations:
    argocd.argoproj.io/hook: ${hook}
${extra}spec:
  # No Pod on any server (a real server's Job controller would run one): the stand-in finishes the Job.
  parallelism: 0
  completions: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
`;
const wave = (n: number) => `  annotations:\n    argocd.argoproj.io/sync-wave: "${n}"\n`;
const svc = (name: string, extra = '') =>
  `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n${extra}spec:\n  ports:\n  - port: 80\n`;
const role = (name: string) =>
  `apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: ${name}\nrules:\n- apiGroups: [""]\n  resources: [configmaps]\n  verbs: [get]\n`;
const sa = (name: string) => `apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ${name}\n`;

const request = syncRequest;

const NS: ResourceInfo = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
  verbs: ['get'],
};
const CM: ResourceInfo = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  verbs: [],
};

const rv = (o: KubeObject | undefined): number => Number(o?.metadata?.resourceVersion ?? NaN);

describe('sync end to end on the embedded API server', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;
  const stop = new AbortController();

  before(async () => {
    conn = await connectAs(fx);
  });
  after(() => {
    stop.abort();
    conn?.close();
  });

  it('writes in phase -> wave -> kind order, hooks first, and reports each resource', async () => {
    repo.commit({
      'order/cm-late.yaml': cm('late', wave(2)),
      'order/role.yaml': role('web'),
      'order/sa.yaml': sa('runner'),
      'order/cm-early.yaml': cm('early', wave(-1)),
      'order/pre.yaml': hookJob('migrate', 'PreSync'),
      'order/post.yaml': hookJob('smoke', 'PostSync'),
    });
    const jobs = await jobController(conn, 'order', () => false, stop.signal);
    const report = await sync(
      fx,
      [application('order', repo.url, 'order', { namespace: 'order' })],
      cacheRoot,
      request(),
    );
    const r = reportOf(report, 'order');
    assert.equal(r.error, undefined);
    assert.equal(
      r.operation?.phase,
      'Succeeded',
      JSON.stringify(r.operation?.resources.map((x) => x.message)),
    );
    assert.deepEqual(
      r.operation!.resources.map((x) => `${x.syncPhase}/${x.syncWave}/${x.kind}/${x.name}:${x.status}`),
      [
        'PreSync/0/Namespace/order:Synced',
        'PreSync/0/Job/migrate:Synced',
        'Sync/-1/ConfigMap/early:Synced',
        'Sync/0/ServiceAccount/runner:Synced',
        'Sync/0/Role/web:Synced',
        'Sync/2/ConfigMap/late:Synced',
        'PostSync/0/Job/smoke:Synced',
      ],
    );
    assert.deepEqual(jobs, ['migrate', 'smoke']);
    const get = async (info: ResourceInfo, name: string) => conn.client.get(info, 'order', name);
    const ROLE = { ...CM, group: 'rbac.authorization.k8s.io', kind: 'Role', plural: 'roles' };
    const SA = { ...CM, kind: 'ServiceAccount', plural: 'serviceaccounts' };
    const order = [
      rv(await get(CM, 'early')),
      rv(await get(SA, 'runner')),
      rv(await get(ROLE, 'web')),
      rv(await get(CM, 'late')),
    ];
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
      `creation order by resourceVersion ${order.join(',')}`,
    );
    const migrate = await get(JOB, 'migrate');
    assert.ok(rv(migrate) < order[0]!, 'the PreSync hook was written before any Sync-phase resource');
    assert.deepEqual(
      migrate.metadata?.['finalizers'] ?? [],
      [],
      'the hook finalizer is removed once the hook completed',
    );
    assert.equal(
      r.comparison?.sync,
      'Synced',
      JSON.stringify(
        r.comparison?.resources.filter((x) => x.status !== 'Synced').map((x) => [x.kind, x.name, x.diffText]),
      ),
    );
    const early = await get(CM, 'early');
    assert.match(
      early.metadata?.annotations?.['argocd.argoproj.io/tracking-id'] ?? '',
      /^order:\/ConfigMap:order\/early$/,
    );
    assert.ok(early.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration']);
  });

  it('a no-op re-sync sends no write for non-hook resources', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    repo.commit({ 'noop/a.yaml': cm('a'), 'noop/b.yaml': role('b'), 'noop/c.yaml': sa('c') });
    const app = application('noop', repo.url, 'noop', { namespace: 'noop' });
    const first = await sync(fx, [app], cacheRoot, request());
    assert.equal(reportOf(first, 'noop').operation?.phase, 'Succeeded');
    fx.cluster.stats.reset();
    const again = await sync(fx, [app], cacheRoot, request());
    assert.equal(reportOf(again, 'noop').operation?.phase, 'Succeeded');
    const writes = fx.cluster.stats.writes();
    assert.equal(writes, 0, JSON.stringify(fx.cluster.stats.snapshot().byVerbResource));
  });

  it('a failing PreSync hook stops the sync before any Sync-phase write and runs SyncFail hooks', async () => {
    repo.commit({
      'failing/pre.yaml': hookJob('migrate', 'PreSync'),
      'failing/fail.yaml': hookJob('cleanup', 'SyncFail'),
      'failing/cm.yaml': cm('app'),
    });
    const jobs = await jobController(conn, 'failing', (n) => n === 'migrate', stop.signal);
    const report = await sync(
      fx,
      [application('failing', repo.url, 'failing', { namespace: 'failing' })],
      cacheRoot,
      request(),
    );
    const op = reportOf(report, 'failing').operation!;
    assert.equal(op.phase, 'Failed');
    // Argo CD's words (gitops-engine executeSyncFailPhase); the hook's own result says why.
    assert.equal(op.message, 'one or more synchronization tasks completed unsuccessfully');
    const migrate = op.resources.find((r) => r.name === 'migrate')!;
    assert.deepEqual([migrate.status, migrate.hookPhase], ['Synced', 'Failed']);
    assert.match(migrate.message, /job failed/);
    assert.deepEqual(jobs, ['migrate', 'cleanup']);
    await assert.rejects(conn.client.get(CM, 'failing', 'app'), /not found/i);
  });

  it('prunes only with --prune; Prune=false and skipped prunes are reported', async () => {
    repo.commit({
      'prune/keep.yaml': cm('keep'),
      'prune/old.yaml': cm('old'),
      'prune/pinned.yaml': cm('pinned', '  annotations:\n    argocd.argoproj.io/sync-options: Prune=false\n'),
    });
    const app = application('prune', repo.url, 'prune', { namespace: 'prune' });
    await sync(fx, [app], cacheRoot, request());
    repo.commit({ 'prune/old.yaml': null, 'prune/pinned.yaml': null });
    const without = reportOf(await sync(fx, [app], cacheRoot, request()), 'prune').operation!;
    assert.equal(without.phase, 'Succeeded');
    assert.deepEqual(
      without.resources.filter((x) => x.status === 'PruneSkipped').map((x) => [x.name, x.message]),
      [
        ['old', 'ignored (requires pruning)'],
        ['pinned', 'ignored (no prune)'],
      ],
    );
    await conn.client.get(CM, 'prune', 'old');
    const withPrune = reportOf(
      await sync(fx, [app], cacheRoot, request({ prune: true })),
      'prune',
    ).operation!;
    assert.deepEqual(
      withPrune.resources.filter((x) => x.status === 'Pruned').map((x) => x.name),
      ['old'],
    );
    await assert.rejects(conn.client.get(CM, 'prune', 'old'), /not found/i);
    await conn.client.get(CM, 'prune', 'pinned');
  });

  it('--dry-run validates every task and changes nothing', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    repo.commit({ 'dry/a.yaml': cm('a'), 'dry/b.yaml': svc('b') });
    fx.cluster.stats.reset();
    const report = await sync(
      fx,
      [application('dry', repo.url, 'dry', { namespace: 'default' })],
      cacheRoot,
      request({ dryRun: true, syncOptions: {} }),
    );
    const op = reportOf(report, 'dry').operation!;
    assert.equal(op.phase, 'Succeeded', op.message);
    assert.equal(op.dryRun, true);
    assert.deepEqual(
      op.plan.map((t) => `${t.kind}/${t.name}:${t.action}`),
      ['ConfigMap/a:create', 'Service/b:create'],
    );
    await assert.rejects(conn.client.get(CM, 'default', 'a'), /not found/i);
  });

  it('a failed dry run writes nothing and names the resource', async () => {
    repo.commit({
      'bad/a.yaml': cm('a'),
      'bad/b.yaml': cm('b', '  labels:\n    app: "not a label value!"\n'),
    });
    const report = await sync(
      fx,
      [application('bad', repo.url, 'bad', { namespace: 'default' })],
      cacheRoot,
      request({ syncOptions: {} }),
    );
    const op = reportOf(report, 'bad').operation!;
    assert.equal(op.phase, 'Failed');
    assert.equal(op.message, 'one or more objects failed to apply (dry run)');
    assert.match(
      op.resources.find((x) => x.name === 'b')!.message,
      /ConfigMap default\/b: failed to create: .*not a label value/,
    );
    await assert.rejects(conn.client.get(CM, 'default', 'a'), /not found/i);
  });

  it('retries injected 500s to success', async (t) => {
    if (needsEmbedded(t, 'fault injection (cluster.faults)')) return;
    repo.commit({ 'flaky/a.yaml': cm('a') });
    fx.cluster.faults.failRequests({ verb: 'create', resource: 'configmaps', status: 500, times: 2 });
    const report = await sync(
      fx,
      [application('flaky', repo.url, 'flaky', { namespace: 'flaky' })],
      cacheRoot,
      request(),
    );
    assert.equal(
      reportOf(report, 'flaky').operation?.phase,
      'Succeeded',
      reportOf(report, 'flaky').operation?.message,
    );
    await conn.client.get(CM, 'flaky', 'a');
  });

  it('a 409 conflict on a write is retried with a fresh read of the object', async (t) => {
    if (needsEmbedded(t, 'fault injection and request counts (cluster.faults, .stats)')) return;
    repo.commit({ 'conflict/a.yaml': cm('a') });
    const app = application('conflict', repo.url, 'conflict', { namespace: 'conflict' });
    assert.equal(
      reportOf(await sync(fx, [app], cacheRoot, request()), 'conflict').operation?.phase,
      'Succeeded',
    );
    repo.commit({ 'conflict/a.yaml': cm('a').replace('key: a', 'key: changed') });
    // The API server's optimistic-concurrency answer, as when another writer moved the object first.
    fx.cluster.faults.failRequests({ verb: 'patch', resource: 'configmaps', status: 409, times: 1 });
    fx.cluster.stats.reset();
    const op = reportOf(await sync(fx, [app], cacheRoot, request()), 'conflict').operation!;
    assert.equal(op.phase, 'Succeeded', op.message);
    assert.equal(fx.cluster.stats.count('get', 'configmaps'), 1, 'one fresh read after the conflict');
    // dry-run patch (conflict, then again after the read) and the real patch
    assert.equal(fx.cluster.stats.count('patch', 'configmaps'), 3);
    const live = await conn.client.get(CM, 'conflict', 'a');
    assert.equal((live['data'] as Record<string, string>)['key'], 'changed');
  });

  it('PruneLast prunes after every other wave; without it a prune runs in its own (mirrored) wave', async () => {
    const order = async (options: Record<string, string>, dir: string): Promise<string[]> => {
      repo.commit({ [`${dir}/old.yaml`]: cm('old'), [`${dir}/keep.yaml`]: cm('keep') });
      const app = application(dir, repo.url, dir, { namespace: dir });
      await sync(fx, [app], cacheRoot, request());
      repo.commit({ [`${dir}/old.yaml`]: null, [`${dir}/late.yaml`]: cm('late', wave(5)) });
      const seen: string[] = [];
      const watching = new AbortController();
      const stream = await conn.client.watch(CM, { namespace: dir, signal: watching.signal });
      const done = (async () => {
        for await (const ev of stream) {
          // (the watch opens with a synthetic ADDED of each existing object)
          const name = ev.object.metadata?.name;
          // kube-root-ca.crt: a real server's root-ca-cert-publisher adds it to every namespace.
          if ((ev.type === 'ADDED' && name !== 'old' && name !== 'kube-root-ca.crt') || ev.type === 'DELETED')
            seen.push(`${ev.type} ${ev.object.metadata?.name}`);
        }
      })().catch(() => undefined);
      const op = reportOf(
        await sync(
          fx,
          [app],
          cacheRoot,
          request({ prune: true, syncOptions: { CreateNamespace: 'true', ...options } }),
        ),
        dir,
      ).operation!;
      assert.equal(op.phase, 'Succeeded', op.message);
      // Both writes are in the store; wait for their events (the watch delivers in resourceVersion order).
      while (seen.filter((e) => !e.endsWith(' keep')).length < 2) await new Promise((r) => setImmediate(r));
      watching.abort();
      await done;
      return seen.filter((e) => !e.endsWith(' keep'));
    };
    assert.deepEqual(await order({}, 'prune-mirrored'), ['DELETED old', 'ADDED late']);
    assert.deepEqual(await order({ PruneLast: 'true' }, 'prune-last'), ['ADDED late', 'DELETED old']);
  });

  it('CreateNamespace: the namespace is written as Argo CD writes it, and its result stays Running', async () => {
    repo.commit({ 'made-ns/c.yaml': cm('c') });
    const app = application('made-ns', repo.url, 'made-ns', { namespace: 'made-ns' });
    const op = reportOf(
      await sync(fx, [app], cacheRoot, request({ syncOptions: { CreateNamespace: 'true' } })),
      'made-ns',
    ).operation!;
    assert.equal(op.phase, 'Succeeded', op.message);
    const ns = op.resources.find((r) => r.kind === 'Namespace')!;
    // Argo CD 3.6.1 (conformance case opt-create-namespace): gitops-engine drops the task once the namespace
    // exists, so the result its write left is final.
    assert.deepEqual(
      [ns.syncPhase, ns.hookPhase, ns.message],
      ['PreSync', 'Running', 'namespace/made-ns created'],
    );
    const live = await conn.client.get(NS, '', 'made-ns');
    assert.equal(
      live?.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration'],
      '{"apiVersion":"v1","kind":"Namespace","metadata":{"annotations":{},"name":"made-ns"},"spec":{},"status":{}}\n',
    );
  });

  it('RespectIgnoreDifferences=true writes the live value of an ignored field, without it the target (c106)', async () => {
    const data = async () => (await conn.client.get(CM, 'respect', 'settings'))['data'];
    await conn.client.create(NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'respect' } });
    await conn.client.create(CM, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'respect' },
      data: { a: '1', owned: 'by someone else' },
    });
    repo.commit({
      'respect/cm.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: "2"\n  owned: from git\n',
    });
    const ignore = '  ignoreDifferences:\n  - kind: ConfigMap\n    jsonPointers: [/data/owned]\n';
    const respecting = application('respect', repo.url, 'respect', {
      namespace: 'respect',
      spec: `${ignore}  syncPolicy:\n    syncOptions: [RespectIgnoreDifferences=true]\n`,
    });
    const op = reportOf(await sync(fx, [respecting], cacheRoot, request()), 'respect').operation!;
    assert.equal(op.phase, 'Succeeded', op.message);
    assert.deepEqual(await data(), { a: '2', owned: 'by someone else' });
    // The same app without the option writes the target's value.
    const plain = application('respect', repo.url, 'respect', { namespace: 'respect', spec: ignore });
    assert.equal(
      reportOf(await sync(fx, [plain], cacheRoot, request()), 'respect').operation?.phase,
      'Succeeded',
    );
    assert.deepEqual(await data(), { a: '2', owned: 'from git' });
  });

  it('an unknown kind fails the dry run unless its CRD is in the same sync or SkipDryRunOnMissingResource=true', async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: gadgets
    kind: Gadget
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`;
    const gadget = (extra = '') =>
      `apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g1\n${extra}spec:\n  size: 1\n`;
    const GADGET: ResourceInfo = {
      group: 'example.com',
      version: 'v1',
      kind: 'Gadget',
      plural: 'gadgets',
      namespaced: true,
      verbs: [],
    };

    repo.commit({ 'crd-missing/g.yaml': gadget(), 'crd-missing/cm.yaml': cm('side') });
    const missing = reportOf(
      await sync(
        fx,
        [application('crd-missing', repo.url, 'crd-missing', { namespace: 'crd-missing' })],
        cacheRoot,
        request(),
      ),
      'crd-missing',
    ).operation!;
    assert.equal(missing.phase, 'Failed');
    assert.equal(
      missing.message,
      'one or more synchronization tasks are not valid: failed to discover server resources for group version example.com/v1: the server could not find the requested resource',
    );
    assert.match(
      missing.resources.find((r) => r.name === 'g1')!.message,
      /^The Kubernetes API could not find example\.com\/Gadget for requested resource crd-missing\/g1\. Make sure the "Gadget" CRD is installed/,
    );
    await assert.rejects(conn.client.get(CM, 'crd-missing', 'side'), /not found/i, 'nothing written');

    // SkipDryRunOnMissingResource on the resource: the dry run passes it; the apply then fails on it alone.
    repo.commit({
      'crd-skip/g.yaml': gadget(
        '  annotations:\n    argocd.argoproj.io/sync-options: SkipDryRunOnMissingResource=true\n',
      ),
      'crd-skip/cm.yaml': cm('side'),
    });
    const skipped = reportOf(
      await sync(
        fx,
        [application('crd-skip', repo.url, 'crd-skip', { namespace: 'crd-skip' })],
        cacheRoot,
        request(),
      ),
      'crd-skip',
    ).operation!;
    assert.equal(skipped.phase, 'Failed');
    assert.notEqual(skipped.message, 'one or more objects failed to apply (dry run)');
    assert.equal(skipped.resources.find((r) => r.name === 'g1')?.status, 'SyncFailed');
    await conn.client.get(CM, 'crd-skip', 'side');

    // The CRD in the same sync: created first (kind order), then the custom resource.
    repo.commit({ 'crd-same/crd.yaml': crd, 'crd-same/g.yaml': gadget() });
    const same = reportOf(
      await sync(
        fx,
        [application('crd-same', repo.url, 'crd-same', { namespace: 'crd-same' })],
        cacheRoot,
        request(),
      ),
      'crd-same',
    ).operation!;
    assert.equal(same.phase, 'Succeeded', same.message);
    const g = await conn.client.get(GADGET, 'crd-same', 'g1');
    assert.deepEqual(g['spec'], { size: 1 });

    // Now that Gadget is served (example.com/v1): one of another group is named beside the installed one, as
    // Argo CD's AugmentSyncMsg (getAPIResourceInfo: same group first, else the first group with that kind).
    repo.commit({ 'crd-group/g.yaml': gadget().replace('example.com/v1', 'elsewhere.example.org/v1') });
    // One app of the same name as its path and namespace, synced as `kubectl gitops sync` does by default.
    const syncApp = async (name: string) =>
      reportOf(
        await sync(fx, [application(name, repo.url, name, { namespace: name })], cacheRoot, request()),
        name,
      );
    const other = (await syncApp('crd-group')).operation!;
    assert.equal(other.phase, 'Failed');
    assert.equal(
      other.resources.find((r) => r.name === 'g1')?.message,
      'The Kubernetes API could not find version "v1" of elsewhere.example.org/Gadget for requested resource crd-group/g1. Version "v1" of example.com/Gadget is installed on the destination cluster.',
    );

    // Its own group serving it at another version only (example.com/v2 where the CRD serves v1): refused
    // before any write, naming the served version (Argo CD 3.6.1: getSyncTasks's discovery of the group
    // version, reworded by AugmentSyncMsg; conformance c247, c248). A live object of it is read at the
    // served version, and its row says that version (c248).
    await conn.client.create(NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'crd-version' } });
    await conn.client.create(GADGET, {
      ...(parse(gadget()) as KubeObject),
      metadata: { name: 'g1', namespace: 'crd-version' },
    });
    repo.commit({
      'crd-version/g.yaml': gadget().replace('example.com/v1', 'example.com/v2'),
      'crd-version/cm.yaml': cm('side'),
    });
    const versioned = await syncApp('crd-version');
    const version = versioned.operation!;
    assert.equal(version.phase, 'Failed');
    const row = versioned.comparison?.resources.find((r) => r.name === 'g1');
    assert.deepEqual([row?.version, row?.status], ['v1', 'OutOfSync']);
    assert.equal(
      version.message,
      'one or more synchronization tasks are not valid: failed to discover server resources for group version example.com/v2: the server could not find the requested resource',
    );
    assert.equal(
      version.resources.find((r) => r.name === 'g1')?.message,
      'The Kubernetes API could not find version "v2" of example.com/Gadget for requested resource crd-version/g1. Version "v1" of example.com/Gadget is installed on the destination cluster.',
    );
    await assert.rejects(conn.client.get(CM, 'crd-version', 'side'), /not found/i, 'nothing written');
  });

  it('an interrupt mid-sync stops starting tasks and says what was still running', async () => {
    repo.commit({ 'stop/pre.yaml': hookJob('migrate', 'PreSync'), 'stop/cm.yaml': cm('after') });
    const interrupt = new AbortController();
    // Interrupt once the hook exists (nobody completes it): the Sync-phase ConfigMap must never be written.
    const stream = await conn.client.watch(JOB, { namespace: 'stop', signal: stop.signal });
    void (async () => {
      for await (const ev of stream) if (ev.type === 'ADDED') interrupt.abort(new Error('interrupted'));
    })().catch(() => undefined);
    const report = await sync(
      fx,
      [application('stop', repo.url, 'stop', { namespace: 'stop' })],
      cacheRoot,
      request(),
      {
        signal: interrupt.signal,
      },
    );
    const op = reportOf(report, 'stop').operation!;
    assert.equal(op.phase, 'Failed');
    assert.match(
      op.message,
      /^operation terminated: interrupted; still running: batch\/Job\/stop\/migrate; 1 task\(s\) not started$/,
    );
    assert.deepEqual(
      op.resources.map((r) => `${r.kind}/${r.name}:${r.status || '-'}:${r.hookPhase || '-'}`),
      // (the created Namespace's result stays as its write left it, as gitops-engine's)
      ['Namespace/stop:Synced:Running', 'Job/migrate:Synced:Running', 'ConfigMap/after:-:-'],
    );
    await assert.rejects(conn.client.get(CM, 'stop', 'after'), /not found/i);
  });

  it('Force=true replaces an object whose patch the server refuses; without it the dry run fails, nothing written', async (t) => {
    if (needsEmbedded(t, 'fault injection and request counts (cluster.faults, .stats)')) return;
    const frozen = (value: string, labels = '') =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: frozen\n${labels}immutable: true\ndata:\n  key: ${value}\n`;
    repo.commit({ 'force/cm.yaml': frozen('one') });
    const app = application('force', repo.url, 'force', { namespace: 'force' });
    assert.equal(
      reportOf(await sync(fx, [app], cacheRoot, request()), 'force').operation?.phase,
      'Succeeded',
    );
    const first = await conn.client.get(CM, 'force', 'frozen');
    const data = (o: KubeObject) => (o['data'] as Record<string, string>)['key'];

    // An immutable ConfigMap's data cannot be patched (422): without Force the dry run says so.
    repo.commit({ 'force/cm.yaml': frozen('two') });
    fx.cluster.stats.reset();
    const refused = reportOf(await sync(fx, [app], cacheRoot, request()), 'force').operation!;
    assert.equal(refused.phase, 'Failed');
    assert.match(refused.resources[0]!.message, /field is immutable when `immutable` is set/);
    assert.equal(fx.cluster.stats.count('delete', 'configmaps'), 0);
    assert.equal((await conn.client.get(CM, 'force', 'frozen')).metadata?.uid, first.metadata?.uid);
    // Force=true among the app's own sync options does nothing, as in Argo CD (conformance c083).
    const specForce = application('force', repo.url, 'force', {
      namespace: 'force',
      spec: '  syncPolicy:\n    syncOptions: [Force=true]\n',
    });
    assert.equal(
      reportOf(await sync(fx, [specForce], cacheRoot, request()), 'force').operation?.phase,
      'Failed',
    );
    assert.equal(fx.cluster.stats.count('delete', 'configmaps'), 0);

    // Force=true whose replacement is itself invalid: its dry-run create says so (422, not AlreadyExists).
    repo.commit({ 'force/cm.yaml': frozen('two', '  labels:\n    bad: "not a label value!"\n') });
    const invalid = reportOf(
      await sync(fx, [app], cacheRoot, request({ syncOptions: { Force: 'true' } })),
      'force',
    ).operation!;
    assert.equal(invalid.phase, 'Failed');
    assert.match(invalid.message, /dry run/);
    assert.match(invalid.resources[0]!.message, /failed to create: .*not a label value/);
    assert.equal(data(await conn.client.get(CM, 'force', 'frozen')), 'one', 'nothing written');

    // Force=true whose replacement create is refused (an injected refusal, after the dry run passed): the
    // original is created again and the task fails saying so; nothing is left deleted.
    repo.commit({ 'force/cm.yaml': frozen('two') });
    const forceWith = (fault: () => void) =>
      sync(fx, [app], cacheRoot, {
        ...request({ syncOptions: { Force: 'true' } }),
        onEvent: (e) => {
          if (e.type === 'validate-done') fault();
        },
      });
    const restored = reportOf(
      await forceWith(() =>
        fx.cluster.faults.failRequests({ verb: 'create', resource: 'configmaps', status: 409, times: 1 }),
      ),
      'force',
    ).operation!;
    assert.equal(restored.phase, 'Failed');
    assert.match(
      restored.resources.find((r) => r.name === 'frozen')!.message,
      /: Force=true could not replace the object \(.*\); the original was created again$/,
    );
    assert.equal(data(await conn.client.get(CM, 'force', 'frozen')), 'one', 'the original is back');

    // Force=true: delete, wait until gone, create; a passing failure of the create (500) is retried. A
    // later wave then finds the new object, and the final comparison is Synced.
    repo.commit({ 'force/cm.yaml': frozen('two'), 'force/late.yaml': cm('late', wave(2)) });
    fx.cluster.stats.reset();
    const report = await forceWith(() =>
      fx.cluster.faults.failRequests({ verb: 'create', resource: 'configmaps', status: 500, times: 1 }),
    );
    const forced = reportOf(report, 'force');
    assert.equal(forced.operation?.phase, 'Succeeded', forced.operation?.message);
    assert.equal(forced.comparison?.sync, 'Synced');
    const replaced = await conn.client.get(CM, 'force', 'frozen');
    assert.equal(data(replaced), 'two');
    assert.notEqual(replaced.metadata?.uid, first.metadata?.uid);
    // dry-run creates of frozen (AlreadyExists: valid) and late; frozen's refused create, its retry; late
    assert.equal(fx.cluster.stats.count('create', 'configmaps'), 5);
    assert.equal(fx.cluster.stats.count('delete', 'configmaps'), 1);
  });

  it('Replace=true with Force=true re-creates the object on every sync; a Namespace is updated instead', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    const options = `  annotations:\n    argocd.argoproj.io/sync-options: Replace=true,Force=true\n`;
    repo.commit({
      'recreate/cm.yaml': cm('again', options),
      'recreate/ns.yaml': `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: recreate-extra\n${options}`,
    });
    const app = application('recreate', repo.url, 'recreate', { namespace: 'recreate' });
    const uids = async () => [
      (await conn.client.get(CM, 'recreate', 'again')).metadata?.uid,
      (await conn.client.get(NS, '', 'recreate-extra')).metadata?.uid,
    ];
    assert.equal(
      reportOf(await sync(fx, [app], cacheRoot, request()), 'recreate').operation?.phase,
      'Succeeded',
    );
    const [cmBefore, nsBefore] = await uids();
    fx.cluster.stats.reset();
    const again = reportOf(await sync(fx, [app], cacheRoot, request()), 'recreate').operation!;
    assert.equal(again.phase, 'Succeeded', again.message);
    const [cmAfter, nsAfter] = await uids();
    assert.notEqual(cmAfter, cmBefore, 'the ConfigMap was deleted and created (kubectl replace --force)');
    assert.equal(nsAfter, nsBefore, 'the Namespace was updated, not re-created');
    assert.equal(fx.cluster.stats.count('delete', 'namespaces'), 0);
    assert.equal(fx.cluster.stats.count('update', 'namespaces'), 1);
  });

  it('server-side apply takes over fields another manager owns (force, as Argo CD)', async () => {
    repo.commit({ 'ssa/cm.yaml': cm('shared') });
    const app = application('ssa', repo.url, 'ssa', { namespace: 'ssa' });
    await sync(fx, [app], cacheRoot, request());
    await conn.client.patch(
      CM,
      'ssa',
      'shared',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared' }, data: { key: 'theirs' } },
      'apply',
      { force: true },
    );
    const report = await sync(fx, [app], cacheRoot, request({ syncOptions: { ServerSideApply: 'true' } }));
    assert.equal(reportOf(report, 'ssa').operation?.phase, 'Succeeded');
    const live = await conn.client.get(CM, 'ssa', 'shared');
    assert.equal((live['data'] as Record<string, string>)['key'], 'shared');
    const owners = (live.metadata?.managedFields as Array<{ manager: string; operation: string }>).filter(
      (m) => m.operation === 'Apply',
    );
    assert.deepEqual(
      owners.map((m) => m.manager),
      ['argocd-controller'],
    );
  });
});
