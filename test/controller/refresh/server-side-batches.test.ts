/**
 * Server-side diff's batches (src/controller/refresh/server-side.ts, as Argo CD 3's `--server-side-diff-concurrency`
 * and `--server-side-diff-max-batch-kb`): how an app's dry runs are cut and bounded, counted on the embedded
 * server (dry-run PATCHes and the most in flight at once, with latency on every PATCH so that requests that
 * may overlap do), and the reuse of dry-run answers between refreshes of one process.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterConnection, KubeObject, ResourceInfo } from '../../../src/cluster/index.js';
import { ClusterState, OWN_FIELD_MANAGERS, StateManager } from '../../../src/controller/index.js';
import type { StateManagerOptions } from '../../../src/controller/index.js';
import { batchJobs } from '../../../src/controller/refresh/server-side.js';
import { createSourceService } from '../../../src/source/index.js';
import { api, useEmbeddedCluster, needsEmbedded } from '../../support/embedded.js';
import { TestRepo } from '../../support/git.js';
import { configMap } from '../manifests.js';
import {
  application,
  applyObjects,
  connectAs,
  createNamespaces,
  newCacheRoot,
  renderObjects,
} from '../setup.js';

const CONFIGMAPS = 6;
/**
 * About 3 KB of data per ConfigMap, so live + target JSON is 6-7 KB: with a 4 KB budget each one is a batch
 * of its own, with 16 KB two make a batch.
 */
const DATA = { blob: 'x'.repeat(3000) };

describe('server-side diff: batches and concurrency (Argo CD 3)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;
  const app = () => application('batches', repo.url, 'batches', { namespace: 'batches' });

  before(async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < CONFIGMAPS; i++) files[`batches/cm-${i}.yaml`] = configMap(`cm-${i}`, DATA);
    repo.commit(files);
    conn = await connectAs(fx);
    await createNamespaces(conn, ['batches']);
    await applyObjects(conn, await renderObjects(app(), cacheRoot), 'batches');
  });

  after(() => {
    conn?.close();
    repo.remove();
  });

  /** One refresh with server-side diff: dry-run PATCHes sent and the most in flight at once. */
  async function measure(
    options: Partial<StateManagerOptions>,
    refreshes = 1,
  ): Promise<{ patches: number; peak: number; statuses: string[] }> {
    const state = new ClusterState({
      conn: await connectAs(fx),
      namespaces: ['batches'],
      tracking: {},
      managers: new Set(OWN_FIELD_MANAGERS),
    });
    const source = createSourceService({ cacheRoot });
    const manager = new StateManager({
      source,
      clusterOf: () => Promise.resolve(state),
      serverSideDiff: true,
      ...options,
    });
    try {
      await state.ready();
      fx.cluster.stats.reset();
      fx.cluster.faults.setLatency(40, 'patch');
      let statuses: string[] = [];
      for (let r = 0; r < refreshes; r++)
        statuses = (await manager.compare(app())).resources.map((res) => res.status);
      return {
        patches: fx.cluster.stats.count('patch'),
        peak: fx.cluster.stats.peakInFlight('patch'),
        statuses,
      };
    } finally {
      fx.cluster.faults.setLatency(0, 'patch');
      await state.close();
      await source.close();
    }
  }

  it("defaults to Argo CD's: an app under 250 KB is one batch, its dry runs one at a time", async (t) => {
    if (needsEmbedded(t, 'fault injection (cluster.faults)')) return;
    const m = await measure({});
    assert.equal(m.patches, CONFIGMAPS, 'one dry run per live resource');
    assert.equal(m.peak, 1);
    assert.deepEqual(m.statuses, Array<string>(CONFIGMAPS).fill('Synced'));
  });

  it('a small budget makes a batch per resource, all at once with concurrency -1', async (t) => {
    if (needsEmbedded(t, 'fault injection (cluster.faults)')) return;
    const m = await measure({ serverSideMaxBatchKB: 4, serverSideConcurrency: -1 });
    assert.equal(m.patches, CONFIGMAPS);
    assert.equal(m.peak, CONFIGMAPS);
    assert.deepEqual(m.statuses, Array<string>(CONFIGMAPS).fill('Synced'));
  });

  it('concurrency bounds the batches in flight', async (t) => {
    if (needsEmbedded(t, 'fault injection (cluster.faults)')) return;
    const m = await measure({ serverSideMaxBatchKB: 4, serverSideConcurrency: 2 });
    assert.equal(m.patches, CONFIGMAPS);
    assert.equal(m.peak, 2);
  });

  it('a budget of two resources: three batches of two, each one after another', async (t) => {
    if (needsEmbedded(t, 'fault injection (cluster.faults)')) return;
    const m = await measure({ serverSideMaxBatchKB: 16, serverSideConcurrency: -1 });
    assert.equal(m.patches, CONFIGMAPS);
    assert.equal(m.peak, CONFIGMAPS / 2);
  });

  it('reuses dry-run answers of unchanged objects between refreshes of one process (no PATCH)', async (t) => {
    if (needsEmbedded(t, 'fault injection (cluster.faults)')) return;
    const m = await measure({ reuseComparisons: true, serverSideMaxBatchKB: 4 }, 3);
    assert.equal(m.patches, CONFIGMAPS, 'the first refresh only');
    assert.deepEqual(m.statuses, Array<string>(CONFIGMAPS).fill('Synced'));
    // Without reuse (a one-shot diff), every refresh dry-runs again.
    assert.equal((await measure({ serverSideMaxBatchKB: 4 }, 2)).patches, 2 * CONFIGMAPS);
  });

  it('a live object changed since its dry run is dry-run again, and its drift is seen', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    const state = new ClusterState({
      conn: await connectAs(fx),
      namespaces: ['batches'],
      tracking: {},
      managers: new Set(OWN_FIELD_MANAGERS),
    });
    const source = createSourceService({ cacheRoot });
    const manager = new StateManager({
      source,
      clusterOf: () => Promise.resolve(state),
      serverSideDiff: true,
      reuseComparisons: true,
    });
    try {
      const cache = await state.ready();
      await manager.compare(app());
      const key = { group: '', kind: 'ConfigMap', namespace: 'batches', name: 'cm-3' };
      const before = cache.get(key)!.metadata!.resourceVersion;
      const seen = cache.waitFor(key, (o) => o?.metadata?.resourceVersion !== before);
      // Another manager changes a field Git sets: drift the predicted object must show.
      await api(
        fx.cluster,
        'PATCH',
        '/api/v1/namespaces/batches/configmaps/cm-3?fieldManager=kubectl-edit',
        { data: { blob: 'drifted' } },
        'application/merge-patch+json',
      );
      await seen;
      fx.cluster.stats.reset();
      const again = await manager.compare(app());
      assert.equal(fx.cluster.stats.count('patch'), 1, 'only the changed object is dry-run');
      assert.deepEqual(
        again.resources.map((r) => [r.name, r.status]),
        Array.from({ length: CONFIGMAPS }, (_, i) => [`cm-${i}`, i === 3 ? 'OutOfSync' : 'Synced']),
      );
      // Restore it for the other tests (an apply by our manager, as the before hook did).
      await applyObjects(
        conn,
        (await renderObjects(app(), cacheRoot)).filter((o) => o.metadata?.name === 'cm-3'),
        'batches',
      );
    } finally {
      await state.close();
      await source.close();
    }
  });
});

describe('batchJobs: the cut of an app into batches', () => {
  const info = { group: '', version: 'v1', kind: 'ConfigMap', namespaced: true } as unknown as ResourceInfo;
  /** A job whose live + target JSON is about `kb` KB. */
  const job = (kb: number, live = true) => {
    const bytes = (live ? kb * 512 : kb * 1024) - 60;
    const target: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', data: { x: 'y'.repeat(bytes) } };
    return { info, target, ...(live ? { live: target } : {}) };
  };

  it('fills batches in order up to the budget; a resource over it is a batch alone; never an empty batch', () => {
    assert.deepEqual(batchJobs([], 250), []);
    assert.deepEqual(batchJobs([job(1), job(1), job(1)], 250), [[0, 3]]);
    assert.deepEqual(batchJobs([job(100), job(100), job(100)], 250), [
      [0, 2],
      [2, 3],
    ]);
    assert.deepEqual(batchJobs([job(300), job(1), job(300)], 250), [
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    // Only the target counts when there is no live object (Argo CD sends an empty live state).
    assert.deepEqual(batchJobs([job(100, false), job(100, false), job(100, false)], 250), [
      [0, 2],
      [2, 3],
    ]);
  });
});
