/**
 * `ClientOptions.onRequest` on the embedded API server: every attempt is observed once with its verb,
 * resource type, namespace, status code, dry run, server and context; a request that got no answer reports
 * code 0; an observer that throws never fails the request.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeClient, connect, isNotFound } from '../../src/cluster/index.js';
import type { ClusterConnection, KubeRequestInfo, ResourceInfo } from '../../src/cluster/index.js';
import { cm, ns } from './embedded-setup.js';
import { useEmbeddedCluster } from '../support/embedded.js';

describe('KubeClient onRequest', () => {
  const fx = useEmbeddedCluster();
  const seen: KubeRequestInfo[] = [];
  let conn: ClusterConnection;
  let configMaps: ResourceInfo;
  let namespaces: ResourceInfo;

  before(async () => {
    conn = await connect({
      kubeconfig: fx.kubeconfig,
      discovery: { cacheDir: join(fx.dir, 'discovery') },
      client: { retry: { maxRetries: 0 }, onRequest: (info) => seen.push(info) },
    });
    configMaps = await conn.discovery.resolve({ group: '', kind: 'ConfigMap' });
    namespaces = await conn.discovery.resolve({ group: '', kind: 'Namespace' });
  });
  after(() => conn?.close());

  it('reports discovery, create, dry-run patch, get 404, list and watch with their resource and code', async () => {
    assert.ok(seen.length > 0 && seen.every((i) => i.verb === 'discovery' && i.resource === ''));
    assert.ok(seen.every((i) => i.code === 200 && i.server === conn.server && i.context === 'embedded'));
    seen.length = 0;

    await conn.client.create(namespaces, ns('hooked'));
    await conn.client.create(configMaps, cm('hooked', 'one'));
    await conn.client.patch(configMaps, 'hooked', 'one', { data: { k: 'v' } }, 'merge', { dryRun: true });
    await assert.rejects(conn.client.get(configMaps, 'hooked', 'missing'), isNotFound);
    await conn.client.list(configMaps, {});
    const abort = new AbortController();
    const events = await conn.client.watch(configMaps, { namespace: 'hooked', signal: abort.signal });
    abort.abort();
    for await (const _ of events) break;

    const rows = seen.map((i) => [
      i.verb,
      i.method,
      i.group,
      i.version,
      i.kind,
      i.resource,
      i.namespace,
      i.code,
      i.dryRun,
    ]);
    assert.deepEqual(rows, [
      ['create', 'POST', '', 'v1', 'Namespace', 'namespaces', '', 201, false],
      ['create', 'POST', '', 'v1', 'ConfigMap', 'configmaps', 'hooked', 201, false],
      ['patch', 'PATCH', '', 'v1', 'ConfigMap', 'configmaps', 'hooked', 200, true],
      ['get', 'GET', '', 'v1', 'ConfigMap', 'configmaps', 'hooked', 404, false],
      ['list', 'GET', '', 'v1', 'ConfigMap', 'configmaps', '', 200, false],
      ['watch', 'GET', '', 'v1', 'ConfigMap', 'configmaps', 'hooked', 200, false],
    ]);
  });

  it('a request with no answer reports code 0, and a throwing observer does not fail requests', async () => {
    const infos: KubeRequestInfo[] = [];
    // A port nothing listens on: the same client code path, no answer.
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'gone', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'gone', cluster: 'gone', user: 'u' }],
      currentContext: 'gone',
    });
    const lost = new KubeClient(kc, { retry: { maxRetries: 0 }, onRequest: (info) => infos.push(info) });
    await assert.rejects(lost.get(configMaps, 'default', 'x'));
    lost.close();
    assert.deepEqual(
      infos.map((i) => [i.verb, i.code, i.context]),
      [['get', 0, 'gone']],
    );

    const throwing = await connect({
      kubeconfig: fx.kubeconfig,
      discovery: { cacheDir: join(fx.dir, 'discovery') },
      client: {
        onRequest: () => {
          throw new Error('observer broke');
        },
      },
    });
    const got = await throwing.client.get(configMaps, 'hooked', 'one');
    assert.equal(got.metadata?.name, 'one');
    throwing.close();
  });
});
