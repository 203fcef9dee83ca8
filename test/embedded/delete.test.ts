/**
 * Deletion: Status answers, preconditions, propagation through ownerReferences (Background, Foreground,
 * Orphan), finalizers, deletecollection, and namespace termination.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, useEmbeddedCluster, waitForDeletion, waitForModification } from '../support/embedded.js';
import type { EmbeddedCluster } from '../../src/embedded/index.js';

const CM = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

async function mkns(cluster: EmbeddedCluster, name: string): Promise<void> {
  const res = await api(cluster, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
  });
  assert.equal(res.status, 201);
}

async function owner(cluster: EmbeddedCluster, ns: string, name: string): Promise<string> {
  const res = await api(cluster, 'POST', CM(ns), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
  return res.body.metadata.uid as string;
}

async function dependent(
  cluster: EmbeddedCluster,
  ns: string,
  name: string,
  ownerName: string,
  uid: string,
): Promise<void> {
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: ownerName, uid };
  const res = await api(cluster, 'POST', CM(ns), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ownerReferences: [ref] },
  });
  assert.equal(res.status, 201);
}

const exists = async (cluster: EmbeddedCluster, ns: string, name: string) =>
  (await api(cluster, 'GET', `${CM(ns)}/${name}`)).status === 200;

describe('embedded delete', () => {
  const fx = useEmbeddedCluster();

  it('answers a Status Success with details, 404 for a missing object, 409 on failed preconditions', async () => {
    await mkns(fx.cluster, 'd1');
    const uid = await owner(fx.cluster, 'd1', 'plain');
    const wrong = await api(fx.cluster, 'DELETE', `${CM('d1')}/plain`, { preconditions: { uid: 'other' } });
    assert.equal(wrong.status, 409);
    const res = await api(fx.cluster, 'DELETE', `${CM('d1')}/plain`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'plain', group: '', kind: 'configmaps', uid },
    });
    assert.equal((await api(fx.cluster, 'DELETE', `${CM('d1')}/plain`)).status, 404);
  });

  it('Background and Foreground delete dependents recursively; Orphan strips their ownerReferences', async () => {
    const uid = await owner(fx.cluster, 'd1', 'bg');
    await dependent(fx.cluster, 'd1', 'bg-child', 'bg', uid);
    const childUid = (await api(fx.cluster, 'GET', `${CM('d1')}/bg-child`)).body.metadata.uid as string;
    await dependent(fx.cluster, 'd1', 'bg-grandchild', 'bg-child', childUid);
    await api(fx.cluster, 'DELETE', `${CM('d1')}/bg`);
    assert.equal(await exists(fx.cluster, 'd1', 'bg-child'), false);
    assert.equal(await exists(fx.cluster, 'd1', 'bg-grandchild'), false);

    const fg = await owner(fx.cluster, 'd1', 'fg');
    await dependent(fx.cluster, 'd1', 'fg-child', 'fg', fg);
    await api(fx.cluster, 'DELETE', `${CM('d1')}/fg?propagationPolicy=Foreground`);
    assert.equal(await exists(fx.cluster, 'd1', 'fg-child'), false);

    const or = await owner(fx.cluster, 'd1', 'or');
    await dependent(fx.cluster, 'd1', 'or-child', 'or', or);
    await api(fx.cluster, 'DELETE', `${CM('d1')}/or`, {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Orphan',
    });
    const orphan = await api(fx.cluster, 'GET', `${CM('d1')}/or-child`);
    assert.equal(orphan.status, 200);
    assert.equal(orphan.body.metadata.ownerReferences, undefined);
    assert.equal(
      (await api(fx.cluster, 'DELETE', `${CM('d1')}/or-child?propagationPolicy=Sideways`)).status,
      400,
    );
  });

  it('keeps an object with finalizers until the last one is removed', async () => {
    await api(fx.cluster, 'POST', CM('d1'), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'fin', finalizers: ['example.com/hold'] },
    });
    const res = await api(fx.cluster, 'DELETE', `${CM('d1')}/fin`);
    assert.equal(res.status, 200);
    assert.equal(res.body.kind, 'ConfigMap', 'the pending object is returned');
    assert.ok(res.body.metadata.deletionTimestamp);
    assert.equal(await exists(fx.cluster, 'd1', 'fin'), true);
    await api(
      fx.cluster,
      'PATCH',
      `${CM('d1')}/fin`,
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
    assert.equal(await exists(fx.cluster, 'd1', 'fin'), false);
  });

  it('deletecollection deletes what the selector matches', async () => {
    await mkns(fx.cluster, 'd2');
    for (const [name, tier] of [
      ['x', 'a'],
      ['y', 'a'],
      ['z', 'b'],
    ]) {
      await api(fx.cluster, 'POST', CM('d2'), {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, labels: { tier } },
      });
    }
    const res = await api(fx.cluster, 'DELETE', `${CM('d2')}?labelSelector=tier%3Da`);
    assert.equal(res.status, 200);
    assert.equal(res.body.items.length, 2);
    const left = await api(fx.cluster, 'GET', CM('d2'));
    assert.deepEqual(
      left.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['z'],
    );
  });

  it('deleting a namespace: Terminating with the kubernetes finalizer, creates refused, then objects and namespace go', async () => {
    await mkns(fx.cluster, 'd3');
    await owner(fx.cluster, 'd3', 'one');
    await api(fx.cluster, 'POST', '/api/v1/namespaces/d3/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
    });
    await owner(fx.cluster, 'default', 'elsewhere');
    const res = await api(fx.cluster, 'DELETE', '/api/v1/namespaces/d3');
    assert.equal(res.status, 200);
    assert.equal(res.body.status.phase, 'Terminating');
    assert.ok(res.body.metadata.deletionTimestamp);
    assert.deepEqual(res.body.spec.finalizers, ['kubernetes']);
    // Right after the DELETE the namespace is still there (the namespace controller has not run yet):
    // creates in it are 403 NamespaceTerminating, never 404.
    const during = await api(fx.cluster, 'GET', '/api/v1/namespaces/d3');
    assert.equal(during.status, 200);
    assert.equal(during.body.status.phase, 'Terminating');
    const refused = await api(fx.cluster, 'POST', CM('d3'), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'early' },
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.reason, 'Forbidden');
    assert.equal(refused.body.details.causes[0].reason, 'NamespaceTerminating');
    await waitForDeletion(fx.cluster, '/api/v1/namespaces/d3');
    assert.deepEqual((await api(fx.cluster, 'GET', '/api/v1/namespaces/d3/secrets')).body.items, []);
    assert.equal(await exists(fx.cluster, 'default', 'elsewhere'), true);
    assert.equal(
      (
        await api(fx.cluster, 'POST', CM('d3'), {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'late' },
        })
      ).status,
      404,
    );
  });

  it("a namespace whose objects have finalizers stays Terminating, with the controller's conditions, until they are released", async () => {
    await mkns(fx.cluster, 'd4');
    await api(fx.cluster, 'POST', CM('d4'), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    const deleted = await api(fx.cluster, 'DELETE', '/api/v1/namespaces/d4');
    // Wait for the namespace controller's pass: the held ConfigMap gets its deletionTimestamp.
    await waitForModification(fx.cluster, `${CM('d4')}/held`, (o) => Boolean(o.metadata.deletionTimestamp));
    const ns = await api(fx.cluster, 'GET', '/api/v1/namespaces/d4');
    assert.equal(ns.body.status.phase, 'Terminating');
    assert.equal(ns.body.metadata.deletionTimestamp, deleted.body.metadata.deletionTimestamp);
    const conditions = Object.fromEntries(
      (ns.body.status.conditions as { type: string; status: string; reason: string; message: string }[]).map(
        (c) => [c.type, [c.status, c.reason, c.message]],
      ),
    );
    assert.deepEqual(conditions, {
      NamespaceDeletionDiscoveryFailure: [
        'False',
        'ResourcesDiscovered',
        'All resources successfully discovered',
      ],
      NamespaceDeletionGroupVersionParsingFailure: [
        'False',
        'ParsedGroupVersions',
        'All legacy kube types successfully parsed',
      ],
      NamespaceDeletionContentFailure: [
        'False',
        'ContentDeleted',
        'All content successfully deleted, may be waiting on finalization',
      ],
      NamespaceContentRemaining: [
        'True',
        'SomeResourcesRemain',
        'Some resources are remaining: configmaps. has 1 resource instances',
      ],
      NamespaceFinalizersRemaining: [
        'True',
        'SomeFinalizersRemain',
        'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances',
      ],
    });
    const create = await api(fx.cluster, 'POST', CM('d4'), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'new' },
    });
    assert.equal(create.status, 403);
    await api(
      fx.cluster,
      'PATCH',
      `${CM('d4')}/held`,
      { metadata: { finalizers: [] } },
      'application/merge-patch+json',
    );
    assert.equal((await api(fx.cluster, 'GET', '/api/v1/namespaces/d4')).status, 404);
  });
});
