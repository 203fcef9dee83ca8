/**
 * Malformed cluster Secrets read as Argo CD 3.x reads them, by every reader: the sharding cache's cluster
 * list (which clusters count decides every shard), shard ownership, fleet splitting, diff/sync destination
 * lookups and the ApplicationSet clusters generator. Input: test/fixtures/sharding/malformed-cluster-secrets.yaml
 * (one Secret per case); the expected answers are worked out from Argo CD's code (docs/clusters.md
 * "Malformed cluster Secrets" cites each function).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { clustersFromSecrets } from '../../src/sharding/cluster-secrets.js';
import { appSetClustersFromSecrets } from '../../src/sharding/cluster-source.js';
import { distribute } from '../../src/sharding/distribute.js';
import { countApplications } from '../../src/sharding/app-counts.js';
import { shardOwnership } from '../../src/sharding/ownership.js';
import { assignAppShards } from '../../src/sharding/app-shards.js';
import { lookupDestination } from '../../src/cluster/cluster-lookup.js';
import { generateParams, type GeneratorContext } from '../../src/apps/appset/generators.js';
import { readKubeObjects } from '../../src/util/yaml-docs.js';
import { fixturesDir } from '../support/paths.js';

const FIXTURE = join(fixturesDir, 'sharding', 'malformed-cluster-secrets.yaml');
const opts = { idFrom: 'uid' as const, inClusterEnabled: true };

describe('malformed cluster Secrets (Argo CD 3.x rules)', () => {
  test('the sharding cache holds the in-cluster entry and one cluster per server, empty server included', async () => {
    const list = clustersFromSecrets(await readKubeObjects(FIXTURE), opts);
    // Left out: d (config not JSON), e (wrong type), g (case-insensitive key, wrong type), l (caData not
    // padded); k is a repo-creds Secret. a and j share a server (j, later, is kept); b and c both have no
    // server (c, later, is kept as server "").
    assert.deepEqual(
      list.clusters.map((c) => [c.id, c.server]),
      [
        ['', 'https://kubernetes.default.svc'],
        ['uid-c', ''],
        ['uid-f', 'https://f.example'],
        ['uid-h', 'https://h.example'],
        ['uid-i', 'https://i.example'],
        ['uid-j', 'https://a.example'],
      ],
    );
    assert.equal(list.clusters.find((c) => c.id === 'uid-h')!.manualShard, undefined);
    // Every Secret the informer holds as a cluster, duplicates included, for lookups by name.
    assert.deepEqual(
      list.secrets.map((c) => c.id),
      ['uid-a', 'uid-b', 'uid-c', 'uid-f', 'uid-h', 'uid-i', 'uid-j'],
    );
    assert.equal(list.access.length, list.secrets.length);
    const scope = list.access[list.secrets.findIndex((c) => c.id === 'uid-i')]!.scope;
    assert.deepEqual(scope, { namespaces: ['ns1', 'ns2'], clusterResources: false });
  });

  test('round-robin ranks count the cluster with no server (sorted IDs "", uid-c, uid-f, uid-h, uid-i, uid-j)', async () => {
    const { clusters } = clustersFromSecrets(await readKubeObjects(FIXTURE), opts);
    const byId = (shards: number[]) => Object.fromEntries(clusters.map((c, i) => [c.id, shards[i]]));
    assert.deepEqual(byId(distribute(clusters, 2, 'round-robin')), {
      '': 0,
      'uid-c': 1,
      'uid-f': 0,
      'uid-h': 1,
      'uid-i': 0,
      'uid-j': 1,
    });
    assert.deepEqual(byId(distribute(clusters, 4, 'round-robin')), {
      '': 0,
      'uid-c': 1,
      'uid-f': 2,
      'uid-h': 3,
      'uid-i': 0,
      'uid-j': 1,
    });
  });

  test('consistent-hashing: the cluster with no server carries the load of every by-name app (Argo CD keys app counts by destination.server, "" for those)', async () => {
    const { clusters } = clustersFromSecrets(await readKubeObjects(FIXTURE), opts);
    const app = (name: string, destination: object) => ({
      object: {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name },
        spec: { destination },
      },
      file: 'apps.yaml',
      doc: 0,
    });
    const counts = countApplications([
      app('one', { name: 'foxtrot' }),
      app('two', { name: 'bravo' }),
      app('three', { server: 'https://a.example' }),
    ]);
    for (const c of clusters) c.apps = counts.byServer.get(c.server) ?? 0;
    assert.deepEqual(
      clusters.map((c) => [c.id, c.apps]),
      [
        ['', 0],
        ['uid-c', 2],
        ['uid-f', 0],
        ['uid-h', 0],
        ['uid-i', 0],
        ['uid-j', 1],
      ],
    );
  });

  test('one warning per malformed Secret, naming it, with no Secret value in any message', async () => {
    const { warnings } = clustersFromSecrets(await readKubeObjects(FIXTURE), opts);
    const about = (name: string) => warnings.filter((w) => w.includes(`Secret ${name}:`));
    assert.match(about('b-no-server').join('\n'), /has no server .*counted in the shard distribution/);
    assert.match(about('c-empty-server').join('\n'), /has no server/);
    assert.match(
      about('c-empty-server').join('\n'),
      /duplicate server \(empty\) \(also .*item 2\)\): the later Secret is used/,
    );
    assert.match(about('d-config-not-json')[0]!, /left out: config is not valid JSON/);
    assert.match(
      about('e-config-wrong-type')[0]!,
      /left out: config\.tlsClientConfig\.insecure is not a boolean/,
    );
    assert.match(
      about('g-config-case-insensitive')[0]!,
      /left out: config\.tlsClientConfig\.insecure is not a boolean/,
    );
    assert.match(about('l-ca-not-padded')[0]!, /left out: config\.tlsClientConfig\.caData is not base64/);
    assert.match(about('h-bad-shard')[0]!, /shard "two" is not an integer: treated as not set/);
    assert.match(about('j-duplicate-server')[0]!, /duplicate server https:\/\/a\.example/);
    assert.match(about('k-repo-creds')[0]!, /secret-type is "repo-creds"/);
    assert.equal(
      about('a-good').length + about('f-config-unknown-fields').length + about('i-bad-scope').length,
      0,
    );
    assert.doesNotMatch(warnings.join('\n'), /not-a-real-token|\{not json|abc/);
  });

  test('lookups by destination: a name two Secrets share resolves to none; a name finds the Secret with no server', async () => {
    const { secrets } = clustersFromSecrets(await readKubeObjects(FIXTURE), opts);
    const found = (dest: { server?: string; name?: string }) => {
      const r = lookupDestination(dest, secrets, true);
      return r.found === 'secret' ? r.secret.id : r.found === 'in-cluster' ? 'in-cluster' : r.error;
    };
    // bravo's server is "", and "" is looked up as a server: the later of the two Secrets without one
    // (Argo CD's GetClusterByURL takes either; its sharding cache keeps the later).
    assert.equal(found({ name: 'bravo' }), 'uid-c');
    assert.equal(found({ name: 'charlie' }), 'uid-c');
    assert.equal(found({ name: 'foxtrot' }), 'uid-f');
    assert.equal(found({ server: 'https://a.example/' }), 'uid-j');
    assert.equal(
      found({ name: 'alpha' }),
      'there are 2 clusters with the same name: [https://a.example https://a.example]',
    );
    assert.equal(
      found({ server: 'https://d.example' }),
      'error getting cluster by server "https://d.example": cluster "https://d.example" not found',
    );
    assert.equal(found({ name: 'in-cluster' }), 'in-cluster');
    assert.equal(found({}), 'Destination server missing from app spec');
  });

  test('shard ownership (the controller) and fleet splitting follow the same lookup', async () => {
    const objects = await readKubeObjects(FIXTURE);
    const app = (name: string, destination: { server?: string; name?: string }) => ({ name, destination });
    const apps = [
      app('to-bravo', { name: 'bravo' }),
      app('to-foxtrot', { name: 'foxtrot' }),
      app('to-alpha', { name: 'alpha' }),
      app('to-a', { server: 'https://a.example' }),
      app('to-d', { server: 'https://d.example' }),
    ];
    const owned = (shard: number) => {
      const own = shardOwnership({
        shard,
        replicas: 2,
        algorithm: 'round-robin',
        clusterSecrets: objects.map((o) => o.object),
        applications: [],
        inClusterEnabled: true,
      });
      return apps.filter((a) => own.ownsApp(a)).map((a) => a.name);
    };
    // bravo -> server "" -> uid-c's shard 1; alpha (two Secrets) and d (left out) cannot be resolved:
    // every shard owns them (Argo CD's IsManagedCluster(nil)).
    assert.deepEqual(owned(0), ['to-foxtrot', 'to-alpha', 'to-d']);
    assert.deepEqual(owned(1), ['to-bravo', 'to-alpha', 'to-a', 'to-d']);
    const split = await assignAppShards(apps, {
      replicas: 2,
      algorithm: 'round-robin',
      clustersFiles: [FIXTURE],
    });
    assert.deepEqual(
      apps.map((a) => split.shardOf.get(a)),
      [1, 0, 0, 1, 0],
    );
    assert.match(
      split.warnings.join('\n'),
      /app to-alpha: destination name alpha is not a known cluster \(there are 2 clusters/,
    );
  });

  test('the ApplicationSet clusters generator reads Secrets its own way: by name, config unread, server as written', async () => {
    const { clusters, warnings } = appSetClustersFromSecrets(await readKubeObjects(FIXTURE));
    const ctx: GeneratorContext = {
      goTemplate: false,
      goTemplateOptions: [],
      clusters: () => Promise.resolve(clusters),
      checkout: () => Promise.reject(new Error('no checkout')),
    };
    const generated = async (spec: object) =>
      (await generateParams({ clusters: spec }, ctx, 'generators[0]')).map((p) => [p['name'], p['server']]);
    const expected = [
      // Every Secret without a name shares the key "": the last one (l-ca-not-padded, config unread).
      ['', 'https://l.example'],
      ['alpha', 'https://a.example/'],
      ['bravo', ''],
      ['charlie', ''],
      ['foxtrot', 'https://f.example'],
    ];
    assert.deepEqual(await generated({}), [...expected, ['in-cluster', 'https://kubernetes.default.svc']]);
    // A selector: no in-cluster entry (it has no labels to match), as Argo CD's ignoreLocalClusters.
    const selector = {
      matchExpressions: [{ key: 'argocd.argoproj.io/secret-type', operator: 'In', values: ['cluster'] }],
    };
    assert.deepEqual(await generated({ selector }), expected);
    assert.match(warnings.join('\n'), /Secret j-duplicate-server: same name "alpha" as .*item 1\)/);
  });
});
