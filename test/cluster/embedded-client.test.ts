/**
 * Client and discovery end to end on the embedded API server: CRUD, conflicts, 404s, request counts,
 * dry-run, retries on injected errors, the discovery disk cache and a CRD appearing mid-run.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError, Discovery, connect, isConflict, isNotFound } from '../../src/cluster/index.js';
import { GitopsError } from '../../src/common/index.js';
import { cm, connectTo, crd, ns } from './embedded-setup.js';
import { preserveUnknownFieldsCrd } from '../support/crds.js';
import { crdsEstablished, useEmbeddedCluster, needsEmbedded } from '../support/embedded.js';
import type { ClusterConnection, KubeObject, ResourceInfo } from '../../src/cluster/index.js';

describe('cluster client and discovery against the embedded API server', () => {
  const fx = useEmbeddedCluster();
  let conn: ClusterConnection;
  let configMaps: ResourceInfo;
  let namespaces: ResourceInfo;

  before(async () => {
    ({ conn, configMaps, namespaces } = await connectTo(fx));
  });

  after(() => conn?.close());

  it('discovery reports served kinds with plural, scope and verbs, and caches them on disk', async () => {
    assert.deepEqual(configMaps, {
      group: '',
      version: 'v1',
      kind: 'ConfigMap',
      plural: 'configmaps',
      namespaced: true,
      verbs: configMaps.verbs,
    });
    assert.ok(configMaps.verbs.includes('watch'));
    const deployments = await conn.discovery.resolve({ group: 'apps', kind: 'Deployment' });
    assert.equal(deployments.plural, 'deployments');
    assert.equal(namespaces.namespaced, false);
    assert.ok(existsSync(conn.discovery.cacheFile));

    const second = await connect({
      kubeconfig: fx.kubeconfig,
      discovery: { cacheDir: join(fx.dir, 'discovery') },
    });
    await second.discovery.resolve({ group: 'apps', kind: 'Deployment' });
    assert.equal(second.client.counts().total, 0, 'a fresh disk cache answers without requests');
    second.close();

    const later = Date.now() + 10 * 60_000;
    const third = await connect({
      kubeconfig: fx.kubeconfig,
      discovery: { cacheDir: join(fx.dir, 'discovery'), now: () => later },
    });
    await third.discovery.resolve({ group: 'apps', kind: 'Deployment' });
    assert.ok((third.client.counts().byVerb['discovery'] ?? 0) > 0, 'an expired disk cache is refetched');
    third.close();
  });

  it('an unknown kind refreshes discovery once, then fails naming the kind; a CRD created mid-run is found', async () => {
    const d = new Discovery(conn.client, { cacheDir: join(fx.dir, 'discovery-crd') });
    await d.resources();
    const before = conn.client.counts().byVerb['discovery'] ?? 0;
    await assert.rejects(d.resolve({ group: 'example.com', kind: 'Widget' }), (err: unknown) => {
      assert.ok(err instanceof GitopsError);
      assert.match(
        err.message,
        /^kind example\.com\/Widget: failed to find in discovery: the server at http.* does not serve this kind$/,
      );
      return true;
    });
    assert.ok((conn.client.counts().byVerb['discovery'] ?? 0) > before, 'the miss refreshed discovery');

    const crds = await d.resolve({ group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' });
    await conn.client.create(crds, crd('widgets', 'Widget'));
    await crdsEstablished(fx);
    const versionsBefore = await d.apiVersions();
    assert.ok(!versionsBefore.includes('example.com/v1/Widget'));
    versionsBefore.length = 0; // the caller's copy
    const widgets = await d.resolve({ group: 'example.com', kind: 'Widget' });
    assert.deepEqual([widgets.plural, widgets.version, widgets.namespaced], ['widgets', 'v1', true]);
    // Worked out once per discovery answer: the refresh that found Widget is seen, in byte order.
    const versions = await d.apiVersions();
    assert.ok(versions.includes('example.com/v1') && versions.includes('example.com/v1/Widget'));
    assert.ok(versions.includes('v1/ConfigMap'));
    assert.deepEqual(versions, [...versions].sort());
    assert.deepEqual(await d.apiVersions(), versions);
  });

  it("a kind its group serves only at a non-preferred version has a preferred version too (client-go's rule)", async () => {
    const d = new Discovery(conn.client, { cacheDir: join(fx.dir, 'discovery-mixed') });
    const crds = await d.resolve({ group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' });
    // mixed.example.com: Bolt at v1 and v1beta1, Nut at v1alpha1 only. The group prefers v1.
    const at = (kind: string, versions: Array<[string, boolean]>): KubeObject => {
      const c = preserveUnknownFieldsCrd('mixed.example.com', kind);
      const schema = (c.spec as { versions: Array<{ schema: unknown }> }).versions[0]!.schema;
      (c.spec as { versions: unknown[] }).versions = versions.map(([name, storage]) => ({
        name,
        served: true,
        storage,
        schema,
      }));
      return c;
    };
    await conn.client.create(
      crds,
      at('Bolt', [
        ['v1beta1', true],
        ['v1', false],
      ]),
    );
    await conn.client.create(crds, at('Nut', [['v1alpha1', true]]));
    await crdsEstablished(fx);
    const rows = (await d.refresh())
      .filter((r) => r.group === 'mixed.example.com')
      .map((r) => `${r.kind}@${r.version}${r.preferred ? ' preferred' : ''}`);
    assert.deepEqual(rows, ['Bolt@v1 preferred', 'Nut@v1alpha1 preferred', 'Bolt@v1beta1']);
    assert.equal((await d.resolve({ group: 'mixed.example.com', kind: 'Nut' })).version, 'v1alpha1');
  });

  it('the client creates, conflicts on stale updates and AlreadyExists, 404s, and counts per verb and kind', async () => {
    conn.client.resetCounts();
    const created = await conn.client.create(configMaps, cm('alpha', 'crud'));
    assert.ok(created.metadata?.resourceVersion);
    const updated = await conn.client.update(configMaps, { ...created, data: { k: 'v2' } });
    assert.notEqual(updated.metadata?.resourceVersion, created.metadata?.resourceVersion);
    await assert.rejects(
      conn.client.update(configMaps, { ...created, data: { k: 'stale' } }),
      (err: unknown) => {
        assert.ok(isConflict(err));
        assert.equal((err as ApiError).reason, 'Conflict');
        assert.match((err as Error).message, /^\/ConfigMap alpha\/crud: failed to update: /);
        return true;
      },
    );
    await assert.rejects(conn.client.create(configMaps, cm('alpha', 'crud')), (err: unknown) => {
      assert.ok(err instanceof ApiError && err.code === 409 && err.reason === 'AlreadyExists');
      return true;
    });
    await assert.rejects(conn.client.get(configMaps, 'alpha', 'missing'), (err: unknown) => isNotFound(err));
    await conn.client.patch(configMaps, 'alpha', 'crud', { data: { p: '1' } }, 'merge');
    await conn.client.delete(configMaps, 'alpha', 'crud');
    const counts = conn.client.counts();
    assert.deepEqual(counts.byVerb, { create: 2, update: 2, get: 1, patch: 1, delete: 1 });
    assert.deepEqual(counts.byGroupKind, { '/ConfigMap': 7 });
    assert.equal(counts.total, 7);
  });

  it('listAll pages with limit/continue to the last page', async () => {
    await conn.client.create(namespaces, ns('paged'));
    for (let i = 0; i < 5; i++) await conn.client.create(configMaps, cm('paged', `item-${i}`));
    const before = conn.client.counts().byVerb['list'] ?? 0;
    const items = await conn.client.listAll(configMaps, { namespace: 'paged', pageSize: 2 });
    // A real server's root-ca-cert-publisher puts kube-root-ca.crt in every namespace.
    const names = items.map((o) => o.metadata?.name).filter((n) => n !== 'kube-root-ca.crt');
    assert.deepEqual(names.sort(), ['item-0', 'item-1', 'item-2', 'item-3', 'item-4']);
    assert.ok(items.every((o) => o.kind === 'ConfigMap'));
    assert.equal((conn.client.counts().byVerb['list'] ?? 0) - before, 3, 'pages of 2, 2 and 1');
  });

  it('write options are per call: a dry-run write stores nothing, the same client then writes for real', async () => {
    const answer = await conn.client.create(configMaps, cm('alpha', 'dry'), { dryRun: true });
    assert.equal(answer.metadata?.name, 'dry');
    await assert.rejects(conn.client.get(configMaps, 'alpha', 'dry'), (err: unknown) => isNotFound(err));

    await conn.client.create(configMaps, cm('alpha', 'dry'), { fieldManager: 'first' });
    const patched = await conn.client.patch(
      configMaps,
      'alpha',
      'dry',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' }, data: { key: 'predicted' } },
      'apply',
      { dryRun: true, fieldManager: 'predictor' },
    );
    assert.equal((patched['data'] as Record<string, string>)['key'], 'predicted');
    const live = await conn.client.get(configMaps, 'alpha', 'dry');
    assert.notEqual((live['data'] as Record<string, string> | undefined)?.['key'], 'predicted');
    assert.deepEqual(
      (live.metadata?.managedFields as Array<{ manager: string }>).map((m) => m.manager),
      ['first'],
      'a dry-run apply records no manager',
    );

    await conn.client.delete(configMaps, 'alpha', 'dry', { dryRun: true });
    await conn.client.get(configMaps, 'alpha', 'dry');
    await conn.client.delete(configMaps, 'alpha', 'dry');
    await assert.rejects(conn.client.get(configMaps, 'alpha', 'dry'), (err: unknown) => isNotFound(err));
  });

  it('a conflicting apply fails unless that call forces; fieldValidation is per call', async () => {
    await conn.client.patch(
      configMaps,
      'alpha',
      'owned',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned' }, data: { key: 'mine' } },
      'apply',
      { fieldManager: 'owner' },
    );
    const theirs = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owned' },
      data: { key: 'theirs' },
    };
    await assert.rejects(
      conn.client.patch(configMaps, 'alpha', 'owned', theirs, 'apply', { fieldManager: 'other' }),
      (err: unknown) => isConflict(err),
    );
    const forced = await conn.client.patch(configMaps, 'alpha', 'owned', theirs, 'apply', {
      fieldManager: 'other',
      force: true,
    });
    assert.equal((forced['data'] as Record<string, string>)['key'], 'theirs');

    const unknown = { ...cm('alpha', 'strict'), bogus: 1 } as KubeObject;
    await assert.rejects(
      conn.client.create(configMaps, unknown, { fieldValidation: 'Strict' }),
      /unknown field "bogus"/,
    );
    await conn.client.create(configMaps, unknown, { fieldValidation: 'Ignore' });
  });

  it('reads are retried on injected 500s and 429s, each attempt counted', async (t) => {
    if (needsEmbedded(t, 'fault injection (cluster.faults)')) return;
    await conn.client.create(configMaps, cm('alpha', 'retry'));
    conn.client.resetCounts();
    const stop = fx.cluster.faults.failRequests({
      verb: 'get',
      resource: 'configmaps',
      status: 500,
      times: 2,
    });
    const got = await conn.client.get(configMaps, 'alpha', 'retry');
    stop();
    assert.equal(got.metadata?.name, 'retry');
    assert.equal(conn.client.counts().byVerb['get'], 3);

    const throttle = fx.cluster.faults.failRequests({
      verb: 'create',
      resource: 'configmaps',
      status: 429,
      times: 1,
    });
    await conn.client.create(configMaps, cm('alpha', 'throttled'));
    throttle();
    assert.equal(conn.client.counts().byVerb['create'], 2, 'a 429 write is retried (the server did nothing)');

    const broken = fx.cluster.faults.failRequests({
      verb: 'create',
      resource: 'configmaps',
      status: 500,
      times: 1,
    });
    await assert.rejects(conn.client.create(configMaps, cm('alpha', 'not-retried')), (err: unknown) => {
      assert.ok(err instanceof ApiError && err.code === 500);
      return true;
    });
    broken();
    assert.equal(conn.client.counts().byVerb['create'], 3, 'a 500 write is not retried');
  });
});
