/**
 * The client's requests and watches with a caller's long-lived signal (the continuous loop passes one
 * signal to every request of its refreshes and operations, for days): once a request or a watch has
 * ended, nothing of it is left on the caller's signal, and no `AbortSignal.any` was made on it (on Node 20
 * each one keeps a WeakRef on the source for good: the per-request leak the soak benchmark found). The
 * caller's signal still reaches a request and a watch stream while they run.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import type { ClusterConnection, ResourceInfo } from '../../src/cluster/index.js';
import { useEmbeddedCluster } from '../support/embedded.js';
import { cm, connectTo } from './embedded-setup.js';

describe('cluster client: a long-lived caller signal keeps nothing of ended requests', () => {
  const fx = useEmbeddedCluster();
  let conn: ClusterConnection;
  let configMaps: ResourceInfo;

  before(async () => {
    ({ conn, configMaps } = await connectTo(fx));
    // Labelled, so the watch below sees it alone (a real server puts kube-root-ca.crt in every namespace).
    await conn.client.create(
      configMaps,
      cm('alpha', 'signals', {
        metadata: { name: 'signals', namespace: 'alpha', labels: { test: 'signals' } },
      }),
    );
  });
  after(() => conn?.close());

  it('100 requests with the same signal (under a request deadline) leave no listener and no AbortSignal.any on it', async () => {
    const long = new AbortController();
    const any = AbortSignal.any.bind(AbortSignal);
    let anyOnLong = 0;
    AbortSignal.any = (signals: AbortSignal[]): AbortSignal => {
      if (signals.includes(long.signal)) anyOnLong++;
      return any(signals);
    };
    try {
      for (let i = 0; i < 50; i++) {
        await conn.client.get(configMaps, 'alpha', 'signals', long.signal);
        await conn.client.list(configMaps, { namespace: 'alpha', signal: long.signal });
      }
    } finally {
      AbortSignal.any = any;
    }
    assert.equal(anyOnLong, 0);
    assert.equal(getEventListeners(long.signal, 'abort').length, 0);
  });

  it('a watch follows the caller signal while it runs; once it ended, nothing is left on the signal', async () => {
    const long = new AbortController();
    const events = await conn.client.watch(configMaps, {
      namespace: 'alpha',
      labelSelector: 'test=signals',
      signal: long.signal,
    });
    assert.ok(getEventListeners(long.signal, 'abort').length > 0, 'the stream is linked to the signal');
    const seen: string[] = [];
    const reading = (async () => {
      for await (const e of events) {
        seen.push(`${e.type} ${e.object.metadata?.name ?? ''}`);
        if (seen.length === 1) long.abort(new Error('caller stopped'));
      }
    })();
    await reading.catch(() => undefined);
    assert.deepEqual(seen, ['ADDED signals']);
    // The stream closes asynchronously after the abort destroyed it.
    for (let i = 0; i < 50 && getEventListeners(long.signal, 'abort').length > 0; i++)
      await new Promise((r) => setImmediate(r));
    assert.equal(getEventListeners(long.signal, 'abort').length, 0);
  });
});
