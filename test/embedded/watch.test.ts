/**
 * Watch: replay from a resourceVersion, selector transitions, bookmarks, 410 Gone for a resourceVersion
 * older than the history window (and when forced by the fault injector), dropped connections, and
 * timeoutSeconds.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, useEmbeddedCluster } from '../support/embedded.js';
import { preserveUnknownFieldsCrd } from '../support/crds.js';
import type { EmbeddedCluster } from '../../src/embedded/index.js';

interface WatchEvent {
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  object: any;
}

/** A watch stream read event by event; `ended` resolves when the server ends the stream. */
async function openWatch(cluster: EmbeddedCluster, path: string, headers: Record<string, string> = {}) {
  const ctrl = new AbortController();
  const res = await fetch(`${cluster.url}${path}`, { signal: ctrl.signal, headers });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let done = false;
  const queue: WatchEvent[] = [];
  const next = async (): Promise<WatchEvent | undefined> => {
    for (;;) {
      if (queue.length > 0) return queue.shift();
      const nl = buffer.indexOf('\n');
      if (nl >= 0) {
        queue.push(JSON.parse(buffer.slice(0, nl)) as WatchEvent);
        buffer = buffer.slice(nl + 1);
        continue;
      }
      if (done) return undefined;
      try {
        const chunk = await reader.read();
        if (chunk.done) done = true;
        else buffer += decoder.decode(chunk.value, { stream: true });
      } catch {
        done = true;
      }
    }
  };
  const take = async (n: number): Promise<WatchEvent[]> => {
    const out: WatchEvent[] = [];
    for (let i = 0; i < n; i++) {
      const e = await next();
      if (!e) break;
      out.push(e);
    }
    return out;
  };
  return { next, take, close: () => ctrl.abort() };
}

const cm = (ns: string, name: string, labels: Record<string, string> = {}, data = '1') => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns, labels },
  data: { v: data },
});

const summary = (events: WatchEvent[]) =>
  events.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`.trim());

describe('embedded watch', () => {
  const fx = useEmbeddedCluster({ watchHistory: 20, bookmarkIntervalMs: 20 });

  it('without a resourceVersion sends ADDED for current objects, then changes in order', async () => {
    await api(fx.cluster, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'w1' },
    });
    await api(fx.cluster, 'POST', '/api/v1/namespaces/w1/configmaps', cm('w1', 'a'));
    const w = await openWatch(fx.cluster, '/api/v1/namespaces/w1/configmaps?watch=1');
    assert.deepEqual(summary(await w.take(1)), ['ADDED a']);
    await api(fx.cluster, 'POST', '/api/v1/namespaces/w1/configmaps', cm('w1', 'b'));
    await api(fx.cluster, 'PUT', '/api/v1/namespaces/w1/configmaps/a', cm('w1', 'a', {}, '2'));
    await api(fx.cluster, 'DELETE', '/api/v1/namespaces/w1/configmaps/b');
    const events = await w.take(3);
    assert.deepEqual(summary(events), ['ADDED b', 'MODIFIED a', 'DELETED b']);
    const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
    assert.deepEqual(
      [...rvs].sort((x, y) => x - y),
      rvs,
      'resourceVersions increase',
    );
    assert.equal(events[1]!.object.kind, 'ConfigMap', 'watch objects carry kind and apiVersion');
    w.close();
  });

  it('serves the deprecated /watch/ paths its OpenAPI lists: a collection, and one object by name', async () => {
    await api(fx.cluster, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'wpath' },
    });
    await api(fx.cluster, 'POST', '/api/v1/namespaces/wpath/configmaps', cm('wpath', 'x'));
    await api(fx.cluster, 'POST', '/api/v1/namespaces/wpath/configmaps', cm('wpath', 'y'));
    const all = await openWatch(fx.cluster, '/api/v1/watch/namespaces/wpath/configmaps');
    assert.deepEqual(summary(await all.take(2)), ['ADDED x', 'ADDED y']);
    const one = await openWatch(fx.cluster, '/api/v1/watch/namespaces/wpath/configmaps/y');
    assert.deepEqual(summary(await one.take(1)), ['ADDED y']);
    await api(fx.cluster, 'PUT', '/api/v1/namespaces/wpath/configmaps/x', cm('wpath', 'x', {}, '2'));
    await api(fx.cluster, 'PUT', '/api/v1/namespaces/wpath/configmaps/y', cm('wpath', 'y', {}, '2'));
    assert.deepEqual(summary(await all.take(2)), ['MODIFIED x', 'MODIFIED y']);
    assert.deepEqual(summary(await one.take(1)), ['MODIFIED y'], 'only the named object');
    all.close();
    one.close();
    const res = await fetch(`${fx.cluster.url}/api/v1/watch/namespaces/wpath/configmaps/y`, {
      method: 'DELETE',
    });
    assert.equal(res.status, 405);
  });

  it('replays changes after a resourceVersion, and turns selector transitions into ADDED/DELETED', async () => {
    const list = await api(fx.cluster, 'GET', '/api/v1/namespaces/w1/configmaps');
    const rv = list.body.metadata.resourceVersion;
    await api(fx.cluster, 'POST', '/api/v1/namespaces/w1/configmaps', cm('w1', 'c', { pick: 'yes' }));
    await api(fx.cluster, 'PUT', '/api/v1/namespaces/w1/configmaps/a', cm('w1', 'a', { pick: 'yes' }));
    const w = await openWatch(
      fx.cluster,
      `/api/v1/namespaces/w1/configmaps?watch=true&resourceVersion=${rv}&labelSelector=pick%3Dyes`,
    );
    assert.deepEqual(summary(await w.take(2)), ['ADDED c', 'ADDED a']);
    await api(fx.cluster, 'PUT', '/api/v1/namespaces/w1/configmaps/c', cm('w1', 'c', { pick: 'no' }));
    await api(fx.cluster, 'PUT', '/api/v1/namespaces/w1/configmaps/a', cm('w1', 'a', { pick: 'yes' }, '3'));
    assert.deepEqual(summary(await w.take(2)), ['DELETED c', 'MODIFIED a']);
    w.close();
  });

  it('sends BOOKMARK events when allowed, and the initial-events-end bookmark with sendInitialEvents', async () => {
    const w = await openWatch(
      fx.cluster,
      '/api/v1/namespaces/w1/configmaps?watch=1&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan',
    );
    const initial = await w.take(3);
    assert.deepEqual(summary(initial), ['ADDED a', 'ADDED c', 'BOOKMARK']);
    assert.deepEqual(initial[2]!.object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
    const periodic = await w.next();
    assert.equal(periodic?.type, 'BOOKMARK');
    assert.equal(periodic?.object.kind, 'ConfigMap');
    assert.match(periodic?.object.metadata.resourceVersion, /^\d+$/);
    w.close();
  });

  it('a Table watch converts BOOKMARKs too (the apiserver watch encoder), the first event carrying the columns', async () => {
    const list = await api(fx.cluster, 'GET', '/api/v1/namespaces/w1/configmaps');
    const rv = list.body.metadata.resourceVersion;
    const w = await openWatch(
      fx.cluster,
      `/api/v1/namespaces/w1/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`,
      { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    );
    const [first, second] = await w.take(2);
    assert.deepEqual([first?.type, first?.object.kind, second?.type], ['BOOKMARK', 'Table', 'BOOKMARK']);
    assert.equal(first?.object.metadata.resourceVersion, rv);
    assert.equal(first?.object.columnDefinitions[0].name, 'Name');
    assert.deepEqual(second?.object.columnDefinitions, []);
    w.close();
  });

  it('answers a resourceVersion older than the history window with an ERROR 410 Expired event', async () => {
    const list = await api(fx.cluster, 'GET', '/api/v1/namespaces/w1/configmaps');
    const old = list.body.metadata.resourceVersion;
    for (let i = 0; i < 45; i++)
      await api(fx.cluster, 'PUT', '/api/v1/namespaces/w1/configmaps/a', cm('w1', 'a', {}, `x${i}`));
    const w = await openWatch(fx.cluster, `/api/v1/namespaces/w1/configmaps?watch=1&resourceVersion=${old}`);
    const [err] = await w.take(1);
    assert.equal(err?.type, 'ERROR');
    assert.equal(err?.object.kind, 'Status');
    assert.equal(err?.object.code, 410);
    assert.equal(err?.object.reason, 'Expired');
    assert.match(err?.object.message, /^too old resource version: \d+ \(\d+\)$/);
    assert.equal(await w.next(), undefined, 'the stream ends');
  });

  it('fault injection: forced 410 ends open watches and expires older resourceVersions; dropWatches cuts streams', async () => {
    const list = await api(fx.cluster, 'GET', '/api/v1/namespaces/w1/configmaps');
    const rv = list.body.metadata.resourceVersion;
    const w = await openWatch(fx.cluster, `/api/v1/namespaces/w1/configmaps?watch=1&resourceVersion=${rv}`);
    await api(fx.cluster, 'PUT', '/api/v1/namespaces/w1/configmaps/a', cm('w1', 'a', {}, 'y'));
    assert.deepEqual(summary(await w.take(1)), ['MODIFIED a'], 'the watch is open');
    assert.equal(fx.cluster.faults.expireWatches(), 1);
    const [err] = await w.take(1);
    assert.equal(err?.object.code, 410);
    assert.equal(await w.next(), undefined);
    const again = await openWatch(
      fx.cluster,
      `/api/v1/namespaces/w1/configmaps?watch=1&resourceVersion=${rv}`,
    );
    assert.equal((await again.next())?.object.code, 410, 'a resume from before the expiry is 410');

    const fresh = (await api(fx.cluster, 'GET', '/api/v1/namespaces/w1/configmaps')).body.metadata
      .resourceVersion;
    fx.cluster.faults.goneOnNextWatches(1);
    const forced = await openWatch(
      fx.cluster,
      `/api/v1/namespaces/w1/configmaps?watch=1&resourceVersion=${fresh}`,
    );
    assert.equal((await forced.next())?.object.code, 410);
    const ok = await openWatch(
      fx.cluster,
      `/api/v1/namespaces/w1/configmaps?watch=1&resourceVersion=${fresh}`,
    );
    await api(fx.cluster, 'PUT', '/api/v1/namespaces/w1/configmaps/a', cm('w1', 'a', {}, 'z'));
    assert.deepEqual(summary(await ok.take(1)), ['MODIFIED a']);
    assert.equal(fx.cluster.faults.dropWatches(), 1);
    assert.equal(await ok.next(), undefined, 'the dropped stream ends');
  });

  it('ends the stream after timeoutSeconds, and watches cluster-wide', async () => {
    const w = await openWatch(
      fx.cluster,
      '/api/v1/configmaps?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dc',
    );
    const first = await w.next();
    assert.equal(first?.object.metadata.name, 'c');
    assert.equal(await w.next(), undefined, 'ended by the server');
  });

  it("a CRD update that changes its spec ends its kind's watches (crdHandler rebuilds the storage); a label change does not", async () => {
    const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const crd = preserveUnknownFieldsCrd('churn.example.com', 'Sprocket');
    assert.equal((await api(fx.cluster, 'POST', crds, crd)).status, 201);
    await api(fx.cluster, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'w-crd' },
    });
    const path = '/apis/churn.example.com/v1/namespaces/w-crd/sprockets';
    const sprocket = (name: string) => ({
      apiVersion: 'churn.example.com/v1',
      kind: 'Sprocket',
      metadata: { name, namespace: 'w-crd' },
    });
    const w = await openWatch(fx.cluster, `${path}?watch=1`);
    const patch = (body: unknown) =>
      api(fx.cluster, 'PATCH', `${crds}/sprockets.churn.example.com`, body, 'application/merge-patch+json');

    // Metadata only: the storage stays, so does the stream (it still delivers events).
    assert.equal((await patch({ metadata: { labels: { team: 'a' } } })).status, 200);
    assert.equal((await api(fx.cluster, 'POST', path, sprocket('one'))).status, 201);
    assert.deepEqual(summary(await w.take(1)), ['ADDED one']);

    // A spec change (a second served version, v2 now the storage version): the stream ends, and a new
    // watch at each served version works.
    const versions = crd.spec as { versions: Array<Record<string, unknown>> };
    const v1 = { ...versions.versions[0]!, storage: false };
    const v2 = { ...versions.versions[0]!, name: 'v2', storage: true };
    assert.equal((await patch({ spec: { versions: [v1, v2] } })).status, 200);
    assert.equal(await w.next(), undefined, 'ended by the server');
    const again = await openWatch(fx.cluster, `${path}?watch=1`);
    assert.deepEqual(summary(await again.take(1)), ['ADDED one']);
    again.close();

    // v1 no longer served: its watch ends again, and its path answers 404.
    const atV2 = await openWatch(fx.cluster, '/apis/churn.example.com/v2/namespaces/w-crd/sprockets?watch=1');
    assert.deepEqual(summary(await atV2.take(1)), ['ADDED one']);
    const last = await openWatch(fx.cluster, `${path}?watch=1`);
    assert.deepEqual(summary(await last.take(1)), ['ADDED one']);
    assert.equal((await patch({ spec: { versions: [{ ...v1, served: false }, v2] } })).status, 200);
    assert.equal(await last.next(), undefined, 'the v1 stream ended');
    assert.equal(await atV2.next(), undefined, 'every stream of the kind ended');
    assert.equal((await api(fx.cluster, 'GET', path)).status, 404);
  });
});
