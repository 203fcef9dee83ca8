/**
 * Discovery as kubectl and client-go read it: /version, /api, /apis, per-group resource lists with scope,
 * verbs, shortNames and status subresources; CRDs served while they exist; the OpenAPI v3 surface.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, useEmbeddedCluster } from '../support/embedded.js';
import { compareKubeAwareVersions } from '../../src/embedded/resources.js';

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
    versions: [
      { name: 'v1beta1', served: true, storage: false },
      { name: 'v1', served: true, storage: true, subresources: { status: {} } },
    ],
  },
};

describe('embedded discovery', () => {
  const fx = useEmbeddedCluster();

  it('serves /version, /api and /apis with the built-in groups', async () => {
    const version = await api(fx.cluster, 'GET', '/version');
    assert.equal(version.body.major, '1');
    assert.match(version.body.gitVersion, /^v1\.\d+\.\d+/);
    const core = await api(fx.cluster, 'GET', '/api');
    assert.deepEqual(core.body.versions, ['v1']);
    const groups = await api(fx.cluster, 'GET', '/apis');
    assert.equal(groups.body.kind, 'APIGroupList');
    const names = groups.body.groups.map((g: { name: string }) => g.name);
    for (const g of [
      'apps',
      'batch',
      'networking.k8s.io',
      'rbac.authorization.k8s.io',
      'apiextensions.k8s.io',
    ]) {
      assert.ok(names.includes(g), g);
    }
    assert.ok(!names.includes('argoproj.io'), 'argoproj.io is served only once its CRD exists');
    const apps = groups.body.groups.find((g: { name: string }) => g.name === 'apps');
    assert.deepEqual(apps.preferredVersion, { groupVersion: 'apps/v1', version: 'v1' });
  });

  it('lists resources with scope, kind, verbs, shortNames and status subresources', async () => {
    const core = await api(fx.cluster, 'GET', '/api/v1');
    assert.equal(core.body.kind, 'APIResourceList');
    assert.equal(core.body.groupVersion, 'v1');
    const byName = new Map(core.body.resources.map((r: { name: string }) => [r.name, r]));
    assert.deepEqual(byName.get('configmaps'), {
      name: 'configmaps',
      singularName: 'configmap',
      namespaced: true,
      kind: 'ConfigMap',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['cm'],
    });
    assert.equal((byName.get('namespaces') as { namespaced: boolean }).namespaced, false);
    assert.ok(byName.has('services/status'));
    assert.ok(!byName.has('configmaps/status'), 'ConfigMaps have no status subresource');
    for (const r of ['secrets', 'serviceaccounts', 'pods', 'persistentvolumeclaims', 'events'])
      assert.ok(byName.has(r), r);

    const apps = await api(fx.cluster, 'GET', '/apis/apps/v1');
    const kinds = apps.body.resources
      .filter((r: { name: string }) => !r.name.includes('/'))
      .map((r: { kind: string }) => r.kind);
    assert.deepEqual(kinds, ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']);
    const rbac = await api(fx.cluster, 'GET', '/apis/rbac.authorization.k8s.io/v1');
    assert.deepEqual(
      rbac.body.resources.map((r: { kind: string; namespaced: boolean }) => `${r.kind}:${r.namespaced}`),
      ['Role:true', 'RoleBinding:true', 'ClusterRole:false', 'ClusterRoleBinding:false'],
    );
    assert.equal((await api(fx.cluster, 'GET', '/apis/example.com/v1')).status, 404);
  });

  it('answers aggregated-discovery requests with plain discovery, so clients fall back', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    const res = await api(fx.cluster, 'GET', '/apis', undefined, 'application/json', { Accept: accept });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.body.kind, 'APIGroupList');
    // /openapi/v2 is served (kubectl 1.28's apply reads it), as JSON.
    assert.equal((await api(fx.cluster, 'GET', '/openapi/v2')).status, 200);
  });

  it('serves a CRD kind at every served version while the CRD exists, and stops when it is deleted', async () => {
    const created = await api(
      fx.cluster,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      widgetCrd,
    );
    assert.equal(created.status, 201);
    const conditions = created.body.status.conditions.map(
      (c: { type: string; status: string }) => `${c.type}=${c.status}`,
    );
    assert.deepEqual(conditions, ['NamesAccepted=True', 'Established=True']);

    const group = await api(fx.cluster, 'GET', '/apis/example.com');
    assert.deepEqual(group.body.preferredVersion, { groupVersion: 'example.com/v1', version: 'v1' });
    const v1 = await api(fx.cluster, 'GET', '/apis/example.com/v1');
    assert.deepEqual(
      v1.body.resources.map((r: { name: string }) => r.name),
      ['widgets', 'widgets/status'],
    );
    assert.deepEqual(v1.body.resources[0].shortNames, ['wd']);

    const w = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } };
    assert.equal(
      (await api(fx.cluster, 'POST', '/apis/example.com/v1/namespaces/default/widgets', w)).status,
      201,
    );
    const old = await api(fx.cluster, 'GET', '/apis/example.com/v1beta1/namespaces/default/widgets/w1');
    assert.equal(old.body.apiVersion, 'example.com/v1beta1', 'served at the requested version');

    const root = await api(fx.cluster, 'GET', '/openapi/v3');
    assert.ok(root.body.paths['apis/example.com/v1'], 'the OpenAPI v3 root lists the CRD group');

    assert.equal(
      (
        await api(
          fx.cluster,
          'DELETE',
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com',
        )
      ).status,
      200,
    );
    assert.equal((await api(fx.cluster, 'GET', '/apis/example.com/v1')).status, 404);
    const gone = await api(fx.cluster, 'GET', '/apis/example.com/v1/namespaces/default/widgets');
    assert.equal(gone.status, 404);
    // kube-apiserver's not-found handler answers what no CRD serves any more (test/embedded/unknown-paths).
    assert.equal(gone.body, '404 page not found\n');
    const groups = await api(fx.cluster, 'GET', '/apis');
    assert.ok(!groups.body.groups.some((g: { name: string }) => g.name === 'example.com'));

    // Re-creating the CRD serves an empty collection: its objects went with it.
    await api(fx.cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd);
    const list = await api(fx.cluster, 'GET', '/apis/example.com/v1/widgets');
    assert.deepEqual(list.body.items, []);
  });

  it("lists a CRD's versions by Kubernetes' version priority, the first preferred, whichever stores", async () => {
    const crd = structuredClone(widgetCrd) as { metadata: { name: string }; spec: Record<string, unknown> };
    crd.metadata.name = 'sprockets.order.example.com';
    crd.spec = {
      ...crd.spec,
      group: 'order.example.com',
      names: { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket', listKind: 'SprocketList' },
      versions: ['v1alpha1', 'v2beta1', 'v1', 'v1beta2'].map((name) => ({
        name,
        served: true,
        storage: name === 'v1alpha1',
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      })),
    };
    const created = await api(
      fx.cluster,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crd,
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const group = await api(fx.cluster, 'GET', '/apis/order.example.com');
    assert.deepEqual(
      group.body.versions.map((v: { version: string }) => v.version),
      ['v1', 'v2beta1', 'v1beta2', 'v1alpha1'],
    );
    assert.deepEqual(group.body.preferredVersion, { groupVersion: 'order.example.com/v1', version: 'v1' });
  });

  it("compareKubeAwareVersions orders as apimachinery's CompareKubeAwareVersionStrings documents", () => {
    const documented = [
      'v10',
      'v2',
      'v1',
      'v11beta2',
      'v10beta3',
      'v3beta1',
      'v12alpha1',
      'v11alpha2',
      'foo1',
      'foo10',
    ];
    const shuffled = [...documented].reverse();
    shuffled.sort((a, b) => compareKubeAwareVersions(b, a));
    assert.deepEqual(shuffled, documented);
  });

  it('rejects a CRD whose name is not <plural>.<group>', async () => {
    const bad = { ...widgetCrd, metadata: { name: 'wrong.example.com' } };
    const res = await api(fx.cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', bad);
    assert.equal(res.status, 422);
    assert.equal(res.body.reason, 'Invalid');
  });
});
