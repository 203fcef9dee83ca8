/**
 * Helm hooks as Argo CD maps them, end to end: the fixture chart `hooks` (test/fixtures/helm/charts/hooks)
 * rendered by the real helm 4.2.4 and synced on the embedded API server (a stand-in Job controller completing
 * the Jobs) or, with KG_TEST_SERVER, on the real kube-apiserver (its Job controller and the rig's kubelet
 * stand-in running them; test/real-server-ci.txt lists this file). Argo CD (gitops-engine pkg/sync/hook/helm): `pre-install` -> PreSync, `post-install` -> PostSync,
 * `helm.sh/hook-weight` -> the sync wave, `hook-delete-policy` `hook-succeeded` -> HookSucceeded (the Job is
 * deleted once it completed), `before-hook-creation` -> BeforeHookCreation (kept until the next sync);
 * `test` hooks are not run.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import type { ClusterConnection, KubeObject, ResourceInfo } from '../../src/cluster/index.js';
import { realServer, useEmbeddedCluster } from '../support/embedded.js';
import { TestRepo, tempDir } from '../support/git.js';
import { chartFiles, fixtureChart } from '../support/helm-repo.js';
import { realTool } from '../support/tools.js';
import { JOB, jobController } from './job-controller.js';
import { application, connectAs, newCacheRoot, reportOf, sync, syncRequest } from '../controller/setup.js';

const helm = realTool('helm');

const CM: ResourceInfo = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  verbs: [],
};
const POD: ResourceInfo = {
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  namespaced: true,
  verbs: [],
};

describe(`Helm hooks synced as Argo CD maps them (real helm ${helm.version})`, { skip: helm.skip }, () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;
  const stop = new AbortController();

  before(async () => {
    helm.require();
    conn = await connectAs(fx);
    const copy = tempDir('hooks-chart-');
    cpSync(fixtureChart('hooks'), copy, { recursive: true });
    repo.commit(chartFiles(copy, 'hooks'));
  });
  after(() => {
    stop.abort();
    conn?.close();
    repo.remove();
  });

  it('pre-install runs in PreSync by weight, post-install in PostSync; hook-succeeded Jobs are deleted; test hooks never run', async () => {
    const jobs = await jobController(conn, 'shop', () => false, stop.signal);
    const app = application('shop', repo.url, 'hooks', { namespace: 'shop' });
    const report = await sync(fx, [app], cacheRoot, syncRequest());
    const r = reportOf(report, 'shop');
    assert.equal(r.error, undefined);
    assert.equal(
      r.operation?.phase,
      'Succeeded',
      JSON.stringify(r.operation?.resources.map((x) => x.message)),
    );
    assert.deepEqual(
      r
        .operation!.resources.filter((x) => x.kind !== 'Namespace')
        .map((x) => `${x.syncPhase}/${x.syncWave}/${x.kind}/${x.name}:${x.hookType ?? ''}`),
      [
        'PreSync/-10/ConfigMap/shop-schema:PreSync',
        'PreSync/-5/Job/shop-migrate:PreSync',
        'Sync/0/ConfigMap/shop-config:',
        'PostSync/0/Job/shop-notify:PostSync',
      ],
    );
    assert.deepEqual(jobs, ['shop-migrate', 'shop-notify']);
    const get = (info: ResourceInfo, name: string): Promise<KubeObject | undefined> =>
      conn.client.get(info, 'shop', name).catch(() => undefined);
    // hook-succeeded: deleted after it completed; before-hook-creation: kept until the next sync.
    assert.equal(await get(JOB, 'shop-migrate'), undefined);
    assert.ok(await get(JOB, 'shop-notify'));
    assert.ok(await get(CM, 'shop-schema'));
    assert.ok(await get(CM, 'shop-config'));
    assert.equal(await get(POD, 'shop-test'), undefined, 'a helm test hook is never run');
    // The completed hooks lost the hook finalizer: by an update (PUT) of the whole object, as
    // gitops-engine removeHookFinalizer (the conformance corpus compares the audit log's verbs).
    assert.deepEqual((await get(JOB, 'shop-notify'))?.metadata?.['finalizers'] ?? [], []);
    if (!realServer) {
      // Two Jobs: one update each (the finalizer); the only patches are the stand-in Job controller's
      // status writes (the embedded server counts a subresource under its resource).
      const count = fx.cluster.stats.snapshot().byVerbResource;
      assert.deepEqual(
        [count['update jobs.batch'], count['patch jobs.batch']],
        [2, jobs.length],
        JSON.stringify(count),
      );
    }
    assert.equal(r.comparison?.sync, 'Synced');
  });
});
