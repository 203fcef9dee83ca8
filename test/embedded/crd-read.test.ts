/**
 * Custom resources as apiextensions-apiserver serves them across CRD versions and CRD changes:
 * - subresources are per served version (customresource_handler.go `GetSubresourcesForVersion` for the
 *   route, the strategy of each version's storage, and discovery): a CRD may serve /status at v1 and not
 *   at v1beta1; at v1beta1 status is then written through the main resource and bumps generation.
 * - stored objects are decoded on every read (the storage codec: `schemaCoercingDecoder` prunes by the
 *   stored version's schema, `unstructuredDefaulter` defaults by it, `schemaCoercingConverter` prunes by
 *   the requested version's): after a schema change, get, list and watch drop fields the schema no longer
 *   declares and fill new defaults, while storage keeps what was written (a field declared again comes
 *   back).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, useEmbeddedCluster } from '../support/embedded.js';
import type { EmbeddedCluster } from '../../src/embedded/index.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const MERGE = 'application/merge-patch+json';

const gadgetSchema = (spec: Record<string, unknown>) => ({
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: spec },
      status: { type: 'object', properties: { phase: { type: 'string' } } },
    },
  },
});

/** Gadget: v1 (storage) with a status subresource, v1beta1 without one. */
const gadgetCrd = (spec: Record<string, unknown> = { size: { type: 'integer' } }) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: gadgetSchema(spec),
      },
      { name: 'v1beta1', served: true, storage: false, schema: gadgetSchema(spec) },
    ],
  },
});

const at = (version: string, rest = '') => `/apis/example.com/${version}/namespaces/default/gadgets${rest}`;

const gadget = (version: string, name: string, spec: Record<string, unknown>, status?: unknown) => ({
  apiVersion: `example.com/${version}`,
  kind: 'Gadget',
  metadata: { name },
  spec,
  ...(status ? { status } : {}),
});

/** The events a watch from `rv` sends before the server ends it (timeoutSeconds=1). */
async function watchEvents(cluster: EmbeddedCluster, path: string) {
  const res = await fetch(`${cluster.url}${path}`);
  assert.equal(res.status, 200);
  const text = await res.text();
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; object: { spec?: unknown } })
    .filter((e) => e.type !== 'BOOKMARK');
}

describe('custom resources: per-version subresources and decoding on read', () => {
  const fx = useEmbeddedCluster();

  it('serves /status only at the version that declares it (route, discovery)', async () => {
    assert.equal((await api(fx.cluster, 'POST', CRDS, gadgetCrd())).status, 201);
    const v1 = await api(fx.cluster, 'GET', '/apis/example.com/v1');
    const beta = await api(fx.cluster, 'GET', '/apis/example.com/v1beta1');
    const names = (d: { body: { resources: { name: string }[] } }) => d.body.resources.map((r) => r.name);
    assert.deepEqual(names(v1), ['gadgets', 'gadgets/status']);
    assert.deepEqual(names(beta), ['gadgets']);
    const created = await api(fx.cluster, 'POST', at('v1'), gadget('v1', 'g1', { size: 1 }));
    assert.equal(created.status, 201);
    assert.equal((await api(fx.cluster, 'GET', at('v1', '/g1/status'))).status, 200);
    assert.equal((await api(fx.cluster, 'GET', at('v1beta1', '/g1/status'))).status, 404);
    const paths = (await api(fx.cluster, 'GET', '/openapi/v2')).body.paths as Record<string, unknown>;
    const status = (v: string) => `/apis/example.com/${v}/namespaces/{namespace}/gadgets/{name}/status`;
    assert.ok(paths[status('v1')], 'OpenAPI: v1 has the status path');
    assert.equal(paths[status('v1beta1')], undefined, 'OpenAPI: v1beta1 has none');
  });

  it('v1 drops status on create and keeps it on update; v1beta1 writes it through the main resource', async () => {
    const c1 = await api(fx.cluster, 'POST', at('v1'), gadget('v1', 'a', { size: 1 }, { phase: 'Up' }));
    assert.equal(c1.status, 201);
    assert.equal(c1.body.status, undefined, 'v1 has a status subresource: create drops status');
    const c2 = await api(
      fx.cluster,
      'POST',
      at('v1beta1'),
      gadget('v1beta1', 'b', { size: 1 }, { phase: 'Up' }),
    );
    assert.equal(c2.status, 201);
    assert.deepEqual(c2.body.status, { phase: 'Up' }, 'v1beta1 has none: status is kept');
    assert.equal(c2.body.apiVersion, 'example.com/v1beta1');

    const p1 = await api(fx.cluster, 'PATCH', at('v1', '/b'), { status: { phase: 'Down' } }, MERGE);
    assert.deepEqual(p1.body.status, { phase: 'Up' }, 'v1 main resource: status is not written');
    assert.equal(p1.body.metadata.generation, 1);
    const p2 = await api(fx.cluster, 'PATCH', at('v1beta1', '/b'), { status: { phase: 'Down' } }, MERGE);
    assert.equal(p2.status, 200);
    assert.deepEqual(p2.body.status, { phase: 'Down' }, 'v1beta1 main resource: status is written');
    assert.equal(p2.body.metadata.generation, 2, 'a status change without the subresource bumps generation');
    const viaV1 = await api(fx.cluster, 'GET', at('v1', '/b'));
    assert.equal(viaV1.body.apiVersion, 'example.com/v1');
    assert.deepEqual(viaV1.body.status, { phase: 'Down' });
  });

  it('drops nulls the schema neither allows nor defaults, before defaulting and validation', async () => {
    const res = await api(fx.cluster, 'POST', at('v1'), gadget('v1', 'nulls', { size: null }));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.spec, {});
    const patched = await api(fx.cluster, 'PATCH', at('v1', '/nulls'), { spec: { size: 2 } }, MERGE);
    assert.deepEqual(patched.body.spec, { size: 2 });
    const put = await api(fx.cluster, 'PUT', at('v1', '/nulls'), { ...patched.body, spec: { size: null } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(put.body.spec, {});
  });

  it('after a schema change, reads prune and default stored objects; storage keeps the old fields', async () => {
    const created = await api(fx.cluster, 'POST', at('v1'), gadget('v1', 'old', { size: 3, colour: 'red' }));
    assert.equal(created.status, 201);
    assert.equal(created.body.spec.colour, undefined, 'the old schema does not declare colour');
    const full = await api(fx.cluster, 'POST', at('v1'), gadget('v1', 'full', { size: 3 }));
    assert.equal(full.status, 201);
    const before = full.body.metadata.resourceVersion as string;

    // v2 of the schema: size is gone, mode has a default.
    const crd = (await api(fx.cluster, 'GET', `${CRDS}/gadgets.example.com`)).body;
    crd.spec = gadgetCrd({ mode: { type: 'string', default: 'auto' } }).spec;
    assert.equal((await api(fx.cluster, 'PUT', `${CRDS}/gadgets.example.com`, crd)).status, 200);

    for (const version of ['v1', 'v1beta1']) {
      const got = await api(fx.cluster, 'GET', at(version, '/full'));
      assert.deepEqual(got.body.spec, { mode: 'auto' }, `get at ${version}`);
      assert.equal(got.body.metadata.resourceVersion, before, 'a read writes nothing');
      const list = await api(fx.cluster, 'GET', at(version));
      const item = list.body.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'full');
      assert.deepEqual(item.spec, { mode: 'auto' }, `list at ${version}`);
    }
    const events = await watchEvents(fx.cluster, `${at('v1')}?watch=true&resourceVersion=0&timeoutSeconds=1`);
    const added = events.find(
      (e) => e.type === 'ADDED' && (e.object as { metadata: { name: string } }).metadata.name === 'full',
    );
    assert.deepEqual(added?.object.spec, { mode: 'auto' }, 'watch');

    // A write of what a read returned stores the pruned form (etcd3 compares the encoded bytes).
    const cur = (await api(fx.cluster, 'GET', at('v1', '/full'))).body;
    const put = await api(fx.cluster, 'PUT', at('v1', '/full'), cur);
    assert.equal(put.status, 200);
    assert.notEqual(put.body.metadata.resourceVersion, before);
    assert.equal(put.body.metadata.generation, 1, 'the decoded object did not change: no new generation');

    // size declared again: the untouched object shows it again (it never left storage).
    crd.metadata.resourceVersion = undefined;
    crd.spec = gadgetCrd({ size: { type: 'integer' } }).spec;
    const latest = (await api(fx.cluster, 'GET', `${CRDS}/gadgets.example.com`)).body;
    latest.spec = crd.spec;
    assert.equal((await api(fx.cluster, 'PUT', `${CRDS}/gadgets.example.com`, latest)).status, 200);
    assert.deepEqual((await api(fx.cluster, 'GET', at('v1', '/old'))).body.spec, { size: 3 });
    assert.deepEqual((await api(fx.cluster, 'GET', at('v1', '/full'))).body.spec, {});
  });

  it('scale is per version too: GET/PATCH /scale at the version that declares it, read and written at its paths', async () => {
    const version = (name: string, scale: boolean) => ({
      name,
      served: true,
      storage: name === 'v1',
      ...(scale
        ? {
            subresources: {
              scale: {
                specReplicasPath: '.spec.count',
                statusReplicasPath: '.status.count',
                labelSelectorPath: '.status.selector',
              },
            },
          }
        : {}),
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: { type: 'object', properties: { count: { type: 'integer' } } },
            status: {
              type: 'object',
              properties: { count: { type: 'integer' }, selector: { type: 'string' } },
            },
          },
        },
      },
    });
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'pools.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'pools', singular: 'pool', kind: 'Pool', listKind: 'PoolList' },
        versions: [version('v1', true), version('v1beta1', false)],
      },
    };
    assert.equal((await api(fx.cluster, 'POST', CRDS, crd)).status, 201);
    const v1 = await api(fx.cluster, 'GET', '/apis/example.com/v1');
    const row = v1.body.resources.find((r: { name: string }) => r.name === 'pools/scale');
    assert.deepEqual(
      { group: row?.group, version: row?.version, kind: row?.kind },
      { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    );
    const beta = await api(fx.cluster, 'GET', '/apis/example.com/v1beta1');
    assert.deepEqual(
      beta.body.resources.map((r: { name: string }) => r.name),
      ['gadgets', 'pools'],
    );
    const pools = (v: string, rest = '') => `/apis/example.com/${v}/namespaces/default/pools${rest}`;
    const created = await api(fx.cluster, 'POST', pools('v1'), {
      apiVersion: 'example.com/v1',
      kind: 'Pool',
      metadata: { name: 'p' },
      spec: {},
    });
    assert.equal(created.status, 201);
    assert.equal((await api(fx.cluster, 'GET', pools('v1beta1', '/p/scale'))).status, 404);
    const empty = await api(fx.cluster, 'GET', pools('v1', '/p/scale'));
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body.spec, {});
    assert.deepEqual(empty.body.status, { replicas: 0 });
    const unset = await api(fx.cluster, 'PATCH', pools('v1', '/p/scale'), { metadata: {} }, MERGE);
    assert.equal(unset.status, 400);
    assert.equal(unset.body.message, 'the spec replicas field ".spec.count" cannot be empty');
    const scaled = await api(fx.cluster, 'PATCH', pools('v1', '/p/scale'), { spec: { replicas: 3 } }, MERGE);
    assert.equal(scaled.status, 200);
    assert.deepEqual(scaled.body.spec, { replicas: 3 });
    const got = await api(fx.cluster, 'GET', pools('v1', '/p'));
    assert.deepEqual(got.body.spec, { count: 3 });
    assert.equal(got.body.metadata.generation, 2);
  });
});
