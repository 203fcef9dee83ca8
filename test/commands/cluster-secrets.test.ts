/**
 * Remote destinations through Argo CD cluster Secrets, end to end (the built CLI as a process, real Git):
 * a management cluster (embedded, plain HTTP) holds the `argocd` namespace, its Applications and cluster
 * Secrets; a second embedded server stands for the remote cluster, serving TLS with a test CA and taking
 * only a bearer token or basic auth (401 otherwise, as kube-apiserver). The remote is reached only through
 * a Secret: `sync --from-cluster` (bearer token + CA), `diff --clusters-file` (basic auth, an exec
 * provider), the Secret's `namespaces` scope, a missing `argocd-k8s-auth`, a kubeconfig context winning
 * over a Secret, and no credential in any output. docs/clusters.md has the rules.
 * `npm test` builds first; run `npm run build` before running this file alone.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { dirname, join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { ClusterConnection, KubeObject, ResourceInfo } from '../../src/cluster/index.js';
import { runCli } from '../support/cli.js';
import type { CliResult } from '../support/cli.js';
import { useEmbeddedCluster, onEmbedded, crdsEstablished } from '../support/embedded.js';
import { APPLICATION_CRD } from '../support/argocd.js';
import { cm, TestRepo, tempDir } from '../support/git.js';
import { fixturesDir, repoRoot } from '../support/paths.js';
import { connectAs, createNamespaces } from '../controller/setup.js';

const TLS = join(fixturesDir, 'clusters');
const CA = readFileSync(join(TLS, 'ca.pem'), 'utf8');
const TOKEN = 'remote-bearer-token-0d1e2f3a4b5c';
const EXEC_TOKEN = 'exec-issued-token-9f8e7d6c5b4a';
const PASSWORD = 'remote-basic-password-77aa';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** An Argo CD cluster Secret (stringData, as users write them). */
function clusterSecret(name: string, fields: Record<string, string | object>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: 'argocd',
      labels: { 'argocd.argoproj.io/secret-type': 'cluster' },
    },
    type: 'Opaque',
    stringData: Object.fromEntries(
      Object.entries(fields).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
    ),
  };
}

function application(name: string, repoURL: string, path: string, destination: object): KubeObject {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace: 'argocd' },
    spec: {
      project: 'default',
      source: { repoURL, path, targetRevision: 'HEAD' },
      destination,
    },
  };
}

/** A GET on the remote with the bearer token and the test CA (what the test reads back). */
function remoteGet(url: string, path: string): Promise<{ status: number; body: KubeObject }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${url}${path}`,
      { ca: CA, headers: { Authorization: `Bearer ${TOKEN}`, Accept: 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as KubeObject }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const assertNoCredentials = (r: CliResult): void => {
  for (const secret of [TOKEN, EXEC_TOKEN, PASSWORD, b64(TOKEN), b64(PASSWORD)]) {
    assert.ok(!r.stdout.includes(secret), `stdout carries a credential:\n${r.stdout}`);
    assert.ok(!r.stderr.includes(secret), `stderr carries a credential:\n${r.stderr}`);
  }
};

describe('cluster Secrets as destinations (CLI, two embedded clusters)', () => {
  const mgmt = useEmbeddedCluster();
  const remote = useEmbeddedCluster(
    {
      tls: {
        cert: readFileSync(join(TLS, 'server.pem')),
        key: readFileSync(join(TLS, 'server-key.pem')),
      },
      auth: { tokens: { [TOKEN]: 'argocd-manager', [EXEC_TOKEN]: 'exec-user' }, basic: { admin: PASSWORD } },
      namespaces: ['default', 'kube-system', 'team-a', 'team-b'],
    },
    { alwaysEmbedded: true },
  );
  const repo = new TestRepo();
  const dir = tempDir('kg-cluster-secrets-');
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  let conn: ClusterConnection;
  const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<CliResult> =>
    runCli([...args, '--kubeconfig', mgmt.kubeconfig], { env: { ...env, ...extraEnv } });
  const secretInfo: ResourceInfo = {
    group: '',
    version: 'v1',
    kind: 'Secret',
    plural: 'secrets',
    namespaced: true,
    verbs: ['create'],
  };
  const appInfo: ResourceInfo = {
    group: 'argoproj.io',
    version: 'v1alpha1',
    kind: 'Application',
    plural: 'applications',
    namespaced: true,
    verbs: ['create', 'delete'],
  };
  const writeFile = (name: string, objects: KubeObject[]): string => {
    const file = join(dir, name);
    writeFileSync(file, objects.map((o) => stringify(o)).join('---\n'));
    return file;
  };

  before(async () => {
    assert.ok(existsSync(join(repoRoot, 'dist', 'cli.js')), 'dist/ is missing: run `npm run build` first');
    repo.commit({
      'team-a/web.yaml': cm('web'),
      'team-b/api.yaml': cm('api'),
      'cluster/role.yaml':
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: team-reader\nrules: []\n---\n' +
        cm('with-role'),
    });
    conn = await connectAs(mgmt);
    await createNamespaces(conn, ['argocd']);
    const crdInfo: ResourceInfo = {
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      plural: 'customresourcedefinitions',
      namespaced: false,
      verbs: ['create'],
    };
    await conn.client.create(crdInfo, APPLICATION_CRD as unknown as KubeObject);
    await crdsEstablished(mgmt);
    await conn.discovery.refresh();
  });

  it('the remote itself refuses a request without credentials: 401 with a Status body', async () => {
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      https
        .get(`${remote.cluster.url}/api/v1/namespaces`, { ca: CA }, (r) => {
          let text = '';
          r.setEncoding('utf8').on('data', (d: string) => (text += d));
          r.on('end', () => resolve({ status: r.statusCode ?? 0, body: text }));
        })
        .on('error', reject);
    });
    assert.equal(res.status, 401);
    assert.deepEqual(JSON.parse(res.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
  });

  it('sync --from-cluster reaches the remote through its Secret (bearer token, CA); no token in any output', async (t) => {
    await conn.client.create(
      secretInfo,
      clusterSecret('remote', {
        name: 'remote',
        server: remote.cluster.url,
        config: { bearerToken: TOKEN, tlsClientConfig: { insecure: false, caData: b64(CA) } },
      }),
    );
    await conn.client.create(
      appInfo,
      application('web', repo.url, 'team-a', { server: remote.cluster.url, namespace: 'team-a' }),
    );
    const synced = await cli(['sync', '--from-cluster', 'web', '-o', 'json']);
    assert.equal(synced.code, 0, synced.stderr);
    assertNoCredentials(synced);
    const report = JSON.parse(synced.stdout) as { apps: Array<{ phase: string; sync: string }> };
    assert.equal(report.apps[0]!.phase, 'Succeeded');
    assert.equal(report.apps[0]!.sync, 'Synced');
    const live = await remoteGet(remote.cluster.url, '/api/v1/namespaces/team-a/configmaps/web');
    assert.equal(live.status, 200);
    // Nothing went to the management cluster.
    const onMgmt = await conn.client.listAll(
      { ...secretInfo, kind: 'ConfigMap', plural: 'configmaps' },
      {
        namespace: 'team-a',
      },
    );
    assert.deepEqual(onMgmt, []);

    // Every request to the remote carried our User-Agent; the default field manager kube-apiserver derives
    // from it is our own field manager's name, and our explicit managers are unchanged.
    if (onEmbedded(t, 'User-Agents seen (cluster.stats)')) {
      const agents = [...remote.cluster.stats.userAgents().keys()].filter((ua) => ua !== '');
      assert.ok(agents.length > 0);
      for (const ua of agents)
        assert.match(ua, /^kubectl-gitops\/v\d+\.\d+\.\d+\S* \([a-z0-9]+\/[a-z0-9]+\)$/);
    }
    const managers = (live.body.metadata?.managedFields ?? []).map((f) => (f as { manager: string }).manager);
    assert.ok(managers.includes('argocd-controller'), managers.join(','));

    // -v 6 logs the requests (URL and status), never the Authorization header.
    const verbose = await cli(['diff', '--from-cluster', 'web', '-v', '6']);
    assert.equal(verbose.code, 0, verbose.stdout + verbose.stderr);
    assert.match(
      verbose.stderr,
      /GET https:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/team-a\/configmaps\S* 200/,
    );
    assertNoCredentials(verbose);
  });

  it('a wrong token is the app error (401, Unauthorized) naming the cluster, never the token', async () => {
    const file = writeFile('wrong-token.yaml', [
      clusterSecret('remote', {
        name: 'remote',
        server: remote.cluster.url,
        config: { bearerToken: `${TOKEN}-revoked`, tlsClientConfig: { caData: b64(CA) } },
      }),
    ]);
    const r = await cli(['diff', '--from-cluster', 'web', '--clusters-file', file]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /app "web".*Unauthorized/);
    assert.ok(!r.stderr.includes(`${TOKEN}-revoked`), r.stderr);
    assertNoCredentials(r);
  });

  it('malformed Secrets beside a good one: warned once each, only the apps that need them fail (docs/clusters.md)', async () => {
    const secrets = writeFile('malformed.yaml', [
      clusterSecret('remote-basic', {
        name: 'remote-basic',
        server: remote.cluster.url,
        config: { username: 'admin', password: PASSWORD, tlsClientConfig: { caData: b64(CA) } },
      }),
      // Argo CD keeps a Secret with no server (server ""), and skips one whose config does not unmarshal.
      clusterSecret('no-server', { name: 'broken', config: { bearerToken: TOKEN } }),
      clusterSecret('bad-config', {
        name: 'bad',
        server: 'https://bad.example',
        config: '{"bearerToken": 7',
      }),
      clusterSecret('bad-shard', { name: 'sharded', server: 'https://sharded.example', shard: 'one' }),
    ]);
    const apps = writeFile('apps-malformed.yaml', [
      application('api', repo.url, 'team-b', { name: 'remote-basic', namespace: 'team-b' }),
      application('to-broken', repo.url, 'team-b', { name: 'broken', namespace: 'team-b' }),
      application('to-bad', repo.url, 'team-b', { name: 'bad', namespace: 'team-b' }),
    ]);
    const r = await cli(['diff', '-f', apps, '--clusters-file', secrets, '-o', 'json']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assertNoCredentials(r);
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning: '));
    assert.equal(warnings.filter((w) => /Secret no-server: has no server/.test(w)).length, 1, r.stderr);
    assert.equal(
      warnings.filter((w) => /Secret bad-config: left out: config is not valid JSON/.test(w)).length,
      1,
    );
    assert.equal(warnings.filter((w) => /Secret bad-shard: shard "one" is not an integer/.test(w)).length, 1);
    const doc = JSON.parse(r.stdout) as { apps: Array<{ name: string; sync: string; error?: string }> };
    const byName = Object.fromEntries(doc.apps.map((a) => [a.name, a]));
    assert.equal(byName['api']!.sync, 'OutOfSync');
    assert.match(byName['to-broken']!.error ?? '', /cluster Secret .*has no server/);
    assert.match(byName['to-bad']!.error ?? '', /no cluster Secret is named bad/);
  });

  it('diff --clusters-file: basic auth, destination by name (the Secret name)', async () => {
    const secrets = writeFile('basic.yaml', [
      clusterSecret('remote-basic', {
        name: 'remote-basic',
        server: `${remote.cluster.url}/`,
        config: { username: 'admin', password: PASSWORD, tlsClientConfig: { caData: b64(CA) } },
      }),
    ]);
    const apps = writeFile('apps-basic.yaml', [
      application('api', repo.url, 'team-b', { name: 'remote-basic', namespace: 'team-b' }),
    ]);
    const r = await cli(['diff', '-f', apps, '--clusters-file', secrets, '-o', 'json']);
    assert.equal(r.code, 1, r.stderr); // differences: the ConfigMap is missing on the remote
    assertNoCredentials(r);
    const doc = JSON.parse(r.stdout) as {
      apps: Array<{ name: string; sync: string; resources: Array<{ name: string; status: string }> }>;
    };
    assert.equal(doc.apps[0]!.sync, 'OutOfSync');
    assert.deepEqual(
      doc.apps[0]!.resources.map((x) => `${x.name} ${x.status}`),
      ['api OutOfSync'],
    );
    // A wrong password: Unauthorized, and the password never printed.
    const wrong = writeFile('basic-wrong.yaml', [
      clusterSecret('remote-basic', {
        name: 'remote-basic',
        server: remote.cluster.url,
        config: { username: 'admin', password: 'not-the-password', tlsClientConfig: { caData: b64(CA) } },
      }),
    ]);
    const refused = await cli(['diff', '-f', apps, '--clusters-file', wrong]);
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /Unauthorized/);
    assert.ok(!refused.stderr.includes('not-the-password'));
  });

  it('an exec provider (a client-go credential plugin) is run once and its token used', async () => {
    const runs = join(dir, 'exec-runs.txt');
    writeFileSync(runs, '');
    const secrets = writeFile('exec.yaml', [
      clusterSecret('remote-exec', {
        name: 'remote-exec',
        server: remote.cluster.url,
        config: {
          tlsClientConfig: { caData: b64(CA) },
          execProviderConfig: {
            command: process.execPath,
            args: [join(TLS, 'exec-credential.mjs')],
            env: { FIXTURE_TOKEN: EXEC_TOKEN, FIXTURE_RUNS_FILE: runs },
            apiVersion: 'client.authentication.k8s.io/v1',
          },
        },
      }),
    ]);
    const apps = writeFile('apps-exec.yaml', [
      application('web', repo.url, 'team-a', { server: remote.cluster.url, namespace: 'team-a' }),
    ]);
    const r = await cli(['diff', '-f', apps, '--clusters-file', secrets]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assertNoCredentials(r);
    // One run for the whole diff (dozens of requests): cached until its expirationTimestamp.
    assert.deepEqual(readFileSync(runs, 'utf8').split('\n').filter(Boolean), [
      'client.authentication.k8s.io/v1',
    ]);
  });

  it('awsAuthConfig without argocd-k8s-auth on PATH: one line naming the binary and the cluster', async () => {
    const secrets = writeFile('aws.yaml', [
      clusterSecret('eks', {
        name: 'eks',
        server: remote.cluster.url,
        config: {
          awsAuthConfig: { clusterName: 'prod-eks', roleARN: 'arn:aws:iam::123456789012:role/argocd' },
          tlsClientConfig: { caData: b64(CA) },
        },
      }),
    ]);
    const apps = writeFile('apps-aws.yaml', [
      application('web', repo.url, 'team-a', { name: 'eks', namespace: 'team-a' }),
    ]);
    const gitDir = dirname(
      ['/usr/bin/git', '/usr/local/bin/git', '/bin/git'].find((p) => existsSync(p)) ?? '/usr/bin/git',
    );
    const r = await cli(['diff', '-f', apps, '--clusters-file', secrets], {
      PATH: [dirname(process.execPath), gitDir].join(':'),
    });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    const line = r.stderr.split('\n').find((l) => l.includes('argocd-k8s-auth'));
    assert.ok(line, r.stderr);
    assert.match(
      line,
      /cluster eks \(https:\/\/127\.0\.0\.1:\d+\).*failed to get credentials: exec plugin "argocd-k8s-auth" not found on PATH/,
    );
  });

  it("the Secret's namespaces scope the cluster: other namespaces and cluster-scoped kinds are refused, nothing written", async (t) => {
    const secrets = writeFile('scoped.yaml', [
      clusterSecret('remote', {
        name: 'remote',
        server: remote.cluster.url,
        namespaces: 'team-a, default',
        config: { bearerToken: TOKEN, tlsClientConfig: { caData: b64(CA) } },
      }),
    ]);
    const apps = writeFile('apps-scoped.yaml', [
      application('web', repo.url, 'team-a', { server: remote.cluster.url, namespace: 'team-a' }),
      application('api', repo.url, 'team-b', { server: remote.cluster.url, namespace: 'team-b' }),
      application('roles', repo.url, 'cluster', { server: remote.cluster.url, namespace: 'team-a' }),
    ]);
    const counted = onEmbedded(t, 'requests seen (cluster.stats)');
    const before = counted ? remote.cluster.stats.requestsByUserAgent().length : 0;
    const r = await cli(['sync', '-f', apps, '--clusters-file', secrets]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /app "api": cluster remote .*failed to load live state: namespace "team-b" for ConfigMap "api" is not managed/,
    );
    assert.match(
      r.stderr,
      /app "roles": cluster remote .*failed to load live state: cluster level ClusterRole "team-reader" can not be managed when in namespaced mode/,
    );
    assert.equal(
      (await remoteGet(remote.cluster.url, '/api/v1/namespaces/team-b/configmaps/api')).status,
      404,
    );
    assert.equal(
      (await remoteGet(remote.cluster.url, '/apis/rbac.authorization.k8s.io/v1/clusterroles/team-reader'))
        .status,
      404,
    );
    assert.equal(
      (await remoteGet(remote.cluster.url, '/api/v1/namespaces/team-a/configmaps/with-role')).status,
      404,
    );
    // The live cache listed and watched only in the Secret's namespaces, and no cluster-scoped kind.
    if (!counted) return;
    const paths = remote.cluster.stats
      .requestsByUserAgent()
      .slice(before)
      .filter((l) => l.startsWith('kubectl-gitops/'))
      .map((l) => l.split(' ').slice(2).join(' '))
      .filter(
        // Discovery and the server version (GetServerVersion: Argo CD reads it for every cluster, and every
        // render gets it) are not listings.
        (l) =>
          l.startsWith('GET ') &&
          !/^GET \/(api|apis)(\/[^/]+){0,2}$/.test(l) &&
          l !== 'GET /version' &&
          !l.includes('/openapi'),
      );
    assert.ok(paths.length > 0);
    for (const p of paths)
      assert.match(
        p,
        /^GET \/(api\/v1|apis\/[^/]+\/[^/]+)\/namespaces\/(team-a|default)\//,
        `listed outside the scope: ${p}`,
      );
  });

  it('the Indexed Job: sync --from-cluster --shard I --replicas 2 splits a two-cluster fleet, each app once', async () => {
    await createNamespaces(conn, ['local']);
    await conn.client.create(
      appInfo,
      application('local', repo.url, 'team-b', {
        server: 'https://kubernetes.default.svc',
        namespace: 'local',
      }),
    );
    const names: string[] = [];
    for (const shard of ['0', '1']) {
      const r = await cli(['sync', '--from-cluster', '--shard', shard, '--replicas', '2', '-o', 'json']);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assertNoCredentials(r);
      const doc = JSON.parse(r.stdout || '{"apps":[]}') as { apps: Array<{ name: string; phase: string }> };
      for (const a of doc.apps) {
        assert.equal(a.phase, 'Succeeded', `${a.name} on shard ${shard}`);
        names.push(a.name);
      }
    }
    assert.deepEqual(names.sort(), ['local', 'web']);
    const cms = { ...secretInfo, kind: 'ConfigMap', plural: 'configmaps' };
    assert.equal((await conn.client.get(cms, 'local', 'api')).metadata?.name, 'api');
    assert.equal(
      (await remoteGet(remote.cluster.url, '/api/v1/namespaces/team-a/configmaps/web')).status,
      200,
    );
  });

  it('a kubeconfig context for the same server wins over the Secret', async () => {
    // The Secret's token is wrong; the kubeconfig's is right: success shows the kubeconfig was used.
    const secrets = writeFile('stale.yaml', [
      clusterSecret('remote', {
        name: 'remote',
        server: remote.cluster.url,
        config: { bearerToken: 'stale-token', tlsClientConfig: { caData: b64(CA) } },
      }),
    ]);
    const kubeconfig = join(dir, 'two-contexts.yaml');
    // The management cluster as the fixture's kubeconfig has it (no credentials on the embedded server, the
    // rig's certificate on the real one).
    const own = parse(readFileSync(mgmt.kubeconfig, 'utf8')) as {
      clusters: Array<{ cluster: object }>;
      users: Array<{ user: object }>;
    };
    writeFileSync(
      kubeconfig,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          { name: 'mgmt', cluster: own.clusters[0]!.cluster },
          { name: 'remote', cluster: { server: remote.cluster.url, 'certificate-authority-data': b64(CA) } },
        ],
        users: [
          { name: 'anon', user: own.users[0]!.user },
          { name: 'remote-admin', user: { token: TOKEN } },
        ],
        contexts: [
          { name: 'mgmt', context: { cluster: 'mgmt', user: 'anon' } },
          { name: 'remote', context: { cluster: 'remote', user: 'remote-admin' } },
        ],
        'current-context': 'mgmt',
      }),
    );
    const apps = writeFile('apps-ctx.yaml', [
      application('web', repo.url, 'team-a', { server: remote.cluster.url, namespace: 'team-a' }),
    ]);
    const r = await runCli(
      ['diff', '-f', apps, '--clusters-file', secrets, '--kubeconfig', kubeconfig, '-o', 'json'],
      {
        env,
      },
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assertNoCredentials(r);
  });
});
