/**
 * The CLI as kubectl and argocd users type it, end to end with the built CLI, real Git repositories, the
 * embedded API server and the real kubectl: "did you mean", `version`, `-v 6` request logs, `--server-side`,
 * `--revision` overriding the apps' target revision, and `render | kubectl apply -f -` (client-side apply)
 * landing in the destination namespace. `npm test` builds first.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../support/cli.js';
import { hasKubectl, kubectl, useEmbeddedCluster } from '../support/embedded.js';
import { appYaml, cm, TestRepo, tempDir } from '../support/git.js';

describe('CLI like kubectl and argocd (built CLI, real git, embedded cluster)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const dir = tempDir('kg-cli-ux-');
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  let appsFile: string;

  before(() => {
    repo.commit({
      'web/cm.yaml': cm('settings', '  labels:\n    rev: main\n'),
      'web/role.yaml':
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: web-reader\nrules: []\n',
    });
    repo.branch('feature');
    repo.checkout('feature');
    repo.commit({ 'web/cm.yaml': cm('settings', '  labels:\n    rev: feature\n') });
    repo.checkout('main');
    appsFile = join(dir, 'apps.yaml');
    const multi = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: multi
spec:
  project: default
  sources:
    - repoURL: ${repo.url}
      path: web
      targetRevision: main
  destination:
    server: https://kubernetes.default.svc
    namespace: multi
`;
    writeFileSync(
      appsFile,
      [appYaml('web', repo.url, 'web', { revision: 'main', namespace: 'web' }), multi].join('---\n'),
    );
  });

  after(() => repo.remove());

  it('an unknown command says which one was meant, exit 2', async () => {
    const r = await runCli(['rendr', '-f', appsFile]);
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      "error: rendr: unknown command\nhint: did you mean 'kubectl gitops render'? (see 'kubectl gitops --help')\n",
    );
  });

  it('an unknown flag names the flag and the close ones', async () => {
    const r = await runCli(['diff', '--server-sid']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^error: --server-sid: unknown flag\nhint: did you mean '--server-side'/);
  });

  it('version prints the plugin, Node.js and platform; -o json too', async () => {
    const text = await runCli(['version']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^kubectl-gitops: v\d+\.\d+\.\d+\n {2}Node\.js: v\d+/);
    const json = await runCli(['version', '-o', 'json']);
    const info = JSON.parse(json.stdout) as { version: string; node: string; standalone: boolean };
    assert.equal(info.node, process.version);
    assert.equal(info.standalone, false);
  });

  it('--revision without --repo renders every single-source app at that revision (as argocd app diff)', async () => {
    const main = await runCli(['render', '-f', appsFile, 'web'], { env });
    assert.equal(main.code, 0, main.stderr);
    assert.match(main.stdout, /rev: main/);
    const r = await runCli(['render', '-f', appsFile, '--revision', 'feature'], { env });
    assert.equal(r.code, 0, r.stderr);
    const perApp = r.stdout.split(/^# app: /m).filter(Boolean);
    const web = perApp.find((t) => t.startsWith('web '))!;
    const multi = perApp.find((t) => t.startsWith('multi '))!;
    assert.match(web, /rev: feature/);
    assert.ok(web.includes(`revision: ${repo.head('feature')}`));
    // A multi-source app keeps its revisions, with a warning naming it.
    assert.match(multi, /rev: main/);
    assert.match(r.stderr, /warning: app "multi": --revision not applied: it has 1 sources/);
  });

  it('render places namespaced objects in the destination namespace, cluster-scoped ones in none', async () => {
    const r = await runCli(['render', '-f', appsFile, 'web'], { env });
    const docs = parseAllDocuments(r.stdout).map(
      (d) => d.toJS() as { kind: string; metadata: { namespace?: string } },
    );
    assert.deepEqual(
      docs.map((d) => [d.kind, d.metadata.namespace ?? null]),
      [
        ['ConfigMap', 'web'],
        ['ClusterRole', null],
      ],
    );
  });

  it(
    'render | kubectl apply -f - (client-side) lands where sync would',
    { skip: !hasKubectl && 'kubectl not found' },
    async () => {
      assert.equal((await kubectl(fx, ['create', 'namespace', 'web'])).code, 0);
      const r = await runCli(['render', '-f', appsFile, 'web'], { env });
      const applied = await kubectl(fx, ['apply', '-f', '-'], r.stdout);
      assert.equal(applied.code, 0, applied.stderr);
      const got = await kubectl(fx, [
        'get',
        'configmap',
        'settings',
        '-n',
        'web',
        '-o',
        'jsonpath={.metadata.labels.rev}',
      ]);
      assert.equal(got.stdout, 'main');
      assert.equal((await kubectl(fx, ['get', 'configmap', 'settings', '-n', 'default'])).code, 1);
      // The client-side apply recorded last-applied: diff (three-way) then reports the app in sync.
      const diff = await runCli(
        ['diff', '-f', appsFile, 'web', '--kubeconfig', fx.kubeconfig, '-o', 'name'],
        { env },
      );
      assert.equal(diff.code, 0, diff.stdout + diff.stderr);
    },
  );

  it('-v 6 logs each API request like kubectl; --server-side is the server-side diff', async () => {
    const quiet = await runCli(
      ['diff', '-f', appsFile, 'web', '--kubeconfig', fx.kubeconfig, '--no-exit-code'],
      { env },
    );
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.doesNotMatch(quiet.stderr, /milliseconds/);
    const r = await runCli(
      [
        'diff',
        '-f',
        appsFile,
        'web',
        '--kubeconfig',
        fx.kubeconfig,
        '--no-exit-code',
        '--server-side',
        '-v',
        '6',
      ],
      { env },
    );
    assert.equal(r.code, 0, r.stderr);
    const requests = r.stderr.split('\n').filter((l) => / in \d+ milliseconds$/.test(l));
    assert.ok(requests.length > 0, r.stderr);
    for (const line of requests)
      assert.match(
        line,
        /^(GET|POST|PATCH|PUT|DELETE) https?:\/\/127\.0\.0\.1:\d+\/\S* \d{3} [A-Za-z ]+ in \d+ milliseconds$/,
      );
    assert.ok(
      requests.some(
        (l) =>
          /^GET \S+\/api\/v1\/namespaces\/web\/configmaps\?/.test(l) ||
          /^GET \S+\/api\/v1\/configmaps\?/.test(l),
      ),
      requests.join('\n'),
    );
    // The server-side diff is a dry-run apply per live resource: a PATCH with dryRun=All.
    assert.ok(
      requests.some((l) => /^PATCH \S+dryRun=All/.test(l)),
      requests.join('\n'),
    );
  });
});
