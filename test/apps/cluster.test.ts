/** `--from-cluster` against the embedded API server (or the real one: KG_TEST_SERVER): the Application CRD, a namespace of Applications. */
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadApplications } from '../../src/apps/index.js';
import {
  connect,
  type ClusterConnection,
  type KubeObject,
  type ResourceInfo,
} from '../../src/cluster/index.js';
import { useEmbeddedCluster, crdsEstablished } from '../support/embedded.js';
import { APPLICATION_CRD } from '../support/argocd.js';
import { tempDir } from '../support/git.js';

const CRD_INFO: ResourceInfo = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
  verbs: ['create', 'list'],
};
const APP_INFO: ResourceInfo = {
  group: 'argoproj.io',
  version: 'v1alpha1',
  kind: 'Application',
  plural: 'applications',
  namespaced: true,
  verbs: ['create', 'list'],
};
const NS_INFO: ResourceInfo = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
  verbs: ['create'],
};

function application(name: string, namespace: string, labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name, namespace, labels },
    spec: {
      project: 'default',
      source: { repoURL: 'https://example.com/r.git', path: `apps/${name}`, targetRevision: 'main' },
      destination: { server: 'https://kubernetes.default.svc', namespace: name },
      syncPolicy: { syncOptions: ['CreateNamespace=true'] },
    },
  };
}

describe('--from-cluster (embedded API server)', () => {
  const fx = useEmbeddedCluster();
  let conn: ClusterConnection;
  let kubeconfig: string;

  before(async () => {
    kubeconfig = fx.kubeconfig;
    conn = await connect({ kubeconfig, discovery: { cacheDir: tempDir() } });
  });
  after(() => conn.close());

  // Issue 14: no Argo CD is an error naming what is missing, never an empty success.
  it('no Application CRD installed: an error naming the CRD and the context', async () => {
    await assert.rejects(loadApplications({ fromCluster: true, kubeconfig }), {
      message:
        'namespace argocd: failed to list Applications: the Application CRD (applications.argoproj.io) is not installed in context embedded: no Argo CD there',
    });
  });

  it('reads and validates the Applications of --argocd-namespace only, with selection', async () => {
    await conn.client.create(CRD_INFO, structuredClone(APPLICATION_CRD) as unknown as KubeObject);
    await crdsEstablished(fx);
    for (const ns of ['argocd', 'elsewhere'])
      await conn.client.create(NS_INFO, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await conn.client.create(APP_INFO, application('web', 'argocd', { team: 'web' }));
    await conn.client.create(APP_INFO, application('db', 'argocd', { team: 'db' }));
    await conn.client.create(APP_INFO, application('other', 'elsewhere'));

    const apps = await loadApplications({ fromCluster: true, kubeconfig });
    assert.deepEqual(
      apps.map((a) => [a.name, a.origin, a.sources[0]!.path, a.syncPolicy.options['CreateNamespace']]),
      [
        ['db', 'cluster argocd/db', 'apps/db', 'true'],
        ['web', 'cluster argocd/web', 'apps/web', 'true'],
      ],
    );
    const selected = await loadApplications({ fromCluster: true, kubeconfig, selector: 'team=web' });
    assert.deepEqual(
      selected.map((a) => a.name),
      ['web'],
    );
    const elsewhere = await loadApplications({ fromCluster: true, kubeconfig, argocdNamespace: 'elsewhere' });
    assert.deepEqual(
      elsewhere.map((a) => a.name),
      ['other'],
    );
  });

  // Issue 14: live Applications arrive as JSON, where Argo CD's CRD schema types targetRevision as a string
  // (a number there is refused by the API server): "1.10" stays "1.10", no YAML reading in between.
  it('live Applications keep string fields as stored ("1.10")', async () => {
    const pinned = application('pinned', 'argocd');
    const source = (pinned['spec'] as { source: Record<string, unknown> }).source;
    source['targetRevision'] = '1.10';
    await conn.client.create(APP_INFO, pinned);
    const apps = await loadApplications({ fromCluster: true, kubeconfig, names: ['pinned'] });
    assert.equal(apps[0]!.sources[0]!.targetRevision, '1.10');
  });

  it('a namespace that does not exist: an error naming it (the list alone is empty, not 404)', async () => {
    await assert.rejects(loadApplications({ fromCluster: true, kubeconfig, argocdNamespace: 'nowhere' }), {
      message:
        "namespace nowhere: failed to list Applications: namespace nowhere not found in context embedded (Argo CD's namespace is --argocd-namespace)",
    });
  });

  it('an invalid live Application is an error naming it', async () => {
    const bad = application('broken', 'argocd');
    (bad['spec'] as { syncPolicy: { syncOptions: string[] } }).syncPolicy.syncOptions = ['Nope=true'];
    await conn.client.create(APP_INFO, bad);
    await assert.rejects(
      loadApplications({ fromCluster: true, kubeconfig }),
      /cluster argocd\/broken: failed to load Application "broken": .*unknown sync option "Nope=true"/,
    );
  });

  it('an unreachable cluster is an error naming the namespace', async () => {
    const dead = join(tempDir(), 'kubeconfig');
    writeFileSync(dead, fx.cluster.kubeconfig().replace(fx.cluster.url, 'http://127.0.0.1:9'));
    await assert.rejects(
      loadApplications({ fromCluster: true, kubeconfig: dead }),
      /namespace argocd: failed to list Applications: /,
    );
  });
});
