/**
 * StateManager and Run beyond the verdicts: health following live status through the cache's watch,
 * server-side diff, label tracking, per-app errors that hide nothing, Ctrl-C.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { ClusterConnection, KubeObject } from '../../../src/cluster/index.js';
import { ClusterState, OWN_FIELD_MANAGERS, StateManager } from '../../../src/controller/index.js';
import { createSourceService } from '../../../src/source/index.js';
import { api, hasKubectl, kubectl, useEmbeddedCluster, needsEmbedded } from '../../support/embedded.js';
import { TestRepo } from '../../support/git.js';
import { configMap, deployment, ingress } from '../manifests.js';
import {
  application,
  applyObjects,
  connectAs,
  createNamespaces,
  newCacheRoot,
  refresh,
  renderObjects,
  reportOf,
} from '../setup.js';

describe('controller: health, server-side diff, tracking methods, errors', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;

  before(async () => {
    repo.commit({
      'health/ingress.yaml': ingress('web'),
      'ssd/deploy.yaml': deployment('web', { replicas: 2 }),
      'ssd/cm.yaml': configMap('settings', { a: '1' }),
      'label/cm.yaml': configMap('settings', { a: '1' }),
      'broken/bad.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [\n',
    });
    conn = await connectAs(fx);
    await createNamespaces(conn, ['health', 'ssd', 'label']);
  });

  after(() => {
    conn?.close();
    repo.remove();
  });

  // An Ingress: its status is written by an ingress controller alone, and neither server runs one (a real
  // kube-apiserver's kube-controller-manager and the rig's kubelet stand-in roll a Deployment out on their
  // own, so a Deployment's status would change under the test there).
  it('health follows the live status through the watch: an Ingress moves from Progressing to Healthy as its status is patched', async () => {
    const app = application('health', repo.url, 'health', { namespace: 'health' });
    await applyObjects(conn, await renderObjects(app, cacheRoot), 'health');
    const state = new ClusterState({
      conn: await connectAs(fx),
      namespaces: ['health'],
      tracking: {},
      managers: new Set(OWN_FIELD_MANAGERS),
    });
    const source = createSourceService({ cacheRoot });
    const manager = new StateManager({ source, clusterOf: () => Promise.resolve(state) });
    try {
      const before = await manager.compare(app);
      assert.equal(before.sync, 'Synced');
      assert.equal(before.health.status, 'Progressing');
      assert.deepEqual(
        before.resources.map((r) => [r.kind, r.health?.status]),
        [['Ingress', 'Progressing']],
      );

      const cache = await state.ready();
      const key = { group: 'networking.k8s.io', kind: 'Ingress', namespace: 'health', name: 'web' };
      const assigned = (o: KubeObject | undefined): boolean =>
        (
          (o?.['status'] as { loadBalancer?: { ingress?: unknown[] } } | undefined)?.loadBalancer?.ingress ??
          []
        ).length > 0;
      const seen = cache.waitFor(key, assigned);
      const patched = await api(
        fx.cluster,
        'PATCH',
        '/apis/networking.k8s.io/v1/namespaces/health/ingresses/web/status',
        { status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } } },
        'application/merge-patch+json',
      );
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      await seen;

      const afterPatch = await manager.compare(app);
      assert.equal(afterPatch.health.status, 'Healthy');
      assert.equal(afterPatch.resources[0]!.health?.status, 'Healthy');
      assert.equal(afterPatch.sync, 'Synced', 'status is never compared');
    } finally {
      await source.close();
      await state.close();
    }
  });

  it(
    'kubectl (client-side) apply: Synced, then a field removed in Git is a difference via last-applied',
    { skip: !hasKubectl && 'no kubectl' },
    async () => {
      repo.commit({
        'kubectl/cm.yaml': configMap('settings', { kept: 'value', dropped: 'soon' }),
        'kubectl/deploy.yaml': deployment('web'),
      });
      const app = application('kubectl', repo.url, 'kubectl', { namespace: 'kubectl' });
      await createNamespaces(conn, ['kubectl']);
      const file = join(fx.dir, 'kubectl-app.yaml');
      writeFileSync(file, (await renderObjects(app, cacheRoot)).map((o) => stringify(o)).join('---\n'));
      const applied = await kubectl(fx, ['apply', '-n', 'kubectl', '-f', file]);
      assert.equal(applied.code, 0, applied.stderr);
      const synced = (await refresh(fx, [app], cacheRoot)).apps[0]!.comparison!;
      assert.deepEqual(
        synced.resources.map((r) => [r.kind, r.status]),
        [
          ['ConfigMap', 'Synced'],
          ['Deployment', 'Synced'],
        ],
      );

      repo.commit({ 'kubectl/cm.yaml': configMap('settings', { kept: 'value' }) });
      const removed = (await refresh(fx, [app], cacheRoot)).apps[0]!.comparison!;
      const cm = removed.resources.find((r) => r.kind === 'ConfigMap')!;
      assert.equal(cm.status, 'OutOfSync');
      assert.match(cm.diffText!, /^- {2}dropped: soon$/m);
      assert.ok(!cm.diffText!.includes('last-applied'), 'the annotation itself is never shown');
    },
  );

  it('server-side diff: one dry-run apply per live resource, same verdicts', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    const app = application('ssd', repo.url, 'ssd', { namespace: 'ssd' });
    // Drift applied by our own manager (an apply, as a sync would): the dry run shares its ownership.
    const drifted = (await renderObjects(app, cacheRoot)).map((o) =>
      o.kind === 'Deployment' ? { ...o, spec: { ...(o['spec'] as object), replicas: 4 } } : o,
    );
    await applyObjects(conn, drifted, 'ssd');

    const patchesBefore = fx.cluster.stats.count('patch');
    const report = await refresh(fx, [app], cacheRoot, { serverSideDiff: true });
    const c = reportOf(report, 'ssd').comparison!;
    assert.equal(fx.cluster.stats.count('patch') - patchesBefore, 2, 'one dry run per resource');
    const d = c.resources.find((r) => r.kind === 'Deployment')!;
    assert.equal(d.status, 'OutOfSync');
    assert.match(d.diffText!, /^- {2}replicas: 4$/m);
    assert.match(d.diffText!, /^\+ {2}replicas: 2$/m);
    assert.equal(c.resources.find((r) => r.kind === 'ConfigMap')!.status, 'Synced');
    const live = await api(fx.cluster, 'GET', '/apis/apps/v1/namespaces/ssd/deployments/web');
    assert.equal(live.body.spec.replicas, 4, 'dry runs store nothing');

    const client = await refresh(fx, [app], cacheRoot);
    assert.deepEqual(
      client.apps[0]!.comparison!.resources.map((r) => r.status),
      c.resources.map((r) => r.status),
      'client-side diff agrees',
    );
  });

  it('server-side diff: a second refresh in the same process sends no dry run for unchanged objects', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    const app = application('ssd', repo.url, 'ssd', { namespace: 'ssd' });
    const state = new ClusterState({
      conn: await connectAs(fx),
      namespaces: ['ssd'],
      tracking: {},
      managers: new Set(OWN_FIELD_MANAGERS),
    });
    const source = createSourceService({ cacheRoot });
    const manager = new StateManager({
      source,
      clusterOf: () => Promise.resolve(state),
      serverSideDiff: true,
      reuseComparisons: true,
    });
    try {
      const patches = fx.cluster.stats.count('patch');
      const first = await manager.compare(app);
      assert.equal(fx.cluster.stats.count('patch') - patches, 2, 'one dry run per resource');
      const again = await manager.compare(app);
      assert.equal(fx.cluster.stats.count('patch') - patches, 2, 'no dry run for unchanged objects');
      assert.deepEqual(
        again.resources.map((r) => [r.kind, r.status, r.diffText]),
        first.resources.map((r) => [r.kind, r.status, r.diffText]),
      );
      // A live object written since is dry-run again, and its new state is what is compared.
      const cache = await state.ready();
      const key = {
        group: '',
        kind: 'ConfigMap',
        namespace: 'ssd',
        name: first.resources.find((r) => r.kind === 'ConfigMap')!.name,
      };
      const before = cache.get(key)!.metadata!.resourceVersion;
      const seen = cache.waitFor(key, (o) => o?.metadata?.resourceVersion !== before);
      await api(
        fx.cluster,
        'PATCH',
        `/api/v1/namespaces/ssd/configmaps/${key.name}`,
        { metadata: { labels: { touched: 'yes' } } },
        'application/merge-patch+json',
      );
      await seen;
      const third = await manager.compare(app);
      assert.equal(
        fx.cluster.stats.count('patch') - patches,
        4,
        'the written one only (plus the label patch)',
      );
      assert.equal(third.resources.find((r) => r.kind === 'ConfigMap')!.status, 'Synced');
    } finally {
      await state.close();
      await source.close();
    }
  });

  it('server-side diff forces conflicts (as gitops-engine): a field another manager owns gives OutOfSync or Synced, not Unknown', async () => {
    repo.commit({
      'ssdc/deploy.yaml': deployment('web', { replicas: 2 }),
      'ssdc/cm.yaml': configMap('settings', { a: '1' }),
    });
    await createNamespaces(conn, ['ssdc']);
    const app = application('ssdc', repo.url, 'ssdc', { namespace: 'ssdc' });
    // The usual history of an app that moved to server-side diff: a client-side apply (an Update entry)
    // by argocd-controller, then a change by someone else.
    const csa = await connectAs(fx, 'argocd-controller');
    for (const obj of await renderObjects(app, cacheRoot)) {
      const info = await csa.discovery.resolveApiVersionKind(obj.apiVersion ?? '', obj.kind ?? '');
      await csa.client.create(info, { ...obj, metadata: { ...obj.metadata, namespace: 'ssdc' } });
    }
    csa.close();
    const other = await connectAs(fx, 'someone-else');
    const deployments = await other.discovery.resolve({ group: 'apps', kind: 'Deployment' });
    await other.client.patch(deployments, 'ssdc', 'web', { spec: { replicas: 4 } }, 'merge');
    other.close();
    const before = await api(fx.cluster, 'GET', '/apis/apps/v1/namespaces/ssdc/deployments/web');
    // Unforced, the server refuses the dry run (what our earlier dry run reported as a comparison error).
    const unforced = await api(
      fx.cluster,
      'PATCH',
      '/apis/apps/v1/namespaces/ssdc/deployments/web?fieldManager=argocd-controller&dryRun=All',
      (await renderObjects(app, cacheRoot)).find((o) => o.kind === 'Deployment'),
      'application/apply-patch+yaml',
    );
    assert.equal(unforced.status, 409, JSON.stringify(unforced.body));

    const c = reportOf(await refresh(fx, [app], cacheRoot, { serverSideDiff: true }), 'ssdc').comparison!;
    assert.deepEqual(
      c.conditions.filter((x) => x.type === 'ComparisonError').map((x) => x.message),
      [],
    );
    const d = c.resources.find((r) => r.kind === 'Deployment')!;
    assert.equal(d.status, 'OutOfSync');
    assert.match(d.diffText!, /^- {2}replicas: 4$/m);
    assert.match(d.diffText!, /^\+ {2}replicas: 2$/m);
    assert.equal(c.resources.find((r) => r.kind === 'ConfigMap')!.status, 'Synced');
    const live = await api(fx.cluster, 'GET', '/apis/apps/v1/namespaces/ssdc/deployments/web');
    assert.equal(live.body.spec.replicas, 4, 'nothing taken over: a dry run');
    // Not written (its generation: a real server's Deployment controller writes its status meanwhile).
    assert.equal(live.body.metadata.generation, before.body.metadata.generation);
  });

  it('label tracking: ownership and extra resources by the instance label', async () => {
    const app = application('label', repo.url, 'label', { namespace: 'label' });
    const objects = (await renderObjects(app, cacheRoot)).map((o) => {
      const { ['argocd.argoproj.io/tracking-id']: _dropped, ...annotations } = o.metadata?.annotations ?? {};
      return {
        ...o,
        metadata: { ...o.metadata, annotations, labels: { 'app.kubernetes.io/instance': 'label' } },
      };
    });
    await applyObjects(conn, objects, 'label');
    const orphan = parse(configMap('orphan', { a: '1' })) as KubeObject;
    orphan.metadata!.labels = { 'app.kubernetes.io/instance': 'label' };
    await applyObjects(conn, [orphan], 'label');

    const report = await refresh(fx, [app], cacheRoot, { trackingMethod: 'label' });
    const c = report.apps[0]!.comparison!;
    assert.deepEqual(
      c.resources.map((r) => [r.name, r.status, r.difference, r.requiresPruning]),
      [
        ['orphan', 'OutOfSync', 'extra', true],
        ['settings', 'Synced', 'none', false],
      ],
    );
    // With annotation tracking the label-tracked objects are untracked: nothing extra; and Argo CD's tracking
    // migration (live has the instance label, no tracking-id) makes the target's id no difference.
    const byAnnotation = (await refresh(fx, [app], cacheRoot)).apps[0]!.comparison!;
    assert.deepEqual(
      byAnnotation.resources.map((r) => [r.name, r.difference]),
      [['settings', 'none']],
    );
  });

  it('annotation+label tracking: targets carry the tracking-id and the instance label', async () => {
    repo.commit({ 'both/cm.yaml': configMap('both-settings', { a: '1' }) });
    const app = application('both', repo.url, 'both', { namespace: 'label' });
    const report = await refresh(fx, [app], cacheRoot, { trackingMethod: 'annotation+label' });
    const r = report.apps[0]!.comparison!.resources[0]!;
    assert.equal(r.difference, 'missing');
    assert.match(r.diffText!, /^\+ {4}app\.kubernetes\.io\/instance: both$/m);
    assert.match(
      r.diffText!,
      /^\+ {4}argocd\.argoproj\.io\/tracking-id: both:\/ConfigMap:label\/both-settings$/m,
    );
    const byLabel = await refresh(fx, [app], cacheRoot, { trackingMethod: 'label' });
    assert.doesNotMatch(byLabel.apps[0]!.comparison!.resources[0]!.diffText!, /tracking-id/);
  });

  it('a managed namespace (CreateNamespace + managedNamespaceMetadata) is compared only once the app tracks it (Argo CD)', async () => {
    const app = application('mns', repo.url, 'label', {
      namespace: 'mns',
      spec: '  syncPolicy:\n    syncOptions: [CreateNamespace=true]\n    managedNamespaceMetadata:\n      labels: {team: web}\n',
    });
    // Not live (or live and untracked, as Argo CD's sync leaves it): not listed, so not missing either.
    const first = (await refresh(fx, [app], cacheRoot)).apps[0]!.comparison!;
    assert.equal(
      first.resources.find((r) => r.kind === 'Namespace'),
      undefined,
    );
    await applyObjects(
      conn,
      [
        {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: {
            name: 'mns',
            labels: { team: 'web' },
            annotations: {
              'argocd.argoproj.io/tracking-id': 'mns:/Namespace:mns/mns',
              'argocd.argoproj.io/sync-options': 'ServerSideApply=true',
            },
          },
        },
      ],
      '',
    );
    // Tracked (someone stamped it): compared with the managed metadata, applied server-side.
    const second = (await refresh(fx, [app], cacheRoot)).apps[0]!.comparison!;
    assert.equal(second.resources.find((r) => r.kind === 'Namespace')!.status, 'Synced');
  });

  it('a namespaced target with no namespace and no destination namespace: InvalidSpecError, still listed', async () => {
    repo.commit({
      'nons/cm.yaml': configMap('loose', { a: '1' }),
      'nons/role.yaml':
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: nons-reader\nrules: []\n',
    });
    const app = application('nons', repo.url, 'nons', { namespace: '' });
    const c = (await refresh(fx, [app], cacheRoot)).apps[0]!.comparison!;
    assert.deepEqual(
      c.conditions.filter((x) => x.type === 'InvalidSpecError').map((x) => x.message),
      ['Namespace for loose /v1, Kind=ConfigMap is missing.'],
      'the cluster-scoped ClusterRole gets none',
    );
    assert.deepEqual(
      c.resources.map((r) => [r.kind, r.namespace, r.name]),
      [
        ['ConfigMap', '', 'loose'],
        ['ClusterRole', '', 'nons-reader'],
      ],
    );
    const withNamespace = application('nons', repo.url, 'nons', { namespace: 'label' });
    const ok = (await refresh(fx, [withNamespace], cacheRoot)).apps[0]!.comparison!;
    assert.equal(ok.conditions.filter((x) => x.type === 'InvalidSpecError').length, 0);
  });

  it('errors of one app (render, destination) do not hide the others', async () => {
    const apps = [
      application('broken', repo.url, 'broken', { namespace: 'label' }),
      application('label', repo.url, 'label', { namespace: 'label' }),
      {
        ...application('elsewhere', repo.url, 'label', { namespace: 'label' }),
        destination: { server: 'https://nowhere.example.com', namespace: 'label' },
      },
    ];
    const report = await refresh(fx, apps, cacheRoot, { trackingMethod: 'label', statusProcessors: 1 });
    assert.deepEqual(
      report.apps.map((a) => a.app.name),
      ['broken', 'label', 'elsewhere'],
    );
    assert.match(
      reportOf(report, 'broken').error!.message,
      /^app "broken": failed to render broken\/bad\.yaml from file:\/\/.*: invalid YAML/,
    );
    assert.equal(reportOf(report, 'broken').error!.exitCode, 2);
    assert.match(
      reportOf(report, 'elsewhere').error!.message,
      /^app "elsewhere": destination https:\/\/nowhere\.example\.com: failed to resolve to a kubeconfig context/,
    );
    assert.ok(reportOf(report, 'label').comparison);
    assert.equal(report.interrupted, false);
  });

  it('an aborted run reports every unfinished app as interrupted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('interrupted (SIGINT)'));
    const report = await refresh(
      fx,
      [application('label', repo.url, 'label', { namespace: 'label' })],
      cacheRoot,
      {
        signal: controller.signal,
        discovery: { cacheDir: join(fx.dir, 'discovery-abort'), ttlMs: 0 },
      },
    );
    assert.equal(report.interrupted, true);
    assert.match(report.apps[0]!.error!.message, /interrupted/);
    assert.equal(report.apps[0]!.error!.exitCode, 130);
  });
});
