/** Cluster Secrets and Applications -> sharding inputs (spec 1.1, 1.2), and file parsing errors. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  clustersFromSecrets,
  parseManualShard,
  type ClusterSecretOptions,
} from '../../src/sharding/cluster-secrets.js';
import { countApplications } from '../../src/sharding/app-counts.js';
import { parseKubeObjects } from '../../src/util/yaml-docs.js';
import { GitopsError } from '../../src/common/index.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const opts: ClusterSecretOptions = { idFrom: 'uid', inClusterEnabled: true };

function secret(name: string, data: Record<string, string>, meta: Record<string, unknown> = {}): string {
  return [
    'apiVersion: v1',
    'kind: Secret',
    'metadata:',
    `  name: ${name}`,
    ...Object.entries(meta).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`),
    'data:',
    ...Object.entries(data).map(([k, v]) => `  ${k}: ${b64(v)}`),
  ].join('\n');
}

const parse = (text: string) => parseKubeObjects(text, 'clusters.yaml');

describe('manual shard parsing', () => {
  test('strict base-10 with optional sign', () => {
    assert.equal(parseManualShard('3'), 3);
    assert.equal(parseManualShard('+2'), 2);
    assert.equal(parseManualShard('-1'), -1);
    assert.equal(parseManualShard('007'), 7);
    for (const bad of [' 1', '1 ', '1.0', '0x1', 'abc', '', '+', '9223372036854775808']) {
      assert.equal(parseManualShard(bad), undefined, JSON.stringify(bad));
    }
    assert.equal(parseManualShard('-9223372036854775808'), -9223372036854775808);
  });
});

describe('cluster Secrets', () => {
  test('data is base64, stringData wins, trailing slashes are trimmed, in-cluster is added first', () => {
    const text = [
      secret('a', { server: 'https://a.example//', name: 'alpha', shard: '1' }, { uid: 'uid-a' }),
      `apiVersion: v1\nkind: Secret\nmetadata: {name: b, uid: uid-b}\nstringData: {server: 'https://b.example', name: beta}\ndata: {server: ${b64('https://ignored')}}`,
    ].join('\n---\n');
    const { clusters, warnings } = clustersFromSecrets(parse(text), opts);
    assert.deepEqual(warnings, []);
    assert.deepEqual(
      clusters.map((c) => [c.name, c.server, c.id, c.manualShard]),
      [
        ['in-cluster', 'https://kubernetes.default.svc', '', undefined],
        ['alpha', 'https://a.example', 'uid-a', 1],
        ['beta', 'https://b.example', 'uid-b', undefined],
      ],
    );
  });

  test('a Secret for the in-cluster server replaces the synthesised entry; disabling in-cluster drops it', () => {
    const text = secret('local', { server: 'https://kubernetes.default.svc' }, { uid: 'uid-local' });
    assert.deepEqual(
      clustersFromSecrets(parse(text), opts).clusters.map((c) => c.id),
      ['uid-local'],
    );
    const off = clustersFromSecrets(parse(text), { ...opts, inClusterEnabled: false });
    assert.deepEqual(off.clusters, []);
    assert.match(off.warnings[0]!, /in-cluster is disabled/);
  });

  test('a missing uid is an error naming file, document and Secret, unless --id-from', () => {
    const text = `${secret('x', { server: 'https://x' }, { uid: 'u' })}\n---\n${secret('no-uid', { server: 'https://y', name: 'why' })}`;
    assert.throws(
      () => clustersFromSecrets(parse(text), opts),
      (e: unknown) =>
        e instanceof GitopsError &&
        e.exitCode === 2 &&
        /clusters\.yaml \(document 2\): Secret no-uid: has no metadata\.uid/.test(e.message),
    );
    const byServer = clustersFromSecrets(parse(text), { ...opts, idFrom: 'server' }).clusters.find(
      (c) => c.name === 'why',
    )!;
    assert.equal(byServer.id, 'https://y');
    assert.equal(byServer.idSubstituted, true);
    const byName = clustersFromSecrets(parse(text), { ...opts, idFrom: 'name' }).clusters.find(
      (c) => c.name === 'why',
    )!;
    assert.equal(byName.id, 'why');
  });

  test('a Secret without server is kept (server ""), with a warning naming file and document', () => {
    // Argo CD's secretToCluster does not check data.server; ListClusters and the sharding cache keep it.
    const { clusters, warnings } = clustersFromSecrets(
      parse(
        `${secret('a', { server: 'https://a' }, { uid: 'u' })}\n---\n${secret('b', { name: 'b' }, { uid: 'v' })}`,
      ),
      opts,
    );
    assert.deepEqual(
      clusters.map((c) => [c.id, c.server]),
      [
        ['', 'https://kubernetes.default.svc'],
        ['u', 'https://a'],
        ['v', ''],
      ],
    );
    assert.match(warnings.join('\n'), /clusters\.yaml \(document 2\): Secret b: has no server/);
  });

  test('invalid shard is "not set" with a warning; invalid config JSON leaves the Secret out', () => {
    const text = [
      secret('a', { server: 'https://a', shard: ' 2' }, { uid: 'ua' }),
      secret('b', { server: 'https://b', config: '{not json' }, { uid: 'ub' }),
    ].join('\n---\n');
    const { clusters, warnings } = clustersFromSecrets(parse(text), opts);
    assert.deepEqual(
      clusters.map((c) => c.id),
      ['', 'ua'],
    );
    assert.equal(clusters[1]!.manualShard, undefined);
    assert.match(warnings.join('\n'), /shard " 2" is not an integer/);
    assert.match(warnings.join('\n'), /Secret b: left out: config is not valid JSON/);
  });

  test('duplicate servers: the later Secret wins, with a warning', () => {
    const text = [
      secret('a', { server: 'https://same/' }, { uid: 'u1' }),
      secret('b', { server: 'https://same' }, { uid: 'u2' }),
    ].join('\n---\n');
    const { clusters, warnings } = clustersFromSecrets(parse(text), opts);
    assert.deepEqual(
      clusters.map((c) => c.id),
      ['', 'u2'],
    );
    assert.match(warnings[0]!, /duplicate server https:\/\/same/);
  });

  test('skip-reconcile uses Go bool parsing; non-cluster Secrets and other kinds are skipped', () => {
    const text = [
      secret(
        'a',
        { server: 'https://a' },
        { uid: 'ua', annotations: { 'argocd.argoproj.io/skip-reconcile': 'True' } },
      ),
      secret(
        'b',
        { server: 'https://b' },
        { uid: 'ub', annotations: { 'argocd.argoproj.io/skip-reconcile': 'yes' } },
      ),
      secret(
        'repo',
        { url: 'https://git' },
        { uid: 'ur', labels: { 'argocd.argoproj.io/secret-type': 'repository' } },
      ),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}',
    ].join('\n---\n');
    const { clusters, warnings } = clustersFromSecrets(parse(text), opts);
    assert.deepEqual(
      clusters.map((c) => [c.id, c.skipReconcile ?? false]),
      [
        ['', false],
        ['ua', true],
        ['ub', false],
      ],
    );
    assert.equal(warnings.length, 2);
  });

  test('Lists are flattened (kubectl get -o yaml) and errors name the item', () => {
    const list = `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: a, uid: ua}\n  data: {server: ${b64('https://a')}}\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: b}\n  data: {server: ${b64('https://b')}}`;
    assert.throws(
      () => clustersFromSecrets(parse(list), opts),
      /clusters\.yaml \(document 1, item 2\): Secret b/,
    );
  });

  test('items of a typed API list (SecretList) take their kind from the list', () => {
    const list = JSON.stringify({
      kind: 'SecretList',
      apiVersion: 'v1',
      items: [{ metadata: { name: 'a', uid: 'ua' }, data: { server: b64('https://a') } }],
    });
    assert.deepEqual(
      clustersFromSecrets(parse(list), opts).clusters.map((c) => c.id),
      ['', 'ua'],
    );
    const untyped = JSON.stringify({
      kind: 'List',
      apiVersion: 'v1',
      items: [{ metadata: { name: 'a', uid: 'ua' } }],
    });
    assert.match(clustersFromSecrets(parse(untyped), opts).warnings[0]!, /not a Secret/);
  });

  test('malformed YAML names the file, document and line', () => {
    assert.throws(
      () => parse('apiVersion: v1\nkind: Secret\n---\nmetadata: {name: [oops\n'),
      (e: unknown) =>
        e instanceof GitopsError &&
        e.exitCode === 2 &&
        /clusters\.yaml \(document 2\): failed to parse YAML at line/.test(e.message),
    );
  });

  test('non-base64 data is an error naming the key', () => {
    assert.throws(
      () =>
        clustersFromSecrets(
          parse('apiVersion: v1\nkind: Secret\nmetadata: {name: a, uid: u}\ndata: {server: "https://plain"}'),
          opts,
        ),
      /data\.server is not base64/,
    );
  });
});

describe('application counts', () => {
  const app = (name: string, ns: string, dest: string) =>
    `apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: ${name}, namespace: ${ns}}\nspec: {destination: ${dest}}`;

  test('de-duplicated by bare name (last wins), exact server match, by-name destinations count under ""', () => {
    const text = [
      app('a', 'argocd', '{server: "https://one"}'),
      app('a', 'team', '{server: "https://two"}'),
      app('b', 'argocd', '{server: "https://one/"}'),
      app('c', 'argocd', '{name: "one"}'),
      app('d', 'argocd', '{server: "https://one"}'),
    ].join('\n---\n');
    const counts = countApplications(parseKubeObjects(text, 'apps.yaml'));
    // Argo CD's getAppDistribution keys by Spec.Destination.Server: "" for a by-name destination, which only
    // a cluster Secret with no server (server "") picks up.
    assert.deepEqual([...counts.byServer].sort(), [
      ['', 1],
      ['https://one', 1],
      ['https://one/', 1],
      ['https://two', 1],
    ]);
    assert.equal(counts.total, 4);
    assert.equal(counts.withoutServer, 1);
  });
});
