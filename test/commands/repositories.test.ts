/**
 * The CLI reads Argo CD's repository Secrets: live from the Argo CD namespace of the embedded API server
 * with `--from-cluster`, and from `--repositories-file` (a SecretList, `stringData`) otherwise. A private
 * repository served by `git http-backend` on loopback renders; a wrong password fails that app alone
 * (exit 2, the URL named, the password nowhere in the output).
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import type { ClusterConnection, KubeObject } from '../../src/cluster/index.js';
import { APPLICATION_CRD } from '../support/argocd.js';
import { kubeconfigYaml } from '../../src/embedded/index.js';
import { runCli } from '../support/cli.js';
import { startProxy } from '../support/proxy.js';
import { useEmbeddedCluster, crdsEstablished } from '../support/embedded.js';
import { GitHttpServer } from '../support/git-http.js';
import { appYaml, cm, TestRepo, tempDir } from '../support/git.js';
import { repoRoot } from '../support/paths.js';
import { repoSecret } from '../support/repositories.js';
import { connectAs, createNamespaces } from '../controller/setup.js';

const PASSWORD = 'cli-Pa55word';
const WRONG = 'wr0ng-cli-Pa55';

describe('repository Secrets in the CLI (embedded cluster, git http-backend)', () => {
  const fx = useEmbeddedCluster();
  const dir = tempDir('kg-cli-repos-');
  const server = new GitHttpServer(join(dir, 'served'), { username: 'alice', password: PASSWORD });
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  let conn: ClusterConnection;
  let okURL = '';
  let lockedURL = '';

  before(async () => {
    assert.ok(existsSync(join(repoRoot, 'dist', 'cli.js')), 'dist/ is missing: run `npm run build` first');
    const repo = new TestRepo();
    repo.commit({ 'app/cm.yaml': cm('private-settings') });
    execFileSync('git', ['clone', '-q', '--bare', repo.dir, join(dir, 'served', 'ok.git')]);
    execFileSync('git', ['clone', '-q', '--bare', repo.dir, join(dir, 'served', 'locked.git')]);
    repo.remove();
    await server.start();
    okURL = server.url('ok.git');
    lockedURL = server.url('locked.git');

    conn = await connectAs(fx);
    await createNamespaces(conn, ['argocd']);
    const crdInfo = {
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      plural: 'customresourcedefinitions',
      namespaced: false,
      verbs: ['create'],
    };
    await conn.client.create(crdInfo, APPLICATION_CRD as unknown as KubeObject);
    await crdsEstablished(fx);
    await conn.discovery.refresh();
    const appInfo = await conn.discovery.resolve({ group: 'argoproj.io', kind: 'Application' });
    for (const [name, url] of [
      ['ok', okURL],
      ['locked', lockedURL],
    ] as const) {
      const manifest = parse(appYaml(name, url, 'app', { namespace: 'web' })) as KubeObject;
      manifest.metadata = { name, namespace: 'argocd' };
      await conn.client.create(appInfo, manifest);
    }
    const secretInfo = await conn.discovery.resolve({ group: '', kind: 'Secret' });
    // A template for the server, and a repository Secret (with a wrong password) that wins for locked.git.
    await conn.client.create(
      secretInfo,
      repoSecret('creds', 'repo-creds', { url: server.url(''), username: 'alice', password: PASSWORD })
        .object,
    );
    await conn.client.create(
      secretInfo,
      repoSecret('locked', 'repository', { url: lockedURL, username: 'alice', password: WRONG }).object,
    );
  });

  after(async () => {
    conn?.close();
    await server.stop();
  });

  it('--from-cluster reads the repository Secrets of the Argo CD namespace', async () => {
    const r = await runCli(['render', '--kubeconfig', fx.kubeconfig, '--from-cluster', '-o', 'json'], {
      env,
    });
    assert.equal(r.code, 2, r.stderr);
    const out = JSON.parse(r.stdout) as { apps: { name: string; objects: KubeObject[] }[] };
    assert.deepEqual(
      out.apps
        .filter((a) => a.objects.length > 0)
        .map((a) => [a.name, a.objects.map((o) => o.metadata?.name)]),
      [['ok', ['private-settings']]],
    );
    assert.match(
      r.stderr,
      /error: app "locked": failed to list the refs of http:\/\/127\.0\.0\.1:\d+\/locked\.git: .*Authentication failed/,
    );
    for (const text of [r.stdout, r.stderr]) {
      assert.ok(!text.includes(WRONG) && !text.includes(PASSWORD));
      assert.ok(!text.includes(Buffer.from(WRONG).toString('base64')));
    }
  });

  it('--from-cluster without the right to read Secrets: a warning, public repositories go on, private ones fail naming the URL', async () => {
    // A proxy answers the list of Secrets as kube-apiserver's authorizer refuses it.
    const proxy = await startProxy(fx.cluster.url, (req, res, u) => {
      if (req.method !== 'GET' || !u.pathname.endsWith('/namespaces/argocd/secrets')) return false;
      res.writeHead(403, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          message:
            'secrets is forbidden: User "ci" cannot list resource "secrets" in API group "" in the namespace "argocd"',
          reason: 'Forbidden',
          details: { kind: 'secrets' },
          code: 403,
        }),
      );
      return true;
    });
    const kubeconfig = join(dir, 'proxied-kubeconfig');
    writeFileSync(kubeconfig, kubeconfigYaml(proxy.url, 'proxied'));
    try {
      const r = await runCli(
        ['render', '--kubeconfig', kubeconfig, '--from-cluster', '-o', 'json', '--hard-refresh'],
        {
          env,
        },
      );
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /warning: namespace argocd: cannot read repository Secrets \(forbidden\): private repositories fail without their credentials/,
      );
      assert.match(
        r.stderr,
        /app "ok": failed to list the refs of http:\/\/127\.0\.0\.1:\d+\/ok\.git: authentication required/,
      );
    } finally {
      await proxy.close();
    }
  });

  it('--repositories-file reads the same Secrets from a file (SecretList, stringData)', async () => {
    const apps = join(dir, 'apps.yaml');
    writeFileSync(apps, appYaml('ok', okURL, 'app', { namespace: 'web' }));
    const file = join(dir, 'repos.yaml');
    writeFileSync(
      file,
      `apiVersion: v1
kind: SecretList
items:
- metadata:
    name: ok
    labels: {argocd.argoproj.io/secret-type: repository}
  stringData: {url: "${okURL}", username: alice, password: "${PASSWORD}"}
- metadata:
    name: no-url
    labels: {argocd.argoproj.io/secret-type: repository}
  stringData: {password: "${PASSWORD}"}
`,
    );
    const r = await runCli(
      ['render', '-f', apps, '--repositories-file', file, '-o', 'json', '--hard-refresh'],
      { env },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stderr,
      `warning: ${file} (document 1, item 2): repository Secret without url: it matches no repository\n`,
    );
    const none = await runCli(['render', '-f', apps, '-o', 'json', '--hard-refresh'], { env });
    assert.equal(none.code, 2);
    assert.match(none.stderr, /authentication required: no credentials matched this URL/);
    const empty = join(dir, 'empty.yaml');
    writeFileSync(empty, cm('nothing'));
    const bad = await runCli(['render', '-f', apps, '--repositories-file', empty, '--hard-refresh'], { env });
    assert.equal(bad.code, 2);
    assert.match(
      bad.stderr,
      /empty\.yaml: failed to read repositories: no Secret labelled argocd\.argoproj\.io\/secret-type/,
    );
  });
});
