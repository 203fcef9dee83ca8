/**
 * Issue 14, end to end: a refusal (non-2xx) whose body stalls, met on each path a command reads a body on,
 * ends the command with the request-timeout error (exit 2), never a hang and never a bare status. A proxy in
 * front of the embedded API server forwards every request except those one case names: those get a 503
 * with the start of a Status body, then nothing (a watch's opening answer: request-timeout.test.ts). `npm test` builds first; run `npm run build` before running
 * this file alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ClusterConnection, KubeObject, ResourceInfo } from '../../src/cluster/index.js';
import { kubeconfigYaml } from '../../src/embedded/index.js';
import { runCli } from '../support/cli.js';
import { startProxy } from '../support/proxy.js';
import type { TestProxy } from '../support/proxy.js';
import { useEmbeddedCluster, crdsEstablished, realServer } from '../support/embedded.js';
import { APPLICATION_CRD } from '../support/argocd.js';
import { appYaml, cm, TestRepo, tempDir } from '../support/git.js';
import { connectAs, createNamespaces } from '../controller/setup.js';

const CRD_INFO: ResourceInfo = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
  verbs: ['create'],
};
const APP_INFO: ResourceInfo = {
  group: 'argoproj.io',
  version: 'v1alpha1',
  kind: 'Application',
  plural: 'applications',
  namespaced: true,
  verbs: ['create'],
};
const CM_INFO: ResourceInfo = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  verbs: ['create'],
};

describe('a non-2xx answer whose body stalls, on every command path that reads a body (CLI)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const dir = tempDir('kg-stall-');
  let conn: ClusterConnection;
  let proxy: TestProxy;
  let proxyUrl = '';
  let kubeconfig = '';
  let appsFile = '';
  /** The requests (method and URL) the proxy answers with a stalled 503. */
  let stall: (method: string, url: URL) => boolean = () => false;

  before(async () => {
    repo.commit({ 'web/cm.yaml': cm('web') });
    appsFile = join(dir, 'apps.yaml');
    writeFileSync(appsFile, appYaml('web', repo.url, 'web', { namespace: 'web' }));
    conn = await connectAs(fx);
    await createNamespaces(conn, ['web', 'argocd']);
    await conn.client.create(CRD_INFO, structuredClone(APPLICATION_CRD) as unknown as KubeObject);
    await crdsEstablished(fx);
    const app = parse(appYaml('web', repo.url, 'web', { namespace: 'web' })) as KubeObject;
    await conn.client.create(APP_INFO, { ...app, metadata: { ...app.metadata, namespace: 'argocd' } });
    await conn.client.create(CM_INFO, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'argocd-cm', namespace: 'argocd' },
      data: {},
    });
    proxy = await startProxy(fx.cluster.url, (req, res, url) => {
      if (!stall(req.method ?? 'GET', url)) return false;
      res.writeHead(503, { 'Content-Type': 'application/json' });
      res.write('{"kind":"Status",'); // and nothing more
      return true;
    });
    proxyUrl = proxy.url;
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, kubeconfigYaml(proxyUrl, 'proxied'));
  });

  after(async () => {
    conn?.close();
    await proxy?.close();
    repo.remove();
  });

  // Every request has this long, not only the stalled one: on a loaded real server a list took longer
  // than 0.5 s, and its timeout came before the stalled request's.
  const requestTimeout = realServer ? 2 : 0.5;
  const timeout = (): string =>
    `no answer from ${proxyUrl} (context proxied) within ${requestTimeout}s (--request-timeout)`;
  // A watch's opening answer is covered by request-timeout.test.ts: `diff` lists and does not watch.
  const isWatch = (u: URL): boolean => u.searchParams.get('watch') === 'true';
  const cases: Array<{
    name: string;
    args: () => string[];
    stall: (method: string, url: URL) => boolean;
    first: () => string;
  }> = [
    {
      name: 'diff --from-cluster, listing Applications',
      args: () => ['diff', '--from-cluster'],
      stall: (m, u) => u.pathname === '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications',
      first: () => `error: namespace argocd: failed to list Applications: ${timeout()}`,
    },
    {
      name: 'diff --from-cluster, reading argocd-cm',
      args: () => ['diff', '--from-cluster'],
      stall: (m, u) => u.pathname === '/api/v1/namespaces/argocd/configmaps/argocd-cm',
      first: () => `error: /ConfigMap argocd/argocd-cm: failed to get: ${timeout()}`,
    },
    {
      name: 'diff -f, discovery',
      args: () => ['diff', '-f', appsFile],
      stall: (m, u) => u.pathname === '/apis',
      first: () =>
        `error: app "web": cluster proxied: failed to read live state: discovery /apis: failed to read discovery: ${timeout()}`,
    },
    {
      name: 'diff -f, listing live resources',
      args: () => ['diff', '-f', appsFile],
      stall: (m, u) => u.pathname.endsWith('/configmaps') && !isWatch(u),
      first: () =>
        `error: app "web": cluster proxied: failed to read live state: /ConfigMap in web: failed to list: ${timeout()}`,
    },
    {
      name: 'shards, the live reader listing cluster Secrets',
      args: () => ['shards', '--replicas', '2'],
      stall: (m, u) => u.pathname === '/api/v1/namespaces/argocd/secrets',
      first: () => `error: context proxied: failed to list cluster Secrets in namespace argocd: ${timeout()}`,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: exit 2 with the request-timeout error`, async () => {
      stall = c.stall;
      const r = await runCli(
        [...c.args(), '--kubeconfig', kubeconfig, '--request-timeout', `${requestTimeout}s`],
        {
          env: { XDG_CACHE_HOME: join(dir, 'cache', c.name.replace(/\W+/g, '-')) },
        },
      );
      stall = () => false;
      assert.equal(r.stderr.split('\n')[0], c.first(), r.stderr);
      assert.equal(r.code, 2, r.stderr);
    });
  }
});
