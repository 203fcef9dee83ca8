/**
 * The pool's leases (src/controller/refresh/destinations.ts `ClusterPool.lease`) on the embedded API server:
 * a rescope retires a cluster whose live cache no longer covers its apps; a retired cluster nobody holds is
 * closed at once, one held is closed when its last lease ends (an operation syncing on its cache ends
 * first), and `close()` closes the held ones too, counting every cluster's API requests. Each wait is for
 * a close the step under test must cause.
 */
import { join } from 'node:path';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Application } from '../../../src/apps/index.js';
import { loadKubeConfig } from '../../../src/cluster/index.js';
import { OWN_FIELD_MANAGERS } from '../../../src/controller/index.js';
import { ClusterPool } from '../../../src/controller/refresh/index.js';
import type { Destinations } from '../../../src/controller/refresh/index.js';
import { useEmbeddedCluster } from '../../support/embedded.js';
import { application, seenConnect } from '../setup.js';
import type { SeenConnection } from '../setup.js';

describe('ClusterPool leases: retired clusters close when their last lease ends', () => {
  const fx = useEmbeddedCluster();

  /**
   * A pool over the apps (all on the fixture's context; `add` adds one), its connections recorded in
   * order. The live caches list namespaces that need not exist.
   */
  async function pool(
    first: Application,
  ): Promise<{ pool: ClusterPool; conns: SeenConnection[]; add: (app: Application) => void }> {
    const kubeConfig = await loadKubeConfig({ kubeconfig: fx.kubeconfig });
    const context = kubeConfig.getCurrentContext();
    const destinations: Destinations = {
      contextOf: new Map(),
      accessOf: new Map(),
      scopeOf: new Map(),
      projectOf: new Map(),
    };
    const conns: SeenConnection[] = [];
    const apps: Application[] = [];
    const add = (app: Application): void => {
      apps.push(app);
      destinations.contextOf.set(app, context);
    };
    add(first);
    const p = new ClusterPool({
      kubeConfig,
      apps: () => apps,
      destinations,
      connect: seenConnect(conns),
      discovery: { cacheDir: join(fx.dir, 'discovery'), ttlMs: 0 },
      client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
      state: {
        tracking: {},
        managers: new Set(OWN_FIELD_MANAGERS),
        appliers: new Set(OWN_FIELD_MANAGERS),
      },
    });
    return { pool: p, conns, add };
  }

  const url = 'https://example.invalid/repo.git';

  it('a held cluster outlives its rescope until its lease ends; the next lease connects anew', async () => {
    const a = application('a', url, 'a', { namespace: 'pool-a' });
    const b = application('b', url, 'b', { namespace: 'pool-b' });
    const { pool: p, conns, add } = await pool(a);
    try {
      const lease = p.lease(a);
      const first = await lease.cluster;
      await first.ready();
      // A second app in a namespace the cache does not cover: the cluster is retired, not closed.
      add(b);
      assert.equal((await p.rescope()).length, 1);
      assert.equal(conns[0]!.closes, 0, 'closed while a lease holds it');
      const next = p.lease(b);
      assert.notEqual(await next.cluster, first, 'the next lease connects anew');
      assert.equal(conns.length, 2);
      lease.release();
      await conns[0]!.closed;
      lease.release(); // a second release does nothing
      next.release();
      assert.equal(conns[0]!.closes, 1);
      assert.equal(conns[1]!.closes, 0, 'the current cluster stays open with no lease');
    } finally {
      await p.close();
    }
    assert.equal(conns[1]!.closes, 1);
  });

  it('a retired cluster nobody holds is closed at once; close() counts its API requests', async () => {
    const a = application('a', url, 'a', { namespace: 'pool-a' });
    const { pool: p, conns } = await pool(a);
    let requests = 0;
    try {
      const lease = p.lease(a);
      await (await lease.cluster).ready();
      lease.release();
      requests = conns[0]!.conn.client.counts().total;
      assert.ok(requests > 0);
      assert.equal((await p.rescope(true)).length, 1);
      await conns[0]!.closed;
    } finally {
      assert.equal(await p.close(), requests);
    }
    assert.equal(conns[0]!.closes, 1, 'closed once');
  });

  it('close() closes a retired cluster still held; its late release closes nothing again', async () => {
    const a = application('a', url, 'a', { namespace: 'pool-a' });
    const { pool: p, conns } = await pool(a);
    const lease = p.lease(a);
    await (await lease.cluster).ready();
    await p.rescope(true);
    assert.equal(conns[0]!.closes, 0);
    await p.close();
    assert.equal(conns[0]!.closes, 1);
    lease.release();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(conns[0]!.closes, 1);
  });
});
