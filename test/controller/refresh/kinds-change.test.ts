/**
 * Kinds that come and go between and during runs (CRDs created and deleted), on the embedded API server
 * with real Git repositories: a deleted CRD's kind is an UnknownKind condition of the apps that use it and
 * leaves the others untouched (never a failed refresh), the on-disk discovery cache forgets it, and a CRD
 * created meanwhile is compared and watched (its extras found).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClusterConnection, KindChange, KubeObject, ResourceInfo } from '../../../src/cluster/index.js';
import { ClusterState, OWN_FIELD_MANAGERS, StateManager } from '../../../src/controller/index.js';
import type { AppReport, ComparisonResult } from '../../../src/controller/index.js';
import { createSourceService } from '../../../src/source/index.js';
import { preserveUnknownFieldsCrd } from '../../support/crds.js';
import { useEmbeddedCluster, waitForObject, crdsEstablished } from '../../support/embedded.js';
import { TestRepo } from '../../support/git.js';
import { configMap } from '../manifests.js';
import {
  application,
  applyObjects,
  connectAs,
  createNamespaces,
  newCacheRoot,
  refresh,
  renderObjects,
  reportOf,
} from '../setup.js';

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

const custom = (kind: string, name: string): string =>
  `apiVersion: example.com/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\nspec:\n  size: 3\n`;

/** A live custom resource whose tracking id names `app` (not in Git: an extra of that app). */
const trackedExtra = (app: string, kind: string, namespace: string, name: string): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind,
  metadata: {
    name,
    namespace,
    annotations: { 'argocd.argoproj.io/tracking-id': `${app}:example.com/${kind}:${namespace}/${name}` },
  },
});

async function crdInfo(conn: ClusterConnection): Promise<ResourceInfo> {
  return conn.discovery.resolve({ group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' });
}

const conditionsOf = (r: AppReport): ComparisonResult['conditions'] => {
  assert.equal(r.error, undefined, `app ${r.app.name} failed: ${r.error?.message}`);
  return r.comparison!.conditions;
};

describe('controller: CRDs created and deleted between runs', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;
  const apps = () => [
    application('plain', repo.url, 'plain', { namespace: 'plain' }),
    application('gadgets', repo.url, 'gadgets', { namespace: 'gadgets' }),
  ];
  const discovery = () => ({ cacheDir: join(fx.dir, 'run-discovery'), ttlMs: 3_600_000 });
  const diskCache = async (): Promise<string> => {
    const [file] = await readdir(discovery().cacheDir);
    return readFile(join(discovery().cacheDir, file!), 'utf8');
  };

  before(async () => {
    repo.commit({
      'plain/cm.yaml': configMap('settings', { a: '1' }),
      'gadgets/all.yaml': `${custom('Sprocket', 'thing')}---\n${configMap('settings', { a: '1' })}`,
    });
    conn = await connectAs(fx);
    await createNamespaces(conn, ['plain', 'gadgets']);
  });

  after(() => conn?.close());

  it('a kind deleted since the discovery cache was written is UnknownKind for its app only; a CRD created since is compared and watched', async () => {
    const crds = await crdInfo(conn);
    await conn.client.create(crds, preserveUnknownFieldsCrd('example.com', 'Sprocket'));
    await crdsEstablished(fx);
    const first = await refresh(fx, apps(), cacheRoot, { discovery: discovery() });
    assert.deepEqual(conditionsOf(reportOf(first, 'gadgets')), []);
    assert.ok((await diskCache()).includes('"Sprocket"'), 'the disk cache names the kind');

    await conn.client.delete(crds, '', 'sprockets.example.com');
    await waitForObject(fx.cluster, `${CRD_PATH}/sprockets.example.com`, (o) => o === undefined);

    // The disk cache (fresh for an hour) still names Sprocket: its list answers 404.
    const second = await refresh(fx, apps(), cacheRoot, { discovery: discovery() });
    assert.deepEqual(conditionsOf(reportOf(second, 'plain')), []);
    const gadgets = conditionsOf(reportOf(second, 'gadgets'));
    assert.deepEqual(
      gadgets.map((c) => c.type),
      ['UnknownKind'],
    );
    assert.match(
      gadgets[0]!.message,
      /^example\.com\/Sprocket gadgets\/thing: kind example\.com\/v1\/Sprocket is not served by the cluster \(dropped from the live cache: .*404/,
    );
    const thing = reportOf(second, 'gadgets').comparison!.resources.find((r) => r.kind === 'Sprocket')!;
    assert.equal(thing.difference, 'missing');
    assert.ok(!(await diskCache()).includes('"Sprocket"'), 'the disk cache forgot the kind');

    // Created between runs: the disk cache (rewritten without it) misses it, so it is looked up afresh,
    // and the live cache watches it (an extra of the kind is found, only the cache finds extras).
    await conn.client.create(crds, preserveUnknownFieldsCrd('example.com', 'Sprocket'));
    await crdsEstablished(fx);
    const sprockets = await conn.discovery.resolve({ group: 'example.com', kind: 'Sprocket' });
    await applyObjects(conn, await renderObjects(apps()[1]!, cacheRoot), 'gadgets');
    await conn.client.create(sprockets, trackedExtra('gadgets', 'Sprocket', 'gadgets', 'extra'));
    const third = await refresh(fx, apps(), cacheRoot, { discovery: discovery() });
    assert.deepEqual(conditionsOf(reportOf(third, 'gadgets')), []);
    const resources = reportOf(third, 'gadgets').comparison!.resources;
    assert.equal(resources.find((r) => r.kind === 'Sprocket' && r.name === 'thing')?.status, 'Synced');
    assert.equal(resources.find((r) => r.kind === 'Sprocket' && r.name === 'extra')?.requiresPruning, true);
  });
});

describe('controller: CRDs created and deleted during a run', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;
  const plain = () => application('plain', repo.url, 'plain', { namespace: 'kinds' });
  const gadgets = () => application('gadgets', repo.url, 'gadgets', { namespace: 'kinds' });

  before(async () => {
    repo.commit({
      'plain/cm.yaml': configMap('plain', { a: '1' }),
      'gadgets/all.yaml': `${custom('Cog', 'thing')}---\n${configMap('gadgets', { a: '1' })}`,
    });
    conn = await connectAs(fx);
    await createNamespaces(conn, ['kinds']);
  });

  after(() => conn?.close());

  it('a CRD deleted while watched makes its apps say so and leaves the others alone; one created is watched', async () => {
    const crds = await crdInfo(conn);
    await conn.client.create(crds, preserveUnknownFieldsCrd('example.com', 'Cog'));
    await applyObjects(conn, await renderObjects(gadgets(), cacheRoot), 'kinds');
    await applyObjects(conn, await renderObjects(plain(), cacheRoot), 'kinds');
    const state = new ClusterState({
      conn: await connectAs(fx),
      namespaces: ['kinds'],
      tracking: {},
      managers: new Set(OWN_FIELD_MANAGERS),
    });
    const source = createSourceService({ cacheRoot });
    const compare = (app: ReturnType<typeof plain>) =>
      new StateManager({ source, clusterOf: () => Promise.resolve(state) }).compare(app);
    try {
      assert.equal((await compare(gadgets())).sync, 'Synced');
      const cache = await state.ready();
      assert.ok(cache.watches({ group: 'example.com', kind: 'Cog' }));
      const change = (type: KindChange['type'], kind: string) =>
        new Promise<KindChange>((resolve) => {
          const off = cache.onKindChange((c) => {
            if (c.type === type && c.kind === kind) {
              off();
              resolve(c);
            }
          });
        });

      const dropped = change('dropped', 'Cog');
      await conn.client.delete(crds, '', 'cogs.example.com');
      await dropped;
      assert.equal(cache.watches({ group: 'example.com', kind: 'Cog' }), false);
      const after = await compare(gadgets());
      assert.deepEqual(
        after.conditions.map((c) => c.type),
        ['UnknownKind'],
      );
      assert.match(
        after.conditions[0]!.message,
        /kind example\.com\/v1\/Cog is not served by the cluster \(dropped/,
      );
      assert.equal(after.resources.find((r) => r.kind === 'ConfigMap')?.status, 'Synced');
      const untouched = await compare(plain());
      assert.deepEqual(untouched.conditions, []);
      assert.equal(untouched.sync, 'Synced');

      // A CRD created during the run: the cache's CRD events start its watch.
      const added = change('added', 'Widget');
      await conn.client.create(crds, preserveUnknownFieldsCrd('example.com', 'Widget'));
      await added;
      await state.settled();
      assert.equal(state.cachedVersion({ group: 'example.com', kind: 'Widget' }), 'v1');
      const widgets = await conn.discovery.resolve({ group: 'example.com', kind: 'Widget' });
      const key = { group: 'example.com', kind: 'Widget', namespace: 'kinds', name: 'stray' };
      const seen = cache.waitFor(key, (o) => o !== undefined);
      await conn.client.create(widgets, trackedExtra('plain', 'Widget', 'kinds', 'stray'));
      await seen;
      const withExtra = await compare(plain());
      assert.equal(withExtra.resources.find((r) => r.kind === 'Widget')?.requiresPruning, true);
      assert.equal(withExtra.sync, 'OutOfSync');
    } finally {
      await source.close();
      await state.close();
    }
  });

  it('a kind whose cached version stops being served is watched again at the version still served', async () => {
    const crds = await crdInfo(conn);
    const crd = preserveUnknownFieldsCrd('example.com', 'Gear');
    const versions = (crd.spec as { versions: Array<Record<string, unknown>> }).versions;
    // v1 is preferred (kube-aggregator's version priority puts GA before alpha), v1alpha1 stores.
    versions[0] = { ...versions[0], storage: false };
    versions.push({ ...versions[0], name: 'v1alpha1', storage: true });
    await conn.client.create(crds, crd);
    await crdsEstablished(fx);
    const state = new ClusterState({
      conn: await connectAs(fx),
      namespaces: ['kinds'],
      tracking: {},
      managers: new Set(OWN_FIELD_MANAGERS),
    });
    try {
      const cache = await state.ready();
      assert.equal(state.cachedVersion({ group: 'example.com', kind: 'Gear' }), 'v1');
      const events: string[] = [];
      const readded = new Promise<void>((resolve) =>
        cache.onKindChange((c) => {
          if (c.kind !== 'Gear') return;
          events.push(c.type);
          if (c.type === 'added') resolve();
        }),
      );
      const live = (await conn.client.get(crds, '', 'gears.example.com')) as KubeObject;
      const spec = live.spec as { versions: Array<Record<string, unknown>> };
      spec.versions = spec.versions.map((v) => (v['name'] === 'v1' ? { ...v, served: false } : v));
      await conn.client.update(crds, live);
      await readded;
      await state.settled();
      assert.deepEqual(events, ['dropped', 'added']);
      assert.equal(state.cachedVersion({ group: 'example.com', kind: 'Gear' }), 'v1alpha1');
      assert.equal(state.droppedReason({ group: 'example.com', kind: 'Gear' }), undefined);
      const alpha = await conn.discovery.resolve({ group: 'example.com', kind: 'Gear' });
      assert.equal(alpha.version, 'v1alpha1');
      const key = { group: 'example.com', kind: 'Gear', namespace: 'kinds', name: 'spur' };
      const seen = cache.waitFor(key, (o) => o !== undefined);
      await conn.client.create(alpha, {
        apiVersion: 'example.com/v1alpha1',
        kind: 'Gear',
        metadata: { name: 'spur', namespace: 'kinds' },
      });
      await seen;
    } finally {
      await state.close();
    }
  });
});
