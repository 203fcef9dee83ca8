/**
 * src/controller/refresh/scoped.ts: Argo CD's GetAppProjectByName (cluster and repository Secrets scoped to a
 * project extend its destinations and sourceRepos; permitOnlyProjectScopedClusters asks for them) and
 * GetCluster / GetClusterServersByName with `cluster.inClusterEnabled: "false"`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  isDestinationPermitted,
  isSourcePermitted,
  parseArgoCdSettings,
  parseProject,
  ProjectSet,
} from '../../../src/apps/index.js';
import type { AppProject } from '../../../src/apps/index.js';
import { ClusterAccess } from '../../../src/cluster/index.js';
import { RepositoryStore } from '../../../src/source/index.js';
import { inClusterRefusal, scopeProjects } from '../../../src/controller/refresh/scoped.js';

const project = (name: string, spec: Record<string, unknown>): AppProject =>
  parseProject(
    { apiVersion: 'argoproj.io/v1alpha1', kind: 'AppProject', metadata: { name }, spec },
    `test ${name}`,
  );
const cluster = (name: string, server: string, extra: Record<string, string> = {}): ClusterAccess =>
  new ClusterAccess({ server, name, config: '{}', source: `secret argocd/${name}`, ...extra });
const IN = 'https://kubernetes.default.svc';

describe('project-scoped clusters and repositories (GetAppProjectByName)', () => {
  it('extends only the named project: a server per Secret namespace, or namespace *; repository URLs', async () => {
    const strict = project('strict', {
      sourceRepos: ['https://example.com/only/*'],
      destinations: [{ server: IN, namespace: 'x' }],
    });
    const other = project('other', { sourceRepos: [], destinations: [] });
    const store = new RepositoryStore([
      {
        object: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'r', labels: { 'argocd.argoproj.io/secret-type': 'repository' } },
          stringData: { url: 'https://git.example.com/team/app.git', project: 'strict' },
        },
        origin: 'secret argocd/r',
      },
      {
        object: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 't', labels: { 'argocd.argoproj.io/secret-type': 'repo-creds' } },
          stringData: { url: 'https://creds.example.com/', project: 'strict' },
        },
        origin: 'secret argocd/t',
      },
    ]);
    const { projects, projectClusters } = await scopeProjects(new ProjectSet([strict, other]), ['strict'], {
      clusterSecrets: [
        cluster('a', 'https://a.example:6443', { project: 'strict', namespaces: 'n1, n2' }),
        cluster('b', 'https://b.example:6443', { project: 'strict' }),
        cluster('c', 'https://c.example:6443'),
      ],
      projectRepositories: async (p) => store.projectRepositories(p),
    });
    const s = projects.get('strict')!;
    assert.deepEqual(s.destinations, [
      { server: IN, name: '', namespace: 'x' },
      { server: 'https://a.example:6443', name: '', namespace: 'n1' },
      { server: 'https://a.example:6443', name: '', namespace: 'n2' },
      { server: 'https://b.example:6443', name: '', namespace: '*' },
    ]);
    // repo-creds templates are never project repositories (ByProjectRepoIndexer: type repository).
    assert.deepEqual(s.sourceRepos, ['https://example.com/only/*', 'https://git.example.com/team/app.git']);
    assert.ok(isSourcePermitted(s, 'https://git.example.com/team/app'));
    assert.equal(strict.sourceRepos.length, 1, 'the given project is unchanged');
    assert.equal(projects.get('other'), other, 'a project nothing is scoped to is the same object');
    assert.deepEqual(projectClusters('strict'), [
      { server: 'https://a.example:6443', name: 'a' },
      { server: 'https://b.example:6443', name: 'b' },
    ]);
    assert.deepEqual(projectClusters(''), []);
  });

  it('permitOnlyProjectScopedClusters: only a cluster whose Secret names the project, by name or server', async () => {
    const only = project('only', {
      destinations: [{ server: '*', namespace: '*' }],
      permitOnlyProjectScopedClusters: true,
    });
    const { projects, projectClusters } = await scopeProjects(new ProjectSet([only]), [], {
      clusterSecrets: [
        cluster('mine', 'https://mine.example', { project: 'only' }),
        cluster('theirs', 'https://t.example'),
      ],
    });
    const p = projects.get('only')!;
    assert.ok(
      isDestinationPermitted(p, { server: 'https://mine.example', name: 'mine' }, 'ns', projectClusters),
    );
    assert.ok(
      !isDestinationPermitted(p, { server: 'https://t.example', name: 'theirs' }, 'ns', projectClusters),
    );
    assert.ok(!isDestinationPermitted(p, { server: IN, name: 'in-cluster' }, 'ns', projectClusters));
  });

  it('repository Secrets that do not load: a warning, no scoped URL', async () => {
    const warnings: string[] = [];
    const { projects } = await scopeProjects(new ProjectSet([project('p', {})]), ['p'], {
      projectRepositories: () =>
        Promise.reject(new Error('failed to read repository credentials: repos.yaml: bad')),
      onWarning: (m) => warnings.push(m),
    });
    assert.deepEqual(projects.get('p')!.sourceRepos, []);
    assert.deepEqual(warnings, [
      'project-scoped repositories not added: failed to read repository credentials: repos.yaml: bad',
    ]);
  });
});

describe('cluster.inClusterEnabled "false" (GetCluster, GetClusterServersByName)', () => {
  const settings = (value: unknown) =>
    parseArgoCdSettings(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'argocd-cm' },
        data: { 'cluster.inClusterEnabled': value },
      },
      'file cm.yaml',
    );

  it('is off only for exactly "false"', () => {
    assert.equal(settings('false').inClusterEnabled, false);
    for (const v of ['False', 'no', '0', 'true', ''])
      assert.equal(settings(v).inClusterEnabled, undefined, v);
  });

  it("refuses the in-cluster server by URL and by name with Argo CD's messages; other clusters pass", () => {
    assert.equal(
      inClusterRefusal({ server: `${IN}/`, namespace: 'a' }, undefined, false)?.message,
      `error getting cluster by server "${IN}/": rpc error: code = NotFound desc = cluster "${IN}" is disabled`,
    );
    assert.equal(
      inClusterRefusal({ name: 'in-cluster', namespace: 'a' }, undefined, false)?.message,
      'there are no clusters with this name: in-cluster',
    );
    // A Secret naming its cluster "in-cluster" with another server: that server is the destination.
    assert.equal(
      inClusterRefusal({ name: 'in-cluster', namespace: 'a' }, undefined, false, [
        cluster('in-cluster', 'https://x.example'),
      ]),
      undefined,
    );
    // A Secret's name for the in-cluster server finds no cluster once resolved.
    assert.equal(
      inClusterRefusal({ name: 'local', namespace: 'a' }, { server: IN, name: 'local' }, false)?.message,
      'there are no clusters with this name: local',
    );
    assert.equal(
      inClusterRefusal({ server: 'https://x.example', namespace: 'a' }, undefined, false),
      undefined,
    );
    assert.equal(inClusterRefusal({ server: IN, namespace: 'a' }, undefined, true), undefined);
    assert.equal(
      inClusterRefusal({ server: IN, name: 'in-cluster', namespace: 'a' }, undefined, false),
      undefined,
    );
  });
});
