import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LiveStore } from '../../src/cluster/live-cache-store.js';
import { owningApp } from '../../src/cluster/index.js';
import type { CacheEvent, KubeObject } from '../../src/cluster/index.js';

const cm = (name: string, rv: string, app?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name,
    namespace: 'ns',
    resourceVersion: rv,
    ...(app ? { annotations: { 'argocd.argoproj.io/tracking-id': `${app}:/ConfigMap:ns/${name}` } } : {}),
  },
});

describe('LiveStore', () => {
  it('emits ADDED, MODIFIED on a new resourceVersion only, and DELETED; keeps the app index current', () => {
    const store = new LiveStore((o) => owningApp(o));
    const events: string[] = [];
    store.subscribe((e: CacheEvent) =>
      events.push(`${e.type} ${e.key.name}${e.old ? ` from ${e.old.metadata?.resourceVersion}` : ''}`),
    );
    store.upsert(cm('a', '1', 'app1'));
    store.upsert(cm('a', '1', 'app1'));
    store.upsert(cm('a', '2', 'app2'));
    assert.deepEqual(store.byApp('app1'), []);
    assert.equal(store.byApp('app2').length, 1);
    store.remove(cm('a', '3'));
    store.remove(cm('a', '3'));
    assert.deepEqual(events, ['ADDED a', 'MODIFIED a from 1', 'DELETED a']);
    assert.deepEqual(store.byApp('app2'), []);
    assert.equal(store.size, 0);
  });

  it('a subscriber that throws is reported, and the other subscribers still get every event', () => {
    const failures: string[] = [];
    const store = new LiveStore(
      () => undefined,
      (err, e) => failures.push(`${e.type} ${e.key.name}: ${(err as Error).message}`),
    );
    const seen: string[] = [];
    store.subscribe((e) => {
      if (e.key.name === 'bad') throw new Error('boom');
    });
    store.subscribe((e) => seen.push(`${e.type} ${e.key.name}`));
    store.upsert(cm('bad', '1'));
    store.upsert(cm('good', '1'));
    assert.deepEqual(failures, ['ADDED bad: boom']);
    assert.deepEqual(seen, ['ADDED bad', 'ADDED good']);
  });

  it('replace makes a scope hold exactly the new list and leaves other scopes alone', () => {
    const store = new LiveStore(() => undefined);
    store.upsert(cm('a', '1'));
    store.upsert(cm('b', '1'));
    store.upsert({ ...cm('other', '1'), kind: 'Secret' });
    const events: string[] = [];
    store.subscribe((e) => events.push(`${e.type} ${e.key.name}`));
    store.replace({ group: '', kind: 'ConfigMap' }, [cm('b', '2'), cm('c', '1')]);
    assert.deepEqual(events.sort(), ['ADDED c', 'DELETED a', 'MODIFIED b']);
    assert.deepEqual(
      store
        .byGroupKind('', 'ConfigMap')
        .map((o) => o.metadata?.name)
        .sort(),
      ['b', 'c'],
    );
    assert.equal(store.byGroupKind('', 'Secret').length, 1);
  });

  it('replace leaves objects outside the scope filter alone', () => {
    const store = new LiveStore(() => undefined);
    store.upsert(cm('a', '1'));
    store.upsert({ ...cm('x', '1'), metadata: { name: 'x', namespace: 'other', resourceVersion: '1' } });
    store.replace({ group: '', kind: 'ConfigMap', contains: (o) => o.metadata?.namespace === 'ns' }, []);
    assert.deepEqual(
      store.all().map((o) => o.metadata?.name),
      ['x'],
    );
  });

  it('a throwing subscriber does not stop the others', () => {
    const store = new LiveStore(() => undefined);
    let seen = 0;
    store.subscribe(() => {
      throw new Error('boom');
    });
    store.subscribe(() => seen++);
    store.upsert(cm('a', '1'));
    assert.equal(seen, 1);
  });
});
