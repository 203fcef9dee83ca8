/**
 * AppProjects through the built CLI against the embedded API server and a real Git repository: projects
 * from `--project-file` (a file and stdin), from `-f` folders beside the Applications (read, not warned
 * about), and from the live Argo CD namespace with `--from-cluster` (the AppProject CRD installed, one
 * LIST); a missing project is exit 2 with a hint; a sync the project refuses writes nothing (the server's
 * request audit). `npm test` builds first; run `npm run build` before running this file alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ClusterConnection, KubeObject, ResourceInfo } from '../../src/cluster/index.js';
import { runCli } from '../support/cli.js';
import { useEmbeddedCluster, needsEmbedded } from '../support/embedded.js';
import { APP_PROJECT_CRD, APPLICATION_CRD } from '../support/argocd.js';
import { appYaml, cm, TestRepo, tempDir } from '../support/git.js';
import { repoRoot } from '../support/paths.js';
import { connectAs, createNamespaces } from '../controller/setup.js';

const projectYaml = (name: string, spec: string) =>
  `apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata:\n  name: ${name}\n  namespace: argocd\nspec:\n${spec}`;
const TEAM = projectYaml(
  'team',
  `  sourceRepos: ['*']\n  destinations:\n  - server: https://kubernetes.default.svc\n    namespace: team-*\n`,
);
const clusterRole = (name: string) =>
  `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${name}\nrules: []\n`;
const CRD_INFO: ResourceInfo = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
  verbs: ['create'],
};

describe('AppProjects from --project-file, -f and --from-cluster (CLI, embedded server)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const dir = tempDir();
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  let conn: ClusterConnection;
  const appFile = join(dir, 'app.yaml');
  const projectFile = join(dir, 'project.yaml');
  const cli = (args: string[], input?: string) =>
    runCli([...args, '--kubeconfig', fx.kubeconfig], { env, ...(input !== undefined ? { input } : {}) });
  const writes = (): number => fx.cluster.stats.writes();

  before(async () => {
    assert.ok(existsSync(join(repoRoot, 'dist', 'cli.js')), 'dist/ is missing: run `npm run build` first');
    conn = await connectAs(fx);
    await createNamespaces(conn, ['team-a']);
    repo.commit({
      'web/cm.yaml': cm('web'),
      'role/role.yaml': clusterRole('team-admin'),
      'role/cm.yaml': cm('r'),
    });
    writeFileSync(
      appFile,
      appYaml('web', repo.url, 'web', { namespace: 'team-a' }).replace('project: default', 'project: team'),
    );
    writeFileSync(projectFile, TEAM);
  });
  after(() => {
    conn?.close();
    repo.remove();
  });

  it("a missing project: exit 2, Argo CD's condition and a hint to pass the AppProject", async () => {
    const r = await cli(['diff', '-f', appFile]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /app "web": failed to compare: Application referencing project team which does not exist/,
    );
    assert.match(r.stderr, /hint: pass the AppProject manifest with --project-file or -f/);
  });

  it('every refusal is a condition with its type and message: -o json and the text header', async () => {
    const strict = projectYaml(
      'team',
      `  sourceRepos: ['https://example.com/allowed/*']\n  destinations:\n  - server: '*'\n    namespace: other\n`,
    );
    const strictFile = join(dir, 'strict.yaml');
    writeFileSync(strictFile, strict);
    const repoRefused = `application repo ${repo.url} is not permitted in project 'team'`;
    const destRefused =
      "application destination server 'https://kubernetes.default.svc' and namespace 'team-a' do not match any of the allowed destinations in project 'team'";
    const j = await cli(['diff', '-f', appFile, '--project-file', strictFile, '-o', 'json']);
    assert.equal(j.code, 2, j.stderr);
    const app = (JSON.parse(j.stdout) as { apps: Array<Record<string, unknown>> }).apps[0]!;
    assert.deepEqual(app['conditions'], [
      { type: 'InvalidSpecError', message: repoRefused },
      { type: 'InvalidSpecError', message: destRefused },
    ]);
    assert.equal(app['sync'], 'Unknown');
    assert.equal(app['error'], `app "web": failed to compare: ${repoRefused}; ${destRefused}`);
    const t = await cli(['diff', '-f', appFile, '--project-file', strictFile]);
    assert.equal(t.code, 2, t.stderr);
    assert.deepEqual(t.stdout.trim().split('\n'), [
      '===== app web =====',
      'destination: https://kubernetes.default.svc (context embedded), namespace team-a',
      'sync:        Unknown (not compared)',
      'health:      Unknown',
      `condition:   InvalidSpecError: ${repoRefused}`,
      `condition:   InvalidSpecError: ${destRefused}`,
    ]);
    assert.match(t.stderr, /^error: app "web": failed to compare: /m);
    // A missing project: Argo CD's InvalidSpecError too.
    const missing = await cli(['diff', '-f', appFile, '-o', 'json']);
    assert.deepEqual(
      (JSON.parse(missing.stdout) as { apps: Array<Record<string, unknown>> }).apps[0]!['conditions'],
      [{ type: 'InvalidSpecError', message: 'Application referencing project team which does not exist' }],
    );
  });

  it('--project-file FILE and --project-file - (stdin): the app is compared', async () => {
    const r = await cli(['diff', '-f', appFile, '--project-file', projectFile]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /ConfigMap/);
    const s = await cli(['diff', '-f', appFile, '--project-file', '-'], TEAM);
    assert.equal(s.code, 1, s.stderr);
    const bad = await cli(['diff', '-f', appFile, '--project-file', appFile]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /failed to read AppProjects: no AppProject in /);
  });

  it('-f FOLDER holding the Application and its AppProject: read, no warning', async () => {
    const folder = join(dir, 'both');
    mkdirSync(folder);
    writeFileSync(
      join(folder, 'app.yaml'),
      `${TEAM}---\n${appYaml('web', repo.url, 'web', { namespace: 'team-a' }).replace('project: default', 'project: team')}`,
    );
    const r = await cli(['diff', '-f', folder]);
    assert.equal(r.code, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /skipped|AppProject/);
  });

  it('sync: a ClusterRole the project does not whitelist fails validation; nothing is written', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    const file = join(dir, 'role-app.yaml');
    writeFileSync(
      file,
      appYaml('roles', repo.url, 'role', { namespace: 'team-a' }).replace(
        'project: default',
        'project: team',
      ),
    );
    const d = await cli(['diff', '-f', file, '--project-file', projectFile]);
    assert.equal(d.code, 1, d.stderr);
    assert.match(
      d.stdout,
      /ClusterRole team-admin =+ \(resource rbac\.authorization\.k8s\.io:ClusterRole is not permitted in project team: sync refuses it\)/,
    );
    fx.cluster.stats.reset();
    const r = await cli(['sync', '-f', file, '--project-file', projectFile, '-o', 'json']);
    assert.equal(r.code, 1, r.stderr); // an operation Failed
    const doc = JSON.parse(r.stdout) as { apps: Array<{ phase: string; message: string }> };
    assert.equal(doc.apps[0]!.phase, 'Failed');
    assert.equal(
      doc.apps[0]!.message,
      'one or more synchronization tasks are not valid: resource rbac.authorization.k8s.io:ClusterRole is not permitted in project team',
    );
    assert.equal(writes(), 0, JSON.stringify(fx.cluster.stats.snapshot().byVerbResource));
  });

  it('--from-cluster: the AppProjects of --argocd-namespace (one LIST), a live project refusing the destination', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    await conn.client.create(CRD_INFO, APPLICATION_CRD as unknown as KubeObject);
    await conn.client.create(CRD_INFO, APP_PROJECT_CRD as unknown as KubeObject);
    await createNamespaces(conn, ['argocd']);
    await conn.discovery.refresh();
    const appInfo = await conn.discovery.resolve({ group: 'argoproj.io', kind: 'Application' });
    const projInfo = await conn.discovery.resolve({ group: 'argoproj.io', kind: 'AppProject' });
    const manifest = parse(
      appYaml('live', repo.url, 'web', { namespace: 'team-a' }).replace('project: default', 'project: team'),
    ) as KubeObject;
    manifest.metadata = { name: 'live', namespace: 'argocd' };
    await conn.client.create(appInfo, manifest);
    await conn.client.create(projInfo, parse(TEAM) as KubeObject);
    fx.cluster.stats.reset();
    const ok = await cli(['diff', '--from-cluster', '-o', 'json']);
    assert.equal(ok.code, 1, ok.stderr);
    assert.equal(
      fx.cluster.stats.count('list', 'appprojects.argoproj.io'),
      1,
      JSON.stringify(fx.cluster.stats.snapshot().byVerbResource),
    );
    // The live project narrowed to another namespace: the app is refused.
    const narrowed = parse(TEAM) as KubeObject & { spec: { destinations: Array<{ namespace: string }> } };
    narrowed.spec.destinations[0]!.namespace = 'prod';
    const live = await conn.client.get(projInfo, 'argocd', 'team');
    await conn.client.update(projInfo, { ...narrowed, metadata: live.metadata });
    const refused = await cli(['diff', '--from-cluster']);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(
      refused.stderr,
      /app "live": failed to compare: application destination server 'https:\/\/kubernetes.default.svc' and namespace 'team-a' do not match any of the allowed destinations in project 'team'/,
    );
    // A --project-file of the same name wins over the live one.
    const overridden = await cli(['diff', '--from-cluster', '--project-file', projectFile]);
    assert.equal(overridden.code, 1, overridden.stderr);
  });
});
