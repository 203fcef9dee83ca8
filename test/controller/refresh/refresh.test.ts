/**
 * The refresh end to end on the embedded API server, with real Git repositories: one Run over apps set up
 * to show each verdict of the comparison (spec §2-5).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import type { ClusterConnection, KubeObject } from '../../../src/cluster/index.js';
import type { ResourceStatus, RunReport } from '../../../src/controller/index.js';
import { useEmbeddedCluster, needsEmbedded } from '../../support/embedded.js';
import { TestRepo } from '../../support/git.js';
import { configMap, deployment, secret, service, widget } from '../manifests.js';
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

const find = (resources: ResourceStatus[], kind: string, name: string): ResourceStatus => {
  const r = resources.find((x) => x.kind === kind && x.name === name);
  if (!r)
    throw new Error(`no ${kind} ${name} in ${JSON.stringify(resources.map((x) => `${x.kind}/${x.name}`))}`);
  return r;
};

describe('refresh: app state comparison against the embedded API server', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;
  let other: ClusterConnection;
  let report: RunReport;
  let sha: string;

  const apps = () => [
    application('fresh', repo.url, 'fresh', { namespace: 'fresh' }),
    application('insync', repo.url, 'insync', { namespace: 'insync' }),
    application('drift', repo.url, 'drift', { namespace: 'drift' }),
    // Applied by argocd-controller's server-side apply (below): an app that syncs with ServerSideApply=true,
    // so it is compared with structured-merge diff (the managedFields are the original).
    application('removed', repo.url, 'removed', {
      namespace: 'removed',
      spec: '  syncPolicy:\n    syncOptions: [ServerSideApply=true]\n',
    }),
    application('extra', repo.url, 'extra', { namespace: 'extra' }),
    application('ignore', repo.url, 'ignore', {
      namespace: 'ignore',
      spec: '  ignoreDifferences:\n  - group: apps\n    kind: Deployment\n    jsonPointers: [/spec/replicas]\n',
    }),
    application('managers', repo.url, 'managers', {
      namespace: 'managers',
      spec: '  ignoreDifferences:\n  - group: apps\n    kind: Deployment\n    managedFieldsManagers: [someone-else]\n',
    }),
    application('annotated', repo.url, 'annotated', { namespace: 'annotated' }),
    application('secret', repo.url, 'secret', { namespace: 'secret' }),
    application('unknown', repo.url, 'unknown', { namespace: 'unknown' }),
    application('shared-a', repo.url, 'shared-a', { namespace: 'shared' }),
    application('shared-b', repo.url, 'shared-b', { namespace: 'shared' }),
  ];

  before(async () => {
    repo.commit({
      'fresh/all.yaml': `${configMap('settings', { mode: 'fresh' })}---\n${deployment('web')}`,
      // Paused: its health is Suspended whatever its status, on the embedded server (no controller) and
      // on a real one (whose Deployment controller leaves a paused Deployment unrolled).
      'insync/all.yaml': `${deployment('web', { paused: true })}---\n${service('web')}---\n${configMap('settings', { a: '1' })}`,
      'drift/deploy.yaml': deployment('web', { replicas: 2 }),
      'removed/cm.yaml': configMap('settings', { kept: 'yes', dropped: 'soon' }, { tier: 'backend' }),
      'extra/cm.yaml': configMap('settings', { a: '1' }),
      'ignore/deploy.yaml': deployment('web'),
      // Argo CD 3.6: the resource names its own ignored fields (argocd.argoproj.io/ignore-differences).
      'annotated/deploy.yaml': deployment('web').replace(
        '  labels:\n    app: web\n',
        '  labels:\n    app: web\n  annotations:\n    argocd.argoproj.io/ignore-differences: |\n      jsonPointers:\n      - /spec/replicas\n',
      ),
      'managers/deploy.yaml': deployment('web', { image: 'nginx:1.25' }),
      'ignore/cm.yaml': configMap('tuned', { tuned: 'by-git', fixed: 'yes' }),
      'secret/secret.yaml': secret('db', 'git-password-1'),
      'unknown/all.yaml': `${widget('gadget')}---\n${configMap('settings', { a: '1' })}`,
      'shared-a/cm.yaml': configMap('common', { owner: 'a' }),
      'shared-b/cm.yaml': configMap('common', { owner: 'a' }),
    });
    conn = await connectAs(fx);
    other = await connectAs(fx, 'someone-else');
    await createNamespaces(conn, [...new Set(apps().map((a) => a.destination.namespace))]);
    const byName = new Map(apps().map((a) => [a.name, a]));
    for (const name of [
      'insync',
      'drift',
      'removed',
      'extra',
      'ignore',
      'managers',
      'annotated',
      'shared-a',
    ]) {
      await applyObjects(
        conn,
        await renderObjects(byName.get(name)!, cacheRoot),
        byName.get(name)!.destination.namespace,
      );
    }
    // Secret: live holds another password than Git.
    const liveSecret = (await renderObjects(byName.get('secret')!, cacheRoot)).map((o) => ({
      ...o,
      stringData: { password: 'live-password-2', user: 'admin' },
    }));
    await applyObjects(conn, liveSecret, 'secret');
    // Drift by someone else: replicas on both Deployments, a ConfigMap value in "ignore".
    const deployments = await conn.discovery.resolve({ group: 'apps', kind: 'Deployment' });
    const configMaps = await conn.discovery.resolve({ group: '', kind: 'ConfigMap' });
    for (const ns of ['drift', 'ignore', 'managers', 'annotated']) {
      await other.client.patch(deployments, ns, 'web', { spec: { replicas: 5 } }, 'merge');
    }
    await other.client.patch(configMaps, 'ignore', 'tuned', { data: { tuned: 'by-hand' } }, 'merge');
    // Extra: a tracked ConfigMap that Git no longer has, and an untracked one (never reported).
    await applyObjects(
      conn,
      [parse(configMap('orphan', { a: '1' })) as KubeObject].map((o) => ({
        ...o,
        metadata: {
          ...o.metadata,
          annotations: { 'argocd.argoproj.io/tracking-id': 'extra:/ConfigMap:extra/orphan' },
        },
      })),
      'extra',
    );
    await applyObjects(conn, [parse(configMap('unrelated', { a: '1' })) as KubeObject], 'extra');
    // Removed in Git after it was applied.
    sha = repo.commit({ 'removed/cm.yaml': configMap('settings', { kept: 'yes' }) });
    report = await refresh(fx, apps(), cacheRoot, {
      ignoreDifferences: [{ group: '', kind: 'ConfigMap', name: 'tuned', jsonPointers: ['/data/tuned'] }],
    });
  });

  after(() => {
    conn?.close();
    other?.close();
    repo.remove();
  });

  it('compares every app, errors none, revision is the commit', () => {
    for (const a of report.apps) assert.equal(a.error, undefined, a.error?.message);
    assert.equal(reportOf(report, 'fresh').comparison!.revision, sha);
    assert.equal(reportOf(report, 'fresh').destination.context, 'embedded');
  });

  it('a fresh app: every resource missing, app OutOfSync and Missing', () => {
    const c = reportOf(report, 'fresh').comparison!;
    assert.equal(c.sync, 'OutOfSync');
    assert.equal(c.health.status, 'Missing');
    assert.deepEqual(
      c.resources.map((r) => [r.kind, r.namespace, r.status, r.difference, r.health?.status]),
      [
        ['ConfigMap', 'fresh', 'OutOfSync', 'missing', 'Missing'],
        ['Deployment', 'fresh', 'OutOfSync', 'missing', 'Missing'],
      ],
    );
    assert.match(find(c.resources, 'Deployment', 'web').diffText ?? '', /^\+ {2}replicas: 2$/m);
  });

  it('an applied app is Synced despite server defaults and managedFields', () => {
    const c = reportOf(report, 'insync').comparison!;
    assert.deepEqual(
      c.resources.map((r) => [r.kind, r.status, r.changes.length]),
      [
        ['ConfigMap', 'Synced', 0],
        ['Service', 'Synced', 0],
        ['Deployment', 'Synced', 0],
      ],
    );
    assert.equal(c.sync, 'Synced');
    // Health is read from the live objects too: the paused Deployment is the worst (the Service is Healthy).
    assert.equal(c.health.status, 'Suspended');
    assert.equal(find(c.resources, 'Deployment', 'web').health?.message, 'Deployment is paused');
  });

  it('drift in spec: the Deployment is modified, with the change', () => {
    const c = reportOf(report, 'drift').comparison!;
    const d = find(c.resources, 'Deployment', 'web');
    assert.equal(c.sync, 'OutOfSync');
    assert.equal(d.difference, 'modified');
    assert.deepEqual(
      d.changes.map((ch) => [ch.key, ch.type]),
      [['spec', 'UPDATE']],
    );
    assert.match(d.diffText!, /^- {2}replicas: 5$/m);
    assert.match(d.diffText!, /^\+ {2}replicas: 2$/m);
  });

  it('a field removed in Git is a difference (we applied it)', () => {
    const d = find(reportOf(report, 'removed').comparison!.resources, 'ConfigMap', 'settings');
    assert.equal(d.status, 'OutOfSync');
    assert.match(d.diffText!, /^- {2}dropped: soon$/m);
    assert.match(d.diffText!, /^- {4}tier: backend$/m);
  });

  it('an extra live resource tracked by the app is a prune candidate; untracked ones are not reported', () => {
    const c = reportOf(report, 'extra').comparison!;
    const orphan = find(c.resources, 'ConfigMap', 'orphan');
    assert.equal(orphan.difference, 'extra');
    assert.equal(orphan.requiresPruning, true);
    assert.equal(c.sync, 'OutOfSync');
    assert.equal(find(c.resources, 'ConfigMap', 'settings').status, 'Synced');
    assert.ok(!c.resources.some((r) => r.name === 'unrelated'));
  });

  it('ignoreDifferences from the app and from the extra rules hide the drift', () => {
    const c = reportOf(report, 'ignore').comparison!;
    assert.equal(find(c.resources, 'Deployment', 'web').status, 'Synced');
    assert.equal(find(c.resources, 'ConfigMap', 'tuned').status, 'Synced');
    assert.equal(c.sync, 'Synced');
    // managedFieldsManagers: the fields someone-else owns (live managedFields, kept by the cache) are ignored.
    assert.equal(
      find(reportOf(report, 'managers').comparison!.resources, 'Deployment', 'web').status,
      'Synced',
    );
    // A rule the resource's own annotation names (Argo CD 3.6 resolvedIgnores).
    assert.equal(
      find(reportOf(report, 'annotated').comparison!.resources, 'Deployment', 'web').status,
      'Synced',
    );
    // The same drift without the rules is seen (control).
    assert.equal(
      find(reportOf(report, 'drift').comparison!.resources, 'Deployment', 'web').status,
      'OutOfSync',
    );
  });

  it('a Secret change is shown masked: no value, raw or base64, anywhere in the result', () => {
    const c = reportOf(report, 'secret').comparison!;
    const s = find(c.resources, 'Secret', 'db');
    assert.equal(s.status, 'OutOfSync');
    // Git's value is the first distinct value (8 "+"), live's the second (12).
    assert.match(s.diffText!, /^- {2}password: \+{12}$/m);
    assert.match(s.diffText!, /^\+ {2}password: \+{8}$/m);
    assert.match(s.diffText!, /^ {3}user: \+{8}$/m);
    const all = JSON.stringify(report);
    for (const value of ['git-password-1', 'live-password-2', 'admin']) {
      assert.ok(!all.includes(value), value);
      assert.ok(!all.includes(Buffer.from(value).toString('base64')), `${value} (base64)`);
    }
  });

  it('a kind the cluster does not serve is reported per resource, not a crash', () => {
    const c = reportOf(report, 'unknown').comparison!;
    const w = find(c.resources, 'Widget', 'gadget');
    assert.equal(w.status, 'OutOfSync');
    assert.equal(w.difference, 'missing');
    assert.match(w.message!, /not served/);
    assert.deepEqual(
      c.conditions.map((x) => x.type),
      ['UnknownKind'],
    );
    assert.equal(find(c.resources, 'ConfigMap', 'settings').difference, 'missing');
  });

  it('a resource tracked by another app is reported as shared, and stays the owner’s', () => {
    const a = reportOf(report, 'shared-a').comparison!;
    const b = reportOf(report, 'shared-b').comparison!;
    assert.equal(find(a.resources, 'ConfigMap', 'common').status, 'Synced');
    assert.equal(a.conditions.length, 0);
    const common = find(b.resources, 'ConfigMap', 'common');
    assert.equal(common.sharedWith, 'shared-a');
    assert.equal(common.status, 'OutOfSync', 'the tracking annotation differs');
    assert.equal(common.requiresPruning, false);
    assert.deepEqual(
      b.conditions.map((x) => x.type),
      ['SharedResourceWarning'],
    );
  });

  it('API requests do not grow per resource: lists per kind, no GET per object', (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    assert.ok(report.requests > 0);
    const after = fx.cluster.stats.snapshot().byVerbResource;
    const gets = Object.entries(after).filter(([k]) => k.startsWith('get ') && k !== 'get discovery');
    assert.deepEqual(gets, [], 'no GET of an object');
    const lists = Object.entries(after).filter(([k]) => k.startsWith('list '));
    assert.ok(
      lists.every(([, n]) => n === 1),
      'one list per kind',
    );
    // A run with no operation waits for nothing: it compares the state as listed, no watch is opened.
    const watches = Object.entries(after).filter(([k]) => k.startsWith('watch '));
    assert.deepEqual(watches, [], 'no watch');
  });
});
