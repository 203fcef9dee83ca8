/**
 * The patch formats: JSON merge patch, JSON patch and strategic merge patch (list merge keys and
 * directives), as pure functions and through the server (including 415 for strategic merge on custom
 * resources, and stale resourceVersions in a patch).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jsonPatch, mergePatch, strategicMergePatch } from '../../src/embedded/patch.js';
import type { Json } from '../../src/embedded/types.js';
import { api, useEmbeddedCluster } from '../support/embedded.js';

const podSpec = (): Json => ({
  containers: [
    {
      name: 'app',
      image: 'app:1',
      env: [
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ],
      ports: [{ containerPort: 80 }],
    },
    { name: 'side', image: 'side:1', volumeMounts: [{ mountPath: '/data', name: 'data' }] },
  ],
  volumes: [{ name: 'data', emptyDir: {} }],
  nodeSelector: { disk: 'ssd', zone: 'a' },
  tolerations: [{ key: 'x' }],
});

describe('JSON merge patch', () => {
  it('merges maps, deletes on null, replaces lists', () => {
    const out = mergePatch({ a: { b: 1, c: 2 }, l: [1, 2], keep: true }, { a: { b: null, d: 3 }, l: [3] });
    assert.deepEqual(out, { a: { c: 2, d: 3 }, l: [3], keep: true });
  });
});

describe('JSON patch', () => {
  it('applies add, remove, replace, move, copy and test', () => {
    const doc = { a: { b: [1, 2] }, c: 'x', 'k/e~y': 1 };
    const out = jsonPatch(doc, [
      { op: 'add', path: '/a/b/-', value: 3 },
      { op: 'add', path: '/a/b/0', value: 0 },
      { op: 'remove', path: '/k~1e~0y' },
      { op: 'replace', path: '/c', value: 'y' },
      { op: 'copy', from: '/c', path: '/d' },
      { op: 'move', from: '/d', path: '/e' },
      { op: 'test', path: '/e', value: 'y' },
    ]);
    assert.deepEqual(out, { a: { b: [0, 1, 2, 3] }, c: 'y', e: 'y' });
    assert.deepEqual(doc, { a: { b: [1, 2] }, c: 'x', 'k/e~y': 1 }, 'the input is not changed');
  });

  it('fails a test op or a missing path with 422', () => {
    assert.throws(() => jsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }]), { code: 422 });
    assert.throws(() => jsonPatch({ a: 1 }, [{ op: 'remove', path: '/b' }]), { code: 422 });
    assert.throws(() => jsonPatch({ a: 1 }, [{ op: 'replace', path: '/x/y', value: 1 }]), { code: 422 });
  });
});

describe('strategic merge patch', () => {
  it('merges containers by name, env by name, ports by containerPort, volumeMounts by mountPath', () => {
    const out = strategicMergePatch(podSpec(), {
      containers: [
        {
          name: 'app',
          image: 'app:2',
          env: [
            { name: 'B', value: '3' },
            { name: 'C', value: '4' },
          ],
          ports: [{ containerPort: 443 }],
        },
        { name: 'side', volumeMounts: [{ mountPath: '/data', readOnly: true }] },
      ],
    }) as { containers: Json[] };
    assert.deepEqual(out.containers, [
      {
        name: 'app',
        image: 'app:2',
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '3' },
          { name: 'C', value: '4' },
        ],
        ports: [{ containerPort: 80 }, { containerPort: 443 }],
      },
      { name: 'side', image: 'side:1', volumeMounts: [{ mountPath: '/data', name: 'data', readOnly: true }] },
    ]);
  });

  it('honours $patch delete in lists and maps, $patch replace, null, and replaces atomic lists', () => {
    const out = strategicMergePatch(podSpec(), {
      containers: [{ name: 'side', $patch: 'delete' }],
      volumes: [{ name: 'cache', emptyDir: {} }],
      nodeSelector: { $patch: 'replace', zone: 'b' },
      tolerations: [{ key: 'y' }],
    }) as Record<string, Json>;
    assert.deepEqual(
      (out['containers'] as Array<{ name: string }>).map((c) => c.name),
      ['app'],
    );
    assert.deepEqual(out['volumes'], [
      { name: 'data', emptyDir: {} },
      { name: 'cache', emptyDir: {} },
    ]);
    assert.deepEqual(out['nodeSelector'], { zone: 'b' });
    assert.deepEqual(out['tolerations'], [{ key: 'y' }]);
    const gone = strategicMergePatch(podSpec(), {
      nodeSelector: { $patch: 'delete' },
      volumes: null,
    }) as Record<string, Json>;
    assert.equal(gone['nodeSelector'], undefined);
    assert.equal(gone['volumes'], undefined);
  });

  it('applies $setElementOrder, $deleteFromPrimitiveList and $retainKeys as kubectl sends them', () => {
    const out = strategicMergePatch(
      {
        containers: [{ name: 'a' }, { name: 'b' }],
        finalizers: ['x', 'y'],
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
      },
      {
        '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }],
        '$deleteFromPrimitiveList/finalizers': ['x'],
        strategy: { $retainKeys: ['type'], type: 'Recreate' },
      },
    ) as Record<string, Json>;
    assert.deepEqual(out['containers'], [{ name: 'b' }, { name: 'a' }]);
    assert.deepEqual(out['finalizers'], ['y']);
    assert.deepEqual(out['strategy'], { type: 'Recreate' });
  });
});

describe('PATCH through the server', () => {
  const fx = useEmbeddedCluster();
  const path = '/apis/apps/v1/namespaces/default/deployments/web';

  it('accepts the three patch types on a Deployment and rejects unknown ones with 415', async () => {
    await api(fx.cluster, 'POST', '/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: podSpec() },
      },
    });
    const smp = await api(
      fx.cluster,
      'PATCH',
      path,
      { spec: { template: { spec: { containers: [{ name: 'app', image: 'app:9' }] } } } },
      'application/strategic-merge-patch+json',
    );
    assert.equal(smp.status, 200);
    assert.deepEqual(
      smp.body.spec.template.spec.containers.map((c: { image: string }) => c.image),
      ['app:9', 'side:1'],
    );
    const merge = await api(
      fx.cluster,
      'PATCH',
      path,
      { spec: { template: { spec: { containers: [{ name: 'only', image: 'only:1' }] } } } },
      'application/merge-patch+json',
    );
    assert.deepEqual(
      merge.body.spec.template.spec.containers.map((c: { name: string }) => c.name),
      ['only'],
    );
    const json = await api(
      fx.cluster,
      'PATCH',
      path,
      [{ op: 'replace', path: '/spec/replicas', value: 4 }],
      'application/json-patch+json',
    );
    assert.equal(json.body.spec.replicas, 4);
    const failed = await api(
      fx.cluster,
      'PATCH',
      path,
      [{ op: 'test', path: '/spec/replicas', value: 5 }],
      'application/json-patch+json',
    );
    assert.equal(failed.status, 422);
    const unknown = await api(fx.cluster, 'PATCH', path, {}, 'text/plain');
    assert.equal(unknown.status, 415);
    assert.equal(
      (await api(fx.cluster, 'PATCH', `${path}-missing`, {}, 'application/merge-patch+json')).status,
      404,
    );
  });

  it('treats a stale resourceVersion in a patch as a conflict', async () => {
    const res = await api(
      fx.cluster,
      'PATCH',
      path,
      { metadata: { resourceVersion: '1' }, spec: { replicas: 2 } },
      'application/merge-patch+json',
    );
    assert.equal(res.status, 409);
    assert.equal(res.body.reason, 'Conflict');
  });

  it('refuses strategic merge patch on custom resources, like a real server', async () => {
    await api(fx.cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Cluster',
        names: { plural: 'things', kind: 'Thing' },
        versions: [{ name: 'v1', served: true, storage: true }],
      },
    });
    await api(fx.cluster, 'POST', '/apis/example.com/v1/things', {
      apiVersion: 'example.com/v1',
      kind: 'Thing',
      metadata: { name: 't' },
      spec: { a: 1 },
    });
    const smp = await api(
      fx.cluster,
      'PATCH',
      '/apis/example.com/v1/things/t',
      { spec: { b: 2 } },
      'application/strategic-merge-patch+json',
    );
    assert.equal(smp.status, 415);
    const merge = await api(
      fx.cluster,
      'PATCH',
      '/apis/example.com/v1/things/t',
      { spec: { b: 2 } },
      'application/merge-patch+json',
    );
    assert.deepEqual(merge.body.spec, { a: 1, b: 2 });
    assert.equal(merge.body.metadata.generation, 2);
  });
});
