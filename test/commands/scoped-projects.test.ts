/**
 * Project-scoped clusters and repositories, and a disabled in-cluster server, through the built CLI on
 * two embedded API servers (the kubeconfig's in-cluster one, and a second one reached only through a
 * cluster Secret) with real Git. A cluster Secret's `project` makes the cluster a destination of that
 * project and the only kind a `permitOnlyProjectScopedClusters` project permits; a repository Secret's
 * `project` adds its URL to that project's sourceRepos (Argo CD's GetAppProjectByName); argocd-cm
 * `cluster.inClusterEnabled: "false"` refuses the in-cluster server by URL and by name (GetCluster,
 * GetClusterServersByName). Refused apps exit 2 and nothing is written for them (the servers' request
 * audit). Rules: docs/projects.md, docs/clusters.md. `npm test` builds first; run `npm run build` before
 * running this file alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { ClusterConnection, KubeObject, ResourceInfo } from '../../src/cluster/index.js';
import { runCli } from '../support/cli.js';
import type { CliResult } from '../support/cli.js';
import { useEmbeddedCluster, needsEmbedded, crdsEstablished } from '../support/embedded.js';
import type { EmbeddedFixture } from '../support/embedded.js';
import { APP_PROJECT_CRD, APPLICATION_CRD } from '../support/argocd.js';
import { cm, TestRepo, tempDir } from '../support/git.js';
import { repoRoot } from '../support/paths.js';
import { connectAs, createNamespaces } from '../controller/setup.js';

const IN_CLUSTER = 'https://kubernetes.default.svc';

const secret = (name: string, type: string, fields: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'argocd', labels: { 'argocd.argoproj.io/secret-type': type } },
  type: 'Opaque',
  stringData: fields,
});

const app = (name: string, project: string, repoURL: string, destination: object): KubeObject => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name, namespace: 'argocd' },
  spec: { project, source: { repoURL, path: 'web', targetRevision: 'HEAD' }, destination },
});

const appProject = (name: string, spec: object): KubeObject => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'AppProject',
  metadata: { name, namespace: 'argocd' },
  spec,
});

const writes = (fx: EmbeddedFixture): number => fx.cluster.stats.writes();

interface JsonReport {
  apps: Array<{ name: string; phase?: string; sync?: string; error?: string }>;
}

describe('project-scoped clusters and repositories; cluster.inClusterEnabled (CLI, two embedded servers)', () => {
  const local = useEmbeddedCluster();
  const remote = useEmbeddedCluster(
    { namespaces: ['default', 'kube-system', 'team-a'] },
    { alwaysEmbedded: true },
  );
  const repo = new TestRepo();
  const dir = tempDir('kg-scoped-');
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  let conn: ClusterConnection;
  let remoteConn: ClusterConnection;
  const cli = (args: string[]): Promise<CliResult> =>
    runCli([...args, '--kubeconfig', local.kubeconfig], { env });
  const file = (name: string, objects: KubeObject[]): string => {
    const path = join(dir, name);
    writeFileSync(path, objects.map((o) => stringify(o)).join('---\n'));
    return path;
  };
  const configMapsOf = async (c: ClusterConnection): Promise<string[]> =>
    (
      await c.client.listAll(
        { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, verbs: [] },
        { namespace: 'team-a' },
      )
    )
      .map((o) => o.metadata?.name ?? '')
      .filter((n) => n !== 'kube-root-ca.crt')
      .sort();

  before(async () => {
    assert.ok(existsSync(join(repoRoot, 'dist', 'cli.js')), 'dist/ is missing: run `npm run build` first');
    repo.commit({ 'web/web.yaml': cm('web') });
    conn = await connectAs(local);
    remoteConn = await connectAs(remote);
    await createNamespaces(conn, ['team-a']);
  });
  after(() => {
    conn?.close();
    remoteConn?.close();
    repo.remove();
  });

  it('permitOnlyProjectScopedClusters: the Secret-scoped cluster is permitted, another refused; a scoped repository Secret extends sourceRepos', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    const projects = file('projects.yaml', [
      appProject('scoped', {
        sourceRepos: ['https://example.com/only/*'],
        destinations: [{ server: '*', namespace: '*' }],
        permitOnlyProjectScopedClusters: true,
      }),
      appProject('plain', {
        sourceRepos: ['https://example.com/only/*'],
        destinations: [{ server: '*', namespace: '*' }],
      }),
    ]);
    const clusters = file('clusters.yaml', [
      secret('scoped-remote', 'cluster', {
        name: 'scoped-remote',
        server: remote.cluster.url,
        project: 'scoped',
        config: JSON.stringify({ tlsClientConfig: { insecure: false } }),
      }),
    ]);
    const repos = file('repos.yaml', [
      secret('scoped-repo', 'repository', { url: repo.url, project: 'scoped' }),
    ]);
    const apps = file('apps.yaml', [
      app('on-scoped', 'scoped', repo.url, { server: remote.cluster.url, namespace: 'team-a' }),
      app('on-local', 'scoped', repo.url, { server: IN_CLUSTER, namespace: 'team-a' }),
      app('other-project', 'plain', repo.url, { server: remote.cluster.url, namespace: 'team-a' }),
    ]);
    const flags = ['-f', apps, '--project-file', projects, '--clusters-file', clusters];

    // Without the repository Secret, the repository is not in sourceRepos: every app is refused.
    const onScoped = file('on-scoped.yaml', [
      app('on-scoped', 'scoped', repo.url, { server: remote.cluster.url, namespace: 'team-a' }),
    ]);
    const noRepos = await cli(['diff', '-f', onScoped, ...flags.slice(2)]);
    assert.equal(noRepos.code, 2, noRepos.stderr);
    assert.match(
      noRepos.stderr,
      new RegExp(
        `app "on-scoped": failed to compare: application repo ${repo.url} is not permitted in project 'scoped'`,
      ),
    );

    local.cluster.stats.reset();
    remote.cluster.stats.reset();
    const r = await cli(['sync', ...flags, '--repositories-file', repos, '-o', 'json']);
    assert.equal(r.code, 2, r.stderr);
    const report = JSON.parse(r.stdout) as JsonReport;
    const byName = new Map(report.apps.map((a) => [a.name, a]));
    assert.equal(byName.get('on-scoped')?.phase, 'Succeeded', r.stdout);
    assert.equal(byName.get('on-scoped')?.sync, 'Synced');
    assert.match(
      r.stderr,
      /app "on-local": failed to compare: application destination server 'https:\/\/kubernetes\.default\.svc' and namespace 'team-a' do not match any of the allowed destinations in project 'scoped'/,
    );
    // The repository Secret is scoped to "scoped": project "plain" still refuses the repository.
    assert.match(
      r.stderr,
      new RegExp(
        `app "other-project": failed to compare: application repo ${repo.url} is not permitted in project 'plain'`,
      ),
    );
    assert.deepEqual(await configMapsOf(remoteConn), ['web']);
    assert.equal(writes(local), 0, 'nothing written on the refused in-cluster destination');
    assert.deepEqual(await configMapsOf(conn), []);
  });

  it('cluster.inClusterEnabled "false": in-cluster by server and by name gets Argo CD\'s error, exit 2, nothing written; a Secret cluster goes on', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    const argocdCm = join(dir, 'argocd-cm.yaml');
    writeFileSync(
      argocdCm,
      stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'argocd-cm', namespace: 'argocd' },
        data: { 'cluster.inClusterEnabled': 'false' },
      }),
    );
    const clusters = file('clusters-plain.yaml', [
      secret('remote', 'cluster', {
        name: 'remote',
        server: remote.cluster.url,
        config: JSON.stringify({ tlsClientConfig: { insecure: false } }),
      }),
    ]);
    const apps = file('in-cluster-apps.yaml', [
      app('by-server', 'default', repo.url, { server: `${IN_CLUSTER}/`, namespace: 'team-a' }),
      app('by-name', 'default', repo.url, { name: 'in-cluster', namespace: 'team-a' }),
      app('remote-web', 'default', repo.url, { name: 'remote', namespace: 'team-a' }),
    ]);
    const flags = ['-f', apps, '--clusters-file', clusters, '--argocd-cm', argocdCm];

    const byServer = file('by-server.yaml', [
      app('by-server', 'default', repo.url, { server: `${IN_CLUSTER}/`, namespace: 'team-a' }),
    ]);
    const d = await cli(['diff', '-f', byServer, ...flags.slice(2)]);
    assert.equal(d.code, 2, d.stderr);
    assert.match(
      d.stderr,
      /app "by-server": error getting cluster by server "https:\/\/kubernetes\.default\.svc\/": rpc error: code = NotFound desc = cluster "https:\/\/kubernetes\.default\.svc" is disabled/,
    );

    local.cluster.stats.reset();
    const r = await cli(['sync', ...flags, '-o', 'json']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /app "by-server": .*cluster "https:\/\/kubernetes\.default\.svc" is disabled/);
    assert.match(r.stderr, /app "by-name": .*there are no clusters with this name: in-cluster/);
    const report = JSON.parse(r.stdout) as JsonReport;
    assert.equal(report.apps.find((a) => a.name === 'remote-web')?.phase, 'Succeeded', r.stdout);
    assert.equal(writes(local), 0, 'nothing written on the disabled in-cluster server');
    assert.equal(local.cluster.stats.count('list'), 0, 'the disabled cluster is not even read');
    assert.deepEqual(await configMapsOf(conn), []);

    // Without the setting the same app syncs in-cluster.
    const on = await cli(['sync', '-f', byServer, '--clusters-file', clusters, '-o', 'json']);
    assert.equal(on.code, 0, on.stderr);
    assert.deepEqual(await configMapsOf(conn), ['web']);
  });

  it('--from-cluster: the live cluster and repository Secrets scope the live AppProject', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    const crd: ResourceInfo = {
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      plural: 'customresourcedefinitions',
      namespaced: false,
      verbs: ['create'],
    };
    await conn.client.create(crd, APPLICATION_CRD as unknown as KubeObject);
    await conn.client.create(crd, APP_PROJECT_CRD as unknown as KubeObject);
    await crdsEstablished(local);
    await createNamespaces(conn, ['argocd']);
    await conn.discovery.refresh();
    const appInfo = await conn.discovery.resolve({ group: 'argoproj.io', kind: 'Application' });
    const projInfo = await conn.discovery.resolve({ group: 'argoproj.io', kind: 'AppProject' });
    const secretInfo = await conn.discovery.resolve({ group: '', kind: 'Secret' });
    await conn.client.create(
      projInfo,
      appProject('live', {
        sourceRepos: ['https://example.com/only/*'],
        destinations: [{ server: '*', namespace: '*' }],
        permitOnlyProjectScopedClusters: true,
      }),
    );
    await conn.client.create(
      secretInfo,
      secret('live-remote', 'cluster', {
        name: 'live-remote',
        server: remote.cluster.url,
        project: 'live',
        namespaces: 'team-a',
        config: JSON.stringify({ tlsClientConfig: { insecure: false } }),
      }),
    );
    await conn.client.create(
      secretInfo,
      secret('live-repo', 'repository', { url: repo.url, project: 'live' }),
    );
    await conn.client.create(
      appInfo,
      app('live-remote-web', 'live', repo.url, { name: 'live-remote', namespace: 'team-a' }),
    );
    await conn.client.create(
      appInfo,
      app('live-local-web', 'live', repo.url, { server: IN_CLUSTER, namespace: 'team-a' }),
    );
    await remoteConn.client.delete(
      { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, verbs: [] },
      'team-a',
      'web',
    );

    local.cluster.stats.reset();
    const r = await cli(['sync', '--from-cluster', 'live-remote-web', 'live-local-web', '-o', 'json']);
    assert.equal(r.code, 2, r.stderr);
    const report = JSON.parse(r.stdout) as JsonReport;
    assert.equal(report.apps.find((a) => a.name === 'live-remote-web')?.phase, 'Succeeded', r.stdout);
    assert.match(
      r.stderr,
      /app "live-local-web": failed to compare: application destination server 'https:\/\/kubernetes\.default\.svc' and namespace 'team-a' do not match any of the allowed destinations in project 'live'/,
    );
    assert.deepEqual(await configMapsOf(remoteConn), ['web']);
    assert.equal(writes(local), 0, 'nothing written in-cluster');
  });
});
