/**
 * `shards` in live mode, end to end: the built CLI against the embedded API server holding an Argo CD
 * namespace (cluster Secrets, Applications, argocd-cm, argocd-cmd-params-cm, the controller StatefulSet or
 * Deployment, the shard-claim ConfigMap). Live results must equal file mode on the same Secrets.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseKubeObjects } from '../../src/util/yaml-docs.js';
import { api, useEmbeddedCluster, type EmbeddedFixture, crdsEstablished } from '../support/embedded.js';
import { APPLICATION_CRD } from '../support/argocd.js';
import { runCli } from '../support/cli.js';
import { repoRoot } from '../support/paths.js';
import { readFileSync } from 'node:fs';

const NS = 'argocd';

async function create(fx: EmbeddedFixture, path: string, body: unknown) {
  const r = await api(fx.cluster, 'POST', path, body);
  assert.ok(r.status === 201 || r.status === 200, `POST ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

function examples(file: string) {
  return parseKubeObjects(readFileSync(join(repoRoot, 'examples', 'shards', file), 'utf8'), file).map((o) => {
    const object = structuredClone(o.object);
    delete object.metadata!.uid; // the server assigns UIDs
    return object;
  });
}

function controller(kind: 'StatefulSet' | 'Deployment', env: unknown[], replicas = 1) {
  return {
    apiVersion: 'apps/v1',
    kind,
    metadata: { name: 'argocd-application-controller', namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'ctl' } },
      ...(kind === 'StatefulSet' ? { serviceName: 'ctl' } : {}),
      template: {
        metadata: { labels: { app: 'ctl' } },
        spec: {
          containers: [
            { name: 'argocd-application-controller', image: 'quay.io/argoproj/argocd:v3.2.0', env },
          ],
        },
      },
    },
  };
}

describe('shards live mode (embedded API server)', () => {
  const fx = useEmbeddedCluster();

  before(async () => {
    await create(fx, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (const s of examples('clusters.yaml')) await create(fx, `/api/v1/namespaces/${NS}/secrets`, s);
    // A repository Secret is not a cluster: the label selector leaves it out.
    await create(fx, `/api/v1/namespaces/${NS}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'repo', labels: { 'argocd.argoproj.io/secret-type': 'repository' } },
      stringData: { url: 'https://git.example.com/repo.git' },
    });
    await create(fx, '/api/v1/namespaces/' + NS + '/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'argocd-cmd-params-cm' },
      data: { 'controller.sharding.algorithm': 'round-robin' },
    });
    await create(
      fx,
      `/apis/apps/v1/namespaces/${NS}/statefulsets`,
      controller('StatefulSet', [
        { name: 'ARGOCD_CONTROLLER_REPLICAS', value: '3' },
        {
          name: 'ARGOCD_CONTROLLER_SHARDING_ALGORITHM',
          valueFrom: {
            configMapKeyRef: {
              name: 'argocd-cmd-params-cm',
              key: 'controller.sharding.algorithm',
              optional: true,
            },
          },
        },
      ]),
    );
  });

  const shards = (...args: string[]) => runCli(['shards', '--kubeconfig', fx.kubeconfig, ...args]);

  test('without the Application CRD: clusters from Secrets, no apps, installed controller shown', async () => {
    const r = await shards('--replicas', '3');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Clusters: 9 \(context embedded, namespace argocd\)/);
    assert.match(
      r.stdout,
      /Installed controller: StatefulSet\/argocd-application-controller, algorithm round-robin, 3 replicas/,
    );
    assert.match(r.stdout, /ROUND-ROBIN \(INSTALLED\)/);
    assert.match(r.stdout, /Apps: 0 from live/);
  });

  test('with Applications: counts from live apps; results equal file mode on the same Secrets', async () => {
    await create(fx, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', APPLICATION_CRD);
    await crdsEstablished(fx);
    for (const a of examples('apps.yaml'))
      await create(fx, `/apis/argoproj.io/v1alpha1/namespaces/${NS}/applications`, a);
    const live = await shards('--replicas', '3', '-o', 'json');
    assert.equal(live.code, 0, live.stderr);
    const report = JSON.parse(live.stdout);
    assert.deepEqual(report.source, { mode: 'live', context: 'embedded', namespace: NS });
    assert.deepEqual(report.installed, {
      workload: 'StatefulSet/argocd-application-controller',
      algorithm: 'round-robin',
      replicas: 3,
      dynamic: false,
    });
    assert.equal(report.applications.total, 47);
    assert.equal(report.clusters.length, 9);
    assert.ok(
      report.clusters.every(
        (c: { id: string; name: string }) => c.name === 'in-cluster' || /^[0-9a-f-]{36}$/.test(c.id),
      ),
    );

    // The same Secrets (with the server's UIDs) and apps as files give the same shards.
    const secrets = await api(
      fx.cluster,
      'GET',
      `/api/v1/namespaces/${NS}/secrets?labelSelector=argocd.argoproj.io%2Fsecret-type%3Dcluster`,
    );
    const file = join(fx.dir, 'clusters.json');
    writeFileSync(file, JSON.stringify(secrets.body));
    const files = await runCli([
      'shards',
      '--replicas',
      '3',
      '--clusters-file',
      file,
      '--apps-file',
      join(repoRoot, 'examples', 'shards', 'apps.yaml'),
      '-o',
      'json',
    ]);
    assert.equal(files.code, 0, files.stderr);
    assert.deepEqual(JSON.parse(files.stdout).clusters, report.clusters);
    assert.deepEqual(JSON.parse(files.stdout).summary, report.summary);
  });

  test('argocd-cm cluster.inClusterEnabled "false" drops the in-cluster entry; --no-in-cluster too', async () => {
    await create(fx, `/api/v1/namespaces/${NS}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'argocd-cm' },
      data: { 'cluster.inClusterEnabled': 'false' },
    });
    const r = await shards('--replicas', '2', '-o', 'json');
    assert.equal(JSON.parse(r.stdout).clusters.length, 8);
    await api(fx.cluster, 'DELETE', `/api/v1/namespaces/${NS}/configmaps/argocd-cm`);
    const again = await shards('--replicas', '2', '-o', 'json', '--no-in-cluster');
    assert.equal(JSON.parse(again.stdout).clusters.length, 8);
  });

  test('dynamic distribution: Deployment replicas and shard claims with stale heartbeats', async () => {
    await api(
      fx.cluster,
      'DELETE',
      `/apis/apps/v1/namespaces/${NS}/statefulsets/argocd-application-controller`,
    );
    await create(
      fx,
      `/apis/apps/v1/namespaces/${NS}/deployments`,
      controller('Deployment', [{ name: 'ARGOCD_ENABLE_DYNAMIC_CLUSTER_DISTRIBUTION', value: 'true' }], 2),
    );
    const fresh = new Date(Date.now() - 5_000).toISOString().replace(/\.\d+Z$/, 'Z');
    await create(fx, `/api/v1/namespaces/${NS}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'argocd-app-controller-shard-cm' },
      data: {
        shardControllerMapping: JSON.stringify([
          {
            ShardNumber: 0,
            ControllerName: 'argocd-application-controller-7c9d-x2k4z',
            HeartbeatTime: fresh,
          },
          {
            ShardNumber: 1,
            ControllerName: 'argocd-application-controller-7c9d-q8n2p',
            HeartbeatTime: '2026-01-01T00:00:00Z',
          },
        ]),
      },
    });
    const r = await shards('--replicas', '2');
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /Installed controller: Deployment\/argocd-application-controller, algorithm not set \(legacy\), 2 replicas \(dynamic cluster distribution\)/,
    );
    assert.match(r.stdout, /^ {2}0 +argocd-application-controller-7c9d-x2k4z +\S+ +ok$/m);
    assert.match(r.stdout, /^ {2}1 +argocd-application-controller-7c9d-q8n2p +2026-01-01T00:00:00Z +STALE$/m);
  });
});
