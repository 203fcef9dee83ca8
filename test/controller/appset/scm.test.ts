/**
 * Pull request and SCM provider generators for GitHub and GitLab through the ApplicationSet controller on
 * the embedded API server, against a fake GitHub / GitLab API on loopback (test/support/scm-api.ts): the
 * token read from a Secret by `tokenRef` as Argo CD reads it, paging, label and regexp filters, the
 * parameters Argo CD gives, and the errors when the Secret or the repository is missing.
 */
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { slugMake } from '../../../src/apps/appset/index.js';
import { api, useEmbeddedCluster, waitForObject } from '../../support/embedded.js';
import { fakeScmApi } from '../../support/scm-api.js';
import type { FakeScmApi } from '../../support/scm-api.js';
import { newCacheRoot } from '../setup.js';
import { APPS, SETS, startAppSets } from './harness.js';
import type { AppSetHarness } from './harness.js';

const T = { timeout: 60_000 };
type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const SHA = '0123456789abcdef0123456789abcdef01234567';

const set = (name: string, generator: string, appName: string, path = "'{{branch}}'"): string => `
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: ${name}
spec:
  generators:
${generator}
  template:
    metadata:
      name: '${appName}'
    spec:
      project: default
      source: {repoURL: https://example.com/r.git, path: ${path}, targetRevision: '{{head_sha}}'}
      destination: {server: https://kubernetes.default.svc, namespace: prs}
`;

describe('slugMake (gosimple/slug as Argo CD configures it)', () => {
  it('lower-cases, turns _ and other characters into -, collapses and trims, cuts at a word within 50', () => {
    assert.equal(slugMake('Feature/My_Branch'), 'feature-my-branch');
    assert.equal(slugMake('  fix: a & b @ c  '), 'fix-a-and-b-at-c');
    assert.equal(slugMake('Ünïcödé--x'), 'unicode-x');
    assert.equal(slugMake('a'.repeat(30) + '-' + 'b'.repeat(30)), 'a'.repeat(30));
    assert.equal(slugMake('c'.repeat(60)), 'c'.repeat(50));
  });
});

describe('pull request and SCM provider generators (GitHub, GitLab) in the ApplicationSet controller', () => {
  const fx = useEmbeddedCluster();
  const cacheRoot = newCacheRoot();
  let h: AppSetHarness;
  let scm: FakeScmApi;

  before(async () => {
    scm = await fakeScmApi('s3cr3t', {
      githubPulls: {
        'acme/web': [
          {
            number: 7,
            title: 'Add login',
            head: { ref: 'feature/Login_Page', sha: SHA },
            base: { ref: 'main' },
            user: { login: 'ann' },
            labels: [{ name: 'preview' }],
          },
          {
            number: 8,
            title: 'WIP: draft',
            head: { ref: 'draft', sha: SHA },
            base: { ref: 'main' },
            user: { login: 'bob' },
            labels: [{ name: 'preview' }],
          },
          {
            number: 9,
            title: 'No label',
            head: { ref: 'other', sha: SHA },
            base: { ref: 'main' },
            user: { login: 'cy' },
            labels: [],
          },
        ],
      },
      githubRepos: {
        acme: [
          {
            id: 11,
            name: 'api',
            owner: { login: 'acme' },
            default_branch: 'main',
            ssh_url: 'git@github.com:acme/api.git',
            clone_url: 'https://github.com/acme/api.git',
            topics: ['svc'],
          },
          {
            id: 12,
            name: 'docs',
            owner: { login: 'acme' },
            default_branch: 'main',
            ssh_url: 'git@github.com:acme/docs.git',
            clone_url: 'https://github.com/acme/docs.git',
            topics: [],
          },
          {
            id: 13,
            name: 'old',
            owner: { login: 'acme' },
            default_branch: 'main',
            archived: true,
            ssh_url: 'x',
            clone_url: 'y',
            topics: ['svc'],
          },
        ],
      },
      githubBranches: {
        'acme/api': [{ name: 'main', commit: { sha: SHA } }],
        'acme/docs': [{ name: 'main', commit: { sha: SHA } }],
      },
      githubPaths: { 'acme/api@main': ['deploy'] },
      gitlabMergeRequests: {
        'grp/app': [
          {
            iid: 3,
            title: 'MR three',
            source_branch: 'mr_3',
            target_branch: 'develop',
            sha: SHA,
            labels: ['ok'],
            author: { username: 'dee' },
            state: 'opened',
          },
          {
            iid: 4,
            title: 'MR four',
            source_branch: 'mr-4',
            target_branch: 'develop',
            sha: SHA,
            labels: [],
            author: { username: 'eve' },
            state: 'opened',
          },
        ],
      },
      gitlabProjects: {
        grp: [
          {
            id: 21,
            path: 'svc',
            namespace: { full_path: 'grp' },
            default_branch: 'main',
            ssh_url_to_repo: 'git@gitlab.com:grp/svc.git',
            http_url_to_repo: 'https://gitlab.com/grp/svc.git',
            topics: ['t'],
          },
        ],
      },
      gitlabBranches: {
        '21': [
          { name: 'main', commit: { id: SHA } },
          { name: 'dev', commit: { id: SHA } },
        ],
      },
    });
    h = await startAppSets(fx, cacheRoot);
    const res = await api(fx.cluster, 'POST', '/api/v1/namespaces/argocd/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'scm-token', namespace: 'argocd' },
      stringData: { token: 's3cr3t' },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  });

  after(async () => {
    await h.stop();
    await scm.close();
  });

  it(
    'GitHub pull requests: labels and title filters, the token from tokenRef, paging, Argo CD parameters',
    T,
    async () => {
      await h.createSet(
        set(
          'ghpr',
          `    - pullRequest:
        github:
          api: ${scm.url}
          owner: acme
          repo: web
          labels: [preview]
          tokenRef: {secretName: scm-token, key: token}
        filters:
          - titleMatch: '^Add'
        requeueAfterSeconds: 60`,
          'pr-{{number}}-{{branch_slug}}-{{head_short_sha}}-{{head_short_sha_7}}-{{author}}',
        ),
      );
      const s = await waitForObject(fx.cluster, `${SETS}/ghpr`, (o) => o?.status?.resources?.length === 1);
      assert.equal(s.status.resources[0].name, 'pr-7-feature-login-page-01234567-0123456-ann');
      const app = await h.getApp('pr-7-feature-login-page-01234567-0123456-ann');
      assert.equal(app.spec.source.targetRevision, SHA);
      assert.equal(app.spec.source.path, 'feature/Login_Page');
      // Two pages of two (the fake's page size), per_page=100 asked as go-github does.
      assert.ok(scm.calls.includes('GET /api/v3/repos/acme/web/pulls?per_page=100'), scm.calls.join('\n'));
      assert.ok(scm.calls.some((c) => c.startsWith('GET /api/v3/repos/acme/web/pulls?per_page=100&page=2')));
    },
  );

  it('GitLab merge requests: labels as a query filter, continueOnRepoNotFoundError', T, async () => {
    await h.createSet(
      set(
        'glmr',
        `    - pullRequest:
        gitlab:
          api: ${scm.url}/
          project: grp/app
          labels: [ok]
          pullRequestState: opened
          tokenRef: {secretName: scm-token, key: token}
    - pullRequest:
        gitlab:
          api: ${scm.url}
          project: grp/missing
          tokenRef: {secretName: scm-token, key: token}
        continueOnRepoNotFoundError: true`,
        'mr-{{number}}-{{branch_slug}}-{{target_branch_slug}}',
      ),
    );
    const s = await waitForObject(fx.cluster, `${SETS}/glmr`, (o) =>
      o?.status?.conditions?.some((c: Any) => c.type === 'ResourcesUpToDate' && c.status === 'True'),
    );
    assert.deepEqual(
      s.status.resources.map((r: Any) => r.name),
      ['mr-3-mr-3-develop'],
    );
    assert.ok(
      scm.calls.includes('GET /api/v4/projects/grp%2Fapp/merge_requests?labels=ok&per_page=100&state=opened'),
      scm.calls.join('\n'),
    );
  });

  it('a missing token Secret is ErrorOccurred with Argo CD reason; nothing written', T, async () => {
    await h.createSet(
      set(
        'notoken',
        `    - pullRequest:
        github:
          api: ${scm.url}
          owner: acme
          repo: web
          tokenRef: {secretName: nope, key: token}`,
        'x-{{number}}',
      ),
    );
    const s = await waitForObject(fx.cluster, `${SETS}/notoken`, (o) =>
      o?.status?.conditions?.some((c: Any) => c.type === 'ErrorOccurred' && c.status === 'True'),
    );
    const c = s.status.conditions.find((x: Any) => x.type === 'ErrorOccurred');
    assert.equal(c.reason, 'ApplicationGenerationFromParamsError');
    assert.match(
      c.message,
      /error fetching Secret token: error fetching secret argocd\/nope: secrets "nope" not found/,
    );
    assert.doesNotMatch(JSON.stringify(s), /s3cr3t/);
  });

  it(
    'SCM providers: GitHub organization with repository and path filters, GitLab group with all branches',
    T,
    async () => {
      await h.createSet(
        set(
          'ghorg',
          `    - scmProvider:
        cloneProtocol: https
        github:
          api: ${scm.url}
          organization: acme
          excludeArchivedRepos: true
          tokenRef: {secretName: scm-token, key: token}
        filters:
          - labelMatch: '^svc$'
            pathsExist: [deploy/]
    - scmProvider:
        gitlab:
          api: ${scm.url}
          group: grp
          allBranches: true
          tokenRef: {secretName: scm-token, key: token}`,
          '{{repository}}-{{branchNormalized}}-{{short_sha_7}}',
          "'{{url}}'",
        ),
      );
      const s = await waitForObject(fx.cluster, `${SETS}/ghorg`, (o) => o?.status?.resources?.length === 3);
      assert.deepEqual(
        s.status.resources.map((r: Any) => r.name),
        ['api-main-0123456', 'svc-dev-0123456', 'svc-main-0123456'],
      );
      assert.equal((await h.getApp('api-main-0123456')).spec.source.path, 'https://github.com/acme/api.git');
      assert.equal((await h.getApp('svc-dev-0123456')).spec.source.path, 'git@gitlab.com:grp/svc.git');
      assert.equal((await api(fx.cluster, 'GET', `${APPS}/docs-main-0123456`)).status, 404);
    },
  );

  it(
    'GitLab over TLS: caRef (a ConfigMap of the set namespace) or insecure; the system CAs refuse a private CA',
    T,
    async () => {
      const pem = (f: string): string =>
        readFileSync(new URL(`../../fixtures/clusters/${f}`, import.meta.url), 'utf8');
      const mr = {
        iid: 6,
        title: 'TLS',
        source_branch: 'tls',
        target_branch: 'main',
        sha: SHA,
        labels: [],
        author: { username: 'tia' },
        state: 'opened',
      };
      const tls = await fakeScmApi('s3cr3t', { gitlabMergeRequests: { 'grp/app': [mr] } }, 2, {
        cert: pem('server.pem'),
        key: pem('server-key.pem'),
      });
      try {
        const res = await api(fx.cluster, 'POST', '/api/v1/namespaces/argocd/configmaps', {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'scm-ca', namespace: 'argocd' },
          data: { 'ca.crt': pem('ca.pem') },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        const gen = (extra: string): string => `    - pullRequest:
        gitlab:
          api: ${tls.url}
          project: grp/app
          tokenRef: {secretName: scm-token, key: token}
${extra}`;
        const errorOf = async (name: string): Promise<string> => {
          const s = await waitForObject(fx.cluster, `${SETS}/${name}`, (o) =>
            o?.status?.conditions?.some((c: Any) => c.type === 'ErrorOccurred' && c.status === 'True'),
          );
          return s.status.conditions.find((x: Any) => x.type === 'ErrorOccurred').message;
        };
        await h.createSet(
          set('tls-ca', gen('          caRef: {configMapName: scm-ca, key: ca.crt}'), 'ca-{{number}}'),
        );
        await h.createSet(set('tls-insecure', gen('          insecure: true'), 'insecure-{{number}}'));
        await h.createSet(set('tls-system', gen(''), 'system-{{number}}'));
        await h.createSet(
          set('tls-nocm', gen('          caRef: {configMapName: nope, key: ca.crt}'), 'nocm-{{number}}'),
        );
        for (const name of ['tls-ca', 'tls-insecure']) {
          const s = await waitForObject(
            fx.cluster,
            `${SETS}/${name}`,
            (o) => o?.status?.resources?.length === 1,
          );
          assert.match(s.status.resources[0].name, /-6$/);
        }
        assert.match(
          await errorOf('tls-system'),
          /GET https:\/\/127\.0\.0\.1:\d+\/api\/v4\/projects\/grp%2Fapp\/merge_requests/,
        );
        assert.equal(
          await errorOf('tls-nocm'),
          'error fetching CA certificates from ConfigMap: configmaps "nope" not found',
        );
      } finally {
        await tls.close();
      }
    },
  );

  it(
    '--token-ref-strict-mode: a tokenRef Secret without the scm-creds label is refused with Argo CD words',
    T,
    async () => {
      await h.stop();
      h = await startAppSets(fx, cacheRoot, { tokenRefStrictMode: true });
      const gen = (secretName: string): string => `    - pullRequest:
        github:
          api: ${scm.url}
          owner: acme
          repo: web
          labels: [preview]
          tokenRef: {secretName: ${secretName}, key: token}
        filters:
          - titleMatch: '^Add'`;
      await h.createSet(set('strict', gen('scm-token'), 'strict-{{number}}'));
      const s = await waitForObject(fx.cluster, `${SETS}/strict`, (o) =>
        o?.status?.conditions?.some((c: Any) => c.type === 'ErrorOccurred' && c.status === 'True'),
      );
      assert.equal(
        s.status.conditions.find((x: Any) => x.type === 'ErrorOccurred').message,
        'error fetching Secret token: secret argocd/scm-token is not a valid SCM creds secret: secret must have label "argocd.argoproj.io/secret-type"="scm-creds"',
      );
      const res = await api(fx.cluster, 'POST', '/api/v1/namespaces/argocd/secrets', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: 'scm-creds',
          namespace: 'argocd',
          labels: { 'argocd.argoproj.io/secret-type': 'scm-creds' },
        },
        stringData: { token: 's3cr3t' },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      await h.patchSet('strict', {
        spec: { generators: [parse(gen('scm-creds').replace(/^ {4}- /, ''))] },
      });
      const ok = await waitForObject(fx.cluster, `${SETS}/strict`, (o) => o?.status?.resources?.length === 1);
      assert.equal(ok.status.resources[0].name, 'strict-7');
    },
  );
});
