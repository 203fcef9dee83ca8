/**
 * Live-cache events → app refreshes (src/controller/loop-live.ts `LiveRouter`), as Argo CD's
 * handleObjectUpdated: which apps an event touches, what is dropped, and the batching on the loop clock;
 * and which refresh requests re-resolve revisions (loop-state.ts `RevisionFreshness`).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/queue/index.js';
import type { CacheEvent, KubeObject } from '../../src/cluster/index.js';
import {
  AppIndex,
  isApplicationItself,
  LiveRouter,
  resourceIndexKey,
} from '../../src/controller/loop-live.js';
import { RevisionFreshness } from '../../src/controller/loop-state.js';
import { application } from './setup.js';

const cmObj = (name: string, tracking?: string, data = 'v', rv = '1'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name,
    namespace: 'ns',
    resourceVersion: rv,
    ...(tracking ? { annotations: { 'argocd.argoproj.io/tracking-id': tracking } } : {}),
  },
  data: { key: data },
});

const event = (type: CacheEvent['type'], object: KubeObject, old?: KubeObject): CacheEvent => ({
  type,
  key: {
    group: '',
    kind: object.kind!,
    namespace: object.metadata!.namespace ?? '',
    name: object.metadata!.name!,
  },
  object,
  ...(old ? { old } : {}),
});

function router(over: { orphans?: Record<string, string[]> } = {}) {
  const clock = new FakeClock();
  const index = new AppIndex();
  const batches: string[][] = [];
  const r = new LiveRouter({
    tracking: {},
    clock,
    batchMs: 100,
    keyOfInstance: (i) => index.keyOfInstance(i),
    keysOfResource: (k) => index.keysOfResource(k),
    orphanWatchers: (cluster, ns) => over.orphans?.[`${cluster}|${ns}`] ?? [],
    isSelf: (key, k) => isApplicationItself({ name: key.split('/')[1]! }, 'argocd', k),
    flush: (keys) => batches.push([...keys].sort()),
  });
  return { clock, index, batches, on: r.handler('c1'), r };
}

describe('live-cache events → refreshes (handleObjectUpdated)', () => {
  it('routes an object to the app its tracking id names, batched per batchMs', () => {
    const t = router();
    t.index.setInstance('web', 'argocd/web');
    t.on(
      event(
        'MODIFIED',
        cmObj('a', 'web:/ConfigMap:ns/a', 'x', '2'),
        cmObj('a', 'web:/ConfigMap:ns/a', 'v', '1'),
      ),
    );
    t.on(event('DELETED', cmObj('b', 'web:/ConfigMap:ns/b')));
    assert.deepEqual(t.batches, [], 'nothing before the batch ends');
    t.clock.step(100);
    assert.deepEqual(t.batches, [['argocd/web']]);
  });

  it('routes to the app whose last comparison listed the object, on that cluster only', () => {
    const t = router();
    t.index.setResources('argocd/db', [
      resourceIndexKey('c1', { group: '', kind: 'ConfigMap', namespace: 'ns', name: 'plain' }),
    ]);
    t.on(event('ADDED', cmObj('plain')));
    t.r.handler('c2')(event('ADDED', cmObj('plain')));
    t.clock.step(100);
    assert.deepEqual(t.batches, [['argocd/db']]);
    t.index.setResources('argocd/db', []);
    t.on(event('ADDED', cmObj('plain')));
    t.clock.step(100);
    assert.equal(t.batches.length, 1, 'forgotten resources route nowhere');
  });

  it('a change of tracking refreshes the old owner and the new one', () => {
    const t = router();
    t.index.setInstance('one', 'argocd/one');
    t.index.setInstance('two', 'argocd/two');
    t.on(
      event(
        'MODIFIED',
        cmObj('a', 'two:/ConfigMap:ns/a', 'v', '2'),
        cmObj('a', 'one:/ConfigMap:ns/a', 'v', '1'),
      ),
    );
    t.clock.step(100);
    assert.deepEqual(t.batches, [['argocd/one', 'argocd/two']]);
  });

  it('drops a MODIFIED that only changed resourceVersion or managedFields', () => {
    const t = router();
    t.index.setInstance('web', 'argocd/web');
    const before = cmObj('a', 'web:/ConfigMap:ns/a', 'v', '1');
    const after = cmObj('a', 'web:/ConfigMap:ns/a', 'v', '2');
    after.metadata!.managedFields = [{ manager: 'x' }];
    t.on(event('MODIFIED', after, before));
    t.clock.step(100);
    assert.deepEqual(t.batches, []);
  });

  it('an unclaimed namespaced object refreshes the apps watching orphaned resources there', () => {
    const t = router({ orphans: { 'c1|ns': ['argocd/watcher'] } });
    t.on(event('ADDED', cmObj('stray')));
    t.clock.step(100);
    assert.deepEqual(t.batches, [['argocd/watcher']]);
  });

  it('never refreshes an Application because of itself', () => {
    const t = router();
    t.index.setInstance('root', 'argocd/root');
    const self: KubeObject = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: {
        name: 'root',
        namespace: 'argocd',
        annotations: { 'argocd.argoproj.io/tracking-id': 'root:argoproj.io/Application:argocd/root' },
      },
    };
    t.on({
      type: 'MODIFIED',
      key: { group: 'argoproj.io', kind: 'Application', namespace: 'argocd', name: 'root' },
      object: self,
    });
    t.clock.step(100);
    assert.deepEqual(t.batches, []);
  });

  it('stop drops what was collected and ignores later events', () => {
    const t = router();
    t.index.setInstance('web', 'argocd/web');
    t.on(event('ADDED', cmObj('a', 'web:/ConfigMap:ns/a')));
    t.r.stop();
    t.on(event('ADDED', cmObj('b', 'web:/ConfigMap:ns/b')));
    t.clock.step(1000);
    assert.deepEqual(t.batches, []);
    assert.equal(t.clock.pendingTimers, 0);
  });
});

describe('which refresh requests re-resolve revisions (RevisionFreshness)', () => {
  const app = application('r', 'https://example.com/Repo.git', 'p');
  it('level 3 always, level 2 unless re-resolved within revisionCacheMs, level 0-1 never', () => {
    const clock = new FakeClock();
    const forgotten: string[] = [];
    const f = new RevisionFreshness(clock, 1_000, (url) => forgotten.push(url));
    f.requested(app, 1);
    assert.equal(forgotten.length, 0);
    f.requested(app, 2);
    f.requested(app, 2);
    assert.equal(forgotten.length, 1, 'the second level-2 request within the period shares the first');
    f.requested(app, 3);
    assert.equal(forgotten.length, 2);
    clock.step(1_000);
    f.requested(app, 2);
    assert.deepEqual(forgotten, Array(3).fill('https://example.com/Repo.git'));
  });
  it('revisionCacheMs 0: every level-2 request', () => {
    const forgotten: string[] = [];
    const f = new RevisionFreshness(new FakeClock(), 0, (url) => forgotten.push(url));
    f.requested(app, 2);
    f.requested(app, 2);
    assert.equal(forgotten.length, 2);
  });
});
