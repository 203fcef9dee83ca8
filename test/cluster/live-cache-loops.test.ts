import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LiveStateCache } from '../../src/cluster/index.js';
import type { CacheEvent } from '../../src/cluster/index.js';
import { FakeClock } from '../../src/queue/index.js';
import { FakeApi, configMaps, until } from './fake-api.js';

const key = (name: string) => ({ group: '', kind: 'ConfigMap', namespace: 'ns', name });

function setup(api: FakeApi, extra: Partial<ConstructorParameters<typeof LiveStateCache>[0]> = {}) {
  const clock = new FakeClock();
  const warnings: string[] = [];
  const cache = new LiveStateCache({
    client: api.client(),
    resources: [configMaps],
    clock,
    pageSize: 2,
    // Idle detection has its own test; off elsewhere so `pendingTimers` counts backoff timers only.
    watchIdleMs: 0,
    onWarning: (m) => warnings.push(m),
    ...extra,
  });
  const events: string[] = [];
  cache.onEvent((e: CacheEvent) => events.push(`${e.type} ${e.key.name}`));
  return { cache, clock, warnings, events };
}

describe('LiveStateCache list and watch loops (fake API)', () => {
  it('lists with pagination, applies the transform, then watches from the list resourceVersion', async () => {
    const api = new FakeApi();
    for (const n of ['a', 'b', 'c']) api.put(n, { v: n });
    const { cache, events } = setup(api);
    await cache.start();
    assert.deepEqual(api.calls, ['list', 'list continue=2', 'watch@3']);
    assert.deepEqual(events, ['ADDED a', 'ADDED b', 'ADDED c']);
    assert.equal(cache.get(key('a'))?.metadata?.managedFields, undefined, 'managedFields dropped');
    api.put('a', { v: 'a2' });
    await until(
      () =>
        cache.get(key('a'))?.data !== undefined && (cache.get(key('a'))!.data as { v: string }).v === 'a2',
      'update seen',
    );
    cache.stop();
    await cache.stopped();
  });

  it('resumes from the last seen resourceVersion after the stream ends, losing no events', async () => {
    const api = new FakeApi();
    api.put('a', { v: '1' });
    const { cache, events } = setup(api);
    await cache.start();
    api.put('b', { v: '1' }); // rv 2
    await until(() => cache.get(key('b')) !== undefined, 'b added');
    api.endStreams();
    api.put('c', { v: '1' }); // rv 3, while disconnected
    api.del('a'); // rv 4
    await until(
      () => cache.get(key('c')) !== undefined && cache.get(key('a')) === undefined,
      'missed events replayed',
    );
    assert.deepEqual(api.calls, ['list', 'watch@1', 'watch@2']);
    assert.deepEqual(events, ['ADDED a', 'ADDED b', 'ADDED c', 'DELETED a']);
    assert.equal(cache.stats().relists, 0);
    cache.stop();
    await cache.stopped();
  });

  it('relists after 410 Gone at watch open, deleting objects that vanished meanwhile', async () => {
    const api = new FakeApi();
    api.put('a', { v: '1' });
    api.put('b', { v: '1' });
    const { cache, events, warnings } = setup(api);
    await cache.start();
    api.endStreams();
    api.del('a');
    api.put('b', { v: '2' });
    api.put('c', { v: '1' });
    api.compact();
    await until(() => cache.stats().relists === 1 && cache.get(key('c')) !== undefined, 'relisted');
    assert.equal(cache.get(key('a')), undefined);
    assert.deepEqual((cache.get(key('b'))?.data as { v: string }).v, '2');
    assert.deepEqual(events.slice(2).sort(), ['ADDED c', 'DELETED a', 'MODIFIED b']);
    assert.deepEqual(api.calls.slice(-2), ['list', 'watch@5']);
    assert.match(warnings.join('\n'), /410 Gone/);
    cache.stop();
    await cache.stopped();
  });

  it('relists after an ERROR 410 event on an open watch', async () => {
    const api = new FakeApi();
    api.put('a', { v: '1' });
    const { cache } = setup(api);
    await cache.start();
    api.expireStreams();
    await until(() => cache.stats().relists === 1 && api.openStreams === 1, 'relisted and watching');
    assert.deepEqual(api.calls, ['list', 'watch@1', 'list', 'watch@1']);
    cache.stop();
    await cache.stopped();
  });

  it('reconnects after a failure only once the backoff has passed on the clock, doubling it', async () => {
    const api = new FakeApi();
    api.put('a', { v: '1' });
    const { cache, clock } = setup(api, { backoff: { initialMs: 200, maxMs: 1000 } });
    await cache.start();
    const watches = (): number => api.calls.filter((c) => c.startsWith('watch')).length;
    api.failWatches = 2;
    api.endStreams(); // a clean end reconnects at once; that try fails: back off 200
    await until(() => watches() === 2 && clock.pendingTimers === 1, 'second try, then backoff');
    clock.step(199);
    await until(() => true, 'turn');
    assert.equal(watches(), 2);
    clock.step(1); // third try: fails, back off 400
    await until(() => watches() === 3 && clock.pendingTimers === 1, 'third try');
    clock.step(399);
    await until(() => true, 'turn');
    assert.equal(watches(), 3, 'backoff doubled to 400');
    clock.step(1); // fourth try connects
    await until(() => api.openStreams === 1, 'connected');
    assert.equal(cache.stats().watchErrors, 2);
    api.put('b', { v: '1' });
    await until(() => cache.get(key('b')) !== undefined, 'events flow again');
    cache.stop();
    await cache.stopped();
    assert.equal(clock.pendingTimers, 0);
  });

  it('a watch that fails to reopen 3 times over >= 10 s is lost (one warning), and back once it opens', async () => {
    const api = new FakeApi();
    api.put('a', { v: '1' });
    const { cache, clock, warnings } = setup(api, { backoff: { initialMs: 4000, maxMs: 8000 } });
    await cache.start();
    const watches = (): number => api.calls.filter((c) => c.startsWith('watch')).length;
    let changes = 0;
    cache.onLostChange(() => changes++);
    api.put('seed', { v: '1' }); // the watch delivers: it is open
    await until(() => cache.get(key('seed')) !== undefined, 'delivered');
    api.failWatches = 100;
    api.endStreams(); // reconnects at once: attempt 1 fails at t=0, back off 4 s
    await until(() => watches() === 2 && clock.pendingTimers === 1, 'first failure');
    clock.step(4000); // attempt 2 fails at t=4 s, back off 8 s
    await until(() => watches() === 3 && clock.pendingTimers === 1, 'second failure');
    assert.equal(cache.lost(key('a')), undefined, 'two failures: not lost yet');
    clock.step(8000); // attempt 3 fails at t=12 s: 3 attempts over 12 s
    await until(() => watches() === 4 && clock.pendingTimers === 1, 'third failure');
    assert.equal(
      cache.lost(key('a')),
      '/ConfigMap@*: watch failed 3 times in a row over 12s (last: watch failed: configmaps: failed to watch: ECONNREFUSED)',
    );
    assert.equal(cache.lost({ ...key('a'), kind: 'Secret' }), undefined, 'other kinds are followed');
    assert.equal(changes, 1);
    clock.step(8000); // attempt 4 fails: still lost, no new warning
    await until(() => watches() === 5 && clock.pendingTimers === 1, 'fourth failure');
    assert.deepEqual(
      warnings.map((w) => w.replace(/ \(last: .*\)/, '')),
      [
        '/ConfigMap@*: watch failed: configmaps: failed to watch: ECONNREFUSED; reconnecting',
        '/ConfigMap@*: watch failed 3 times in a row over 12s; live state of this kind is not followed until it opens again',
      ],
    );
    api.failWatches = 0;
    clock.step(8000); // attempt 5 opens; open again once it delivers
    await until(() => api.openStreams === 1, 'connected');
    api.put('b', { v: '1' });
    await until(() => changes === 2, 'open again');
    assert.equal(cache.lost(key('a')), undefined);
    assert.equal(warnings.at(-1), '/ConfigMap@*: watch open again after 28s');
    cache.stop();
    await cache.stopped();
  });

  it('a watch that opens and then fails at once counts as failing: lost after 3 such attempts', async () => {
    const api = new FakeApi();
    api.put('a', { v: '1' });
    const { cache, clock } = setup(api, { backoff: { initialMs: 4000, maxMs: 8000 } });
    await cache.start();
    const watches = (): number => api.calls.filter((c) => c.startsWith('watch')).length;
    api.put('seed', { v: '1' }); // the watch delivers: it is open
    await until(() => cache.get(key('seed')) !== undefined, 'delivered');
    api.erroringWatches = 100;
    api.endStreams(); // attempt 1: 200, then ERROR 500 (t=0); back off 4 s
    await until(() => watches() === 2 && clock.pendingTimers === 1, 'first failure');
    clock.step(4000); // attempt 2 (t=4 s)
    await until(() => watches() === 3 && clock.pendingTimers === 1, 'second failure');
    clock.step(8000); // attempt 3 (t=12 s): lost
    await until(() => watches() === 4 && clock.pendingTimers === 1, 'third failure');
    assert.match(cache.lost(key('a')) ?? '', /^\/ConfigMap@\*: watch failed 3 times in a row over 12s/);
    api.erroringWatches = 0;
    clock.step(8000); // attempt 4 opens; lost until it delivers
    await until(() => api.openStreams === 1, 'open');
    assert.notEqual(cache.lost(key('a')), undefined, 'headers alone do not make it open');
    api.put('b', { v: '1' });
    await until(() => cache.lost(key('a')) === undefined, 'an event: open again');
    cache.stop();
    await cache.stopped();
  });

  it('backs off when streams keep ending without events', async () => {
    const api = new FakeApi();
    const { cache, clock } = setup(api, { backoff: { initialMs: 200, maxMs: 1000 } });
    await cache.start();
    const watches = (): number => api.calls.filter((c) => c.startsWith('watch')).length;
    api.endStreams();
    await until(() => watches() === 2 && api.openStreams === 1, 'immediate reconnect');
    api.endStreams();
    await until(() => clock.pendingTimers === 1, 'backoff');
    assert.equal(watches(), 2);
    clock.step(200);
    await until(() => watches() === 3 && api.openStreams === 1, 'reconnected after backoff');
    cache.stop();
    await cache.stopped();
  });

  it('filters namespaces on the client when one cluster-wide scope covers several', async () => {
    const api = new FakeApi();
    api.put('a', {}, 'one');
    api.put('b', {}, 'two');
    api.put('c', {}, 'three');
    const { cache } = setup(api, { namespaces: ['one', 'two'], namespaceMode: 'cluster' });
    await cache.start();
    assert.deepEqual(
      cache
        .list('', 'ConfigMap')
        .map((o) => o.metadata?.name)
        .sort(),
      ['a', 'b'],
    );
    api.put('d', {}, 'three');
    api.put('e', {}, 'one');
    await until(() => cache.list('', 'ConfigMap').length === 3, 'e seen');
    assert.equal(cache.get({ group: '', kind: 'ConfigMap', namespace: 'three', name: 'd' }), undefined);
    assert.equal(cache.stats().scopes, 1);
    cache.stop();
    await cache.stopped();
  });

  it('falls back to per-namespace lists when a cluster-wide list is forbidden', async () => {
    const api = new FakeApi();
    api.namespacedOnly = true;
    api.put('a', {}, 'one');
    api.put('b', {}, 'two');
    api.put('c', {}, 'three');
    const { cache, warnings } = setup(api, { namespaces: ['one', 'two', 'n3', 'n4', 'n5'] });
    await cache.start();
    assert.deepEqual(
      api.calls.filter((c) => c.startsWith('list')),
      ['list', 'list ns=one', 'list ns=two', 'list ns=n3', 'list ns=n4', 'list ns=n5'],
    );
    assert.deepEqual(
      cache
        .list('', 'ConfigMap')
        .map((o) => o.metadata?.name)
        .sort(),
      ['a', 'b'],
    );
    assert.equal(cache.stats().scopes, 5);
    assert.match(warnings.join(), /forbidden cluster-wide/);
    cache.stop();
    await cache.stopped();

    const strict = setup(api, { namespaces: ['one', 'two'], namespaceMode: 'cluster' });
    await assert.rejects(strict.cache.start(), { name: 'ApiError' });
  });

  it('applies per-kind overrides of namespaces and transform', async () => {
    const api = new FakeApi();
    api.put('a', {}, 'one');
    api.put('b', {}, 'two');
    const { cache } = setup(api, {
      namespaces: ['one'],
      byGroupKind: { '/ConfigMap': { namespaces: ['two'], transform: false } },
    });
    await cache.start();
    const objs = cache.list('', 'ConfigMap');
    assert.deepEqual(
      objs.map((o) => o.metadata?.name),
      ['b'],
    );
    assert.deepEqual(
      objs[0]?.metadata?.managedFields,
      [{ manager: 'm' }],
      'transform: false keeps managedFields',
    );
    cache.stop();
    await cache.stopped();
  });

  it('waitFor resolves on the change that satisfies the predicate and rejects on abort', async () => {
    const api = new FakeApi();
    const { cache } = setup(api);
    await cache.start();
    const ready = cache.waitFor(
      key('x'),
      (o) => (o?.data as { phase?: string } | undefined)?.phase === 'Ready',
    );
    api.put('x', { phase: 'Pending' });
    api.put('x', { phase: 'Ready' });
    const obj = await ready;
    assert.equal(obj?.metadata?.resourceVersion, '2');
    const gone = cache.waitFor(key('x'), (o) => o === undefined);
    api.del('x');
    assert.equal(await gone, undefined);
    const ac = new AbortController();
    const never = cache.waitFor(key('y'), (o) => o !== undefined, ac.signal);
    ac.abort();
    await assert.rejects(never, { name: 'AbortError' });
    cache.stop();
    await cache.stopped();
  });

  it('a watch silent for watchIdleMs (no event, no bookmark) is dropped and the scope relisted, with a warning', async () => {
    const api = new FakeApi();
    api.put('a', { v: '1' });
    const { cache, clock, warnings } = setup(api, { watchIdleMs: 60_000 });
    await cache.start();
    await until(() => api.openStreams === 1, 'watching');
    clock.step(59_999);
    api.put('b', { v: '1' }); // rv 2: an event restarts the idle limit
    await until(() => cache.get(key('b')) !== undefined, 'b added');
    clock.step(59_999);
    await until(() => true, 'turn');
    assert.deepEqual(api.calls, ['list', 'watch@1'], 'a watch that delivers is kept');
    api.stallStreams();
    api.put('c', { v: '1' }); // rv 3: never delivered by the stalled watch
    clock.step(60_000);
    await until(() => cache.get(key('c')) !== undefined, 'c found by the relist');
    await until(() => api.openStreams === 1, 'watching again');
    assert.deepEqual(api.calls, ['list', 'watch@1', 'list', 'list continue=2', 'watch@3']);
    assert.deepEqual(warnings, ['/ConfigMap@*: watch stalled: no event or bookmark for 60s; relisting']);
    assert.equal(cache.stats().relists, 1);
    cache.stop();
    await cache.stopped();
    assert.equal(clock.pendingTimers, 0);
  });
  it("a quiet watch (no event, no bookmark, as kube-apiserver's) is kept until its timeoutSeconds, then watched again without a list", async () => {
    const api = new FakeApi();
    api.put('a', { v: '1' });
    // Default idle limit: the watch's timeoutSeconds (client-go's 5 to 10 minutes; 300 s with random 0) + 60 s.
    const { cache, clock, warnings } = setup(api, { watchIdleMs: undefined, random: () => 0 });
    await cache.start();
    await until(() => api.openStreams === 1, 'watching');
    clock.step(299_000); // past the old fixed 180 s idle limit: still healthy
    await until(() => true, 'turn');
    assert.deepEqual(api.calls, ['list', 'watch@1']);
    clock.step(1_000);
    api.endStreams(); // the server ends the watch at its timeoutSeconds
    await until(() => api.calls.length === 3 && api.openStreams === 1, 'watching again');
    assert.deepEqual(api.calls, ['list', 'watch@1', 'watch@1'], 'resumed from its resourceVersion, no list');
    assert.equal(cache.stats().relists, 0);
    assert.deepEqual(warnings, []);
    cache.stop();
    await cache.stopped();
    assert.equal(clock.pendingTimers, 0);
  });
});
