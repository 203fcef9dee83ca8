/**
 * App-of-apps against a cluster: `diff --recursive` compares the child apps a parent renders with live
 * (built CLI, embedded API server, real Git). `npm test` builds first.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ClusterConnection, KubeObject } from '../../src/cluster/index.js';
import { runCli } from '../support/cli.js';
import { useEmbeddedCluster, crdsEstablished } from '../support/embedded.js';
import { APPLICATION_CRD, APPLICATION_SET_CRD } from '../support/argocd.js';
import { appYaml, TestRepo, tempDir } from '../support/git.js';
import { configMap } from '../controller/manifests.js';
import { applyObjects, connectAs, createNamespaces } from '../controller/setup.js';

describe('diff --recursive against a cluster (embedded)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const dir = tempDir('kg-diff-tree-');
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  let conn: ClusterConnection;
  let parentFile: string;

  before(async () => {
    repo.commit({
      'parent/child.yaml': appYaml('child', repo.url, 'child', { namespace: 'kids' }),
      'child/cm.yaml': configMap('settings', { mode: 'git' }),
    });
    parentFile = join(dir, 'parent.yaml');
    writeFileSync(parentFile, appYaml('parent', repo.url, 'parent', { namespace: 'argocd' }));
    conn = await connectAs(fx);
    await createNamespaces(conn, ['kids', 'argocd']);
    const live = parse(configMap('settings', { mode: 'live' })) as KubeObject;
    live.metadata!.annotations = { 'argocd.argoproj.io/tracking-id': 'child:/ConfigMap:kids/settings' };
    await applyObjects(conn, [live], 'kids');
  });

  after(() => {
    conn?.close();
    repo.remove();
  });

  it('the child app rendered by the parent is compared with live', async () => {
    const r = await runCli(
      ['diff', '--kubeconfig', fx.kubeconfig, '-f', parentFile, '--recursive', '-o', 'json'],
      {
        env,
      },
    );
    assert.equal(r.code, 1, r.stderr);
    const doc = JSON.parse(r.stdout) as {
      apps: { name: string; resources: { kind: string; name: string; difference: string }[] }[];
    };
    assert.deepEqual(
      doc.apps.map((a) => a.name),
      ['parent', 'child'],
    );
    const child = doc.apps.find((a) => a.name === 'child')!;
    assert.deepEqual(
      child.resources.map((x) => [x.kind, x.name, x.difference]),
      [['ConfigMap', 'settings', 'modified']],
    );
    const flat = await runCli(['diff', '--kubeconfig', fx.kubeconfig, '-f', parentFile, '-o', 'json'], {
      env,
    });
    const flatDoc = JSON.parse(flat.stdout) as { apps: { name: string }[] };
    assert.deepEqual(
      flatDoc.apps.map((a) => a.name),
      ['parent'],
    );
  });

  it('render --from-cluster: ApplicationSets and cluster Secrets read from the live Argo CD namespace', async () => {
    const crd = structuredClone(APPLICATION_SET_CRD);
    // An Argo CD installation: both CRDs (--from-cluster without the Application CRD is an error).
    await applyObjects(conn, [structuredClone(APPLICATION_CRD) as unknown as KubeObject, crd], '');
    await crdsEstablished(fx);
    const secret = parse(`apiVersion: v1
kind: Secret
metadata: {name: prod-1, labels: {argocd.argoproj.io/secret-type: cluster, env: prod}}
stringData: {name: prod-1, server: 'https://p1.example.com'}
`) as KubeObject;
    const appset = parse(`apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: web}
spec:
  goTemplate: true
  generators: [{clusters: {}}]
  template:
    metadata: {name: 'web-{{ .name }}'}
    spec:
      project: default
      source: {repoURL: ${repo.url}, path: child}
      destination: {server: '{{ .server }}', namespace: web}
`) as KubeObject;
    const fresh = await connectAs(fx);
    try {
      await applyObjects(fresh, [secret, appset], 'argocd');
    } finally {
      fresh.close();
    }
    const r = await runCli(['render', '--kubeconfig', fx.kubeconfig, '--from-cluster', '--appsets-only'], {
      env,
    });
    assert.equal(r.code, 0, r.stderr);
    const docs = r.stdout
      .split(/^---$/m)
      .filter((d) => d.trim())
      .map((d) => parse(d) as KubeObject);
    assert.deepEqual(
      docs.map((d) => [
        d.metadata?.name,
        (d as { spec?: { destination?: { server?: string } } }).spec?.destination?.server,
      ]),
      // In-cluster last, as Argo CD's clusters generator appends it.
      [
        ['web-prod-1', 'https://p1.example.com'],
        ['web-in-cluster', 'https://kubernetes.default.svc'],
      ],
    );
  });
});
