/**
 * The controller feeds the diff the cluster's CRD schemas (ClusterState.schemas(), from the live cache):
 * a custom resource's map list (x-kubernetes-list-map-keys) merges by key in structured-merge diff, so an
 * item another manager added is not drift, as in Argo CD, which reads the cluster's OpenAPI.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import type { ClusterConnection } from '../../../src/cluster/index.js';
import { StateManager } from '../../../src/controller/index.js';
import { createSourceService } from '../../../src/source/index.js';
import { api, useEmbeddedCluster } from '../../support/embedded.js';
import { widgetCrd } from '../../support/crds.js';
import { TestRepo } from '../../support/git.js';
import {
  application,
  applyObjects,
  connectAs,
  createNamespaces,
  newCacheRoot,
  ownClusterState,
  renderObjects,
} from '../setup.js';

describe('controller: custom resources compared with their CRD schema', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;

  before(async () => {
    const crd = await api(
      fx.cluster,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      widgetCrd(),
    );
    assert.equal(crd.status, 201, JSON.stringify(crd.body));
    repo.commit({
      'widgets/widget.yaml': stringify({
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: {
          name: 'w',
          annotations: { 'argocd.argoproj.io/sync-options': 'ServerSideApply=true' },
        },
        spec: { endpoints: [{ name: 'a', port: 80, weight: 1 }] },
      }),
    });
    conn = await connectAs(fx);
    await createNamespaces(conn, ['widgets']);
  });

  after(() => {
    conn?.close();
    repo.remove();
  });

  it('an endpoint another manager added to a CRD map list is not drift; a changed one of ours is', async () => {
    const app = application('widgets', repo.url, 'widgets', { namespace: 'widgets' });
    await applyObjects(conn, await renderObjects(app, cacheRoot), 'widgets');
    const other = await connectAs(fx, 'other-controller');
    try {
      const info = await other.discovery.resolveApiVersionKind('example.com/v1', 'Widget');
      const body = {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w', namespace: 'widgets' },
        spec: { endpoints: [{ name: 'b', port: 81, weight: 5 }] },
      };
      await other.client.patch(info, 'widgets', 'w', body, 'apply', { force: false });
    } finally {
      other.close();
    }
    const live = await api(fx.cluster, 'GET', '/apis/example.com/v1/namespaces/widgets/widgets/w');
    assert.equal(live.body.spec.endpoints.length, 2, JSON.stringify(live.body.spec));

    const state = await ownClusterState(fx, ['widgets']);
    const source = createSourceService({ cacheRoot });
    const manager = new StateManager({ source, clusterOf: () => Promise.resolve(state) });
    try {
      const r = await manager.compare(app);
      assert.equal(r.sync, 'Synced', JSON.stringify(r.resources));
      assert.deepEqual(state.schemas().kindSchema('example.com/v1', 'Widget').listShape('spec.endpoints'), {
        kind: 'map',
        keys: ['name', 'port'],
        keyDefaults: { port: 80 },
      });

      repo.commit({
        'widgets/widget.yaml': stringify({
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: {
            name: 'w',
            annotations: { 'argocd.argoproj.io/sync-options': 'ServerSideApply=true' },
          },
          spec: { endpoints: [{ name: 'a', port: 80, weight: 2 }] },
        }),
      });
      // A fresh source: a run resolves a revision once.
      const source2 = createSourceService({ cacheRoot: newCacheRoot() });
      const manager2 = new StateManager({ source: source2, clusterOf: () => Promise.resolve(state) });
      const changed = await manager2.compare(app).finally(() => source2.close());
      assert.equal(changed.sync, 'OutOfSync');
      assert.match(changed.resources[0]!.diffText ?? '', /-\s+weight: 1\n\+\s+weight: 2/);
      assert.doesNotMatch(changed.resources[0]!.diffText ?? '', /-\s+- name: b/, 'b is not ours to remove');
    } finally {
      await source.close();
      await state.close();
    }
  });
});
