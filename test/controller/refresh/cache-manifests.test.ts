/**
 * The live cache's stubs (`manifests: 'tracked'`, issue 23) change no verdict: the same app reconciled
 * over a cache that keeps every object whole and over one that keeps only tracked objects whole gives the
 * same report and the same live objects, including targets whose live object no app tracks yet (read with
 * a GET), and a sync over the stubbed cache adopts such an object with kubectl's three-way patch (which
 * needs the whole live object: a key its last-applied annotation holds and Git dropped is deleted; from a
 * stub, without the annotation, it would be kept).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isStub } from '../../../src/cluster/index.js';
import type { ClusterConnection, KubeObject, ResourceInfo } from '../../../src/cluster/index.js';
import { ClusterState, OWN_FIELD_MANAGERS, StateManager, toReport } from '../../../src/controller/index.js';
import type { Reconciliation } from '../../../src/controller/index.js';
import { createSourceService } from '../../../src/source/index.js';
import { useEmbeddedCluster } from '../../support/embedded.js';
import { TestRepo } from '../../support/git.js';
import {
  application,
  applyObjects,
  connectAs,
  createNamespaces,
  newCacheRoot,
  renderObjects,
  reportOf,
  sync,
  syncRequest,
} from '../setup.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

const manifests = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settled
data:
  mode: prod
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: adopted
data:
  mode: prod
---
apiVersion: v1
kind: Secret
metadata:
  name: unclaimed
type: Opaque
data:
  token: c2VjcmV0
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.25
`;

describe('live cache stubs change no verdict', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;
  let configMaps: ResourceInfo;
  const app = () => application('shop', repo.url, 'shop', { namespace: 'shop' });

  before(async () => {
    repo.commit({ 'shop/all.yaml': manifests });
    conn = await connectAs(fx);
    await createNamespaces(conn, ['shop']);
    configMaps = await conn.discovery.resolve({ group: '', kind: 'ConfigMap' });
    const rendered = await renderObjects(app(), cacheRoot);
    const byName = (name: string) => rendered.find((o) => o.metadata?.name === name)!;
    const untracked = (o: KubeObject): KubeObject => {
      const { ['argocd.argoproj.io/tracking-id']: _id, ...annotations } = o.metadata?.annotations ?? {};
      return { ...o, metadata: { ...o.metadata, annotations } };
    };
    // Tracked and equal; tracked and drifted (replicas); an extra tracked object (prune candidate).
    await applyObjects(conn, [byName('settled')], 'shop');
    await applyObjects(
      conn,
      [{ ...byName('web'), spec: { ...(byName('web').spec as object), replicas: 5 } }],
      'shop',
    );
    await applyObjects(
      conn,
      [
        {
          ...byName('settled'),
          metadata: {
            name: 'leftover',
            namespace: 'shop',
            annotations: { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/leftover' },
          },
        },
      ],
      'shop',
    );
    // Not tracked by any app, at target keys: created by kubectl apply (last-applied), one with a key Git
    // does not have, one equal to Git but for the tracking.
    const withLastApplied = (o: KubeObject): KubeObject => ({
      ...o,
      metadata: {
        ...o.metadata,
        namespace: 'shop',
        annotations: { ...o.metadata?.annotations, [LAST_APPLIED]: JSON.stringify(o) },
      },
    });
    const adopted = untracked(byName('adopted'));
    await conn.client.create(
      configMaps,
      withLastApplied({ ...adopted, data: { mode: 'staging', 'applied-before': 'dropped by Git' } }),
    );
    const secrets = await conn.discovery.resolve({ group: '', kind: 'Secret' });
    await conn.client.create(secrets, withLastApplied(untracked(byName('unclaimed'))));
    // Objects of other tools in the namespace, never named by a target.
    for (const name of ['kube-root-ca', 'other-tool'])
      await conn.client.create(configMaps, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'shop' },
        data: { big: 'x'.repeat(4096) },
      });
  });

  after(() => {
    conn?.close();
    repo.remove();
  });

  async function reconcile(mode: 'all' | 'tracked'): Promise<{ rec: Reconciliation; stubs: string[] }> {
    const state = new ClusterState({
      conn: await connectAs(fx),
      namespaces: ['shop'],
      tracking: {},
      managers: new Set(OWN_FIELD_MANAGERS),
      appliers: new Set(OWN_FIELD_MANAGERS),
      manifests: mode,
    });
    const source = createSourceService({ cacheRoot });
    const manager = new StateManager({ source, clusterOf: () => Promise.resolve(state) });
    try {
      const rec = await manager.reconcile(app());
      const cache = await state.ready();
      // The real server's kube-root-ca.crt (root-ca-cert-publisher, every namespace) is one more such object.
      const stubs = cache
        .list('', 'ConfigMap', 'shop')
        .filter((o) => isStub(o) && o.metadata!.name !== 'kube-root-ca.crt')
        .map((o) => o.metadata!.name!)
        .sort();
      return { rec, stubs };
    } finally {
      await source.close();
      await state.close();
    }
  }

  it('the same report and the same live objects with and without stubs', async () => {
    const whole = await reconcile('all');
    const stubbed = await reconcile('tracked');
    assert.deepEqual(whole.stubs, []);
    assert.deepEqual(stubbed.stubs, ['kube-root-ca', 'other-tool'], 'only objects no target names');

    const a = toReport(whole.rec);
    const b = toReport(stubbed.rec);
    assert.deepEqual(b, a);
    const rows = a.resources.map((r) => `${r.kind}/${r.name}: ${r.status} ${r.difference}`);
    assert.deepEqual(rows, [
      'ConfigMap/adopted: OutOfSync modified',
      'ConfigMap/leftover: OutOfSync extra',
      'ConfigMap/settled: Synced none',
      'Secret/unclaimed: OutOfSync modified',
      'Deployment/web: OutOfSync modified',
    ]);
    const live = (rec: Reconciliation) =>
      rec.resources.map((r) => {
        const { resourceVersion: _rv, ...meta } = r.live?.metadata ?? {};
        return { ...r.live, metadata: meta };
      });
    assert.deepEqual(live(stubbed.rec), live(whole.rec));
    for (const r of stubbed.rec.resources) assert.equal(isStub(r.live), false, `${r.kind}/${r.name}`);
  });

  it('a sync over the stubbed cache adopts an untracked object with the three-way patch', async () => {
    const report = await sync(fx, [app()], cacheRoot, syncRequest());
    const shop = reportOf(report, 'shop');
    assert.equal(shop.error, undefined);
    assert.equal(shop.operation?.phase, 'Succeeded');
    const adopted = await conn.client.get(configMaps, 'shop', 'adopted');
    // 'applied-before' is in the last-applied annotation and not in Git: the three-way patch deletes it.
    assert.deepEqual(adopted.data, { mode: 'prod' });
    assert.equal(
      adopted.metadata?.annotations?.['argocd.argoproj.io/tracking-id'],
      'shop:/ConfigMap:shop/adopted',
    );
    assert.equal(shop.comparison?.resources.find((r) => r.name === 'adopted')?.status, 'Synced');
  });
});
