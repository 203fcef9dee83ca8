import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, lastApplied, withLastApplied } from '../../src/sync/patch.js';
import type { KubeObject } from '../../src/common/index.js';

function deployment(containers: unknown[], extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'demo', labels: { app: 'web' } },
    spec: { replicas: 2, template: { spec: { containers } }, ...extra },
  };
}

/** The live object after a kubectl-style apply of `target`, plus server-set fields. */
function appliedLive(target: KubeObject): KubeObject {
  const live = withLastApplied(target);
  live.metadata = { ...live.metadata, uid: 'u1', resourceVersion: '7' };
  (live['spec'] as Record<string, unknown>)['progressDeadlineSeconds'] = 600;
  live['status'] = { replicas: 2 };
  return live;
}

describe('client-side apply patch', () => {
  it('is empty when the live object was applied from the same target (no request)', () => {
    const target = deployment([{ name: 'app', image: 'nginx:1' }]);
    const p = applyPatch(target, appliedLive(target), true);
    assert.equal(p.empty, true);
    assert.deepEqual(p.patch, {});
    assert.equal(p.type, 'application/strategic-merge-patch+json');
  });

  it('patches a changed field and the last-applied annotation, keeping server-set fields', () => {
    const before = deployment([{ name: 'app', image: 'nginx:1' }]);
    const after = deployment([{ name: 'app', image: 'nginx:2' }]);
    const p = applyPatch(after, appliedLive(before), true);
    const spec = p.patch['spec'] as Record<string, unknown>;
    assert.deepEqual(spec, { template: { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } } });
    assert.deepEqual(
      lastApplied({
        metadata: {
          annotations: (p.patch['metadata'] as { annotations: Record<string, string> }).annotations,
        },
      }),
      // As kubectl writes it: the annotations map is always there, empty when the object has none.
      { ...JSON.parse(JSON.stringify(after)), metadata: { ...after.metadata, annotations: {} } },
    );
  });

  it('deletes what was applied before and is gone from Git; removes list elements by merge key', () => {
    const before = deployment([
      { name: 'app', image: 'nginx:1', env: [{ name: 'A', value: '1' }] },
      { name: 'sidecar', image: 'busybox' },
    ]);
    (before.metadata!.labels as Record<string, string>)['old'] = 'x';
    const after = deployment([{ name: 'app', image: 'nginx:1' }]);
    const p = applyPatch(after, appliedLive(before), true);
    assert.deepEqual((p.patch['metadata'] as Record<string, unknown>)['labels'], { old: null });
    assert.deepEqual((p.patch['spec'] as Record<string, unknown>)['template'], {
      spec: {
        containers: [
          { name: 'app', env: null },
          { name: 'sidecar', $patch: 'delete' },
        ],
      },
    });
  });

  it('leaves fields others set alone, and replaces lists whole for custom resources', () => {
    const target: KubeObject = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { items: [1, 2] },
    };
    const live = withLastApplied({ ...target, spec: { items: [1] } });
    (live.metadata!.labels as unknown) = { 'added-by-someone': 'yes' };
    const p = applyPatch(target, live, false);
    assert.equal(p.type, 'application/merge-patch+json');
    assert.deepEqual(p.patch['spec'], { items: [1, 2] });
    assert.equal((p.patch['metadata'] as Record<string, unknown>)['labels'], undefined);
  });

  it('treats a live object without last-applied as having no original (nothing deleted)', () => {
    const target = deployment([{ name: 'app', image: 'nginx:1' }]);
    const live = structuredClone(target);
    (live.metadata!.labels as Record<string, string>)['manual'] = 'yes';
    const p = applyPatch(target, live, true);
    assert.deepEqual(Object.keys(p.patch), ['metadata']);
    assert.equal((p.patch['metadata'] as { labels?: unknown }).labels, undefined);
  });
});

describe('client-side apply patch: Secrets', () => {
  it('compares stringData as the data the server stores, so an unchanged Secret patches nothing', () => {
    const target: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      stringData: { pw: 'x' },
    };
    const live = withLastApplied(target);
    delete live['stringData'];
    live['data'] = { pw: Buffer.from('x').toString('base64') };
    assert.equal(applyPatch(target, live, true).empty, true);
    const changed = applyPatch({ ...target, stringData: { pw: 'y' } }, live, true);
    assert.deepEqual(changed.patch['data'], { pw: Buffer.from('y').toString('base64') });
    assert.equal(changed.patch['stringData'], undefined);
  });
});
