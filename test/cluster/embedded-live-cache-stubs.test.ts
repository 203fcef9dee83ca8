/**
 * The live cache's `manifests: 'tracked'` (Argo CD's cluster cache, issue 23's memory target) on the
 * embedded API server: objects no app tracks are stubs of their metadata; tracked objects and CRDs are
 * whole; a target naming a stubbed object is read with one GET, handed back to the cache, and that key is
 * stored whole from then on; an object that becomes tracked is stored whole on its watch event.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStub } from '../../src/cluster/index.js';
import type { ClusterConnection, KubeObject, ResourceInfo } from '../../src/cluster/index.js';
import { cm, connectTo, crd, tracked } from './embedded-setup.js';
import { useEmbeddedCluster, needsEmbedded } from '../support/embedded.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const key = (name: string) => ({ group: '', kind: 'ConfigMap', namespace: 'alpha', name });

describe("live cache: manifests 'tracked' (stubs of untracked objects)", () => {
  const fx = useEmbeddedCluster();
  let conn: ClusterConnection;
  let configMaps: ResourceInfo;
  let namespaces: ResourceInfo;
  let crds: ResourceInfo;

  before(async () => {
    ({ conn, configMaps, namespaces } = await connectTo(fx));
    crds = await conn.discovery.resolve({ group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' });
    await conn.client.create(crds, crd('widgets', 'Widget'));
    const applied = (o: KubeObject): KubeObject => ({
      ...o,
      metadata: {
        ...o.metadata,
        labels: { team: 'a' },
        annotations: { ...o.metadata?.annotations, [LAST_APPLIED]: JSON.stringify(o), note: 'kept' },
      },
    });
    await conn.client.create(configMaps, applied(tracked('shop', 'alpha', 'mine')));
    await conn.client.create(configMaps, applied(cm('alpha', 'theirs')));
    await conn.client.create(configMaps, applied(cm('alpha', 'adopted')));
  });

  after(() => conn?.close());

  it('stores tracked objects and CRDs whole, every other object as its metadata only', async () => {
    const cache = conn.liveCache({
      resources: [configMaps, namespaces, crds],
      namespaces: ['alpha'],
      manifests: 'tracked',
    });
    await cache.start();
    try {
      const mine = cache.get(key('mine'))!;
      assert.equal(isStub(mine), false);
      assert.deepEqual(mine.data, { k: 'mine' });
      assert.ok(mine.metadata?.annotations?.[LAST_APPLIED], 'the three-way diff reads it');

      const theirs = cache.get(key('theirs'))!;
      assert.equal(isStub(theirs), true);
      assert.deepEqual(Object.keys(theirs).sort(), ['apiVersion', 'kind', 'metadata']);
      assert.equal(theirs.metadata?.annotations?.[LAST_APPLIED], undefined);
      assert.equal(theirs.metadata?.annotations?.['note'], 'kept');
      assert.deepEqual(theirs.metadata?.labels, { team: 'a' });
      assert.equal(theirs.metadata?.managedFields, undefined);
      assert.ok(theirs.metadata?.uid && theirs.metadata.resourceVersion);

      const ns = cache.get({ group: '', kind: 'Namespace', namespace: '', name: 'alpha' })!;
      assert.equal(isStub(ns), true, 'a namespace no app tracks');
      const widgets = cache.get({
        group: 'apiextensions.k8s.io',
        kind: 'CustomResourceDefinition',
        namespace: '',
        name: 'widgets.example.com',
      })!;
      assert.equal(isStub(widgets), false, 'CRDs stay whole: their schemas are read');
      assert.ok((widgets as { spec?: unknown }).spec);
    } finally {
      cache.stop();
      await cache.stopped();
    }
  });

  it('a target naming a stub is read once, then the cache holds it whole and keeps it whole', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    const cache = conn.liveCache({ resources: [configMaps], namespaces: ['alpha'], manifests: 'tracked' });
    await cache.start();
    const before = fx.cluster.stats.snapshot().byVerbResource;
    const gets = (): number =>
      (fx.cluster.stats.snapshot().byVerbResource['get configmaps'] ?? 0) - (before['get configmaps'] ?? 0);
    try {
      assert.equal(isStub(cache.get(key('adopted'))), true);
      const live = await cache.managedLive('shop', [key('mine'), key('adopted')]);
      const adopted = live.get('/ConfigMap/alpha/adopted')!;
      assert.deepEqual(adopted.data, { k: 'adopted' });
      assert.ok(adopted.metadata?.annotations?.[LAST_APPLIED]);
      assert.deepEqual(live.get('/ConfigMap/alpha/mine')?.data, { k: 'mine' });
      assert.equal(gets(), 1, 'one GET: the stubbed target; the tracked one comes from the cache');
      assert.equal(cache.get(key('adopted')), adopted, 'the answer took the stub’s place');

      await cache.managedLive('shop', [key('adopted')]);
      assert.equal(gets(), 1, 'no second GET');

      // The key stays whole through changes although no app tracks it yet.
      const changed = cache.waitFor(
        key('adopted'),
        (o) => (o?.data as Record<string, string> | undefined)?.['k'] === 'changed',
      );
      await conn.client.patch(configMaps, 'alpha', 'adopted', { data: { k: 'changed' } }, 'merge');
      assert.equal(isStub(await changed), false);

      // An object that becomes tracked is stored whole on its event.
      const claimed = cache.waitFor(key('theirs'), (o) => o !== undefined && !isStub(o));
      await conn.client.patch(
        configMaps,
        'alpha',
        'theirs',
        { metadata: { annotations: { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:alpha/theirs' } } },
        'merge',
      );
      assert.deepEqual((await claimed)?.data, { k: 'theirs' });
      assert.equal(cache.byApp('shop').length, 2);

      // A pinned key is let go with its object: created again, untracked, it is a stub again.
      const gone = cache.waitFor(key('adopted'), (o) => o === undefined);
      await conn.client.delete(configMaps, 'alpha', 'adopted');
      await gone;
      const back = cache.waitFor(key('adopted'), (o) => o !== undefined);
      await conn.client.create(configMaps, cm('alpha', 'adopted'));
      assert.equal(isStub(await back), true);
    } finally {
      cache.stop();
      await cache.stopped();
    }
  });

  it("the default ('all') stores every object whole", async () => {
    const cache = conn.liveCache({ resources: [configMaps], namespaces: ['alpha'] });
    await cache.start();
    try {
      assert.equal(isStub(cache.get(key('adopted'))), false);
      assert.deepEqual(cache.get(key('adopted'))?.data, { k: 'adopted' });
    } finally {
      cache.stop();
      await cache.stopped();
    }
  });
});
