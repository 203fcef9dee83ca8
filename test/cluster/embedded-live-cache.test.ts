/**
 * The live cache end to end on the embedded API server: list+watch, indexes, dropped watches, forced
 * 410s, a CRD-served kind added mid-run, request counts per scope mode, label selectors, managedLive.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/cluster/index.js';
import { until } from './fake-api.js';
import { cm, connectTo, crd, tracked } from './embedded-setup.js';
import { useEmbeddedCluster, needsEmbedded, crdsEstablished } from '../support/embedded.js';
import type { ClusterConnection, KubeObject, ResourceInfo } from '../../src/cluster/index.js';

describe('live state cache against the embedded API server', () => {
  const fx = useEmbeddedCluster();
  let conn: ClusterConnection;
  let configMaps: ResourceInfo;
  let namespaces: ResourceInfo;

  before(async () => {
    ({ conn, configMaps, namespaces } = await connectTo(fx));
  });

  after(() => conn?.close());

  it('the live cache lists and watches, indexes by key and app, and sees changes', async () => {
    await conn.client.create(configMaps, tracked('shop', 'alpha', 'a1'));
    await conn.client.create(configMaps, tracked('shop', 'beta', 'b1'));
    await conn.client.create(configMaps, tracked('other', 'gamma', 'g1'));
    const cache = conn.liveCache({ resources: [configMaps, namespaces], namespaces: ['alpha', 'beta'] });
    await cache.start();
    assert.deepEqual(
      cache
        .byApp('shop')
        .map((o) => o.metadata?.name)
        .sort(),
      ['a1', 'b1'],
    );
    assert.equal(cache.byApp('other').length, 0, 'gamma is out of scope');
    assert.ok(
      cache.get({ group: '', kind: 'Namespace', namespace: '', name: 'gamma' }),
      'cluster-scoped kinds everywhere',
    );
    assert.equal(
      cache.get({ group: '', kind: 'ConfigMap', namespace: 'alpha', name: 'a1' })?.metadata?.managedFields,
      undefined,
    );

    const seen = cache.waitFor(
      { group: '', kind: 'ConfigMap', namespace: 'beta', name: 'b2' },
      (o) => o !== undefined,
    );
    await conn.client.create(configMaps, tracked('shop', 'beta', 'b2'));
    await seen;
    assert.equal(cache.byApp('shop').length, 3);
    cache.stop();
    await cache.stopped();
  });

  it('a wait whose predicate throws fails with that error; a throwing subscriber is logged as a warning', async () => {
    const warnings: string[] = [];
    const cache = conn.liveCache({
      resources: [configMaps],
      namespaces: ['beta'],
      onWarning: (m) => warnings.push(m),
    });
    await cache.start();
    const key = { group: '', kind: 'ConfigMap', namespace: 'beta', name: 'judged' };
    const wait = cache.waitFor(key, (o) => {
      if (o && o.metadata?.labels?.['state'] === 'odd') throw new Error('cannot judge an odd object');
      return false;
    });
    const unsubscribe = cache.onEvent((e) => {
      if (e.key.name === 'judged') throw new Error('subscriber broke');
    });
    await conn.client.create(configMaps, {
      ...cm('beta', 'judged'),
      metadata: { ...cm('beta', 'judged').metadata, labels: { state: 'odd' } },
    });
    await assert.rejects(wait, /cannot judge an odd object/);
    assert.deepEqual(warnings, [
      'live cache subscriber failed on ADDED /ConfigMap/beta/judged: subscriber broke',
    ]);
    await assert.rejects(
      cache.waitFor(key, () => {
        throw new Error('fails at once');
      }),
      /fails at once/,
    );
    unsubscribe();
    cache.stop();
    await cache.stopped();
  });

  it('resumes watches after dropped connections without relisting, and relists after a forced 410', async (t) => {
    if (needsEmbedded(t, 'fault injection (cluster.faults)')) return;
    const cache = conn.liveCache({
      resources: [configMaps],
      namespaces: ['gamma'],
      backoff: { initialMs: 10, maxMs: 50 },
    });
    await cache.start();
    await until(() => fx.cluster.faults.dropWatches() > 0, 'watch open');
    await conn.client.create(configMaps, cm('gamma', 'after-drop'));
    await cache.waitFor(
      { group: '', kind: 'ConfigMap', namespace: 'gamma', name: 'after-drop' },
      (o) => o !== undefined,
    );
    assert.equal(cache.stats().relists, 0);
    assert.ok(cache.stats().reconnects >= 1);

    await conn.client.delete(configMaps, 'gamma', 'after-drop');
    await cache.waitFor(
      { group: '', kind: 'ConfigMap', namespace: 'gamma', name: 'after-drop' },
      (o) => o === undefined,
    );
    fx.cluster.faults.expireWatches();
    await conn.client.create(configMaps, cm('gamma', 'after-410'));
    await cache.waitFor(
      { group: '', kind: 'ConfigMap', namespace: 'gamma', name: 'after-410' },
      (o) => o !== undefined,
    );
    await until(() => cache.stats().relists >= 1, 'relisted');
    cache.stop();
    await cache.stopped();
  });

  it('adds a CRD-served kind mid-run and watches its objects', async () => {
    const cache = conn.liveCache({ resources: [configMaps], namespaces: ['alpha'] });
    await cache.start();
    const crds = await conn.discovery.resolve({
      group: 'apiextensions.k8s.io',
      kind: 'CustomResourceDefinition',
    });
    await conn.client.create(crds, crd('gadgets', 'Gadget'));
    await crdsEstablished(fx);
    const gadgets = await conn.discovery.resolve({ group: 'example.com', kind: 'Gadget' });
    const g = (name: string): KubeObject => ({
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name, namespace: 'alpha' },
    });
    await conn.client.create(gadgets, g('first'));
    await cache.addResources([gadgets]);
    assert.ok(cache.watches({ group: 'example.com', kind: 'Gadget' }));
    assert.equal(cache.list('example.com', 'Gadget').length, 1);
    await conn.client.create(gadgets, g('second'));
    await cache.waitFor(
      { group: 'example.com', kind: 'Gadget', namespace: 'alpha', name: 'second' },
      (o) => o !== undefined,
    );
    cache.stop();
    await cache.stopped();
  });

  it('uses one list and one watch per kind for 5+ namespaces, and one each per namespace for up to 4', async () => {
    conn.client.resetCounts();
    const wide = conn.liveCache({
      resources: [configMaps, namespaces],
      namespaces: ['alpha', 'beta', 'gamma', 'delta', 'epsilon'],
    });
    await wide.start();
    await until(() => (conn.client.counts().byVerb['watch'] ?? 0) === 2, 'watches open');
    assert.deepEqual(conn.client.counts().byVerb, { list: 2, watch: 2 });
    wide.stop();
    await wide.stopped();

    conn.client.resetCounts();
    // A handful of namespaces: 'auto' asks per namespace.
    const per = conn.liveCache({
      resources: [configMaps],
      namespaces: ['alpha', 'beta', 'gamma'],
    });
    await per.start();
    await until(() => (conn.client.counts().byVerb['watch'] ?? 0) === 3, 'watches open');
    assert.deepEqual(conn.client.counts().byVerb, { list: 3, watch: 3 });
    assert.deepEqual(
      per
        .list('', 'ConfigMap')
        .map((o) => o.metadata?.namespace)
        .sort(),
      wide
        .list('', 'ConfigMap')
        .map((o) => o.metadata?.namespace)
        .sort(),
    );
    per.stop();
    await per.stopped();
  });

  it('watch: false lists each scope and opens no watch: the state as listed (a one-shot diff)', async () => {
    conn.client.resetCounts();
    const once = conn.liveCache({ resources: [configMaps, namespaces], namespaces: ['alpha'], watch: false });
    await once.start();
    const listed = once.list('', 'ConfigMap').length;
    assert.ok(listed > 0);
    await conn.client.create(configMaps, tracked('shop', 'alpha', 'after-list'));
    // A watching cache sees the new object; this one never asked for a watch.
    const watching = conn.liveCache({ resources: [configMaps], namespaces: ['alpha'] });
    await watching.start();
    await conn.client.create(configMaps, tracked('shop', 'alpha', 'after-list-2'));
    await watching.waitFor(
      { group: '', kind: 'ConfigMap', namespace: 'alpha', name: 'after-list-2' },
      (o) => o !== undefined,
    );
    assert.equal(once.list('', 'ConfigMap').length, listed);
    assert.equal(once.stats().watchesOpened, 0);
    assert.equal(conn.client.counts().byVerb['watch'], 1, 'only the watching cache watched');
    once.stop();
    await once.stopped();
    watching.stop();
    await watching.stopped();
  });

  it('sends the label selector with lists and watches: objects leave the cache when they stop matching', async () => {
    const labelled = (name: string, tier: string): KubeObject =>
      cm('beta', name, { metadata: { name, namespace: 'beta', labels: { tier } } });
    await conn.client.create(configMaps, labelled('web-1', 'web'));
    await conn.client.create(configMaps, labelled('db-1', 'db'));
    const cache = conn.liveCache({
      resources: [configMaps],
      namespaces: ['beta'],
      labelSelector: 'tier in (web)',
    });
    await cache.start();
    assert.deepEqual(
      cache.list('', 'ConfigMap').map((o) => o.metadata?.name),
      ['web-1'],
    );
    const key = { group: '', kind: 'ConfigMap', namespace: 'beta', name: 'web-1' };
    const left = cache.waitFor(key, (o) => o === undefined);
    await conn.client.patch(configMaps, 'beta', 'web-1', { metadata: { labels: { tier: 'db' } } }, 'merge');
    await left;
    cache.stop();
    await cache.stopped();
  });

  it('managedLive: tracked objects without owners, plus target keys (fetched directly when not cached)', async () => {
    const owned = tracked('books', 'alpha', 'owned');
    owned.metadata!.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'u-1' }];
    await conn.client.create(configMaps, tracked('books', 'alpha', 'mine'));
    await conn.client.create(configMaps, owned);
    await conn.client.create(configMaps, cm('alpha', 'untracked-target'));
    await conn.client.create(configMaps, cm('gamma', 'outside-scope'));
    const secrets = await conn.discovery.resolve({ group: '', kind: 'Secret' });
    await conn.client.create(secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'alpha' },
    });

    const cache = conn.liveCache({ resources: [configMaps], namespaces: ['alpha'] });
    await cache.start();
    const key = (kind: string, namespace: string, name: string, group = '') => ({
      group,
      kind,
      namespace,
      name,
    });
    conn.client.resetCounts();
    const live = await cache.managedLive('books', [
      key('ConfigMap', 'alpha', 'untracked-target'),
      key('ConfigMap', 'alpha', 'not-there'),
      key('ConfigMap', 'gamma', 'outside-scope'),
      key('Secret', 'alpha', 's'),
      key('Widget', 'alpha', 'w', 'missing.example.com'),
    ]);
    assert.deepEqual([...live.keys()].sort(), [
      '/ConfigMap/alpha/mine',
      '/ConfigMap/alpha/untracked-target',
      '/ConfigMap/gamma/outside-scope',
      '/Secret/alpha/s',
    ]);
    assert.equal(
      live.get('/Secret/alpha/s')?.metadata?.managedFields,
      undefined,
      'direct gets are transformed too',
    );
    const counts = conn.client.counts().byVerb;
    assert.equal(counts['get'], 2, 'one GET per target the cache does not cover (gamma, the Secret)');
    assert.equal(counts['list'], undefined, 'no lists: covered targets come from the cache');
    cache.stop();
    await cache.stopped();
  });

  it('managedLive reads a target at its own version when the cache holds the kind at another, in parallel', async (t) => {
    if (needsEmbedded(t, 'fault injection and request counts (cluster.faults, .stats)')) return;
    await conn.client.create(configMaps, tracked('versions', 'alpha', 'v-cached'));
    await conn.client.create(configMaps, cm('alpha', 'v-direct-1'));
    await conn.client.create(configMaps, cm('alpha', 'v-direct-2'));
    const cache = conn.liveCache({ resources: [configMaps], namespaces: ['alpha'] });
    await cache.start();
    // Latency keeps each GET open long enough that reads which overlap are seen overlapping by the server.
    fx.cluster.faults.setLatency(500, 'get');
    conn.client.resetCounts();
    fx.cluster.stats.reset();
    const key = (name: string) => ({ group: '', kind: 'ConfigMap', namespace: 'alpha', name });
    const live = await cache.managedLive('versions', [
      { key: key('v-cached'), info: configMaps },
      { key: key('v-direct-1'), info: configMaps },
      { key: key('v-direct-2'), info: configMaps },
      { key: key('v-gone'), info: configMaps },
    ]);
    fx.cluster.faults.setLatency(0, 'get');
    assert.deepEqual([...live.keys()].sort(), [
      '/ConfigMap/alpha/v-cached',
      '/ConfigMap/alpha/v-direct-1',
      '/ConfigMap/alpha/v-direct-2',
    ]);
    assert.equal(conn.client.counts().byVerb['get'], 4, 'one GET per target read at its own version');
    assert.equal(fx.cluster.stats.peakInFlight('get'), 4, 'the four reads were in flight together');
    cache.stop();
    await cache.stopped();
  });

  it('start rejects with the list error when a kind cannot be listed', async (t) => {
    if (needsEmbedded(t, 'fault injection (cluster.faults)')) return;
    const stop = fx.cluster.faults.failRequests({ verb: 'list', resource: 'configmaps', status: 500 });
    const cache = conn.liveCache({ resources: [configMaps], namespaces: ['alpha'] });
    await assert.rejects(cache.start(), (err: unknown) => err instanceof ApiError && err.code === 500);
    stop();
    await cache.stopped();
  });
});
