/**
 * `kubectl gitops controller` exits on SIGTERM after its live cache was widened to a namespace an app's
 * resources live in beyond the destination (the rescope of src/controller/loop/clusters.ts `observe`), and
 * the operation running on the cache it replaced ends.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ClusterConnection, KubeObject } from '../../src/cluster/index.js';
import { APP_PROJECT_CRD, APPLICATION_CRD } from '../support/argocd.js';
import { api, useEmbeddedCluster, crdsEstablished } from '../support/embedded.js';
import { appYaml, TestRepo, tempDir } from '../support/git.js';
import { launcher } from '../support/paths.js';
import { connectAs, createNamespaces } from '../controller/setup.js';

const APPS = '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications';
const CRD_INFO = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
  verbs: ['create'],
};

describe('kubectl gitops controller (CLI): an operation across a widened live cache, then SIGTERM', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const dir = tempDir('kg-controller-rescope-');
  let conn: ClusterConnection;

  before(async () => {
    repo.commit({
      'web/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: here\ndata:\n  a: "1"\n',
      'web/other.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: there\n  namespace: other\ndata:\n  a: "1"\n',
    });
    conn = await connectAs(fx);
    await createNamespaces(conn, ['argocd', 'web', 'other']);
  });

  after(() => {
    conn?.close();
    repo.remove();
  });

  it('exits 0 within 20 s of SIGTERM', { timeout: 90_000 }, async () => {
    await conn.client.create(CRD_INFO, structuredClone(APPLICATION_CRD) as unknown as KubeObject);
    await conn.client.create(CRD_INFO, structuredClone(APP_PROJECT_CRD) as unknown as KubeObject);
    await crdsEstablished(fx);
    const app = {
      ...(parse(appYaml('web', repo.url, 'web', { namespace: 'web' })) as KubeObject),
      operation: { sync: { syncStrategy: { hook: {} } }, initiatedBy: { username: 'admin' } },
    };
    app.metadata = { ...app.metadata, namespace: 'argocd' };
    assert.equal((await api(fx.cluster, 'POST', APPS, app)).status, 201);
    const child = spawn(
      launcher,
      ['controller', '--kubeconfig', fx.kubeconfig, '-o', 'json', '--app-resync', '0'],
      {
        env: { ...process.env, NO_COLOR: '1', XDG_CACHE_HOME: join(dir, 'cache') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // The operation ends although the first refresh widened the live cache under it (the ConfigMap in
    // `other`): the cache it syncs on is not closed under it.
    const done = await new Promise<boolean>((resolve) => {
      setTimeout(() => resolve(false), 30_000);
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        if (stdout.includes('"event":"operation-done"')) resolve(true);
      });
    });
    assert.ok(done, `no operation-done in 30 s: ${stdout.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 3000));
    child.kill('SIGTERM');
    const t0 = Date.now();
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('hung'), 20_000))]);
    if (code === 'hung') child.kill('SIGKILL');
    assert.equal(code, 0, `after ${Date.now() - t0} ms; ${stderr}\n${stdout.slice(-2000)}`);
  });
});
