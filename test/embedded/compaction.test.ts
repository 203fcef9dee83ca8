/**
 * Issue 21 item 5a: the history a watch or an exact LIST can start from is bounded as on a real server.
 * The watch cache starts at the state of start-up (a watch from resourceVersion 1 is 410 Expired), and the
 * periodic compaction (etcd's, every `compactionIntervalMs`, to the resourceVersion of the previous tick)
 * expires older versions: watches get 200 + one ERROR 410 event, LIST with resourceVersionMatch=Exact gets 410
 * "The resourceVersion for the provided list is too old.". An exact LIST inside the history sees the state
 * of then.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, useEmbeddedCluster } from '../support/embedded.js';
import type { EmbeddedCluster } from '../../src/embedded/index.js';

/** The first line of a watch from `rv` (the stream is cut after it). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

async function firstEvent(cluster: EmbeddedCluster, path: string): Promise<{ status: number; event: Json }> {
  const ctrl = new AbortController();
  const res = await fetch(`${cluster.url}${path}`, { signal: ctrl.signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    while (!buffer.includes('\n')) {
      const chunk = await reader.read();
      if (chunk.done) break;
      buffer += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    ctrl.abort();
  }
  return { status: res.status, event: buffer ? JSON.parse(buffer.split('\n')[0]!) : undefined };
}

const cm = (name: string, v: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { v },
});

describe('embedded server: the watch cache starts at start-up', () => {
  const fx = useEmbeddedCluster({ compactionIntervalMs: 0 });

  it('a watch from resourceVersion 1 gets 200 and one ERROR 410 Expired naming the oldest version kept', async () => {
    const list = await api(fx.cluster, 'GET', '/api/v1/namespaces');
    const start = Number(list.body.metadata.resourceVersion);
    assert.ok(start > 1, 'start-up wrote the default namespaces');
    const { status, event } = await firstEvent(fx.cluster, '/api/v1/namespaces?watch=1&resourceVersion=1');
    assert.equal(status, 200);
    assert.equal(event.type, 'ERROR');
    assert.deepEqual(
      [event.object.kind, event.object.code, event.object.reason, event.object.message],
      ['Status', 410, 'Expired', `too old resource version: 1 (${start})`],
    );
    const fromList = firstEvent(fx.cluster, `/api/v1/namespaces?watch=1&resourceVersion=${start}`);
    await api(fx.cluster, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'later' },
    });
    const served = await fromList;
    assert.equal(served.status, 200);
    assert.deepEqual([served.event.type, served.event.object.metadata.name], ['ADDED', 'later']);
  });
});

describe('embedded server: periodic compaction', () => {
  const fx = useEmbeddedCluster({ compactionIntervalMs: 20 });

  it('expires resourceVersions older than the previous tick, for watches and exact lists', async () => {
    const created = await api(fx.cluster, 'POST', '/api/v1/namespaces/default/configmaps', cm('a', 'one'));
    assert.equal(created.status, 201);
    const rvA = created.body.metadata.resourceVersion as string;
    const exact = await api(
      fx.cluster,
      'GET',
      `/api/v1/namespaces/default/configmaps?resourceVersion=${rvA}&resourceVersionMatch=Exact`,
    );
    assert.equal(exact.status, 200);
    assert.equal(exact.body.metadata.resourceVersion, rvA);
    // Keep writing (compaction keeps the versions since the previous tick) until rvA is compacted away.
    for (let i = 0; ; i++) {
      await api(fx.cluster, 'PUT', '/api/v1/namespaces/default/configmaps/a', cm('a', `v${i}`));
      const { event } = await firstEvent(
        fx.cluster,
        `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${rvA}`,
      );
      if (event?.type === 'ERROR') {
        assert.equal(event.object.code, 410);
        assert.match(event.object.message, new RegExp(`^too old resource version: ${rvA} \\(\\d+\\)$`));
        break;
      }
      assert.equal(event?.type, 'MODIFIED', 'until compacted, the watch replays the changes');
      assert.ok(i < 10_000, 'compaction never reached the first write');
    }
    const old = await api(
      fx.cluster,
      'GET',
      `/api/v1/namespaces/default/configmaps?resourceVersion=${rvA}&resourceVersionMatch=Exact`,
    );
    assert.equal(old.status, 410);
    assert.deepEqual(
      [old.body.reason, old.body.message],
      ['Expired', 'The resourceVersion for the provided list is too old.'],
    );
    // Not Exact: any resourceVersion is served the current state (never older than asked).
    const notOlder = await api(
      fx.cluster,
      'GET',
      `/api/v1/namespaces/default/configmaps?resourceVersion=${rvA}&resourceVersionMatch=NotOlderThan`,
    );
    assert.equal(notOlder.status, 200);
  });
});

describe('embedded server: a paged list across a compaction', () => {
  const fx = useEmbeddedCluster({ compactionIntervalMs: 20 });

  it('a compacted continue token is 410 with a token that continues at the latest version', async () => {
    for (const name of ['p1', 'p2', 'p3', 'p4'])
      await api(fx.cluster, 'POST', '/api/v1/namespaces/default/configmaps', cm(name, name));
    const page1 = await api(fx.cluster, 'GET', '/api/v1/namespaces/default/configmaps?limit=2');
    assert.deepEqual(
      page1.body.items.map((o: Json) => o.metadata.name),
      ['p1', 'p2'],
    );
    const token = encodeURIComponent(page1.body.metadata.continue);
    let expired: Json;
    for (let i = 0; ; i++) {
      await api(fx.cluster, 'PUT', '/api/v1/namespaces/default/configmaps/p4', cm('p4', `v${i}`));
      const next = await api(
        fx.cluster,
        'GET',
        `/api/v1/namespaces/default/configmaps?limit=2&continue=${token}`,
      );
      if (next.status === 410) {
        expired = next.body;
        break;
      }
      assert.equal(next.status, 200);
      assert.ok(i < 10_000, 'the server never compacted');
    }
    assert.equal(expired.reason, 'Expired');
    assert.match(
      expired.message,
      /^The provided continue parameter is too old to display a consistent list result\. You can start a new list without the continue parameter, or use the continue token in this response/,
    );
    assert.ok(expired.metadata.continue, 'a token to go on with');
    const rest = await api(
      fx.cluster,
      'GET',
      `/api/v1/namespaces/default/configmaps?limit=2&continue=${encodeURIComponent(expired.metadata.continue)}`,
    );
    assert.equal(rest.status, 200);
    assert.deepEqual(
      rest.body.items.map((o: Json) => o.metadata.name),
      ['p3', 'p4'],
    );
    const current = (await api(fx.cluster, 'GET', '/api/v1/namespaces/default/configmaps')).body.metadata
      .resourceVersion;
    assert.equal(rest.body.metadata.resourceVersion, current, 'served at the latest version');
  });
});

describe('embedded server: exact lists inside the history', () => {
  const fx = useEmbeddedCluster({ compactionIntervalMs: 0 });

  it('show the objects as they were, selectors applied; a future version is 504; bad options are 422', async () => {
    await api(fx.cluster, 'POST', '/api/v1/namespaces/default/configmaps', cm('x', 'old'));
    const before = (await api(fx.cluster, 'GET', '/api/v1/namespaces/default/configmaps')).body.metadata
      .resourceVersion as string;
    await api(fx.cluster, 'PUT', '/api/v1/namespaces/default/configmaps/x', cm('x', 'new'));
    await api(fx.cluster, 'POST', '/api/v1/namespaces/default/configmaps', cm('y', 'added'));
    await api(fx.cluster, 'POST', '/api/v1/namespaces/default/configmaps', {
      ...cm('z', 'z'),
      metadata: { name: 'z', namespace: 'default', labels: { keep: 'yes' } },
    });
    const list = (q: string) => api(fx.cluster, 'GET', `/api/v1/namespaces/default/configmaps?${q}`);
    const then = await list(`resourceVersion=${before}&resourceVersionMatch=Exact`);
    assert.equal(then.status, 200);
    assert.deepEqual(
      then.body.items.map((o: Json) => [o.metadata.name, o.data.v]),
      [['x', 'old']],
    );
    assert.equal(then.body.metadata.resourceVersion, before);
    await api(fx.cluster, 'DELETE', '/api/v1/namespaces/default/configmaps/x');
    const current = Number((await list('')).body.metadata.resourceVersion);
    const beforeDelete = await list(`resourceVersion=${current - 1}&resourceVersionMatch=Exact`);
    assert.deepEqual(
      beforeDelete.body.items.map((o: Json) => o.metadata.name),
      ['x', 'y', 'z'],
      'a deleted object is back at a version before its deletion',
    );
    const selected = await list(
      `resourceVersion=${current - 1}&resourceVersionMatch=Exact&labelSelector=keep`,
    );
    assert.deepEqual(
      selected.body.items.map((o: Json) => o.metadata.name),
      ['z'],
    );

    const future = await list(`resourceVersion=${current + 100}&resourceVersionMatch=Exact`);
    assert.equal(future.status, 504);
    assert.equal(future.body.reason, 'Timeout');
    assert.equal(
      future.body.message,
      `Timeout: Too large resource version: ${current + 100}, current: ${current}`,
    );
    assert.equal(future.body.details.causes[0].reason, 'ResourceVersionTooLarge');

    const noRv = await list('resourceVersionMatch=Exact');
    assert.equal(noRv.status, 422);
    assert.equal(
      noRv.body.message,
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
    const zero = await list('resourceVersion=0&resourceVersionMatch=Exact');
    assert.equal(zero.status, 422);
    assert.match(zero.body.message, /resourceVersionMatch "exact" is forbidden for resourceVersion "0"/);
  });
});
