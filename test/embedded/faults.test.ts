/**
 * Fault injection (seeded error rates per verb and resource, 429 with Retry-After, latency) and request
 * counters per verb and resource.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FaultInjector } from '../../src/embedded/index.js';
import { api, useEmbeddedCluster } from '../support/embedded.js';

describe('fault injector', () => {
  it('draws the same failures for the same seed and request sequence', () => {
    const run = (seed: number): boolean[] => {
      const f = new FaultInjector(seed);
      f.failRequests({ verb: 'get', rate: 0.5 });
      return Array.from({ length: 40 }, () => f.errorFor('get', 'configmaps') !== undefined);
    };
    assert.deepEqual(run(7), run(7));
    assert.notDeepEqual(run(7), run(8));
    const fails = run(7).filter(Boolean).length;
    assert.ok(fails > 5 && fails < 35, `about half fail (${fails}/40)`);
  });

  it('matches rules by verb and resource and spends `times`', () => {
    const f = new FaultInjector();
    const stop = f.failRequests({
      verb: 'list',
      resource: 'deployments.apps',
      times: 2,
      status: 503,
      retryAfterSeconds: 3,
    });
    assert.equal(f.errorFor('get', 'deployments.apps'), undefined);
    assert.equal(f.errorFor('list', 'configmaps'), undefined);
    assert.deepEqual(f.errorFor('list', 'deployments.apps'), { status: 503, retryAfterSeconds: 3 });
    assert.ok(f.errorFor('list', 'deployments.apps'));
    assert.equal(f.errorFor('list', 'deployments.apps'), undefined, 'spent');
    stop();
    f.failRequests({ status: 500 });
    assert.deepEqual(f.errorFor('patch', 'x'), { status: 500 });
    f.reset();
    assert.equal(f.errorFor('patch', 'x'), undefined);
  });
});

describe('faults and stats through the server', () => {
  const fx = useEmbeddedCluster({ seed: 42 });

  it('answers injected 429s with Retry-After and a TooManyRequests Status, and changes nothing', async () => {
    const stop = fx.cluster.faults.failRequests({
      verb: 'create',
      resource: 'configmaps',
      status: 429,
      retryAfterSeconds: 2,
    });
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limited' } };
    const res = await api(fx.cluster, 'POST', '/api/v1/namespaces/default/configmaps', cm);
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '2');
    assert.equal(res.body.reason, 'TooManyRequests');
    assert.equal(res.body.details.retryAfterSeconds, 2);
    assert.equal((await api(fx.cluster, 'GET', '/api/v1/namespaces/default/configmaps/limited')).status, 404);
    stop();
    assert.equal((await api(fx.cluster, 'POST', '/api/v1/namespaces/default/configmaps', cm)).status, 201);
    const e500 = fx.cluster.faults.failRequests({ verb: 'get', status: 500, times: 1 });
    const failed = await api(fx.cluster, 'GET', '/api/v1/namespaces/default/configmaps/limited');
    assert.equal(failed.status, 500);
    assert.equal(failed.body.reason, 'InternalError');
    e500();
  });

  it('delays requests by the configured latency and still answers them', async () => {
    fx.cluster.faults.setLatency(30, 'get');
    const res = await api(fx.cluster, 'GET', '/api/v1/namespaces/default/configmaps/limited');
    fx.cluster.faults.setLatency(0, 'get');
    assert.equal(res.status, 200);
  });

  it('counts requests per verb and per resource, discovery apart', async () => {
    fx.cluster.stats.reset();
    await api(fx.cluster, 'GET', '/api/v1');
    await api(fx.cluster, 'GET', '/api/v1/namespaces/default/configmaps');
    await api(fx.cluster, 'GET', '/api/v1/namespaces/default/configmaps/limited');
    await api(fx.cluster, 'GET', '/apis/apps/v1/deployments');
    await api(fx.cluster, 'GET', '/apis/apps/v1/namespaces/default/deployments/missing');
    const s = fx.cluster.stats.snapshot();
    assert.equal(s.total, 5);
    assert.deepEqual(s.byVerb, { get: 3, list: 2 });
    assert.deepEqual(s.byResource, { discovery: 1, configmaps: 2, 'deployments.apps': 2 });
    assert.equal(fx.cluster.stats.count('list', 'deployments.apps'), 1);
    assert.equal(fx.cluster.stats.count('get'), 3);
  });
});
