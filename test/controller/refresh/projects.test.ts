/**
 * AppProjects in the controller's Run on the embedded API server with real Git: a missing project and
 * each refusal of ValidatePermissions stop the app (exit 2) while the others go on; live objects the
 * project does not permit are left out of the comparison; targets of kinds it does not permit are Unknown;
 * a sync holding a task the project refuses fails its validation step with nothing written (the server's
 * own request audit counts the writes); orphaned resources are warned about when the project asks.
 */
import { before, after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseProject, ProjectSet } from '../../../src/apps/index.js';
import type { AppProject } from '../../../src/apps/index.js';
import type { ClusterConnection, ResourceInfo } from '../../../src/cluster/index.js';
import { useEmbeddedCluster, needsEmbedded } from '../../support/embedded.js';
import { TestRepo, cm } from '../../support/git.js';
import {
  application,
  applyObjects,
  connectAs,
  createNamespaces,
  newCacheRoot,
  refresh,
  reportOf,
  sync,
  syncRequest,
} from '../setup.js';

const project = (name: string, spec: Record<string, unknown>): AppProject =>
  parseProject(
    { apiVersion: 'argoproj.io/v1alpha1', kind: 'AppProject', metadata: { name, namespace: 'argocd' }, spec },
    `test ${name}`,
  );
const clusterRole = (name: string) =>
  `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${name}\nrules: []\n`;
const CM: ResourceInfo = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  verbs: [],
};
const writes = (fx: ReturnType<typeof useEmbeddedCluster>): number => fx.cluster.stats.writes();

describe('AppProjects in the refresh and the sync (embedded API server)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;
  const team = project('team', {
    sourceRepos: ['*'],
    destinations: [{ server: 'https://kubernetes.default.svc', namespace: 'team-*' }],
    namespaceResourceBlacklist: [{ group: '', kind: 'Secret' }],
  });

  before(async () => {
    conn = await connectAs(fx);
    await createNamespaces(conn, ['team-a', 'team-b', 'other', 'orphans']);
  });
  after(() => {
    conn?.close();
    repo.remove();
  });

  /** An app whose spec.project is replaced by `projectName`. */
  const appIn = (projectName: string, name: string, path: string, namespace: string) => {
    const a = application(name, repo.url, path, { namespace });
    const manifest = structuredClone(a.manifest) as { spec: { project: string } };
    manifest.spec.project = projectName;
    return { ...a, project: projectName, manifest: manifest as typeof a.manifest };
  };

  it("a missing project stops that app with Argo CD's condition and a hint; the other app goes on", async () => {
    repo.commit({ 'ok/a.yaml': cm('a'), 'ghost/a.yaml': cm('g') });
    const report = await refresh(
      fx,
      [appIn('ghost', 'ghost', 'ghost', 'team-a'), appIn('team', 'ok', 'ok', 'team-a')],
      cacheRoot,
      {
        projects: new ProjectSet([team]),
      },
    );
    const ghost = reportOf(report, 'ghost');
    assert.equal(
      ghost.error?.message,
      'app "ghost": failed to compare: Application referencing project ghost which does not exist',
    );
    assert.equal(ghost.error?.exitCode, 2);
    assert.match(ghost.error?.hint ?? '', /--project-file or -f/);
    assert.equal(ghost.comparison, undefined);
    const ok = reportOf(report, 'ok');
    assert.equal(ok.error, undefined);
    assert.equal(ok.project, team);
    assert.equal(ok.comparison?.sync, 'OutOfSync');
  });

  it('a missing project is reported before a destination that does not resolve, as getAppProj fails first', async () => {
    const a = appIn('ghost', 'far', 'ok', 'team-a');
    const far = { ...a, destination: { server: 'https://nowhere.example:6443', namespace: 'team-a' } };
    const report = await refresh(fx, [far], cacheRoot, { projects: new ProjectSet([team]) });
    assert.equal(
      reportOf(report, 'far').error?.message,
      'app "far": failed to compare: Application referencing project ghost which does not exist',
    );
  });

  it('a destination namespace or repository the project does not list: InvalidSpecError, never compared', async () => {
    const strict = project('strict', {
      sourceRepos: ['https://example.com/allowed/*'],
      destinations: [
        { server: '*', namespace: 'team-*' },
        { server: '*', namespace: '!team-b' },
      ],
    });
    const report = await refresh(fx, [appIn('strict', 'bad-ns', 'ok', 'team-b')], cacheRoot, {
      projects: new ProjectSet([strict]),
    });
    assert.equal(
      reportOf(report, 'bad-ns').error?.message,
      `app "bad-ns": failed to compare: application repo ${repo.url} is not permitted in project 'strict'; application destination server 'https://kubernetes.default.svc' and namespace 'team-b' do not match any of the allowed destinations in project 'strict'`,
    );
    assert.match(
      reportOf(report, 'bad-ns').error?.hint ?? '',
      /AppProject "strict" \(test strict\) refuses this app/,
    );
  });

  it('without projects only the allow-all default exists: an app of another project is refused', async () => {
    const report = await refresh(fx, [appIn('team', 'noproj', 'ok', 'team-a')], cacheRoot);
    assert.match(
      reportOf(report, 'noproj').error?.message ?? '',
      /Application referencing project team which does not exist/,
    );
    const dflt = await refresh(fx, [application('dflt', repo.url, 'ok', { namespace: 'team-a' })], cacheRoot);
    assert.equal(reportOf(dflt, 'dflt').error, undefined);
  });

  it('diff: a tracked live object of a kind the project does not permit is left out; such a target is Unknown', async () => {
    repo.commit({ 'mixed/cm.yaml': cm('keep'), 'mixed/role.yaml': clusterRole('team-reader') });
    const app = appIn('team', 'mixed', 'mixed', 'team-a');
    // Live objects the app tracks: a Secret (blacklisted by the project) and a ConfigMap it no longer renders.
    const track = { annotations: { 'argocd.argoproj.io/tracking-id': 'mixed:/Secret:team-a/s' } };
    await applyObjects(
      conn,
      [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', ...track }, stringData: { a: 'b' } }],
      'team-a',
    );
    await applyObjects(
      conn,
      [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: 'gone',
            annotations: { 'argocd.argoproj.io/tracking-id': 'mixed:/ConfigMap:team-a/gone' },
          },
          data: {},
        },
      ],
      'team-a',
    );
    const report = await refresh(fx, [app], cacheRoot, { projects: new ProjectSet([team]) });
    const r = reportOf(report, 'mixed');
    assert.equal(r.error, undefined, r.error?.message);
    const rows = r.comparison!.resources.map((x) => `${x.kind}/${x.name}:${x.status}`);
    assert.deepEqual(rows, [
      'ConfigMap/gone:OutOfSync',
      'ConfigMap/keep:OutOfSync',
      'ClusterRole/team-reader:Unknown',
    ]);
    assert.equal(
      r.comparison!.resources[2]!.message,
      'resource rbac.authorization.k8s.io:ClusterRole is not permitted in project team',
    );
    // Argo CD's app status counts the refused target as compared (Missing): OutOfSync, not Unknown.
    assert.equal(r.comparison!.sync, 'OutOfSync');
    // With the default project the Secret is ours again.
    const open = await refresh(
      fx,
      [application('mixed', repo.url, 'mixed', { namespace: 'team-a' })],
      cacheRoot,
    );
    assert.ok(reportOf(open, 'mixed').comparison!.resources.some((x) => x.kind === 'Secret'));
  });

  it('sync: a task the project refuses fails the validation step and nothing is written', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    repo.commit({ 'refused/cm.yaml': cm('c'), 'refused/role.yaml': clusterRole('team-admin') });
    const app = appIn('team', 'refused', 'refused', 'team-a');
    fx.cluster.stats.reset();
    const report = await sync(fx, [app], cacheRoot, syncRequest(), { projects: new ProjectSet([team]) });
    const op = reportOf(report, 'refused').operation!;
    assert.equal(op.phase, 'Failed');
    assert.equal(
      op.message,
      'one or more synchronization tasks are not valid: resource rbac.authorization.k8s.io:ClusterRole is not permitted in project team',
    );
    assert.equal(op.resources.find((x) => x.kind === 'ClusterRole')?.status, 'SyncFailed');
    assert.equal(writes(fx), 0, JSON.stringify(fx.cluster.stats.snapshot().byVerbResource));
    await assert.rejects(conn.client.get(CM, 'team-a', 'c'), /not found/i);
  });

  it('sync: an object in a namespace the destinations do not allow fails the same way, with nothing written', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    repo.commit({
      'elsewhere/a.yaml': cm('a'),
      'elsewhere/b.yaml': cm('b').replace('  name: b\n', '  name: b\n  namespace: other\n'),
    });
    const app = appIn('team', 'elsewhere', 'elsewhere', 'team-b');
    fx.cluster.stats.reset();
    const report = await sync(fx, [app], cacheRoot, syncRequest({ dryRun: true }), {
      projects: new ProjectSet([team]),
    });
    const op = reportOf(report, 'elsewhere').operation!;
    assert.equal(op.phase, 'Failed');
    assert.equal(
      op.message,
      "one or more synchronization tasks are not valid: namespace other is not permitted in project 'team'",
    );
    assert.equal(writes(fx), 0);
  });

  it('sync: a permitted app syncs under its project', async () => {
    repo.commit({ 'fine/a.yaml': cm('fine') });
    const withRoles = project('team', {
      sourceRepos: ['*'],
      destinations: [{ server: 'https://kubernetes.default.svc', namespace: 'team-*' }],
    });
    const report = await sync(fx, [appIn('team', 'fine', 'fine', 'team-b')], cacheRoot, syncRequest(), {
      projects: new ProjectSet([withRoles]),
    });
    assert.equal(
      reportOf(report, 'fine').operation?.phase,
      'Succeeded',
      reportOf(report, 'fine').operation?.message,
    );
    await conn.client.get(CM, 'team-b', 'fine');
  });

  it('orphanedResources.warn: untracked top-level objects of the namespace, minus exclusions and ignores', async () => {
    repo.commit({ 'orph/a.yaml': cm('mine') });
    await applyObjects(
      conn,
      [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stray' }, data: {} },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ignored-1' }, data: {} },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt' }, data: {} },
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: 'theirs',
            annotations: { 'argocd.argoproj.io/tracking-id': 'other:/ConfigMap:orphans/theirs' },
          },
          data: {},
        },
      ],
      'orphans',
    );
    const warn = project('watch', {
      sourceRepos: ['*'],
      destinations: [{ server: '*', namespace: '*' }],
      orphanedResources: { warn: true, ignore: [{ group: '', kind: 'ConfigMap', name: 'ignored-*' }] },
    });
    const report = await refresh(fx, [appIn('watch', 'orph', 'orph', 'orphans')], cacheRoot, {
      projects: new ProjectSet([warn]),
    });
    const conditions = reportOf(report, 'orph').comparison!.conditions;
    assert.deepEqual(
      conditions.filter((c) => c.type === 'OrphanedResourceWarning'),
      [{ type: 'OrphanedResourceWarning', message: 'Application has 1 orphaned resources' }],
    );
    // warn unset: monitored, no condition (OrphanedResourcesMonitorSettings.IsWarn).
    const quiet = project('watch', {
      sourceRepos: ['*'],
      destinations: [{ server: '*', namespace: '*' }],
      orphanedResources: {},
    });
    const again = await refresh(fx, [appIn('watch', 'orph', 'orph', 'orphans')], cacheRoot, {
      projects: new ProjectSet([quiet]),
    });
    assert.ok(
      !reportOf(again, 'orph').comparison!.conditions.some((c) => c.type === 'OrphanedResourceWarning'),
    );
  });
});
