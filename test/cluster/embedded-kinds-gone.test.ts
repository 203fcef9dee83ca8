/**
 * Kinds that go away while the live cache holds them, on the embedded API server: a CRD deleted during the
 * run (its watch ends, the reopened watch answers 404: the kind is dropped, discovery refreshed on disk,
 * other kinds go on), and a stale on-disk discovery cache naming a deleted CRD's kind (the initial list
 * answers 404: the kind is dropped, `start` succeeds).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect } from '../../src/cluster/index.js';
import type { ClusterConnection, KindChange, KubeObject, ResourceInfo } from '../../src/cluster/index.js';
import { cm, connectTo, crd } from './embedded-setup.js';
import { crdsEstablished, useEmbeddedCluster, waitForObject, needsEmbedded } from '../support/embedded.js';

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

describe('live cache: kinds that stop being served', () => {
  const fx = useEmbeddedCluster();
  let conn: ClusterConnection;
  let configMaps: ResourceInfo;
  let crds: ResourceInfo;

  before(async () => {
    ({ conn, configMaps } = await connectTo(fx));
    crds = await conn.discovery.resolve({ group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' });
  });

  after(() => conn?.close());

  const sprocket = (name: string): KubeObject => ({
    apiVersion: 'example.com/v1',
    kind: 'Sprocket',
    metadata: { name, namespace: 'alpha' },
  });

  const dropped = (cache: { onKindChange(h: (c: KindChange) => void): () => void }, kind: string) =>
    new Promise<KindChange>((resolve) => {
      const off = cache.onKindChange((c) => {
        if (c.type === 'dropped' && c.kind === kind) {
          off();
          resolve(c);
        }
      });
    });

  it('a CRD deleted while its kind is watched: the watch ends, the kind is dropped, discovery forgets it, other kinds go on', async () => {
    await conn.client.create(crds, crd('sprockets', 'Sprocket'));
    await crdsEstablished(fx);
    const sprockets = await conn.discovery.resolve({ group: 'example.com', kind: 'Sprocket' });
    await conn.client.create(sprockets, sprocket('s1'));
    const warnings: string[] = [];
    const cache = conn.liveCache({
      resources: [configMaps, sprockets],
      namespaces: ['alpha'],
      discovery: conn.discovery,
      onWarning: (m) => warnings.push(m),
    });
    await cache.start();
    assert.equal(cache.list('example.com', 'Sprocket').length, 1);
    const gone = dropped(cache, 'Sprocket');

    await conn.client.delete(crds, '', 'sprockets.example.com');
    const change = await gone;
    assert.match(change.reason ?? '', /404/);
    assert.equal(cache.watches({ group: 'example.com', kind: 'Sprocket' }), false);
    assert.deepEqual(cache.list('example.com', 'Sprocket'), []);
    assert.ok(warnings.some((w) => /^example\.com\/Sprocket: dropped from the live cache: .*404/.test(w)));

    // Discovery was refreshed, in memory and on disk.
    await cache.kindsSettled();
    assert.ok(!(await conn.discovery.resources()).some((r) => r.kind === 'Sprocket'));
    assert.ok(!(await readFile(conn.discovery.cacheFile, 'utf8')).includes('Sprocket'));

    // Other kinds keep being watched.
    const seen = cache.waitFor(
      { group: '', kind: 'ConfigMap', namespace: 'alpha', name: 'after-drop' },
      (o) => o !== undefined,
    );
    await conn.client.create(configMaps, cm('alpha', 'after-drop'));
    assert.ok(await seen);

    // A CRD of the same kind created again is watched again once added.
    await conn.client.create(crds, crd('sprockets', 'Sprocket'));
    const again = await conn.discovery.resolve({ group: 'example.com', kind: 'Sprocket' });
    await cache.addResources([again]);
    assert.ok(cache.watches({ group: 'example.com', kind: 'Sprocket' }));
    const back = cache.waitFor(
      { group: 'example.com', kind: 'Sprocket', namespace: 'alpha', name: 's2' },
      (o) => o !== undefined,
    );
    await conn.client.create(again, sprocket('s2'));
    assert.ok(await back);

    cache.stop();
    await cache.stopped();
    await conn.client.delete(crds, '', 'sprockets.example.com');
    await waitForObject(fx.cluster, `${CRD_PATH}/sprockets.example.com`, (o) => o === undefined);
  });

  it('a stale on-disk discovery cache naming a deleted kind: start drops it and succeeds, and the disk cache is rewritten', async () => {
    const cacheDir = join(fx.dir, 'stale-discovery');
    const first = await connect({
      kubeconfig: fx.kubeconfig,
      discovery: { cacheDir },
      client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
    });
    try {
      await first.client.create(crds, crd('gears', 'Gear'));
      await first.discovery.resolve({ group: 'example.com', kind: 'Gear' }); // written to disk
      await first.client.delete(crds, '', 'gears.example.com');
      await waitForObject(fx.cluster, `${CRD_PATH}/gears.example.com`, (o) => o === undefined);
    } finally {
      first.close();
    }
    assert.ok((await readFile(first.discovery.cacheFile, 'utf8')).includes('Gear'));

    const second = await connect({
      kubeconfig: fx.kubeconfig,
      discovery: { cacheDir },
      client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
    });
    try {
      const stale = (await second.discovery.resources()).filter(
        (r) => r.preferred && (r.kind === 'Gear' || r.kind === 'ConfigMap'),
      );
      assert.deepEqual(stale.map((r) => r.kind).sort(), ['ConfigMap', 'Gear'], 'the disk cache is stale');
      const cache = second.liveCache({
        resources: stale,
        namespaces: ['alpha'],
        discovery: second.discovery,
      });
      const gone = dropped(cache, 'Gear');
      await cache.start();
      assert.match((await gone).reason ?? '', /404/);
      assert.equal(cache.watches({ group: 'example.com', kind: 'Gear' }), false);
      assert.ok(cache.watches({ group: '', kind: 'ConfigMap' }));
      assert.ok(cache.list('', 'ConfigMap', 'alpha').length > 0);
      // start waited for the refresh: memory and disk no longer name the kind.
      assert.ok(!(await second.discovery.resources()).some((r) => r.kind === 'Gear'));
      assert.ok(!(await readFile(second.discovery.cacheFile, 'utf8')).includes('Gear'));
      cache.stop();
      await cache.stopped();
    } finally {
      second.close();
    }
  });

  it('a 404 on a kind discovery still serves: listed and watched again, dropped only after 3 more', async (t) => {
    if (needsEmbedded(t, 'fault injection (cluster.faults)')) return;
    const warnings: string[] = [];
    const waiters: Array<{ re: RegExp; resolve: () => void }> = [];
    const warned = (re: RegExp) => new Promise<void>((resolve) => waiters.push({ re, resolve }));
    const cache = conn.liveCache({
      resources: [configMaps],
      namespaces: ['beta'],
      discovery: conn.discovery,
      onWarning: (m) => {
        warnings.push(m);
        for (const w of waiters) if (w.re.test(m)) w.resolve();
      },
      backoff: { initialMs: 10, maxMs: 50 },
    });
    const changes: string[] = [];
    cache.onKindChange((c) => changes.push(`${c.type} ${c.kind}`));
    await cache.start();
    // One stray 404 (a proxy, a storage rebuild) on the reconnecting watch.
    const stray = fx.cluster.faults.failRequests({
      verb: 'watch',
      resource: 'configmaps',
      status: 404,
      times: 1,
    });
    fx.cluster.faults.dropWatches();
    await warned(/yet discovery still serves v1; listing and watching again$/);
    stray();
    const key = { group: '', kind: 'ConfigMap', namespace: 'beta', name: 'after-stray' };
    const seen = cache.waitFor(key, (o) => o !== undefined);
    await conn.client.create(configMaps, cm('beta', 'after-stray'));
    assert.ok(await seen, 'still watched after the stray 404');
    assert.deepEqual(changes, []);

    // 404s that keep coming although discovery serves the kind: dropped after the limit.
    const gone = dropped(cache, 'ConfigMap');
    const stuck = fx.cluster.faults.failRequests({ resource: 'configmaps', status: 404 });
    fx.cluster.faults.dropWatches();
    try {
      const change = await gone;
      assert.match(change.reason ?? '', /404 page not found \(4 times, though discovery serves v1\)$/);
      assert.equal(
        warnings.filter((w) => w.endsWith('yet discovery still serves v1; listing and watching again'))
          .length,
        3,
      );
    } finally {
      stuck();
      cache.stop();
      await cache.stopped();
    }
  });

  it('a stray 404 on the first list: start waits for the list again, the objects are there', async (t) => {
    if (needsEmbedded(t, 'fault injection (cluster.faults)')) return;
    await conn.client.create(configMaps, cm('gamma', 'present'));
    const warnings: string[] = [];
    const cache = conn.liveCache({
      resources: [configMaps],
      namespaces: ['gamma'],
      discovery: conn.discovery,
      onWarning: (m) => warnings.push(m),
      backoff: { initialMs: 10, maxMs: 50 },
    });
    const stray = fx.cluster.faults.failRequests({
      verb: 'list',
      resource: 'configmaps',
      status: 404,
      times: 1,
    });
    try {
      await cache.start();
    } finally {
      stray();
    }
    assert.ok(
      warnings.some((w) => /^\/ConfigMap@gamma: .*404.*yet discovery still serves v1/.test(w)),
      warnings.join('\n'),
    );
    assert.ok(cache.covers({ group: '', kind: 'ConfigMap', namespace: 'gamma', name: 'present' }));
    assert.ok(cache.get({ group: '', kind: 'ConfigMap', namespace: 'gamma', name: 'present' }));
    cache.stop();
    await cache.stopped();
  });
});
