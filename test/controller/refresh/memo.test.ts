/**
 * ComparisonMemo (src/controller/refresh/memo.ts): a kept comparison is reused only while nothing it read changed;
 * entries nobody uses any more (deleted objects: their uid never comes back) are let go (AgedMap).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AgedMap, ComparisonMemo, MAX_ENTRIES } from '../../../src/controller/refresh/memo.js';
import { compareObjects } from '../../../src/diff/index.js';
import type { KubeObject } from '../../../src/cluster/index.js';

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

  it('forgets the comparisons of objects no longer read (deleted ones) and keeps those read each period', () => {
    let now = 0;
    const memo = new ComparisonMemo({ agePeriodMs: 1000, now: () => now });
    const schemas = {};
    const d = memo.digest(target, 'opts');
    const result = compareObjects({ target, live: live('1') });
    const of = (uid: string): KubeObject => ({ ...live('1'), metadata: { ...live('1').metadata, uid } });
    // 1,000 objects compared once (then deleted: their uids never come back), 10 compared again and again.
    for (let i = 0; i < 1000; i++) memo.set(of(`gone-${i}`), d, schemas, result);
    for (let i = 0; i < 10; i++) memo.set(of(`kept-${i}`), d, schemas, result);
    assert.equal(memo.size, 1010);
    for (let step = 0; step < 10; step++) {
      now += 900; // each kept object is read within every period
      for (let i = 0; i < 10; i++) assert.equal(memo.get(of(`kept-${i}`), d, schemas), result);
    }
    assert.equal(memo.size, 10, 'the deleted objects are gone, the ones in use stay');
    now += 2000; // then nothing for two periods
    assert.equal(memo.get(of('kept-0'), d, schemas), undefined);
    assert.equal(memo.size, 0);
  });
});

describe('AgedMap', () => {
  it('drops an entry unused for two periods, keeps one used within each, and a hit in the old generation stays', () => {
    let now = 0;
    const m = new AgedMap<number>({ agePeriodMs: 100, now: () => now });
    m.set('a', 1);
    m.set('b', 2);
    now = 150; // a turn: a and b are old now
    assert.equal(m.get('a'), 1); // back to young
    now = 250; // another turn: b, unused since 0, is gone; a (used at 150) is old
    assert.equal(m.get('b'), undefined);
    assert.equal(m.size, 1);
    assert.equal(m.get('a'), 1);
    m.delete('a');
    assert.equal(m.size, 0);
  });

  it('starts again empty past MAX_ENTRIES (the old bound stays)', () => {
    const m = new AgedMap<number>({ now: () => 0 });
    for (let i = 0; i < MAX_ENTRIES; i++) m.set(`k${i}`, i);
    assert.equal(m.size, MAX_ENTRIES);
    m.set('k0', 0); // a known key: no reset
    assert.equal(m.size, MAX_ENTRIES);
    m.set('one more', 1);
    assert.equal(m.size, 1);
  });
});
