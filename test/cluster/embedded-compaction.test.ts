/**
 * Issue 21 item 5a: the live cache against the embedded server's periodic compaction (no forced fault).
 * A watch that is down while the server compacts past the cache's resourceVersion resumes into a 410
 * Expired; the cache must relist and converge on every change it missed, deletions included.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cm, connectTo } from './embedded-setup.js';
import { until } from './fake-api.js';
import { useEmbeddedCluster, needsEmbedded } from '../support/embedded.js';
import type { ClusterConnection, ResourceInfo } from '../../src/cluster/index.js';

describe('live cache: relist after the server compacted its history', () => {
  const fx = useEmbeddedCluster({ compactionIntervalMs: 20 });
  let conn: ClusterConnection;
  let configMaps: ResourceInfo;

  before(async () => {
    ({ conn, configMaps } = await connectTo(fx));
  });
  after(() => conn?.close());

  it('a resume from a compacted resourceVersion gets 410, relists, and sees what changed meanwhile', async (t) => {
    if (needsEmbedded(t, 'fault injection (cluster.faults)')) return;
    await conn.client.create(configMaps, cm('gamma', 'stays'));
    await conn.client.create(configMaps, cm('gamma', 'goes'));
    const cache = conn.liveCache({
      resources: [configMaps],
      namespaces: ['gamma'],
      backoff: { initialMs: 5, maxMs: 20 },
    });
    await cache.start();
    const key = (name: string) => ({ group: '', kind: 'ConfigMap', namespace: 'gamma', name });
    const resumeFrom = (await fetch(`${fx.cluster.url}/api/v1/namespaces/gamma/configmaps`).then((r) =>
      r.json(),
    )) as { metadata: { resourceVersion: string } };

    // The cache's watch goes down and cannot come back while ConfigMaps change and the server compacts.
    const refuse = fx.cluster.faults.failRequests({ verb: 'watch', resource: 'configmaps' });
    await until(() => fx.cluster.faults.dropWatches() > 0, 'watch open');
    await conn.client.delete(configMaps, 'gamma', 'goes');
    await conn.client.create(configMaps, cm('gamma', 'new'));
    for (let i = 0; ; i++) {
      await conn.client.create(configMaps, cm('alpha', `churn-${i}`));
      const res = await fetch(
        `${fx.cluster.url}/api/v1/namespaces/alpha/configmaps?resourceVersion=${resumeFrom.metadata.resourceVersion}&resourceVersionMatch=Exact`,
      );
      await res.arrayBuffer();
      if (res.status === 410) break;
      assert.ok(i < 10_000, 'the server never compacted');
    }
    assert.equal(cache.stats().relists, 0);
    refuse();

    await cache.waitFor(key('new'), (o) => o !== undefined);
    await cache.waitFor(key('goes'), (o) => o === undefined);
    assert.ok(cache.get(key('stays')), 'an unchanged object survives the relist');
    await until(() => cache.stats().relists >= 1, 'relisted after 410');
    cache.stop();
    await cache.stopped();
  });
});
