/**
 * Custom resources as kube-apiserver serves them, checked with Argo CD's real CRDs (v3.5.1, vendored in
 * test/fixtures/argocd-crds/) and the rules of apiextensions-apiserver:
 * - status subresource (pkg/registry/customresource/strategy.go): with it, `customResourceStrategy`
 *   PrepareForCreate drops `status` and PrepareForUpdate keeps the old one; `statusStrategy`
 *   PrepareForUpdate keeps everything but `status` from the stored object. Without it (the Application
 *   CRD has `subresources: {}`), `status` is written through the main resource and `/status` is 404.
 * - generation (same file, PrepareForUpdate + copyNonMetadata): bumped by any change outside `metadata`,
 *   so with a status subresource a status write never bumps it, and without one every status write does.
 * - structural pruning (pkg/apiserver/schema/pruning/algorithm.go prune/skipPrune): undeclared fields are
 *   dropped (a Warning each under fieldValidation=Warn), also inside properties of a schema with
 *   `x-kubernetes-preserve-unknown-fields`; an object schema with no properties keeps nothing; an
 *   `x-kubernetes-embedded-resource` keeps apiVersion, kind and metadata.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { APPLICATION_CRD, APPLICATION_SET_CRD, APP_PROJECT_CRD } from '../support/argocd.js';
import { crdWithSchema } from '../support/crds.js';
import { api, useEmbeddedCluster } from '../support/embedded.js';
import { pruneUnknown } from '../../src/embedded/field-validation.js';
import { SchemaCatalog } from '../../src/schema/index.js';
import type { Schema } from '../../src/schema/index.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const APPS = '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications';
const APPSETS = '/apis/argoproj.io/v1alpha1/namespaces/argocd/applicationsets';
const MERGE = 'application/merge-patch+json';

const application = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name },
  spec: {
    project: 'default',
    destination: { server: 'https://kubernetes.default.svc', namespace: 'web' },
    source: { repoURL: 'https://git.example.com/web.git', path: 'web', targetRevision: 'HEAD' },
  },
  ...extra,
});

describe("embedded server: Argo CD's real CRDs, served as kube-apiserver serves custom resources", () => {
  const fx = useEmbeddedCluster();

  it('installs the three CRDs; only ApplicationSet has a status subresource in discovery', async () => {
    await api(fx.cluster, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'argocd' },
    });
    for (const crd of [APPLICATION_CRD, APP_PROJECT_CRD, APPLICATION_SET_CRD]) {
      const r = await api(fx.cluster, 'POST', CRDS, crd);
      assert.equal(r.status, 201, JSON.stringify(r.body).slice(0, 300));
    }
    const d = await api(fx.cluster, 'GET', '/apis/argoproj.io/v1alpha1');
    const names = (d.body.resources as { name: string }[]).map((r) => r.name).sort();
    assert.deepEqual(names, ['applications', 'applicationsets', 'applicationsets/status', 'appprojects']);
  });

  it('Application (no status subresource): status is written through the main resource; each change bumps generation', async () => {
    const created = await api(
      fx.cluster,
      'POST',
      APPS,
      application('web', { status: { sync: { status: 'Synced' } } }),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // PrepareForCreate: status is dropped only when the status subresource is enabled.
    assert.deepEqual(created.body.status, { sync: { status: 'Synced' } });
    assert.equal(created.body.metadata.generation, 1);

    // A JSON merge patch of status on the main resource (what Argo CD's controller sends) is stored and,
    // being a change outside metadata, bumps generation (copyNonMetadata compares status too).
    const patched = await api(
      fx.cluster,
      'PATCH',
      `${APPS}/web`,
      { status: { health: { status: 'Healthy' }, reconciledAt: '2026-01-01T00:00:00Z' } },
      MERGE,
    );
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual(patched.body.status, {
      sync: { status: 'Synced' },
      health: { status: 'Healthy' },
      reconciledAt: '2026-01-01T00:00:00Z',
    });
    assert.equal(patched.body.metadata.generation, 2);

    // A metadata-only change does not bump it.
    const labelled = await api(
      fx.cluster,
      'PATCH',
      `${APPS}/web`,
      { metadata: { labels: { team: 'a' } } },
      MERGE,
    );
    assert.equal(labelled.body.metadata.generation, 2);

    // No status subresource: /status is not served.
    const sub = await api(fx.cluster, 'PATCH', `${APPS}/web/status`, { status: {} }, MERGE);
    assert.equal(sub.status, 404);
  });

  it('Application: fields the real schema lacks are pruned, with a Warning each; preserved subtrees keep theirs', async () => {
    const r = await api(
      fx.cluster,
      'PATCH',
      `${APPS}/web`,
      {
        spec: {
          source: { helm: { valuesObject: { any: { depth: [1, { x: 2 }] } } }, bogus: 1 },
        },
        status: {
          sync: {
            status: 'OutOfSync',
            comparedTo: { source: { repoURL: 'r' }, destination: {}, extra: 'x' },
          },
          invented: { a: 1 },
          resources: [{ kind: 'ConfigMap', name: 'c', status: 'Synced', madeUp: true }],
        },
      },
      MERGE,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.spec.source.helm, { valuesObject: { any: { depth: [1, { x: 2 }] } } });
    assert.equal(r.body.spec.source.bogus, undefined);
    assert.equal(r.body.status.invented, undefined);
    assert.equal(r.body.status.sync.comparedTo.extra, undefined);
    assert.deepEqual(r.body.status.resources, [{ kind: 'ConfigMap', name: 'c', status: 'Synced' }]);
    const warnings = (r.headers.get('warning') ?? '').split(/,\s*(?=299)/).sort();
    assert.deepEqual(warnings, [
      '299 - "unknown field \\"spec.source.bogus\\""',
      '299 - "unknown field \\"status.invented\\""',
      '299 - "unknown field \\"status.resources[0].madeUp\\""',
      '299 - "unknown field \\"status.sync.comparedTo.extra\\""',
    ]);
    // Strict refuses the same write.
    const strict = await api(
      fx.cluster,
      'PATCH',
      `${APPS}/web?fieldValidation=Strict`,
      { status: { invented: 1 } },
      MERGE,
    );
    assert.equal(strict.status, 400);
    assert.equal(strict.body.message, 'strict decoding error: unknown field "status.invented"');
    // The status schema has required fields too: a comparedTo without destination is 422, as on a cluster.
    const partial = await api(
      fx.cluster,
      'PATCH',
      `${APPS}/web`,
      [
        {
          op: 'replace',
          path: '/status/sync',
          value: { status: 'Synced', comparedTo: { source: { repoURL: 'r' } } },
        },
      ],
      'application/json-patch+json',
    );
    assert.equal(partial.status, 422);
    assert.match(partial.body.message, /status\.sync\.comparedTo\.destination: Required value/);
  });

  it('Application: the real schema is enforced (spec.project and spec.destination required)', async () => {
    const r = await api(fx.cluster, 'POST', APPS, {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'bad' },
      spec: { project: 'default' },
    });
    assert.equal(r.status, 422);
    assert.match(r.body.message, /spec\.destination: Required value/);
  });

  it('ApplicationSet (status subresource): main-resource writes keep the old status; /status keeps spec; status writes never bump generation', async () => {
    const appset = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'ApplicationSet',
      metadata: { name: 'set' },
      spec: {
        generators: [{ list: { elements: [{ name: 'a' }] } }],
        template: {
          metadata: { name: '{{name}}' },
          spec: { project: 'default', destination: { server: 'https://kubernetes.default.svc' } },
        },
      },
      status: { conditions: [{ type: 'ErrorOccurred', status: 'False', message: 'm', reason: 'r' }] },
    };
    const created = await api(fx.cluster, 'POST', APPSETS, appset);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.status, undefined, 'PrepareForCreate drops status');
    assert.equal(created.body.metadata.generation, 1);

    const st = await api(
      fx.cluster,
      'PATCH',
      `${APPSETS}/set/status`,
      { spec: { goTemplate: true }, status: { resources: [{ name: 'a', status: 'Synced' }] } },
      MERGE,
    );
    assert.equal(st.status, 200, JSON.stringify(st.body));
    assert.deepEqual(st.body.status, { resources: [{ name: 'a', status: 'Synced' }] });
    assert.equal(st.body.spec.goTemplate, undefined, 'statusStrategy keeps the stored spec');
    assert.equal(st.body.metadata.generation, 1);

    const main = await api(
      fx.cluster,
      'PATCH',
      `${APPSETS}/set`,
      { spec: { goTemplate: true }, status: { resources: [] } },
      MERGE,
    );
    assert.equal(main.status, 200, JSON.stringify(main.body));
    assert.equal(main.body.spec.goTemplate, true);
    assert.deepEqual(main.body.status, { resources: [{ name: 'a', status: 'Synced' }] });
    assert.equal(main.body.metadata.generation, 2);
  });
});

describe('pruneUnknown, structural (apiextensions-apiserver pruning/algorithm.go)', () => {
  const catalog = new SchemaCatalog();
  const schema = {
    type: 'object',
    properties: {
      bare: { type: 'object' },
      keep: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: { known: { type: 'object', properties: { a: { type: 'string' } } } },
      },
      embedded: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } },
      },
      list: { type: 'array', items: { type: 'object', properties: { n: { type: 'string' } } } },
      map: {
        type: 'object',
        additionalProperties: { type: 'object', properties: { v: { type: 'string' } } },
      },
    },
  } as Schema;

  const value = () => ({
    bare: { anything: 1 },
    keep: { other: { deep: 1 }, known: { a: 'x', b: 'pruned' } },
    embedded: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n' }, spec: { x: 'y', z: 1 } },
    list: [{ n: 'a', m: 'b' }],
    map: { k: { v: 'x', w: 'y' } },
  });

  it('prunes as prune() does: bare objects emptied, preserved subtrees pruned inside declared properties', () => {
    const v = value();
    const paths = pruneUnknown(v, catalog, schema, '', [], true);
    assert.deepEqual(v, {
      bare: {},
      keep: { other: { deep: 1 }, known: { a: 'x' } },
      embedded: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n' }, spec: { x: 'y' } },
      list: [{ n: 'a' }],
      map: { k: { v: 'x' } },
    });
    assert.deepEqual(paths.sort(), [
      'bare.anything',
      'embedded.spec.z',
      'keep.known.b',
      'list[0].m',
      'map.k.w',
    ]);
  });

  it('a CRD with a bare `type: object` field loses what is written under it on the server', async () => {
    const { cluster } = fx2;
    const crd = crdWithSchema('example.com', 'Box', {
      type: 'object',
      properties: { spec: { type: 'object', properties: { free: { type: 'object' } } } },
    });
    assert.equal((await api(cluster, 'POST', CRDS, crd)).status, 201);
    const r = await api(cluster, 'POST', '/apis/example.com/v1/namespaces/default/boxs', {
      apiVersion: 'example.com/v1',
      kind: 'Box',
      metadata: { name: 'b', labels: { kept: 'yes' } },
      spec: { free: { gone: true } },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(r.body.spec, { free: {} });
    assert.deepEqual(r.body.metadata.labels, { kept: 'yes' });
  });
  const fx2 = useEmbeddedCluster();
});
