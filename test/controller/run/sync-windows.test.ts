/**
 * AppProject sync windows in the controller's Run on the embedded API server with real Git: a sync inside
 * an active deny window (a CLI sync is manual) is refused before any write (the server's own request audit
 * counts the writes) while an app of another project syncs; `manualSync` lets it through; a dry run still
 * plans and says it would be refused; the refresh (diff) reports the windows that apply.
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
  connectAs,
  createNamespaces,
  newCacheRoot,
  refresh,
  reportOf,
  sync,
  syncRequest,
} from '../setup.js';

const project = (name: string, syncWindows: unknown[]): AppProject =>
  parseProject(
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'AppProject',
      metadata: { name, namespace: 'argocd' },
      spec: { sourceRepos: ['*'], destinations: [{ server: '*', namespace: '*' }], syncWindows },
    },
    `test ${name}`,
  );
const CM: ResourceInfo = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  verbs: [],
};
const writes = (fx: ReturnType<typeof useEmbeddedCluster>): number => fx.cluster.stats.writes();

describe('sync windows in the sync and the refresh (embedded API server)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;
  // 23:30 in Paris: inside the nightly freeze (22:00 for 8h).
  const night = new Date('2026-07-15T21:30:00Z');
  const freeze = {
    kind: 'deny',
    schedule: '0 22 * * *',
    duration: '8h',
    timeZone: 'Europe/Paris',
    namespaces: ['frozen-*'],
    description: 'nightly freeze',
  };
  const projects = new ProjectSet([
    project('frozen', [freeze]),
    project('manual', [{ ...freeze, manualSync: true }]),
  ]);
  const appIn = (projectName: string, name: string, namespace: string) => {
    const a = application(name, repo.url, 'app', { namespace });
    const manifest = structuredClone(a.manifest) as { spec: { project: string } };
    manifest.spec.project = projectName;
    return { ...a, project: projectName, manifest: manifest as typeof a.manifest };
  };

  before(async () => {
    conn = await connectAs(fx);
    await createNamespaces(conn, ['frozen-a', 'frozen-b', 'free']);
    repo.commit({ 'app/a.yaml': cm('a') });
  });
  after(() => {
    conn?.close();
    repo.remove();
  });

  it('a sync inside an active deny window writes nothing and names the window; the other app syncs', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    const before = writes(fx);
    const report = await sync(
      fx,
      [appIn('frozen', 'blocked', 'frozen-a'), appIn('default', 'free', 'free')],
      cacheRoot,
      syncRequest(),
      { projects, wallClock: () => night },
    );
    const blocked = reportOf(report, 'blocked');
    assert.equal(
      blocked.error?.message,
      `app "blocked": failed to sync: blocked by sync window: AppProject "frozen" deny window active: deny '0 22 * * *' 8h Europe/Paris (syncWindows[0], "nightly freeze"), open until 2026-07-16T04:00:00Z`,
    );
    assert.equal(blocked.error?.exitCode, 2);
    assert.equal(blocked.operation, undefined);
    assert.equal(reportOf(report, 'free').operation?.phase, 'Succeeded');
    await conn.client.get(CM, 'free', 'a');
    // The blocked app's namespace has nothing: only the free app wrote.
    await assert.rejects(conn.client.get(CM, 'frozen-a', 'a'), /not found/i);
    assert.ok(writes(fx) > before);
  });

  it('nothing at all is written when the only app is blocked (server audit)', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    const before = writes(fx);
    const report = await sync(fx, [appIn('frozen', 'blocked2', 'frozen-b')], cacheRoot, syncRequest(), {
      projects,
      wallClock: () => night,
    });
    assert.match(reportOf(report, 'blocked2').error?.message ?? '', /blocked by sync window/);
    assert.equal(writes(fx) - before, 0);
  });

  it('manualSync on the deny window lets the CLI sync through', async () => {
    const report = await sync(fx, [appIn('manual', 'manual', 'frozen-b')], cacheRoot, syncRequest(), {
      projects,
      wallClock: () => night,
    });
    assert.equal(reportOf(report, 'manual').error, undefined);
    assert.equal(reportOf(report, 'manual').operation?.phase, 'Succeeded');
  });

  it('--dry-run still plans, and reports that a sync would be refused', async () => {
    const report = await sync(
      fx,
      [appIn('frozen', 'dry', 'frozen-a')],
      cacheRoot,
      syncRequest({ dryRun: true }),
      {
        projects,
        wallClock: () => night,
        syncWindows: 'report',
      },
    );
    const dry = reportOf(report, 'dry');
    assert.equal(dry.error, undefined);
    assert.equal(dry.operation?.dryRun, true);
    assert.match(
      dry.syncWindows?.blockedBy ?? '',
      /^blocked by sync window: AppProject "frozen" deny window active/,
    );
  });

  it('the refresh (diff) reports the windows that apply, active or not', async () => {
    const noon = new Date('2026-07-15T10:00:00Z');
    const report = await refresh(
      fx,
      [appIn('frozen', 'shown', 'frozen-a'), appIn('frozen', 'other', 'free')],
      cacheRoot,
      {
        projects,
        wallClock: () => noon,
      },
    );
    const shown = reportOf(report, 'shown').syncWindows;
    assert.equal(shown?.canSync, true);
    assert.deepEqual(shown?.active, []);
    assert.equal(shown?.assigned[0]?.next, '2026-07-15T20:00:00Z');
    assert.equal(reportOf(report, 'other').syncWindows, undefined);
  });
});
