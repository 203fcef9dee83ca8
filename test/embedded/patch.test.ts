/**
 * The patch formats: JSON merge patch, JSON patch and strategic merge patch (list merge keys and
 * directives), as pure functions and through the server (including 415 for strategic merge on custom
 * resources, and stale resourceVersions in a patch).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jsonPatch, mergePatch } from '../../src/embedded/patch.js';
import { strategicMergePatch as smp } from '../../src/embedded/strategic-merge-patch.js';
import { builtinCatalog } from '../../src/schema/index.js';
import type { Json } from '../../src/embedded/types.js';
import { api, useEmbeddedCluster } from '../support/embedded.js';

const schemas = builtinCatalog();
const POD_SPEC = schemas.definition('io.k8s.api.core.v1.PodSpec');
const DEPLOYMENT = schemas.schemaFor({ group: 'apps', version: 'v1', kind: 'Deployment' });
/** Strategic merge patch of a PodSpec, with the published PodSpec schema. */
const strategicMergePatch = (target: Json, patch: Json): Json => smp(target, patch, schemas, POD_SPEC);

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
        // A new item with no live neighbour to follow goes first (mergeSortedSlice): [443, 80].
        ports: [{ containerPort: 443 }, { containerPort: 80 }],
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
      { name: 'cache', emptyDir: {} },
      { name: 'data', emptyDir: {} },
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
    const out = smp(
      {
        metadata: { finalizers: ['x', 'y'] },
        spec: {
          template: { spec: { containers: [{ name: 'a' }, { name: 'b' }] } },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
        },
      },
      {
        metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] },
        spec: {
          template: { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }] } },
          strategy: { $retainKeys: ['type'], type: 'Recreate' },
        },
      },
      schemas,
      DEPLOYMENT,
    ) as {
      metadata: Record<string, Json>;
      spec: { template: { spec: Record<string, Json> } } & Record<string, Json>;
    };
    assert.deepEqual(out.spec.template.spec['containers'], [{ name: 'b' }, { name: 'a' }]);
    assert.deepEqual(out.metadata['finalizers'], ['y']);
    assert.deepEqual(out.spec['strategy'], { type: 'Recreate' });
  });
});

// Order of merged lists, from apimachinery strategicpatch/patch.go normalizeElementOrder and mergeSortedSlice:
// patch items keep the patch order, server-only items keep the live order and are placed before the first
// patch item that comes later in the live list; items the live list does not know come first.
describe("strategic merge patch: the real server's list order", () => {
  const env = (...names: string[]): Json => ({
    containers: [{ name: 'c', env: names.map((name) => ({ name })) }],
  });
  const names = (out: Json): string[] =>
    ((out as { containers: Array<{ env: Array<{ name: string }> }> }).containers[0]!.env ?? []).map(
      (e) => e.name,
    );

  it('interleaves server-only items by live order, new items before the rest', () => {
    assert.deepEqual(names(strategicMergePatch(env('a', 'b', 'c'), env('b', 'd'))), ['a', 'b', 'd', 'c']);
    assert.deepEqual(names(strategicMergePatch(env('a', 'b', 'c'), env('c', 'a'))), ['b', 'c', 'a']);
    assert.deepEqual(names(strategicMergePatch(env('a', 'b'), env('z'))), ['z', 'a', 'b']);
  });

  it('$setElementOrder orders patch items by the directive, server-only ones by live order', () => {
    const out = strategicMergePatch(env('a', 'b', 'c'), {
      containers: [
        {
          name: 'c',
          '$setElementOrder/env': [{ name: 'c' }, { name: 'x' }, { name: 'a' }],
          env: [{ name: 'x' }],
        },
      ],
    });
    // b (live index 1) is placed before c (live index 2), the first patch item later in the live list.
    assert.deepEqual(names(out), ['b', 'c', 'x', 'a']);
  });

  it('merges primitive lists with patchStrategy merge as sets and deletes with $deleteFromPrimitiveList', () => {
    const meta = schemas.definition('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    assert.deepEqual(smp({ finalizers: ['a', 'b'] }, { finalizers: ['b', 'c'] }, schemas, meta), {
      finalizers: ['a', 'b', 'c'],
    });
    assert.deepEqual(
      smp({ finalizers: ['a', 'b'] }, { '$deleteFromPrimitiveList/finalizers': ['a'] }, schemas, meta),
      { finalizers: ['b'] },
    );
    // args has no patch strategy: replaced whole.
    assert.deepEqual(
      strategicMergePatch(
        { containers: [{ name: 'c', args: ['1', '2'] }] },
        { containers: [{ name: 'c', args: ['3'] }] },
      ),
      {
        containers: [{ name: 'c', args: ['3'] }],
      },
    );
  });

  it('rejects bad directives as the real server does', () => {
    assert.throws(() => strategicMergePatch(podSpec(), { containers: [{ image: 'no-name' }] }), {
      code: 500,
    });
    assert.throws(() => strategicMergePatch(podSpec(), { nodeSelector: { $retainKeys: 'x' } }), {
      code: 400,
    });
    assert.throws(() => strategicMergePatch(podSpec(), { containers: [{ name: 'app', $patch: 'merge' }] }), {
      code: 500,
    });
  });

  it('$patch delete on a map of strings leaves no empty map; directives never reach storage', () => {
    const out = strategicMergePatch(podSpec(), {
      nodeSelector: { disk: null, zone: null },
      initContainers: [{ name: 'init', $patch: 'delete' }],
    }) as Record<string, Json>;
    assert.equal(out['nodeSelector'], undefined);
    assert.deepEqual(out['initContainers'], [{ name: 'init' }]);
  });
});

// evanphx/json-patch (the library kube-apiserver applies JSON patches with) differs from RFC 6902 here.
describe('JSON patch as kube-apiserver applies it', () => {
  it('replace of a missing object key adds it; of a missing index fails', () => {
    assert.deepEqual(jsonPatch({ a: 1 }, [{ op: 'replace', path: '/b', value: 2 }]), { a: 1, b: 2 });
    assert.throws(() => jsonPatch({ l: [1] }, [{ op: 'replace', path: '/l/1', value: 2 }]), { code: 422 });
  });

  it('test of a missing path passes for null; negative indexes count from the end', () => {
    assert.deepEqual(jsonPatch({ a: 1 }, [{ op: 'test', path: '/b', value: null }]), { a: 1 });
    assert.deepEqual(jsonPatch({ l: [1, 2, 3] }, [{ op: 'remove', path: '/l/-1' }]), { l: [1, 2] });
    assert.deepEqual(
      jsonPatch({ a: { x: 1, y: [1] } }, [{ op: 'test', path: '/a', value: { y: [1], x: 1 } }]),
      {
        a: { x: 1, y: [1] },
      },
    );
  });

  it('an unknown op fails with 422 when applied; a body that is not a list is 400', () => {
    assert.throws(() => jsonPatch({}, [{ op: 'frob', path: '/a' }]), {
      code: 422,
      message: /Unexpected kind: frob/,
    });
    assert.throws(() => jsonPatch({}, { op: 'add' }), { code: 400 });
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
