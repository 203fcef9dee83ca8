/**
 * `kubectl gitops controller` as users run it (the built CLI, a child process) against the embedded API
 * server: it runs an operation written to an Application, logs one JSON object per event with `-o json`,
 * serves Argo CD's metrics and the probes (`--metrics-addr`), and stops cleanly on SIGTERM (exit 0, as a pod must). A namespace without Argo CD's CRD is an error
 * naming it. `npm test` builds first; run `npm run build` before running this file alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ClusterConnection, KubeObject } from '../../src/cluster/index.js';
import { APP_PROJECT_CRD, APPLICATION_CRD } from '../support/argocd.js';
import { runCli } from '../support/cli.js';
import { api, useEmbeddedCluster, waitForObject, crdsEstablished } from '../support/embedded.js';
import { appYaml, cm, TestRepo, tempDir } from '../support/git.js';
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

describe('kubectl gitops controller (CLI)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const dir = tempDir('kg-controller-');
  let conn: ClusterConnection;

  before(async () => {
    repo.commit({ 'web/cm.yaml': cm('web') });
    conn = await connectAs(fx);
    await createNamespaces(conn, ['argocd', 'web']);
  });

  after(() => {
    conn?.close();
    repo.remove();
  });

  it('without the Application CRD: exit 2 naming what is missing', async () => {
    const r = await runCli(['controller', '--kubeconfig', fx.kubeconfig], {
      env: { XDG_CACHE_HOME: join(dir, 'cache0') },
    });
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /namespace argocd: failed to watch Applications: the Application CRD \(applications\.argoproj\.io\) is not installed/,
    );
  });

  it('runs an operation, logs JSON lines, exits 0 on SIGTERM', { timeout: 60_000 }, async () => {
    await conn.client.create(CRD_INFO, structuredClone(APPLICATION_CRD) as unknown as KubeObject);
    await conn.client.create(CRD_INFO, structuredClone(APP_PROJECT_CRD) as unknown as KubeObject);
    await crdsEstablished(fx);
    const app = {
      ...(parse(appYaml('web', repo.url, 'web', { namespace: 'web' })) as KubeObject),
      operation: { sync: { syncStrategy: { hook: {} } }, initiatedBy: { username: 'admin' } },
    };
    app.metadata = { ...app.metadata, namespace: 'argocd' };
    // CRDs are served once established: retry the create until the kind answers.
    await waitForObject(
      fx.cluster,
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/applications.argoproj.io',
      (o) =>
        (o?.status?.conditions ?? []).some(
          (c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True',
        ),
    );
    assert.equal((await api(fx.cluster, 'POST', APPS, app)).status, 201);

    const child = spawn(
      launcher,
      [
        'controller',
        '--kubeconfig',
        fx.kubeconfig,
        '-o',
        'json',
        '--app-resync',
        '0',
        '--metrics-addr',
        '127.0.0.1:0',
      ],
      {
        env: { ...process.env, NO_COLOR: '1', XDG_CACHE_HOME: join(dir, 'cache') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const done = new Promise<void>((resolve) => {
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        if (stdout.split('\n').some((l) => l.includes('"event":"operation-done"'))) resolve();
      });
    });
    await Promise.race([done, exited.then(() => assert.fail(`controller exited early: ${stderr}`))]);
    const synced = await waitForObject(
      fx.cluster,
      `${APPS}/web`,
      (o) => o?.status?.operationState?.phase === 'Succeeded' && !o.operation,
    );
    assert.equal(synced.status.history.length, 1);
    // Metrics and probes, at the address it printed.
    // Information, not a warning: a plain line (warning: is for what a user should act on).
    const url = /^metrics and probes at (http:\/\/\S+)\/metrics, \/healthz, \/readyz$/m.exec(stderr)?.[1];
    assert.ok(url, stderr);
    assert.doesNotMatch(stderr, /^warning: metrics/m);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    assert.match(metrics, /^argocd_app_info\{[^}]*name="web"[^}]*\} 1$/m);
    assert.match(metrics, /^argocd_app_sync_total\{[^}]*name="web"[^}]*phase="Succeeded"[^}]*\} 1$/m);
    assert.equal((await fetch(`${url}/readyz`)).status, 200);
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    child.kill('SIGTERM');
    assert.equal(await exited, 0, stderr);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; key?: string; phase?: string });
    assert.ok(
      lines.some((l) => l.event === 'operation-done' && l.key === 'argocd/web' && l.phase === 'Succeeded'),
    );
    assert.ok(lines.every((l) => typeof l.event === 'string'));
    assert.equal((await api(fx.cluster, 'GET', '/api/v1/namespaces/web/configmaps/web')).status, 200);
  });

  it('an operation ends although the first refresh widened the live cache under it; SIGTERM exits 0', async () => {
    // The ConfigMap in `other` is outside the destination namespace: the first refresh widens the live
    // cache (src/controller/loop/clusters.ts `observe`), and the operation syncing on the cache it replaced
    // must still end (it waited forever on a closed cache before).
    repo.commit({
      'wide/cm.yaml': cm('here'),
      'wide/other.yaml': cm('there').replace('metadata:\n', 'metadata:\n  namespace: other\n'),
    });
    await createNamespaces(conn, ['wide', 'other']);
    const app = {
      ...(parse(appYaml('wide', repo.url, 'wide', { namespace: 'wide' })) as KubeObject),
      operation: { sync: { syncStrategy: { hook: {} } }, initiatedBy: { username: 'admin' } },
    };
    app.metadata = { ...app.metadata, namespace: 'argocd' };
    assert.equal((await api(fx.cluster, 'POST', APPS, app)).status, 201);
    const child = spawn(
      launcher,
      ['controller', '--kubeconfig', fx.kubeconfig, '-o', 'json', '--app-resync', '0'],
      {
        env: { ...process.env, NO_COLOR: '1', XDG_CACHE_HOME: join(dir, 'cache-wide') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const done = await new Promise<boolean>((resolve) => {
      setTimeout(() => resolve(false), 30_000);
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        if (
          /"key":"argocd\/wide","event":"operation-done"|"event":"operation-done".*"key":"argocd\/wide"/.test(
            stdout,
          )
        )
          resolve(true);
      });
    });
    child.kill('SIGTERM');
    assert.ok(done, `no operation-done in 30 s: ${stdout.slice(-2000)}`);
    assert.equal(await exited, 0, stderr);
    assert.equal((await api(fx.cluster, 'GET', '/api/v1/namespaces/other/configmaps/there')).status, 200);
  });
});
