/**
 * Live-cache events → app refreshes (src/controller/loop/live.ts `LiveRouter`), as Argo CD's
 * handleObjectUpdated: which apps an event touches, what is dropped, and the batching on the loop clock;
 * and which refresh requests re-resolve revisions (src/controller/loop/state.ts `RevisionFreshness`).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../../src/queue/index.js';
import type { CacheEvent, KubeObject } from '../../../src/cluster/index.js';
import {
  AppIndex,
  isApplicationItself,
  LiveRouter,
  resourceIndexKey,
} from '../../../src/controller/loop/live.js';
import { RevisionFreshness } from '../../../src/controller/loop/state.js';
import { application } from '../setup.js';

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
  const levels: Array<Record<string, number>> = [];
  const r = new LiveRouter({
    tracking: {},
    clock,
    batchMs: 100,
    keyOfInstance: (i) => index.keyOfInstance(i),
    keysOfResource: (k) => index.keysOfResource(k),
    orphanWatchers: (cluster, ns) => over.orphans?.[`${cluster}|${ns}`] ?? [],
    isSelf: (key, k) => isApplicationItself({ name: key.split('/')[1]! }, 'argocd', k),
    flush: (keys) => {
      batches.push([...keys.keys()].sort());
      levels.push(Object.fromEntries(keys));
    },
  });
  const objects = new Map<string, KubeObject>();
  const lookup = (k: { group: string; kind: string; namespace: string; name: string }) =>
    objects.get(`${k.group}/${k.kind}/${k.namespace}/${k.name}`);
  const put = (o: KubeObject): KubeObject => {
    const group = o.apiVersion!.includes('/') ? o.apiVersion!.split('/')[0] : '';
    objects.set(`${group}/${o.kind}/${o.metadata!.namespace ?? ''}/${o.metadata!.name}`, o);
    return o;
  };
  return { clock, index, batches, levels, on: r.handler('c1', lookup), put, r };
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

  // A Deployment tracked by `web`, its ReplicaSet and Pod (owners by uid, as the controllers set them).
  const owned = (apiVersion: string, kind: string, name: string, owner?: KubeObject, labels = {}) => ({
    apiVersion,
    kind,
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      resourceVersion: '1',
      labels,
      ...(owner
        ? {
            ownerReferences: [
              {
                apiVersion: owner.apiVersion!,
                kind: owner.kind!,
                name: owner.metadata!.name!,
                uid: owner.metadata!.uid!,
              },
            ],
          }
        : { annotations: { 'argocd.argoproj.io/tracking-id': 'web:apps/Deployment:ns/web' } }),
    },
  });

  it('a descendant by ownerReferences of a tracked root asks a level-0 refresh (getApp, isRootAppNode)', () => {
    const t = router();
    t.index.setInstance('web', 'argocd/web');
    const deploy = t.put(owned('apps/v1', 'Deployment', 'web'));
    const rs = t.put(owned('apps/v1', 'ReplicaSet', 'web-1', deploy));
    // The Pod carries the app's instance label (label tracking copies it from the template): an object
    // with owners takes its app from its owners only, at level 0.
    const pod = owned('v1', 'Pod', 'web-1-a', rs, { 'app.kubernetes.io/instance': 'web' });
    t.on({ type: 'ADDED', key: { group: '', kind: 'Pod', namespace: 'ns', name: 'web-1-a' }, object: pod });
    t.clock.step(100);
    assert.deepEqual(t.levels, [{ 'argocd/web': 0 }]);
    // The root itself: level 1; with a child's level 0 in the same batch, level 1 wins.
    t.on({ type: 'ADDED', key: { group: '', kind: 'Pod', namespace: 'ns', name: 'web-1-a' }, object: pod });
    t.on({
      type: 'MODIFIED',
      key: { group: 'apps', kind: 'Deployment', namespace: 'ns', name: 'web' },
      object: { ...deploy, spec: { replicas: 2 } },
      old: deploy,
    });
    t.clock.step(100);
    assert.deepEqual(t.levels[1], { 'argocd/web': 1 });
  });

  it('owners not held, an untracked root, a cycle: no refresh', () => {
    const t = router();
    t.index.setInstance('web', 'argocd/web');
    const ghost = owned('apps/v1', 'ReplicaSet', 'ghost', owned('apps/v1', 'Deployment', 'gone'));
    const key = { group: '', kind: 'Pod', namespace: 'ns', name: 'p' };
    t.on({ type: 'ADDED', key, object: owned('v1', 'Pod', 'p', ghost) });
    const plain = t.put({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'plain', namespace: 'ns', uid: 'u' },
    });
    t.on({ type: 'ADDED', key, object: owned('v1', 'Pod', 'p', plain) });
    const a = owned('apps/v1', 'ReplicaSet', 'a');
    const b = t.put(owned('apps/v1', 'ReplicaSet', 'b', a));
    t.put(Object.assign(a, owned('apps/v1', 'ReplicaSet', 'a', b)));
    t.on({ type: 'ADDED', key, object: owned('v1', 'Pod', 'p', b) });
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
