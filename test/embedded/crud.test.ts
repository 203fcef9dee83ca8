/**
 * CRUD with the real server's metadata and errors: resourceVersion, uid, generation, Status objects for
 * 404/409/422, namespaces that must exist, the status subresource, no-op writes, dry-run, and lists with
 * selectors and paging.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, useEmbeddedCluster } from '../support/embedded.js';
import { preserveUnknownFieldsCrd } from '../support/crds.js';

const CM = '/api/v1/namespaces/default/configmaps';
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';

const cm = (
  name: string,
  labels: Record<string, string> = {},
  data: Record<string, string> = { a: '1' },
) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data,
});

const deployment = (name: string, image = 'nginx:1.25', replicas?: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    ...(replicas !== undefined ? { replicas } : {}),
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image }] } },
  },
});

describe('embedded CRUD', () => {
  const fx = useEmbeddedCluster();

  it('create stamps uid, creationTimestamp and a resourceVersion from one global counter', async () => {
    const a = await api(fx.cluster, 'POST', CM, cm('rv-a'));
    const b = await api(fx.cluster, 'POST', CM, cm('rv-b'));
    assert.equal(a.status, 201);
    assert.match(a.body.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(a.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(Number(b.body.metadata.resourceVersion), Number(a.body.metadata.resourceVersion) + 1);
    assert.equal(a.body.metadata.generation, undefined, 'ConfigMaps carry no generation');
    const got = await api(fx.cluster, 'GET', `${CM}/rv-a`);
    assert.deepEqual(got.body, a.body);
  });

  it('reports errors as Status objects: NotFound, AlreadyExists, Conflict, Invalid', async () => {
    const missing = await api(fx.cluster, 'GET', `${CM}/nope`);
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "nope" not found',
      reason: 'NotFound',
      code: 404,
      details: { name: 'nope', group: '', kind: 'configmaps' },
    });
    await api(fx.cluster, 'POST', CM, cm('dup'));
    const dup = await api(fx.cluster, 'POST', CM, cm('dup'));
    assert.equal(dup.status, 409);
    assert.equal(dup.body.reason, 'AlreadyExists');
    assert.equal(dup.body.message, 'configmaps "dup" already exists');
    // An invalid object is refused as invalid even when its name is taken: kube-apiserver validates a
    // create before its storage looks for the name (registry/generic/registry/store.go Create).
    const invalidDup = await api(fx.cluster, 'POST', `${CM}?dryRun=All`, {
      ...cm('dup'),
      metadata: { name: 'dup', labels: { bad: 'not a label value!' } },
    });
    assert.equal(invalidDup.status, 422, JSON.stringify(invalidDup.body));
    assert.equal(invalidDup.body.reason, 'Invalid');

    const first = await api(fx.cluster, 'GET', `${CM}/dup`);
    const ok = await api(fx.cluster, 'PUT', `${CM}/dup`, { ...first.body, data: { a: '2' } });
    assert.equal(ok.status, 200);
    const stale = await api(fx.cluster, 'PUT', `${CM}/dup`, { ...first.body, data: { a: '3' } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, 'Conflict');
    assert.match(
      stale.body.message,
      /^Operation cannot be fulfilled on configmaps "dup": the object has been modified/,
    );

    const bad = await api(fx.cluster, 'POST', CM, cm('Not_Valid'));
    assert.equal(bad.status, 422);
    assert.equal(bad.body.reason, 'Invalid');
    assert.equal(bad.body.details.causes[0].field, 'metadata.name');
    const badDeploy = await api(fx.cluster, 'POST', DEPLOY, {
      ...deployment('mismatch'),
      spec: { ...deployment('mismatch').spec, selector: { matchLabels: { app: 'other' } } },
    });
    assert.equal(badDeploy.status, 422);
    assert.match(badDeploy.body.message, /selector` does not match template `labels`/);
  });

  it('requires the namespace of a namespaced object to exist, and the body to match the URL', async () => {
    const res = await api(fx.cluster, 'POST', '/api/v1/namespaces/ghost/configmaps', cm('x'));
    assert.equal(res.status, 404);
    assert.equal(res.body.message, 'namespaces "ghost" not found');
    const wrongNs = await api(fx.cluster, 'POST', CM, {
      ...cm('y'),
      metadata: { name: 'y', namespace: 'kube-system' },
    });
    assert.equal(wrongNs.status, 400);
    const wrongKind = await api(fx.cluster, 'POST', CM, { ...cm('z'), kind: 'Secret' });
    assert.equal(wrongKind.status, 400);
    const withRv = await api(fx.cluster, 'POST', CM, {
      ...cm('rv'),
      metadata: { name: 'rv', resourceVersion: '5' },
    });
    assert.equal(withRv.body.message, 'resourceVersion should not be set on objects to be created');
  });

  it('generateName makes a unique name', async () => {
    const res = await api(fx.cluster, 'POST', CM, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { generateName: 'gen-' },
    });
    assert.equal(res.status, 201);
    assert.match(res.body.metadata.name, /^gen-[a-z0-9]{5}$/);
  });

  it('bumps generation on spec changes only, and ignores status on main-resource writes', async () => {
    const created = await api(fx.cluster, 'POST', DEPLOY, { ...deployment('gen'), status: { replicas: 9 } });
    assert.equal(created.body.metadata.generation, 1);
    assert.deepEqual(created.body.status, {}, 'status sent on create is dropped (an empty status is served)');
    const labelled = await api(
      fx.cluster,
      'PATCH',
      `${DEPLOY}/gen`,
      { metadata: { labels: { x: 'y' } } },
      'application/merge-patch+json',
    );
    assert.equal(labelled.body.metadata.generation, 1);
    const scaled = await api(
      fx.cluster,
      'PATCH',
      `${DEPLOY}/gen`,
      { spec: { replicas: 3 }, status: { replicas: 5 } },
      'application/merge-patch+json',
    );
    assert.equal(scaled.body.metadata.generation, 2);
    assert.deepEqual(scaled.body.status, {}, 'status in a main-resource patch is ignored');

    const status = await api(fx.cluster, 'PUT', `${DEPLOY}/gen/status`, {
      ...scaled.body,
      spec: { ...scaled.body.spec, replicas: 10 },
      status: { replicas: 3, observedGeneration: 2 },
    });
    assert.equal(status.status, 200);
    assert.deepEqual(status.body.status, { replicas: 3, observedGeneration: 2 });
    assert.equal(status.body.spec.replicas, 3, 'a status write changes only status');
    assert.equal(status.body.metadata.generation, 2);
    const patched = await api(
      fx.cluster,
      'PATCH',
      `${DEPLOY}/gen/status`,
      { status: { readyReplicas: 3 } },
      'application/merge-patch+json',
    );
    assert.deepEqual(patched.body.status, { replicas: 3, observedGeneration: 2, readyReplicas: 3 });
    assert.equal(
      (await api(fx.cluster, 'GET', `${CM}/rv-a/status`)).status,
      404,
      'no status subresource on ConfigMaps',
    );
  });

  it('serves the scale subresource of Deployments as an autoscaling/v1 Scale', async () => {
    await api(fx.cluster, 'POST', DEPLOY, deployment('scaled', 'nginx:1', 2));
    const scale = await api(fx.cluster, 'GET', `${DEPLOY}/scaled/scale`);
    assert.equal(scale.body.kind, 'Scale');
    assert.deepEqual(scale.body.spec, { replicas: 2 });
    assert.equal(scale.body.status.selector, 'app=scaled');
    const patched = await api(
      fx.cluster,
      'PATCH',
      `${DEPLOY}/scaled/scale`,
      { spec: { replicas: 4 } },
      'application/merge-patch+json',
    );
    assert.equal(patched.body.spec.replicas, 4);
    const put = await api(fx.cluster, 'PUT', `${DEPLOY}/scaled/scale`, {
      ...patched.body,
      spec: { replicas: 6 },
    });
    assert.equal(put.body.spec.replicas, 6);
    const stale = await api(fx.cluster, 'PUT', `${DEPLOY}/scaled/scale`, {
      ...patched.body,
      spec: { replicas: 1 },
    });
    assert.equal(stale.status, 409);
    const got = await api(fx.cluster, 'GET', `${DEPLOY}/scaled`);
    assert.equal(got.body.spec.replicas, 6);
    assert.equal(got.body.metadata.generation, 3);
    assert.equal((await api(fx.cluster, 'GET', `${CM}/rv-a/scale`)).status, 404);
  });

  it('a write that changes nothing keeps the resourceVersion', async () => {
    const created = await api(fx.cluster, 'POST', CM, cm('noop'));
    const same = await api(
      fx.cluster,
      'PATCH',
      `${CM}/noop`,
      { data: { a: '1' } },
      'application/merge-patch+json',
    );
    assert.equal(same.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
    const put = await api(fx.cluster, 'PUT', `${CM}/noop`, created.body);
    assert.equal(put.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
  });

  it('dryRun=All returns the result of create, update, patch and delete without storing it', async () => {
    const before = await api(fx.cluster, 'POST', CM, cm('dry'));
    const rv = before.body.metadata.resourceVersion;
    const created = await api(fx.cluster, 'POST', `${CM}?dryRun=All`, cm('dry-new'));
    assert.equal(created.status, 201);
    assert.equal(created.body.metadata.name, 'dry-new');
    assert.equal((await api(fx.cluster, 'GET', `${CM}/dry-new`)).status, 404);
    const updated = await api(fx.cluster, 'PUT', `${CM}/dry?dryRun=All`, {
      ...before.body,
      data: { a: 'u' },
    });
    assert.equal(updated.body.data.a, 'u');
    const patched = await api(
      fx.cluster,
      'PATCH',
      `${CM}/dry?dryRun=All`,
      { data: { a: 'p' } },
      'application/merge-patch+json',
    );
    assert.equal(patched.body.data.a, 'p');
    const deleted = await api(fx.cluster, 'DELETE', `${CM}/dry?dryRun=All`);
    assert.equal(deleted.status, 200);
    const after = await api(fx.cluster, 'GET', `${CM}/dry`);
    assert.deepEqual(after.body.data, { a: '1' });
    assert.equal(after.body.metadata.resourceVersion, rv);
    const list = await api(fx.cluster, 'GET', CM);
    assert.equal(list.body.metadata.resourceVersion, rv, 'no resourceVersion was used');
    // An unsupported dryRun value is 422 Invalid with a cause (apimachinery ValidateDryRun).
    const bad = await api(fx.cluster, 'POST', `${CM}?dryRun=Some`, cm('dry-bad'));
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.details.causes, [
      {
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: []string{"Some"}: supported values: "All"',
        field: 'dryRun',
      },
    ]);
  });

  it('merges Secret stringData into base64 data', async () => {
    const res = await api(fx.cluster, 'POST', '/api/v1/namespaces/default/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { keep: Buffer.from('k').toString('base64'), over: 'eA==' },
      stringData: { over: 'plain', added: 'text' },
    });
    assert.equal(res.body.type, 'Opaque');
    assert.equal(res.body.stringData, undefined);
    assert.deepEqual(res.body.data, { keep: 'aw==', over: 'cGxhaW4=', added: 'dGV4dA==' });
  });

  it('lists with label and field selectors, cluster-wide, and pages with limit/continue', async () => {
    await api(fx.cluster, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'sel' },
    });
    const base = '/api/v1/namespaces/sel/configmaps';
    await api(fx.cluster, 'POST', base, cm('one', { tier: 'web', env: 'prod' }));
    await api(fx.cluster, 'POST', base, cm('two', { tier: 'db', env: 'prod' }));
    await api(fx.cluster, 'POST', base, cm('three', { tier: 'web' }));
    await api(fx.cluster, 'POST', base, cm('four', {}));
    const names = async (q: string): Promise<string[]> => {
      const res = await api(fx.cluster, 'GET', `${base}?${q}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    };
    const sel = (s: string) => `labelSelector=${encodeURIComponent(s)}`;
    assert.deepEqual(await names(sel('tier=web')), ['one', 'three']);
    assert.deepEqual(await names(sel('tier==web,env=prod')), ['one']);
    assert.deepEqual(await names(sel('tier!=web')), ['four', 'two']);
    assert.deepEqual(await names(sel('tier in (db, web),!env')), ['three']);
    assert.deepEqual(await names(sel('tier notin (web)')), ['four', 'two']);
    assert.deepEqual(await names(sel('env')), ['one', 'two']);
    assert.deepEqual(await names(`fieldSelector=${encodeURIComponent('metadata.name=two')}`), ['two']);
    assert.deepEqual(
      await names(`fieldSelector=${encodeURIComponent('metadata.name!=two,metadata.namespace=sel')}`),
      ['four', 'one', 'three'],
    );
    const badField = await api(fx.cluster, 'GET', `${base}?fieldSelector=spec.x%3Dy`);
    assert.equal(badField.status, 400);
    const badLabel = await api(fx.cluster, 'GET', `${base}?labelSelector=${encodeURIComponent('a in b')}`);
    assert.equal(badLabel.status, 400);

    const page1 = await api(fx.cluster, 'GET', `${base}?limit=3`);
    assert.equal(page1.body.kind, 'ConfigMapList');
    assert.equal(page1.body.items.length, 3);
    assert.equal(page1.body.metadata.remainingItemCount, 1);
    assert.equal(page1.body.items[0].kind, undefined, 'typed list items carry no kind, as on a real server');
    // A change between pages: every page still carries the first page's resourceVersion (etcd serves
    // pages at the token's revision), so a watch from it replays the change.
    const listedAt = page1.body.metadata.resourceVersion as string;
    await api(
      fx.cluster,
      'PATCH',
      `${base}/${page1.body.items[0].metadata.name}`,
      { data: { moved: 'yes' } },
      'application/merge-patch+json',
    );
    const page2 = await api(
      fx.cluster,
      'GET',
      `${base}?limit=3&continue=${encodeURIComponent(page1.body.metadata.continue)}`,
    );
    assert.equal(page2.body.metadata.resourceVersion, listedAt);
    assert.deepEqual(
      page2.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['two'],
    );
    assert.equal(page2.body.metadata.continue, undefined);
    // A selector hides remainingItemCount (etcd3 store GetList counts objects the selector would drop),
    // while limit/continue still page.
    const selected = await api(fx.cluster, 'GET', `${base}?limit=1&${sel('tier')}`);
    assert.equal(selected.body.items.length, 1);
    assert.ok(selected.body.metadata.continue, 'more selected items to page through');
    assert.equal(selected.body.metadata.remainingItemCount, undefined);

    const all = await api(fx.cluster, 'GET', `/api/v1/configmaps?${sel('tier')}`);
    assert.deepEqual(
      all.body.items.map((i: { metadata: { namespace: string } }) => i.metadata.namespace),
      ['sel', 'sel', 'sel'],
    );
    assert.equal(typeof all.body.metadata.resourceVersion, 'string');
  });

  it('stores no empty labels, annotations, finalizers or ownerReferences (ObjectMeta omitempty), custom resources too', async () => {
    const empty = { labels: {}, annotations: {}, finalizers: [], ownerReferences: [] };
    const created = await api(fx.cluster, 'POST', CM, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'bare', ...empty },
      data: { a: '1' },
    });
    assert.equal(created.status, 201);
    for (const k of Object.keys(empty)) assert.equal(created.body.metadata[k], undefined, k);
    // A patch that removes the last label leaves no empty map either.
    await api(
      fx.cluster,
      'PATCH',
      `${CM}/bare`,
      { metadata: { labels: { a: 'b' } } },
      'application/merge-patch+json',
    );
    const unlabelled = await api(
      fx.cluster,
      'PATCH',
      `${CM}/bare`,
      { metadata: { labels: { a: null } } },
      'application/merge-patch+json',
    );
    assert.equal(unlabelled.body.metadata.labels, undefined);
    const crd = await api(
      fx.cluster,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      preserveUnknownFieldsCrd('example.com', 'Thing'),
    );
    assert.equal(crd.status, 201);
    const cr = await api(fx.cluster, 'POST', '/apis/example.com/v1/namespaces/default/things', {
      apiVersion: 'example.com/v1',
      kind: 'Thing',
      metadata: { name: 't', ...empty },
      spec: { settings: {} },
    });
    assert.equal(cr.status, 201, JSON.stringify(cr.body));
    for (const k of Object.keys(empty)) assert.equal(cr.body.metadata[k], undefined, k);
    assert.deepEqual(cr.body.spec, { settings: {} }, 'only metadata is typed: an empty map in spec stays');
  });
});
