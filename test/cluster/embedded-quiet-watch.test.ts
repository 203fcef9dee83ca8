/**
 * A quiet kind's watch on the embedded API server (issue 23): as client-go's reflector, a watch the server
 * ends at its timeoutSeconds is opened again from the last resourceVersion, never relisted; the server
 * sends no BOOKMARK here (a real kube-apiserver sends none to a watch that has seen no event), so silence
 * alone must not count as a stall. Counted with the server's request counters.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { MIN_WATCH_TIMEOUT_SECONDS, watchTimeoutOf } from '../../src/cluster/live-cache-scope.js';
import { cm, connectTo } from './embedded-setup.js';
import { useEmbeddedCluster, needsEmbedded } from '../support/embedded.js';
import type { ClusterConnection, ResourceInfo } from '../../src/cluster/index.js';

describe('a quiet watch on the embedded API server', () => {
  // No periodic bookmarks: the server says nothing to a watch of a kind nobody changes.
  const fx = useEmbeddedCluster({ bookmarkIntervalMs: 3_600_000 });
  let conn: ClusterConnection;
  let configMaps: ResourceInfo;

  before(async () => {
    ({ conn, configMaps } = await connectTo(fx));
  });
  after(() => conn?.close());

  it('is watched again from its resourceVersion when timeoutSeconds ends it, with one LIST in all', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    await conn.client.create(configMaps, cm('alpha', 'a1'));
    const warnings: string[] = [];
    const before = fx.cluster.stats.snapshot().byVerbResource;
    const count = (key: string): number =>
      (fx.cluster.stats.snapshot().byVerbResource[key] ?? 0) - (before[key] ?? 0);
    const cache = conn.liveCache({
      resources: [configMaps],
      namespaces: ['alpha'],
      watchTimeoutSeconds: 1,
      onWarning: (m) => warnings.push(m),
    });
    await cache.start();
    await delay(3_500); // three watches end quietly at their timeout
    assert.equal(count('list configmaps'), 1, 'only the initial list');
    assert.ok(count('watch configmaps') >= 3, `watched again: ${count('watch configmaps')} watches`);
    assert.equal(cache.stats().relists, 0);
    assert.deepEqual(warnings, []);
    // Nothing is lost across the re-watches: a change made now is seen.
    const seen = cache.waitFor(
      { group: '', kind: 'ConfigMap', namespace: 'alpha', name: 'a2' },
      (o) => o !== undefined,
    );
    await conn.client.create(configMaps, cm('alpha', 'a2'));
    await seen;
    assert.equal(count('list configmaps'), 1);
    cache.stop();
    await cache.stopped();
  });

  it("asks for client-go's timeout by default: a random 5 to 10 minutes", () => {
    assert.equal(
      watchTimeoutOf({ watchTimeoutSeconds: undefined, random: () => 0 }),
      MIN_WATCH_TIMEOUT_SECONDS,
    );
    assert.equal(watchTimeoutOf({ watchTimeoutSeconds: undefined, random: () => 0.5 }), 450);
    assert.equal(watchTimeoutOf({ watchTimeoutSeconds: undefined, random: () => 0.999 }), 599);
    assert.equal(watchTimeoutOf({ watchTimeoutSeconds: 7, random: () => 0.5 }), 7);
  });
});
