/** ComparisonMemo (src/controller/memo.ts): a kept comparison is reused only while nothing it read changed. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ComparisonMemo } from '../../src/controller/memo.js';
import { compareObjects } from '../../src/diff/index.js';
import type { KubeObject } from '../../src/cluster/index.js';

const target: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'ns' },
  data: { k: 'v' },
};
const live = (rv: string, data = { k: 'v' }): KubeObject => ({
  ...target,
  metadata: { ...target.metadata, uid: 'u-1', resourceVersion: rv },
  data,
});

describe('comparison memo', () => {
  it('reuses a Synced comparison while live resourceVersion, target, options and schemas are the same', () => {
    const memo = new ComparisonMemo();
    const schemas = {};
    const d = memo.digest(target, 'opts');
    const result = compareObjects({ target, live: live('1') });
    assert.equal(result.status, 'Synced');
    assert.equal(memo.get(live('1'), d, schemas), undefined);
    memo.set(live('1'), d, schemas, result);
    assert.equal(memo.get(live('1'), d, schemas), result);
    assert.equal(memo.get(live('2'), d, schemas), undefined, 'live written since');
    assert.equal(
      memo.get(live('1'), memo.digest(target, 'other opts'), schemas),
      undefined,
      'options changed',
    );
    const changed = { ...target, data: { k: 'w' } };
    assert.equal(memo.get(live('1'), memo.digest(changed, 'opts'), schemas), undefined, 'target changed');
    assert.equal(memo.get(live('1'), d, {}), undefined, 'new schemas (a CRD changed)');
    assert.equal(memo.hits, 1);
  });

  it('keeps no difference: an OutOfSync comparison forgets the kept one', () => {
    const memo = new ComparisonMemo();
    const schemas = {};
    const d = memo.digest(target, 'opts');
    memo.set(live('1'), d, schemas, compareObjects({ target, live: live('1') }));
    const drifted = live('1', { k: 'drifted' });
    const out = compareObjects({ target, live: drifted });
    assert.equal(out.status, 'OutOfSync');
    memo.set(drifted, d, schemas, out);
    assert.equal(memo.get(drifted, d, schemas), undefined);
    assert.equal(memo.size, 0);
  });

  it('keeps nothing for an object without uid or resourceVersion', () => {
    const memo = new ComparisonMemo();
    memo.set(target, 'd', {}, compareObjects({ target, live: target }));
    assert.equal(memo.size, 0);
  });
});
