/**
 * Reaching a cluster through its Argo CD cluster Secret (src/cluster/cluster-secret.ts, connect.ts
 * `access`) against the embedded server serving TLS with the test CA and requiring a bearer token:
 * the TLS settings (caData, serverName, insecure, a client certificate), the proxy (`proxyUrl`: an HTTP CONNECT tunnel), the
 * User-Agent on every kind of request, the default field manager the server derives from it, the
 * Secret's fields read as Argo CD reads them, and credentials kept out of JSON, inspection and errors.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { join } from 'node:path';
import { ClusterAccess, connect, resolveCluster } from '../../src/cluster/index.js';
import type { ClusterConnection, ResourceInfo } from '../../src/cluster/index.js';
import { clustersFromSecrets } from '../../src/sharding/cluster-secrets.js';
import { setClientVersion, oneLine } from '../../src/common/index.js';
import { useEmbeddedCluster, needsEmbedded, embeddedOnly } from '../support/embedded.js';
import { fixturesDir } from '../support/paths.js';
import { loadKubeConfig } from '../../src/cluster/index.js';

const TLS = join(fixturesDir, 'clusters');
const CA = readFileSync(join(TLS, 'ca.pem'), 'utf8');
const TOKEN = 'unit-bearer-token-5e6f7a8b';
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const CONFIG_MAPS: ResourceInfo = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
};

const access = (server: string, config: object, extra: Record<string, string> = {}): ClusterAccess =>
  new ClusterAccess({ server, name: 'remote', config: JSON.stringify(config), source: 'test', ...extra });

// The server's own TLS certificate and credentials are this test's: options of the embedded server.
const ownTls = { skip: embeddedOnly('its TLS certificate, tokens and basic auth (EmbeddedClusterOptions)') };

describe('cluster Secret access (embedded server with TLS and bearer tokens)', ownTls, () => {
  const fx = useEmbeddedCluster({
    tls: { cert: readFileSync(join(TLS, 'server.pem')), key: readFileSync(join(TLS, 'server-key.pem')) },
    auth: { tokens: { [TOKEN]: 'argocd-manager' }, clientCA: CA },
  });
  const open: ClusterConnection[] = [];
  const connectTo = async (a: ClusterAccess): Promise<ClusterConnection> => {
    const conn = await connect({ access: a, discovery: { cacheDir: join(fx.dir, 'discovery'), ttlMs: 0 } });
    open.push(conn);
    return conn;
  };
  after(() => {
    for (const c of open) c.close();
  });

  it('every request carries the User-Agent: discovery, get, list, watch, create, patch, delete', async (t) => {
    if (needsEmbedded(t, 'request counts (cluster.stats)')) return;
    setClientVersion('1.2.3');
    const conn = await connectTo(
      access(fx.cluster.url, { bearerToken: TOKEN, tlsClientConfig: { caData: b64(CA) } }),
    );
    const before = fx.cluster.stats.requestsByUserAgent().length;
    await conn.discovery.refresh();
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ua', namespace: 'default' } };
    await conn.client.create(CONFIG_MAPS, obj);
    await conn.client.get(CONFIG_MAPS, 'default', 'ua');
    const list = await conn.client.list(CONFIG_MAPS, { namespace: 'default' });
    const ctl = new AbortController();
    const events = await conn.client.watch(CONFIG_MAPS, {
      namespace: 'default',
      resourceVersion: list.resourceVersion,
      signal: ctl.signal,
    });
    await conn.client.patch(CONFIG_MAPS, 'default', 'ua', { data: { a: '1' } }, 'merge');
    for await (const e of events) if (e.type === 'MODIFIED') break;
    ctl.abort();
    await conn.client.delete(CONFIG_MAPS, 'default', 'ua');
    const lines = fx.cluster.stats.requestsByUserAgent().slice(before);
    const platform = `${process.platform === 'win32' ? 'windows' : process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`;
    const ua = `kubectl-gitops/v1.2.3 (${platform})`;
    for (const l of lines) assert.ok(l.startsWith(`${ua} `), l);
    const methods = new Set(lines.map((l) => l.slice(ua.length + 1).split(' ')[0]));
    assert.deepEqual([...methods].sort(), ['DELETE', 'GET', 'PATCH', 'POST']);
    assert.ok(
      lines.some((l) => l.endsWith(' GET /apis')),
      'discovery',
    );
  });

  it('the default field manager kube-apiserver derives from our User-Agent is "kubectl-gitops"; explicit ones stay', async () => {
    const conn = await connectTo(
      access(fx.cluster.url, { bearerToken: TOKEN, tlsClientConfig: { caData: b64(CA) } }),
    );
    // A write that names no manager: kube-apiserver takes the User-Agent up to its first "/".
    await conn.client.request({
      verb: 'create',
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'no-manager' }, data: { a: '1' } },
      subject: 'ConfigMap default/no-manager',
    });
    await conn.client.create(
      CONFIG_MAPS,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'named', namespace: 'default' },
        data: { a: '1' },
      },
      { fieldManager: 'argocd-controller' },
    );
    const managers = async (name: string): Promise<string[]> =>
      ((await conn.client.get(CONFIG_MAPS, 'default', name)).metadata?.managedFields ?? []).map(
        (f) => (f as { manager: string }).manager,
      );
    assert.deepEqual(await managers('no-manager'), ['kubectl-gitops']);
    assert.deepEqual(await managers('named'), ['argocd-controller']);
  });

  it('TLS: the CA is checked, serverName picks the name the certificate must carry, insecure skips the check', async () => {
    const url = fx.cluster.url;
    const byName = url.replace('127.0.0.1', 'localhost');
    await connectTo(
      access(byName, {
        bearerToken: TOKEN,
        tlsClientConfig: { caData: b64(CA), serverName: 'remote.cluster.example' },
      }),
    ).then((c) => c.client.list(CONFIG_MAPS, { namespace: 'default' }));
    const wrongName = await connectTo(
      access(url, { bearerToken: TOKEN, tlsClientConfig: { caData: b64(CA), serverName: 'other.example' } }),
    );
    await assert.rejects(wrongName.client.list(CONFIG_MAPS, { namespace: 'default' }), (err: unknown) => {
      assert.match(oneLine(err), /other\.example/);
      assert.ok(!oneLine(err).includes(TOKEN));
      return true;
    });
    const noCa = await connectTo(access(url, { bearerToken: TOKEN }));
    await assert.rejects(noCa.client.list(CONFIG_MAPS, { namespace: 'default' }), /certificate/);
    const insecure = await connectTo(
      access(url, { bearerToken: TOKEN, tlsClientConfig: { insecure: true } }),
    );
    await insecure.client.list(CONFIG_MAPS, { namespace: 'default' });
    // client-go refuses a CA with insecure; so does Argo CD's REST config, when the cluster is used.
    await assert.rejects(
      connectTo(access(url, { bearerToken: TOKEN, tlsClientConfig: { insecure: true, caData: b64(CA) } })),
      /cluster remote \(https:\/\/127\.0\.0\.1:\d+\) \(test\): failed to connect: .*insecure flag is not allowed/,
    );
  });

  it('tlsClientConfig certData/keyData: a client certificate the server verifies (x509 authentication)', async () => {
    const cert = readFileSync(join(TLS, 'client.pem'), 'utf8');
    const key = readFileSync(join(TLS, 'client-key.pem'), 'utf8');
    const conn = await connectTo(
      access(fx.cluster.url, {
        tlsClientConfig: { caData: b64(CA), certData: b64(cert), keyData: b64(key) },
      }),
    );
    await conn.client.list(CONFIG_MAPS, { namespace: 'default' });
    // Without it (and without a token) the server answers 401 Unauthorized.
    const none = await connectTo(access(fx.cluster.url, { tlsClientConfig: { caData: b64(CA) } }));
    await assert.rejects(none.client.list(CONFIG_MAPS, { namespace: 'default' }), (err: unknown) => {
      assert.match(oneLine(err), /Unauthorized/);
      assert.equal((err as { code?: number }).code, 401);
      return true;
    });
  });

  describe('proxyUrl', () => {
    let proxy: net.Server;
    let proxyUrl = '';
    const tunnels: string[] = [];
    const sockets = new Set<net.Socket>();
    before(async () => {
      proxy = http.createServer();
      proxy.on('connect', (req: http.IncomingMessage, client: net.Socket) => {
        tunnels.push(req.url ?? '');
        sockets.add(client);
        const [host, port] = (req.url ?? '').split(':');
        const upstream = net.connect(Number(port), host, () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          sockets.add(upstream);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    });
    after(async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    });

    it('requests go through the proxy (HTTP CONNECT); a scheme Argo CD refuses is an error', async () => {
      const conn = await connectTo(
        access(fx.cluster.url, { bearerToken: TOKEN, proxyUrl, tlsClientConfig: { caData: b64(CA) } }),
      );
      await conn.client.list(CONFIG_MAPS, { namespace: 'default' });
      assert.ok(tunnels.includes(new URL(fx.cluster.url).host), tunnels.join(','));
      await assert.rejects(
        connectTo(access(fx.cluster.url, { bearerToken: TOKEN, proxyUrl: 'ftp://proxy.example:21' })),
        /unsupported scheme "ftp", must be http, https, or socks5/,
      );
    });
  });
});

describe('cluster Secret fields, as Argo CD reads them', () => {
  it('namespaces (comma-separated, trimmed) and clusterResources ("true" only) make the scope', () => {
    const a = new ClusterAccess({
      server: 'https://x.example/',
      name: 'x',
      namespaces: ' a, b ,,c ',
      clusterResources: 'True',
      source: 's',
    });
    assert.deepEqual(a.scope, { namespaces: ['a', 'b', 'c'], clusterResources: false });
    assert.equal(a.server, 'https://x.example');
    const b = new ClusterAccess({ server: 'https://x', name: '', clusterResources: 'true', source: 's' });
    assert.deepEqual(b.scope, { namespaces: [], clusterResources: true });
  });

  it('awsAuthConfig runs argocd-k8s-auth aws, as Argo CD builds its exec provider; it wins over execProviderConfig', () => {
    const a = access('https://eks.example', {
      awsAuthConfig: { clusterName: 'prod', roleARN: 'arn:aws:iam::1:role/r', profile: 'p' },
      execProviderConfig: { command: 'other', apiVersion: 'client.authentication.k8s.io/v1' },
    });
    const exec = a.execConfig()!;
    assert.equal(exec.command, 'argocd-k8s-auth');
    assert.deepEqual(exec.args, [
      'aws',
      '--cluster-name',
      'prod',
      '--role-arn',
      'arn:aws:iam::1:role/r',
      '--profile',
      'p',
    ]);
    assert.equal(exec.apiVersion, 'client.authentication.k8s.io/v1beta1');
  });

  it('a config field of the wrong type leaves the Secret out (Go json.Unmarshal fails), with a warning', () => {
    const secret = (name: string, config: string) => ({
      object: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, uid: `uid-${name}` },
        stringData: { server: `https://${name}.example`, name, config },
      },
      file: 'clusters.yaml',
      doc: 0,
    });
    const list = clustersFromSecrets(
      [
        secret('good', JSON.stringify({ bearerToken: 'secret-token-value' })),
        secret('bad', JSON.stringify({ tlsClientConfig: { insecure: 'yes' } })),
        secret('notb64', JSON.stringify({ tlsClientConfig: { caData: 'not base64!' } })),
      ],
      { idFrom: 'uid', inClusterEnabled: false },
    );
    assert.deepEqual(
      list.access.map((a) => a.name),
      ['good'],
    );
    assert.equal(list.warnings.length, 2);
    assert.match(
      list.warnings[0]!,
      /Secret bad: left out: config\.tlsClientConfig\.insecure is not a boolean/,
    );
    assert.match(list.warnings[1]!, /Secret notb64: left out: config\.tlsClientConfig\.caData is not base64/);
    // Credentials never leave the object as text.
    const text = JSON.stringify(list) + inspect(list, { depth: 10 }) + String(list.access[0]);
    assert.ok(!text.includes('secret-token-value'), text);
  });

  it('destinations: a kubeconfig context wins; a Secret name resolves to its server; two Secrets with one name are an error', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'kg-dest-')), 'kubeconfig');
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- {name: a, cluster: {server: "https://a.example"}}',
        'users:',
        '- {name: u, user: {}}',
        'contexts:',
        '- {name: ctx-a, context: {cluster: a, user: u}}',
        'current-context: ctx-a',
        '',
      ].join('\n'),
    );
    const kc = await loadKubeConfig({ kubeconfig: file });
    const secrets = [
      access('https://a.example', {}, { name: 'a-secret' }),
      access('https://b.example', {}, { name: 'b' }),
      access('https://c1.example', {}, { name: 'twin' }),
      access('https://c2.example', {}, { name: 'twin' }),
    ];
    assert.deepEqual(resolveCluster(kc, { server: 'https://a.example/' }, secrets), { context: 'ctx-a' });
    assert.deepEqual(resolveCluster(kc, { name: 'a-secret' }, secrets), { context: 'ctx-a' });
    assert.equal(
      resolveCluster(kc, { server: 'https://b.example' }, secrets).access?.server,
      'https://b.example',
    );
    assert.equal(resolveCluster(kc, { name: 'b' }, secrets).access?.server, 'https://b.example');
    // A context keeps the scope of the Secret for the same cluster (a namespace-scoped Argo CD install).
    const scoped = [
      ...secrets,
      new ClusterAccess({
        server: 'https://kubernetes.default.svc',
        name: 'in-cluster',
        namespaces: 'argocd,apps',
        source: 'test',
      }),
      new ClusterAccess({
        server: 'https://elsewhere.example',
        name: 'ctx-a',
        namespaces: 'x',
        source: 'test',
      }),
    ];
    const inCluster = {
      context: 'ctx-a',
      scope: { namespaces: ['argocd', 'apps'], clusterResources: false },
    };
    assert.deepEqual(resolveCluster(kc, { server: 'https://kubernetes.default.svc' }, scoped), inCluster);
    assert.deepEqual(resolveCluster(kc, { name: 'in-cluster' }, scoped), inCluster);
    // A Secret that only shares the context's name is another cluster: its scope is not taken.
    assert.deepEqual(resolveCluster(kc, { name: 'ctx-a' }, scoped), { context: 'ctx-a' });
    assert.throws(
      () => resolveCluster(kc, { name: 'b', server: 'https://b.example' }, secrets),
      /application destination can't have both name and server defined: b https:\/\/b\.example/,
    );
    assert.throws(
      () => resolveCluster(kc, { name: 'twin' }, secrets),
      /destination twin: failed to resolve: there are 2 clusters with the same name: \[https:\/\/c1\.example https:\/\/c2\.example\]/,
    );
    assert.throws(
      () => resolveCluster(kc, { server: 'https://nowhere.example' }, secrets),
      /failed to resolve to a kubeconfig context or a cluster Secret: no kubeconfig context's cluster and no cluster Secret has server https:\/\/nowhere\.example \(contexts: ctx-a; cluster Secrets: 4\)/,
    );
  });
});
