/**
 * Which diff strategy a resource is compared with, as Argo CD decides (gitops-engine `pkg/diff/diff.go Diff`,
 * controller/state.go): structured-merge (the managedFields of argocd-controller) only for apps with the
 * `ServerSideApply=true` sync option or targets annotated `argocd.argoproj.io/sync-options:
 * ServerSideApply=true`; otherwise three-way with last-applied, two-way without it. End to end against the
 * embedded server, with objects written by the real kubectl (client- and server-side) and by server-side apply.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { ClusterConnection } from '../../../src/cluster/index.js';
import { api, hasKubectl, kubectl, useEmbeddedCluster, needsEmbedded } from '../../support/embedded.js';
import { TestRepo } from '../../support/git.js';
import { configMap, deployment, service } from '../manifests.js';
import {
  application,
  applyObjects,
  connectAs,
  createNamespaces,
  newCacheRoot,
  refresh,
  renderObjects,
} from '../setup.js';

const SSA_APP = '  syncPolicy:\n    syncOptions: [ServerSideApply=true]\n';

describe('controller: diff strategy (structured-merge, three-way, two-way)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;

  before(async () => {
    conn = await connectAs(fx);
  });

  after(() => {
    conn?.close();
    repo.remove();
  });

  it(
    'an object created by kubectl apply --server-side is Synced (two-way: no last-applied, not our manager)',
    { skip: !hasKubectl && 'no kubectl' },
    async () => {
      repo.commit({
        'ssa/cm.yaml': configMap('settings', { kept: 'value', dropped: 'soon' }),
        'ssa/deploy.yaml': deployment('web'),
        'ssa/svc.yaml': service('web'),
      });
      const plain = application('ssa', repo.url, 'ssa', { namespace: 'ssa' });
      const withSsa = application('ssa', repo.url, 'ssa', { namespace: 'ssa', spec: SSA_APP });
      await createNamespaces(conn, ['ssa']);
      const file = join(fx.dir, 'ssa-app.yaml');
      writeFileSync(file, (await renderObjects(plain, cacheRoot)).map((o) => stringify(o)).join('---\n'));
      const applied = await kubectl(fx, ['apply', '--server-side', '-n', 'ssa', '-f', file]);
      assert.equal(applied.code, 0, applied.stderr);
      const live = await api(fx.cluster, 'GET', '/api/v1/namespaces/ssa/configmaps/settings');
      assert.equal(
        live.body.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'],
        undefined,
      );
      assert.deepEqual(
        live.body.metadata.managedFields.map((m: { manager: string; operation: string }) => [
          m.manager,
          m.operation,
        ]),
        [['kubectl', 'Apply']],
      );

      for (const app of [plain, withSsa]) {
        const c = (await refresh(fx, [app], cacheRoot)).apps[0]!.comparison!;
        assert.deepEqual(
          c.resources.map((r) => [r.kind, r.status, r.diffText ?? '']),
          [
            ['ConfigMap', 'Synced', ''],
            ['Service', 'Synced', ''],
            ['Deployment', 'Synced', ''],
          ],
        );
        assert.equal(c.sync, 'Synced');
      }

      // A key removed in Git: kubectl's field, not argocd-controller's, and no last-applied: not drift in
      // either strategy (Argo CD's two-way keeps live-only fields; structured-merge only prunes its own).
      repo.commit({ 'ssa/cm.yaml': configMap('settings', { kept: 'value' }) });
      for (const app of [plain, withSsa]) {
        const c = (await refresh(fx, [app], cacheRoot)).apps[0]!.comparison!;
        assert.equal(c.resources.find((r) => r.kind === 'ConfigMap')!.status, 'Synced');
      }
      // A value changed in Git is drift in both.
      repo.commit({ 'ssa/cm.yaml': configMap('settings', { kept: 'changed' }) });
      for (const app of [plain, withSsa]) {
        const c = (await refresh(fx, [app], cacheRoot)).apps[0]!.comparison!;
        const cm = c.resources.find((r) => r.kind === 'ConfigMap')!;
        assert.equal(cm.status, 'OutOfSync');
        assert.match(cm.diffText!, /^- {2}kept: value\n\+ {2}kept: changed$/m);
      }
    },
  );

  it('fields argocd-controller applied and Git dropped: drift only with structured-merge (ServerSideApply=true)', async () => {
    repo.commit({ 'smd/cm.yaml': configMap('settings', { kept: 'value', dropped: 'soon' }) });
    await createNamespaces(conn, ['smd']);
    const plain = application('smd', repo.url, 'smd', { namespace: 'smd' });
    // Applied server-side by argocd-controller, as an Argo CD sync with ServerSideApply=true does.
    await applyObjects(conn, await renderObjects(plain, cacheRoot), 'smd');
    repo.commit({ 'smd/cm.yaml': configMap('settings', { kept: 'value' }) });

    const twoWay = (await refresh(fx, [plain], cacheRoot)).apps[0]!.comparison!;
    assert.equal(twoWay.resources[0]!.status, 'Synced', 'two-way: a live-only key is not drift');

    const withSsa = application('smd', repo.url, 'smd', { namespace: 'smd', spec: SSA_APP });
    const smd = (await refresh(fx, [withSsa], cacheRoot)).apps[0]!.comparison!;
    assert.equal(smd.resources[0]!.status, 'OutOfSync');
    assert.match(smd.resources[0]!.diffText!, /^- {2}dropped: soon$/m);

    // The same per resource: the target's own sync-options annotation selects structured-merge.
    repo.commit({
      'smd/cm.yaml': configMap('settings', { kept: 'value' }).replace(
        'metadata:\n',
        "metadata:\n  annotations:\n    argocd.argoproj.io/sync-options: 'Prune=false,ServerSideApply=true'\n",
      ),
    });
    const annotated = (await refresh(fx, [plain], cacheRoot)).apps[0]!.comparison!;
    assert.equal(annotated.resources[0]!.status, 'OutOfSync');
    assert.match(annotated.resources[0]!.diffText!, /^- {2}dropped: soon$/m);
  });
  it('server-side diff: a key argocd-controller applied and Git dropped is drift; keys of other managers are not', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    repo.commit({ 'ssd/cm.yaml': configMap('settings', { kept: 'value', dropped: 'soon' }) });
    await createNamespaces(conn, ['ssd']);
    const base = application('ssd', repo.url, 'ssd', { namespace: 'ssd' });
    const app = {
      ...base,
      annotations: { ...base.annotations, 'argocd.argoproj.io/compare-options': 'ServerSideDiff=true' },
    };
    await applyObjects(conn, await renderObjects(app, cacheRoot), 'ssd');
    const other = await connectAs(fx, 'someone-else');
    const configMaps = await other.discovery.resolve({ group: '', kind: 'ConfigMap' });
    await other.client.patch(configMaps, 'ssd', 'settings', { data: { theirs: 'x' } }, 'merge');
    other.close();
    repo.commit({ 'ssd/cm.yaml': configMap('settings', { kept: 'value' }) });

    const patches = fx.cluster.stats.count('patch');
    const c = (await refresh(fx, [app], cacheRoot)).apps[0]!.comparison!;
    assert.equal(fx.cluster.stats.count('patch') - patches, 1, 'one dry run');
    const cm = c.resources[0]!;
    assert.equal(cm.status, 'OutOfSync');
    assert.match(cm.diffText!, /^- {2}dropped: soon$/m);
    assert.match(cm.diffText!, /^ {3}theirs: x$/m, 'another manager’s key stays on both sides');
    const live = await api(fx.cluster, 'GET', '/api/v1/namespaces/ssd/configmaps/settings');
    assert.equal(live.body.data.dropped, 'soon', 'the dry run stores nothing');
  });
  it(
    'structured-merge prunes only what no other manager owns (kubectl --server-side co-owns a key)',
    { skip: !hasKubectl && 'no kubectl' },
    async () => {
      repo.commit({ 'co/cm.yaml': configMap('settings', { kept: 'value', shared: 'same', mine: 'soon' }) });
      await createNamespaces(conn, ['co']);
      const app = application('co', repo.url, 'co', { namespace: 'co', spec: SSA_APP });
      await applyObjects(conn, await renderObjects(app, cacheRoot), 'co');
      const file = join(fx.dir, 'co-cm.yaml');
      writeFileSync(file, configMap('settings', { shared: 'same' }));
      const applied = await kubectl(fx, ['apply', '--server-side', '-n', 'co', '-f', file]);
      assert.equal(applied.code, 0, applied.stderr);
      repo.commit({ 'co/cm.yaml': configMap('settings', { kept: 'value' }) });

      const cm = (await refresh(fx, [app], cacheRoot)).apps[0]!.comparison!.resources[0]!;
      assert.equal(cm.status, 'OutOfSync');
      assert.match(cm.diffText!, /^- {2}mine: soon$/m);
      assert.match(cm.diffText!, /^ {3}shared: same$/m, 'kubectl still owns it: kept on both sides');

      // The server's own server-side apply (a dry run of the Git manifest as argocd-controller) agrees.
      const target = (await renderObjects(app, cacheRoot))[0]!;
      const dryRun = await api(
        fx.cluster,
        'PATCH',
        '/api/v1/namespaces/co/configmaps/settings?dryRun=All&fieldManager=argocd-controller&force=true',
        { ...target, metadata: { ...target.metadata, namespace: 'co' } },
        'application/apply-patch+yaml',
      );
      assert.equal(dryRun.status, 200, JSON.stringify(dryRun.body));
      assert.deepEqual(dryRun.body.data, { kept: 'value', shared: 'same' });
    },
  );
});
