/**
 * Server-side apply and managedFields: creation by apply, per-manager FieldsV1 sets, conflicts with other
 * managers (and `force`), shared ownership, removal of fields a manager stops applying, and Update entries
 * for ordinary writes with the manager taken from fieldManager or the User-Agent.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, useEmbeddedCluster } from '../support/embedded.js';

const APPLY = 'application/apply-patch+yaml';
const BASE = '/apis/apps/v1/namespaces/default/deployments';

const applied = (name: string, replicas?: number, labels: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels },
  spec: {
    ...(replicas !== undefined ? { replicas } : {}),
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'main', image: 'nginx:1' }] },
    },
  },
});

interface Entry {
  manager: string;
  operation: string;
  fieldsV1: Record<string, unknown>;
}

const entry = (body: { metadata: { managedFields: Entry[] } }, manager: string): Entry | undefined =>
  body.metadata.managedFields.find((e) => e.manager === manager);

describe('server-side apply', () => {
  const fx = useEmbeddedCluster();

  it("requires a fieldManager: kube-apiserver's 422, its cause naming the field", async () => {
    // apiserver handlers/patch.go: ValidatePatchOptions' errors through errors.NewInvalid(PatchOptions).
    const res = await api(fx.cluster, 'PATCH', `${BASE}/nofm`, applied('nofm'), APPLY);
    assert.equal(res.status, 422);
    assert.deepEqual(res.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      reason: 'Invalid',
      details: {
        group: 'meta.k8s.io',
        kind: 'PatchOptions',
        causes: [
          {
            reason: 'FieldValueRequired',
            message: 'Required value: is required for apply patch',
            field: 'fieldManager',
          },
        ],
      },
      code: 422,
    });
    // With a bad dryRun too: one 422, both causes in ValidatePatchOptions' order, the message aggregated.
    const both = await api(fx.cluster, 'PATCH', `${BASE}/nofm?dryRun=Some`, applied('nofm'), APPLY);
    assert.equal(both.status, 422);
    assert.equal(
      both.body.message,
      'PatchOptions.meta.k8s.io "" is invalid: [fieldManager: Required value: is required for apply patch, dryRun: Unsupported value: []string{"Some"}: supported values: "All"]',
    );
    assert.deepEqual(
      both.body.details.causes.map((c: { reason: string; field: string }) => `${c.reason} ${c.field}`),
      ['FieldValueRequired fieldManager', 'FieldValueNotSupported dryRun'],
    );
  });

  it('creates the object, records an Apply entry with the applied fields only, and applies defaults', async () => {
    const yaml = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      '  name: web',
      'spec:',
      '  replicas: 2',
      '  selector: {matchLabels: {app: web}}',
      '  template:',
      '    metadata: {labels: {app: web}}',
      '    spec:',
      '      containers:',
      '      - {name: main, image: "nginx:1"}',
    ].join('\n');
    const res = await api(fx.cluster, 'PATCH', `${BASE}/web?fieldManager=alice`, yaml, APPLY);
    assert.equal(res.status, 201);
    assert.equal(res.body.spec.revisionHistoryLimit, 10, 'defaults are applied');
    assert.equal(res.body.metadata.managedFields.length, 1);
    const e = entry(res.body, 'alice')!;
    assert.equal(e.operation, 'Apply');
    assert.deepEqual(e.fieldsV1, {
      'f:spec': {
        'f:replicas': {},
        // LabelSelector is an atomic struct (x-kubernetes-map-type: atomic): owned whole.
        'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': { 'f:containers': { 'k:{"name":"main"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    });
  });

  it('conflicts when another manager owns a field with a different value; force takes it over', async () => {
    const res = await api(fx.cluster, 'PATCH', `${BASE}/web?fieldManager=bob`, applied('web', 5), APPLY);
    assert.equal(res.status, 409);
    assert.equal(res.body.reason, 'Conflict');
    assert.equal(res.body.message, 'Apply failed with 1 conflict: conflict with "alice": .spec.replicas');
    assert.deepEqual(res.body.details.causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.replicas' },
    ]);

    const shared = await api(fx.cluster, 'PATCH', `${BASE}/web?fieldManager=bob`, applied('web', 2), APPLY);
    assert.equal(shared.status, 200, 'the same value is shared ownership, not a conflict');
    assert.ok(entry(shared.body, 'alice')?.fieldsV1['f:spec']);
    assert.ok(entry(shared.body, 'bob')?.fieldsV1['f:spec']);

    const forced = await api(
      fx.cluster,
      'PATCH',
      `${BASE}/web?fieldManager=bob&force=true`,
      applied('web', 5),
      APPLY,
    );
    assert.equal(forced.status, 200);
    assert.equal(forced.body.spec.replicas, 5);
    const alice = entry(forced.body, 'alice')!;
    assert.equal(
      (alice.fieldsV1['f:spec'] as Record<string, unknown>)['f:replicas'],
      undefined,
      'alice lost replicas',
    );
  });

  it('removes fields a manager stops applying unless someone else owns them', async () => {
    await api(
      fx.cluster,
      'PATCH',
      `${BASE}/lbl?fieldManager=carol`,
      applied('lbl', 1, { a: '1', b: '2' }),
      APPLY,
    );
    await api(
      fx.cluster,
      'PATCH',
      `${BASE}/lbl?fieldManager=dave`,
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'lbl', labels: { b: '2' } } },
      APPLY,
    );
    const res = await api(
      fx.cluster,
      'PATCH',
      `${BASE}/lbl?fieldManager=carol`,
      applied('lbl', 1, {}),
      APPLY,
    );
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.metadata.labels, { b: '2' }, 'a is gone, b stays because dave owns it');
    const noReplicas = await api(
      fx.cluster,
      'PATCH',
      `${BASE}/lbl?fieldManager=carol`,
      { ...applied('lbl'), metadata: { name: 'lbl' } },
      APPLY,
    );
    assert.equal(noReplicas.body.spec.replicas, 1, 'a dropped field falls back to its default');
  });

  it('records Update entries for ordinary writes, named by fieldManager or the User-Agent', async () => {
    const created = await api(
      fx.cluster,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'upd' }, data: { a: '1' } },
      'application/json',
      { 'User-Agent': 'kubectl-client-side-apply/v1.32.4 (linux/amd64) kubernetes/abc' },
    );
    assert.deepEqual(
      created.body.metadata.managedFields.map((e: Entry) => [e.manager, e.operation]),
      [['kubectl-client-side-apply', 'Update']],
    );
    // An Update set holds the added map itself ("."), as kubectl create's entries show.
    assert.deepEqual(created.body.metadata.managedFields[0].fieldsV1, { 'f:data': { '.': {}, 'f:a': {} } });
    const patched = await api(
      fx.cluster,
      'PATCH',
      '/api/v1/namespaces/default/configmaps/upd?fieldManager=editor',
      { data: { a: '2', b: '3' } },
      'application/merge-patch+json',
    );
    const fields = patched.body.metadata.managedFields.map((e: Entry) => [e.manager, e.fieldsV1]);
    assert.deepEqual(
      fields,
      [
        // The creator keeps the map it added (structured-merge-diff compares leaves only).
        ['kubectl-client-side-apply', { 'f:data': {} }],
        ['editor', { 'f:data': { 'f:a': {}, 'f:b': {} } }],
      ],
      'editor took a over',
    );

    const status = await api(
      fx.cluster,
      'PATCH',
      `${BASE}/web/status?fieldManager=ctrl`,
      { status: { replicas: 1 } },
      'application/merge-patch+json',
    );
    const ctrl = status.body.metadata.managedFields.find(
      (e: Entry & { subresource?: string }) => e.manager === 'ctrl',
    );
    assert.equal(ctrl.subresource, 'status');
    assert.deepEqual(ctrl.fieldsV1, { 'f:status': { 'f:replicas': {} } });
  });

  it('takes managedFields a client sends (kubectl upgrade from client-side apply), and [{}] clears them', async () => {
    const got = await api(fx.cluster, 'GET', '/api/v1/namespaces/default/configmaps/upd');
    const renamed = got.body.metadata.managedFields.map((e: Entry, i: number) => ({
      ...e,
      manager: `renamed-${i}`,
    }));
    const patched = await api(
      fx.cluster,
      'PATCH',
      '/api/v1/namespaces/default/configmaps/upd',
      [{ op: 'replace', path: '/metadata/managedFields', value: renamed }],
      'application/json-patch+json',
    );
    assert.deepEqual(
      patched.body.metadata.managedFields.map((e: Entry) => e.manager),
      renamed.map((e: Entry) => e.manager),
    );
    const cleared = await api(
      fx.cluster,
      'PATCH',
      '/api/v1/namespaces/default/configmaps/upd',
      { metadata: { managedFields: [{}] } },
      'application/merge-patch+json',
    );
    assert.equal(cleared.body.metadata.managedFields, undefined);
  });

  it('re-applying the same configuration is a no-op', async () => {
    const a = await api(
      fx.cluster,
      'PATCH',
      `${BASE}/web?fieldManager=bob&force=true`,
      applied('web', 5),
      APPLY,
    );
    const b = await api(fx.cluster, 'PATCH', `${BASE}/web?fieldManager=bob`, applied('web', 5), APPLY);
    assert.equal(b.body.metadata.resourceVersion, a.body.metadata.resourceVersion);
  });

  it('dry-run apply does not create', async () => {
    const res = await api(
      fx.cluster,
      'PATCH',
      `${BASE}/ghost?fieldManager=x&dryRun=All`,
      applied('ghost'),
      APPLY,
    );
    assert.equal(res.status, 201);
    assert.equal((await api(fx.cluster, 'GET', `${BASE}/ghost`)).status, 404);
  });

  it('a dry-run apply conflicting with an Update manager of the same name is 409 unless forced; forced, nothing is stored', async () => {
    // A client-side apply by argocd-controller (an Update entry), then a server-side apply by the same
    // manager name: kube-apiserver keys managers by name and operation, so that is another manager.
    const created = await api(
      fx.cluster,
      'POST',
      `${BASE}?fieldManager=argocd-controller`,
      applied('csa', 2),
    );
    assert.equal(created.status, 201);
    const res = await api(
      fx.cluster,
      'PATCH',
      `${BASE}/csa?fieldManager=argocd-controller&dryRun=All`,
      applied('csa', 3),
      APPLY,
    );
    assert.equal(res.status, 409);
    assert.equal(res.body.reason, 'Conflict');
    assert.match(
      res.body.message,
      /^Apply failed with 1 conflict: conflict with "argocd-controller" using apps\/v1: \.spec\.replicas$/,
    );
    const forced = await api(
      fx.cluster,
      'PATCH',
      `${BASE}/csa?fieldManager=argocd-controller&dryRun=All&force=true`,
      applied('csa', 3),
      APPLY,
    );
    assert.equal(forced.status, 200);
    assert.equal(forced.body.spec.replicas, 3, 'the answer is the object as the forced apply makes it');
    const live = await api(fx.cluster, 'GET', `${BASE}/csa`);
    assert.equal(live.body.spec.replicas, 2, 'a dry run stores nothing');
    assert.equal(live.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
  });
});
