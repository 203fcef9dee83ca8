/**
 * The comparison memo on disk (src/controller/refresh/disk-memo.ts, issue 31): a verdict is reused only
 * while every input it was made from is the same (target, live uid and resourceVersion, options, schemas,
 * our code), a run with the memo reports exactly what a run without it reports, and the file is
 * owner-only, bounded and dropped when our code changes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { ClusterConnection, KubeObject } from '../../../src/cluster/index.js';
import { StateManager } from '../../../src/controller/index.js';
import { DiskComparisonMemo } from '../../../src/controller/refresh/disk-memo.js';
import { compareObjects } from '../../../src/diff/index.js';
import { createSourceService } from '../../../src/source/index.js';
import { useEmbeddedCluster } from '../../support/embedded.js';
import { TestRepo, tempDir } from '../../support/git.js';
import {
  application,
  applyObjects,
  connectAs,
  createNamespaces,
  newCacheRoot,
  ownClusterState,
  renderObjects,
} from '../setup.js';

const target: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'ns' },
  data: { k: 'v' },
};
const live = (rv: string, uid = 'u-1', data = { k: 'v' }): KubeObject => ({
  ...target,
  metadata: { ...target.metadata, uid, resourceVersion: rv },
  data,
});

describe('comparison memo on disk', () => {
  it('answers only for the same target, live uid and resourceVersion, options, schemas and code', () => {
    const dir = join(tempDir('kg-disk-memo-'), 'comparisons');
    const memo = new DiskComparisonMemo(dir, { stamp: 'code-1' });
    const synced = compareObjects({ target, live: live('1') });
    assert.equal(synced.status, 'Synced');
    const key = memo.key(target, live('1'), 'opts', 'schemas-1')!;
    assert.equal(memo.get(key), undefined);
    memo.set(key, synced, true);
    memo.save();

    const again = new DiskComparisonMemo(dir, { stamp: 'code-1' });
    const k = (t: KubeObject, l: KubeObject, scope = 'opts', schemas = 'schemas-1') =>
      again.key(t, l, scope, schemas)!;
    assert.equal(k(target, live('1')), key, 'same inputs, same key across runs');
    const hit = again.get(key);
    assert.equal(hit?.status, 'Synced');
    assert.equal(hit?.difference, 'none');
    assert.equal(hit?.label, synced.label);
    assert.equal(hit?.strategy, synced.strategy);
    for (const [what, other] of [
      ['live written since', k(target, live('2'))],
      ['live deleted and created again', k(target, live('1', 'u-2'))],
      ['target changed', k({ ...target, data: { k: 'w' } }, live('1'))],
      ['options changed', k(target, live('1'), 'other opts')],
      ['schemas changed (a CRD)', k(target, live('1'), 'opts', 'schemas-2')],
    ] as const)
      assert.equal(again.get(other), undefined, what);
    assert.equal(memo.key(target, { ...target }, 'opts', 's'), undefined, 'no uid: never kept');

    const newCode = new DiskComparisonMemo(dir, { stamp: 'code-2' });
    assert.equal(newCode.get(key), undefined, 'our code changed: dropped');
    assert.equal(newCode.size, 0);
  });

  it('keeps only Synced verdicts with no difference of valid targets; a changed verdict forgets its entry', () => {
    const dir = join(tempDir('kg-disk-memo-'), 'comparisons');
    const memo = new DiskComparisonMemo(dir, { stamp: 's' });
    const drifted = compareObjects({ target, live: live('1', 'u-1', { k: 'drifted' }) });
    assert.equal(drifted.status, 'OutOfSync');
    const k1 = memo.key(target, live('1'), 'o', 's')!;
    memo.set(k1, drifted, true);
    assert.equal(memo.get(k1), undefined, 'OutOfSync is compared every time');
    const synced = compareObjects({ target, live: live('1') });
    memo.set(k1, synced, false);
    assert.equal(memo.get(k1), undefined, 'an invalid target is compared every time');
    memo.set(k1, synced, true);
    assert.ok(memo.get(k1));
    memo.set(k1, drifted, true);
    assert.equal(memo.get(k1), undefined, 'forgotten');
  });

  it('is owner-only, bounded, and an unreadable file is an empty memo', () => {
    const root = tempDir('kg-disk-memo-');
    const dir = join(root, 'comparisons');
    const memo = new DiskComparisonMemo(dir, { stamp: 's', maxEntries: 3 });
    const synced = compareObjects({ target, live: live('1') });
    const keys = ['1', '2', '3', '4', '5'].map((rv) => memo.key(target, live(rv), 'o', 's')!);
    for (const key of keys) memo.set(key, synced, true);
    memo.save();
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, 'memo.json')).mode & 0o777, 0o600);
    const file = JSON.parse(readFileSync(join(dir, 'memo.json'), 'utf8')) as { entries: object };
    assert.equal(Object.keys(file.entries).length, 3);
    assert.doesNotMatch(readFileSync(join(dir, 'memo.json'), 'utf8'), /"k"|"v"/, 'no object content');

    writeFileSync(join(dir, 'memo.json'), '{not json');
    const broken = new DiskComparisonMemo(dir, { stamp: 's' });
    assert.equal(broken.size, 0);
    assert.equal(broken.get(keys[0]!), undefined);
  });
});

describe('comparison memo on disk: a refresh reports the same with and without it', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;

  before(async () => {
    const cm = (name: string, data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name },
      data,
    });
    repo.commit({
      'memo/all.yaml': [
        cm('same', { a: '1' }),
        cm('drifted', { a: '1' }),
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { password: 'pw' } },
      ]
        .map((o) => stringify(o))
        .join('---\n'),
    });
    conn = await connectAs(fx);
    await createNamespaces(conn, ['memo']);
  });

  after(() => {
    conn?.close();
    repo.remove();
  });

  it('gives the same report cold, warm and without a memo; a written object is compared again', async () => {
    const app = application('memo', repo.url, 'memo', { namespace: 'memo' });
    await applyObjects(conn, await renderObjects(app, cacheRoot), 'memo');
    const cmInfo = await conn.discovery.resolve({ group: '', kind: 'ConfigMap' });
    await conn.client.patch(cmInfo, 'memo', 'drifted', { data: { a: '2' } }, 'merge');
    const memoDir = join(tempDir('kg-disk-memo-'), 'comparisons');
    const state = await ownClusterState(fx, ['memo']);
    const source = createSourceService({ cacheRoot });
    const run = async (withMemo: boolean) => {
      const manager = new StateManager({
        source,
        clusterOf: () => Promise.resolve(state),
        ...(withMemo ? { comparisonMemoDir: memoDir } : {}),
      });
      const report = await manager.compare(app);
      manager.saveComparisonMemo();
      return { report, stats: manager.comparisonMemoStats() };
    };
    try {
      const without = await run(false);
      assert.equal(without.stats, undefined);
      assert.equal(without.report.sync, 'OutOfSync');
      const cold = await run(true);
      assert.deepEqual(cold.stats, { hits: 0, misses: 3 });
      const warm = await run(true);
      assert.deepEqual(warm.stats, { hits: 2, misses: 1 }, 'the drifted ConfigMap is compared again');
      assert.deepEqual(cold.report, without.report);
      assert.deepEqual(warm.report, without.report);

      // A write to a kept object (a new resourceVersion): compared again, and its drift is reported.
      await conn.client.patch(cmInfo, 'memo', 'same', { data: { a: '3' } }, 'merge');
      let after = await run(true);
      for (
        let i = 0;
        i < 50 && after.report.resources.every((r) => r.name !== 'same' || r.status === 'Synced');
        i++
      ) {
        await new Promise((r) => setTimeout(r, 20));
        after = await run(true);
      }
      const same = after.report.resources.find((r) => r.name === 'same')!;
      assert.equal(same.status, 'OutOfSync');
      assert.match(same.diffText ?? '', /-\s+a: "3"\n\+\s+a: "1"/);
    } finally {
      await source.close();
      await state.close();
    }
  });
});
