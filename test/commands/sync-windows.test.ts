/**
 * AppProject sync windows through the built CLI against the embedded API server and a real Git repository:
 * a deny window that is always open (`* * * * *` for 1h) refuses `sync` (exit 2, the window named, nothing
 * written per the server's request audit), `--dry-run` still plans and says so, `diff` shows the window in
 * its header and in `-o json`, and `manualSync: true` lets the CLI's (manual) sync through. `npm test`
 * builds first; run `npm run build` before running this file alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterConnection } from '../../src/cluster/index.js';
import { runCli } from '../support/cli.js';
import { useEmbeddedCluster, needsEmbedded } from '../support/embedded.js';
import { appYaml, cm, TestRepo, tempDir } from '../support/git.js';
import { repoRoot } from '../support/paths.js';
import { connectAs, createNamespaces } from '../controller/setup.js';

const project = (manualSync: boolean) =>
  `apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata:
  name: team
  namespace: argocd
spec:
  sourceRepos: ['*']
  destinations:
  - server: https://kubernetes.default.svc
    namespace: '*'
  syncWindows:
  - kind: deny
    schedule: '* * * * *'
    duration: 1h
    applications: ['*']
    manualSync: ${manualSync}
    description: freeze
`;

describe('sync windows through the CLI (embedded server)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const dir = tempDir();
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  let conn: ClusterConnection;
  const appFile = join(dir, 'app.yaml');
  const frozen = join(dir, 'frozen.yaml');
  const manual = join(dir, 'manual.yaml');
  const cli = (args: string[]) => runCli([...args, '--kubeconfig', fx.kubeconfig], { env });
  const writes = (): number => fx.cluster.stats.writes();

  before(async () => {
    assert.ok(existsSync(join(repoRoot, 'dist', 'cli.js')), 'dist/ is missing: run `npm run build` first');
    conn = await connectAs(fx);
    await createNamespaces(conn, ['team-a']);
    repo.commit({ 'web/cm.yaml': cm('web') });
    writeFileSync(
      appFile,
      appYaml('web', repo.url, 'web', { namespace: 'team-a' }).replace('project: default', 'project: team'),
    );
    writeFileSync(frozen, project(false));
    writeFileSync(manual, project(true));
  });
  after(() => {
    conn?.close();
    repo.remove();
  });

  it('diff shows the active window in its header and in -o json', async () => {
    const r = await cli(['diff', '-f', appFile, '--project-file', frozen]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stdout,
      /^sync windows \(sync blocked\): deny '\* \* \* \* \*' 1h \(syncWindows\[0\], "freeze"\), open until \d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/m,
    );
    const json = await cli(['diff', '-f', appFile, '--project-file', frozen, '-o', 'json']);
    const doc = JSON.parse(json.stdout) as {
      apps: { syncWindows: { canSync: boolean; active: unknown[] } }[];
    };
    assert.equal(doc.apps[0]!.syncWindows.canSync, false);
    assert.equal(doc.apps[0]!.syncWindows.active.length, 1);
  });

  it('sync inside the window: exit 2, the window named, nothing written; --dry-run still plans', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    const before = writes();
    const r = await cli(['sync', '-f', appFile, '--project-file', frozen]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /app "web": failed to sync: blocked by sync window: AppProject "team" deny window active: deny '\* \* \* \* \*' 1h \(syncWindows\[0\], "freeze"\)/,
    );
    assert.equal(writes() - before, 0, JSON.stringify(fx.cluster.stats.snapshot().byVerbResource));
    const dry = await cli(['sync', '-f', appFile, '--project-file', frozen, '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^ {2}a sync would be refused: blocked by sync window: AppProject "team"/m);
    assert.match(dry.stdout, /ConfigMap team-a\/web/);
  });

  it('manualSync: true lets the CLI sync through', async () => {
    const r = await cli(['sync', '-f', appFile, '--project-file', manual]);
    assert.equal(r.code, 0, r.stderr);
    await conn.client.get(
      { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, verbs: [] },
      'team-a',
      'web',
    );
  });
});
