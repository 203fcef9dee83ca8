/**
 * AppProject rules (src/apps/project.ts, project-rules.ts, globs.ts) against the cases Argo CD 3.5's own
 * tests and code decide (pkg/apis/application/v1alpha1/app_project_types.go, util/argo/argo.go
 * ValidatePermissions, controller/appcontroller.go projectErrorToCondition, controller/sync.go
 * validateSyncPermissions). Expected messages are Argo CD's format strings filled in.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import {
  DEFAULT_PROJECT,
  isAppNamespacePermitted,
  isDestinationPermitted,
  isGroupKindNamePermitted,
  isKnownOrphanedResourceExclusion,
  isSourcePermitted,
  loadApplications,
  loadProjectFiles,
  normalizeGitURL,
  parseApplication,
  parseProject,
  projectConditions,
  ProjectSet,
  syncPermissionError,
  withScopedResources,
  type AppProject,
} from '../../src/apps/index.js';
import { globMatch, matchStringInList, pathMatch } from '../../src/apps/globs.js';
import type { KubeObject } from '../../src/cluster/index.js';
import { tempDir } from '../support/git.js';

const project = (name: string, spec: Record<string, unknown>): AppProject =>
  parseProject(
    { apiVersion: 'argoproj.io/v1alpha1', kind: 'AppProject', metadata: { name, namespace: 'argocd' }, spec },
    `test ${name}`,
  );

const app = (yaml: string) => parseApplication(parse(yaml) as KubeObject, 'test');
const appYaml = (opts: {
  project?: string;
  repo?: string;
  server?: string;
  name?: string;
  ns?: string;
  appNs?: string;
}) => `
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: web
${opts.appNs ? `  namespace: ${opts.appNs}\n` : ''}spec:
  project: ${opts.project ?? 'team'}
  source: {repoURL: '${opts.repo ?? 'https://github.com/org/web.git'}', path: deploy}
  destination:
${opts.server ? `    server: ${opts.server}\n` : ''}${opts.name ? `    name: ${opts.name}\n` : ''}    namespace: ${opts.ns ?? 'web'}
`;
const IN_CLUSTER = { server: 'https://kubernetes.default.svc', name: 'in-cluster' };

describe('globs as Argo CD matches them', () => {
  it('gobwas globs: separators stop *, ** crosses them, classes, alternatives, escapes', () => {
    assert.ok(globMatch('https://github.com/org/*', 'https://github.com/org/web', '/'));
    assert.ok(!globMatch('https://github.com/org/*', 'https://github.com/org/sub/web', '/'));
    assert.ok(globMatch('https://github.com/org/**', 'https://github.com/org/sub/web', '/'));
    assert.ok(globMatch('team-*', 'team-a/b'));
    assert.ok(globMatch('web-{dev,prod}', 'web-prod'));
    assert.ok(!globMatch('web-{dev,prod}', 'web-qa'));
    assert.ok(globMatch('ns-[!a]', 'ns-b') && !globMatch('ns-[!a]', 'ns-a'));
    assert.ok(globMatch('a\\*', 'a*') && !globMatch('a\\*', 'ab'));
    assert.ok(!globMatch('[unclosed', '[unclosed'), 'a pattern that does not compile matches nothing');
  });

  it('filepath.Match: * stays inside a path segment, [^...] negates, bad patterns match nothing', () => {
    assert.ok(pathMatch('*', 'ClusterRole'));
    assert.ok(pathMatch('*.k8s.io', 'rbac.authorization.k8s.io'));
    assert.ok(!pathMatch('*', 'a/b'));
    assert.ok(pathMatch('[^C]*', 'Role') && !pathMatch('[^C]*', 'ClusterRole'));
    assert.ok(!pathMatch('[', '['));
  });

  it('MatchStringInList (REGEXP): /re/ unanchored, else a glob', () => {
    assert.ok(matchStringInList(['/^team-[0-9]+$/'], 'team-12'));
    assert.ok(matchStringInList(['/eam/'], 'team-a'));
    assert.ok(matchStringInList(['apps-*'], 'apps-x'));
    assert.ok(!matchStringInList(['apps-*', '/^x$/'], 'other'));
  });
});

describe('AppProject rules', () => {
  it('parses a project; an unset namespaced whitelist differs from an empty one; syncWindows stays raw', () => {
    const windows = [{ kind: 'deny', schedule: '0 22 * * *', duration: '1h', applications: ['*'] }];
    const p = project('team', { sourceRepos: ['*'], syncWindows: windows });
    assert.equal(p.namespaceResourceWhitelist, undefined);
    assert.deepEqual(p.syncWindows, windows);
    assert.deepEqual(project('t', { namespaceResourceWhitelist: [] }).namespaceResourceWhitelist, []);
    assert.throws(() => project('bad', { destinations: 'x' }), {
      message: 'test bad: failed to load AppProject "bad": spec.destinations must be a list',
    });
    assert.throws(() => project('bad', { clusterResourceWhitelist: [{ group: 1 }] }), {
      message:
        'test bad: failed to load AppProject "bad": spec.clusterResourceWhitelist[0].group must be a string',
    });
  });

  it('normalizes repository URLs as util/git NormalizeGitURL', () => {
    assert.equal(normalizeGitURL(' https://GitHub.com/Org/Web.git '), 'https://github.com/org/web');
    assert.equal(normalizeGitURL('git@github.com:org/web.git'), 'git@github.com/org/web');
    assert.equal(normalizeGitURL('ssh://git@github.com/org/web'), 'git@github.com/org/web');
  });

  it('sourceRepos: globs on normalized URLs; a ! entry vetoes what it names and admits the rest', () => {
    // Argo CD's own vectors (types_test.go TestAppProject_IsNegatedSourcePermitted).
    const vectors: Array<[string[], string, boolean]> = [
      [['!https://github.com/argoproj/test.git'], 'https://github.com/argoproj/test.git', false],
      [['!ssh://git@GITHUB.com:argoproj/test'], 'ssh://git@github.com:argoproj/test', false],
      [['!https://github.com/argoproj/*'], 'https://github.com/argoproj/argoproj.git', false],
      [
        ['https://github.com/test1/test.git', '!https://github.com/test2/test.git'],
        'https://github.com/test2/test.git',
        false,
      ],
      [['!https://github.com/argoproj/foo*'], 'https://github.com/argoproj/foo1', false],
      [['!https://gitlab.com/group/*/*'], 'https://gitlab.com/group/repo/owner', false],
      [['!https://gitlab.com/group/*/*/*'], 'https://gitlab.com/group/sub-group/repo/owner', false],
      [['!https://gitlab.com/group/**'], 'https://gitlab.com/group/sub-group/repo/owner', false],
      [['*'], 'https://github.com/argoproj/test.git', true],
      [['https://github.com/argoproj/test1.git', '*'], 'https://github.com/argoproj/test2.git', true],
      [['!https://github.com/argoproj/*.git', '*'], 'https://github.com/argoproj1/test2.git', true],
    ];
    for (const [repos, url, permitted] of vectors)
      assert.equal(
        isSourcePermitted(project('p', { sourceRepos: repos }), url),
        permitted,
        `${repos.join(',')} ${url}`,
      );
    const p = project('team', { sourceRepos: ['https://github.com/org/*'] });
    assert.ok(isSourcePermitted(p, 'https://GitHub.com/Org/web.git'));
    assert.ok(!isSourcePermitted(p, 'https://github.com/other/web'));
    assert.ok(!isSourcePermitted(p, 'https://github.com/org/nested/web'), '* does not cross /');
    assert.ok(!isSourcePermitted(project('none', {}), 'https://github.com/org/web'));
    assert.ok(
      isSourcePermitted(
        project('ssh', { sourceRepos: ['git@github.com:org/*'] }),
        'git@github.com:org/web.git',
      ),
    );
    // A deny entry alone admits every other repository (the negated glob matches them).
    assert.ok(isSourcePermitted(project('deny', { sourceRepos: ['!https://x/y'] }), 'https://a/b'));
  });

  it('sourceNamespaces: apps of the control-plane namespace always; others by glob or /regex/', () => {
    const p = project('team', { sourceNamespaces: ['team-*', '/^ops$/'] });
    assert.ok(isAppNamespacePermitted(p, {}, 'argocd'));
    assert.ok(isAppNamespacePermitted(p, { namespace: 'argocd' }, 'argocd'));
    assert.ok(isAppNamespacePermitted(p, { namespace: 'team-a' }, 'argocd'));
    assert.ok(isAppNamespacePermitted(p, { namespace: 'ops' }, 'argocd'));
    assert.ok(!isAppNamespacePermitted(p, { namespace: 'other' }, 'argocd'));
  });

  it('destinations: server or name with namespace globs, ! entries deny', () => {
    const p = project('team', {
      destinations: [
        { server: 'https://kubernetes.default.svc', namespace: 'team-*' },
        { name: 'prod-*', namespace: 'web' },
        { server: '*', namespace: '!kube-system' },
      ],
    });
    assert.ok(isDestinationPermitted(p, IN_CLUSTER, 'team-a'));
    assert.ok(isDestinationPermitted(p, { server: 'https://prod-1:6443', name: 'prod-1' }, 'web'));
    // The third entry: any server, any namespace but kube-system.
    assert.ok(isDestinationPermitted(p, { server: 'https://x', name: 'x' }, 'other'));
    assert.ok(!isDestinationPermitted(p, IN_CLUSTER, 'kube-system'));
    const only = project('only', { destinations: [{ server: 'https://a', namespace: 'web' }] });
    assert.ok(!isDestinationPermitted(only, { server: 'https://b', name: 'b' }, 'web'));
    assert.ok(!isDestinationPermitted(only, { server: 'https://a', name: 'a' }, 'db'));
    // A server deny entry vetoes a matching namespace on another server.
    const denyServer = project('deny', {
      destinations: [
        { server: '*', namespace: '*' },
        { server: '!https://prod', namespace: '*' },
      ],
    });
    assert.ok(!isDestinationPermitted(denyServer, { server: 'https://prod', name: 'prod' }, 'web'));
    assert.ok(isDestinationPermitted(denyServer, { server: 'https://dev', name: 'dev' }, 'web'));
  });

  it('permitOnlyProjectScopedClusters: a matching destination must also be one of the project clusters', () => {
    const p = project('team', {
      destinations: [{ server: '*', namespace: '*' }],
      permitOnlyProjectScopedClusters: true,
    });
    assert.ok(!isDestinationPermitted(p, IN_CLUSTER, 'web'));
    const scoped = (name: string) =>
      name === 'team' ? [{ server: 'https://team', name: 'team-cluster' }] : [];
    assert.ok(isDestinationPermitted(p, { server: 'https://team', name: 'x' }, 'web', scoped));
    assert.ok(isDestinationPermitted(p, { server: 'https://y', name: 'team-cluster' }, 'web', scoped));
    assert.ok(!isDestinationPermitted(p, IN_CLUSTER, 'web', scoped));
  });

  it('resource lists: cluster kinds need a whitelist entry (name globs), namespaced kinds pass an unset whitelist', () => {
    const none = project('none', {});
    assert.ok(
      !isGroupKindNamePermitted(
        none,
        { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' },
        'r',
        false,
      ),
    );
    assert.ok(isGroupKindNamePermitted(none, { group: '', kind: 'ConfigMap' }, 'c', true));
    const p = project('team', {
      clusterResourceWhitelist: [{ group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'team-*' }],
      clusterResourceBlacklist: [{ group: '*', kind: 'ClusterRole', name: 'team-admin' }],
      namespaceResourceWhitelist: [
        { group: '', kind: '*' },
        { group: 'apps', kind: 'Deployment' },
      ],
      namespaceResourceBlacklist: [{ group: '', kind: 'Secret' }],
    });
    const cr = { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' };
    assert.ok(isGroupKindNamePermitted(p, cr, 'team-view', false));
    assert.ok(!isGroupKindNamePermitted(p, cr, 'cluster-admin', false));
    assert.ok(!isGroupKindNamePermitted(p, cr, 'team-admin', false));
    assert.ok(isGroupKindNamePermitted(p, { group: '', kind: 'ConfigMap' }, 'c', true));
    assert.ok(isGroupKindNamePermitted(p, { group: 'apps', kind: 'Deployment' }, 'd', true));
    assert.ok(!isGroupKindNamePermitted(p, { group: 'apps', kind: 'StatefulSet' }, 's', true));
    assert.ok(!isGroupKindNamePermitted(p, { group: '', kind: 'Secret' }, 's', true));
    // An empty namespaced whitelist permits no namespaced kind.
    const empty = project('empty', { namespaceResourceWhitelist: [] });
    assert.ok(!isGroupKindNamePermitted(empty, { group: '', kind: 'ConfigMap' }, 'c', true));
    // The default project permits everything.
    assert.ok(isGroupKindNamePermitted(DEFAULT_PROJECT, cr, 'anything', false));
  });

  it("sync permission errors in controller/sync.go's words", () => {
    const p = project('team', { destinations: [{ server: '*', namespace: 'web' }] });
    assert.equal(
      syncPermissionError(
        p,
        { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r', namespace: '' },
        false,
        IN_CLUSTER,
      ),
      'resource rbac.authorization.k8s.io:ClusterRole is not permitted in project team',
    );
    assert.equal(
      syncPermissionError(
        p,
        { group: '', kind: 'ConfigMap', name: 'c', namespace: 'other' },
        true,
        IN_CLUSTER,
      ),
      "namespace other is not permitted in project 'team'",
    );
    assert.equal(
      syncPermissionError(p, { group: '', kind: 'ConfigMap', name: 'c', namespace: 'web' }, true, IN_CLUSTER),
      undefined,
    );
  });

  it("the refresh's conditions in Argo CD's words: missing project, app namespace, repo, destination", () => {
    const p = project('team', {
      sourceRepos: ['https://github.com/org/*'],
      destinations: [{ server: 'https://kubernetes.default.svc', namespace: 'web' }],
    });
    const opts = { controllerNamespace: 'argocd' };
    assert.deepEqual(projectConditions(app(appYaml({ project: 'ghost' })), undefined, IN_CLUSTER, opts), [
      { type: 'InvalidSpecError', message: 'Application referencing project ghost which does not exist' },
    ]);
    assert.deepEqual(projectConditions(app(appYaml({ appNs: 'team-a' })), p, IN_CLUSTER, opts), [
      {
        type: 'UnknownError',
        message: "application 'web' in namespace 'team-a' is not permitted to use project 'team'",
      },
    ]);
    assert.deepEqual(
      projectConditions(
        app(
          appYaml({ repo: 'https://gitlab.com/x/y.git', ns: 'db', server: 'https://kubernetes.default.svc' }),
        ),
        p,
        IN_CLUSTER,
        opts,
      ),
      [
        {
          type: 'InvalidSpecError',
          message: "application repo https://gitlab.com/x/y.git is not permitted in project 'team'",
        },
        {
          type: 'InvalidSpecError',
          message:
            "application destination server 'https://kubernetes.default.svc' and namespace 'db' do not match any of the allowed destinations in project 'team'",
        },
      ],
    );
    // A name destination is named by its name.
    assert.match(
      projectConditions(
        app(appYaml({ name: 'prod', ns: 'web' })),
        p,
        { server: 'https://prod', name: 'prod' },
        opts,
      )[0]!.message,
      /^application destination server 'prod' and namespace 'web' do not match/,
    );
    assert.deepEqual(
      projectConditions(app(appYaml({ server: 'https://kubernetes.default.svc' })), p, IN_CLUSTER, opts),
      [],
    );
  });

  it('project-scoped repositories and clusters extend the project (GetAppProjectByName)', () => {
    const p = project('team', { sourceRepos: [], destinations: [] });
    const scoped = withScopedResources(p, {
      repos: ['https://github.com/team/app.git'],
      clusters: [
        { server: 'https://a', name: 'a' },
        { server: 'https://b', name: 'b', namespaces: ['web', 'db'] },
      ],
    });
    assert.ok(isSourcePermitted(scoped, 'https://github.com/team/app'));
    assert.ok(isDestinationPermitted(scoped, { server: 'https://a', name: 'a' }, 'anything'));
    assert.ok(isDestinationPermitted(scoped, { server: 'https://b', name: 'b' }, 'db'));
    assert.ok(!isDestinationPermitted(scoped, { server: 'https://b', name: 'b' }, 'other'));
    assert.deepEqual(p.destinations, [], 'the given project is not changed');
  });

  it('orphaned-resource exclusions: Argo CD built-ins and the ignore list', () => {
    const p = project('team', {
      orphanedResources: { warn: true, ignore: [{ group: 'apps', kind: 'Deploy*', name: 'keep-*' }] },
    });
    assert.ok(
      isKnownOrphanedResourceExclusion(
        { group: '', kind: 'ConfigMap', namespace: 'x', name: 'kube-root-ca.crt' },
        p,
      ),
    );
    assert.ok(
      isKnownOrphanedResourceExclusion(
        { group: '', kind: 'ServiceAccount', namespace: 'x', name: 'default' },
        p,
      ),
    );
    assert.ok(
      isKnownOrphanedResourceExclusion(
        { group: 'apps', kind: 'Deployment', namespace: 'x', name: 'keep-me' },
        p,
      ),
    );
    assert.ok(
      !isKnownOrphanedResourceExclusion(
        { group: 'apps', kind: 'Deployment', namespace: 'x', name: 'other' },
        p,
      ),
    );
  });

  it('ProjectSet: default is the built-in allow-all unless given; one name from two manifests is an error', () => {
    const set = new ProjectSet();
    assert.equal(set.get('default'), DEFAULT_PROJECT);
    assert.equal(set.get('team'), undefined);
    const strict = project('default', { sourceRepos: [] });
    set.add(strict);
    assert.equal(set.get('default'), strict);
    set.add(project('default', { sourceRepos: [] })); // identical: fine
    assert.throws(
      () => set.add(project('default', { sourceRepos: ['*'] })),
      /duplicate name \(first defined in test default\)/,
    );
  });

  it('reads AppProjects from files and folders; -f app files holding only AppProjects are no error', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'all.yaml'),
      `apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: team}\nspec: {sourceRepos: ['*']}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n`,
    );
    writeFileSync(join(dir, 'app.yaml'), appYaml({}));
    const projects = await loadProjectFiles([dir]);
    assert.deepEqual(
      projects.map((p) => [p.name, p.origin]),
      [['team', `${join(dir, 'all.yaml')} (document 1)`]],
    );
    const warnings: string[] = [];
    const apps = await loadApplications({ files: [dir], onWarning: (m) => warnings.push(m) });
    assert.deepEqual(
      apps.map((a) => a.name),
      ['web'],
    );
    assert.deepEqual(warnings, [
      `${join(dir, 'all.yaml')}: skipped 1 document that is not an Application: ConfigMap`,
    ]);
    await assert.rejects(loadProjectFiles([join(dir, 'app.yaml')], { requireProjects: true }), {
      message: `${join(dir, 'app.yaml')}: failed to read AppProjects: no AppProject in ${join(dir, 'app.yaml')}`,
    });
    await assert.rejects(loadProjectFiles([join(dir, 'missing')]), {
      message: `${join(dir, 'missing')}: failed to read AppProjects: no such file or directory`,
    });
  });
});
