/**
 * The two feeds besides LoopEvents, end to end: API requests of a real client on the embedded API server
 * (`ClientOptions.onRequest`), attributed to the app whose operation made them, even with two operations
 * running at once; and child processes (`instrumentExec`) of a real render: real git against a local
 * repository, real `kubectl kustomize`. Scraped over HTTP and parsed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { adHocApplication } from '../../src/apps/index.js';
import { connect, isNotFound } from '../../src/cluster/index.js';
import type { ClusterConnection, ResourceInfo } from '../../src/cluster/index.js';
import { Metrics, MetricsServer } from '../../src/metrics/index.js';
import { createSourceService, execProcess } from '../../src/source/index.js';
import type { Exec, ExecResult } from '../../src/source/index.js';
import { useEmbeddedCluster } from '../support/embedded.js';
import { TestRepo, cm as cmYaml, tempDir } from '../support/git.js';
import { realTool } from '../support/tools.js';

const kustomizeTool = realTool('kustomize');
import { cm, ns } from '../cluster/embedded-setup.js';
import { app, fakeLoop } from './fixtures.js';
import { find, one, scrape } from './exposition.js';
import type { Exposition } from './exposition.js';

async function scrapeOnce(metrics: Metrics): Promise<Exposition> {
  const server = new MetricsServer({ addr: '127.0.0.1:0', metrics });
  const { url } = await server.listen();
  try {
    const { status, exposition } = await scrape(`${url}/metrics`);
    assert.equal(status, 200);
    return exposition;
  } finally {
    await server.close();
  }
}

describe('argocd_app_k8s_request_total from a real client', () => {
  const fx = useEmbeddedCluster();
  const { loop } = fakeLoop();
  const metrics = new Metrics({ loop, processMetrics: false });
  const strict = new Metrics({ loop, processMetrics: false, k8sRequests: 'attributed' });
  let conn: ClusterConnection;
  let configMaps: ResourceInfo;

  before(async () => {
    conn = await connect({
      kubeconfig: fx.kubeconfig,
      discovery: { cacheDir: join(fx.dir, 'discovery') },
      client: {
        retry: { maxRetries: 0 },
        onRequest: (info) => {
          metrics.onRequest(info);
          strict.onRequest(info);
        },
      },
    });
    configMaps = await conn.discovery.resolve({ group: '', kind: 'ConfigMap' });
    const namespaces = await conn.discovery.resolve({ group: '', kind: 'Namespace' });
    await conn.client.create(namespaces, ns('shop'));
  });
  after(() => conn?.close());

  it('labels requests with the app whose operation made them, and empty app labels outside one', async () => {
    const web = app('web');
    const api = app('api', { project: 'payments' }, { namespace: 'teams' });
    await conn.client.list(configMaps, { namespace: 'shop' }); // outside any operation (the live cache's)
    // Each Metrics attributes its own operations: run them under both.
    const attribute = <R>(a: typeof web, dryRun: boolean, fn: () => Promise<R>): Promise<R> =>
      metrics.attribute(a, dryRun, () => strict.attribute(a, dryRun, fn));
    await Promise.all([
      attribute(web, false, async () => {
        await conn.client.create(configMaps, cm('shop', 'web-config'));
        await assert.rejects(conn.client.get(configMaps, 'shop', 'missing'), isNotFound);
      }),
      attribute(api, true, async () => {
        await conn.client.patch(configMaps, 'shop', 'web-config', { data: { a: 'b' } }, 'merge', {
          dryRun: true,
        });
      }),
    ]);
    const e = await scrapeOnce(metrics);
    const server = new URL(conn.server).origin;
    const rows = find(e, 'argocd_app_k8s_request_total', { resource_namespace: 'shop' }).map((s) => [
      s.labels['namespace'],
      s.labels['name'],
      s.labels['project'],
      s.labels['verb'],
      s.labels['resource_kind'],
      s.labels['response_code'],
      s.labels['dry_run'],
      s.labels['server'],
      s.value,
    ]);
    assert.deepEqual(
      rows.sort((a, b) => String(a[3]).localeCompare(String(b[3]))),
      [
        ['argocd', 'web', 'team', 'Create', 'configmaps', '201', 'false', server, 1],
        ['argocd', 'web', 'team', 'Get', 'configmaps', '404', 'false', server, 1],
        ['', '', '', 'List', 'configmaps', '200', 'false', server, 1],
        // The patch may race the create: 200 when it came second, 404 when first; either is one request.
        [
          'teams',
          'api',
          'payments',
          'Patch',
          'configmaps',
          rows.find((r) => r[3] === 'Patch')![5],
          'true',
          server,
          1,
        ],
      ].sort((a, b) => String(a[3]).localeCompare(String(b[3]))),
    );
    assert.ok(one(e, 'argocd_kubectl_requests_total', { method: 'POST', code: '201' }).value >= 2);

    const attributedOnly = await scrapeOnce(strict);
    assert.deepEqual(
      find(attributedOnly, 'argocd_app_k8s_request_total', { name: '' }),
      [],
      "k8sRequests: 'attributed' counts only requests of an operation, as Argo CD",
    );
    assert.equal(
      find(attributedOnly, 'argocd_app_k8s_request_total', { resource_namespace: 'shop' }).length,
      3,
    );
  });
});

describe('argocd_kubectl_exec_* and argocd_git_request_* from child processes', () => {
  it(
    'a real render counts git ls-remote/fetch by repository; kustomize is no kubectl exec (Argo CD renders in its repo-server)',
    { skip: kustomizeTool.skip },
    async () => {
      const repo = new TestRepo();
      repo.commit({
        'app/kustomization.yaml': 'resources:\n  - cm.yaml\n',
        'app/cm.yaml': cmYaml('settings'),
      });
      const { loop } = fakeLoop();
      const metrics = new Metrics({ loop, processMetrics: false, hostname: 'ctl-0' });
      const service = createSourceService({
        cacheRoot: tempDir(),
        exec: metrics.instrumentExec(execProcess),
        kustomizePath: kustomizeTool.require(),
      });
      try {
        const rendered = await service.renderApp(
          adHocApplication({ repo: repo.url, path: 'app', name: 'web', destNamespace: 'web' }),
        );
        assert.equal(rendered.objects.length, 1);
      } finally {
        await service.close();
        repo.remove();
      }
      const e = await scrapeOnce(metrics);
      assert.deepEqual(find(e, 'argocd_kubectl_exec_total'), []);
      const git = find(e, 'argocd_git_request_total');
      assert.ok(git.length > 0, 'git requests are counted');
      assert.ok(git.every((s) => s.labels['repo'] === repo.url));
      assert.ok(
        git.some((s) => s.labels['request_type'] === 'fetch' || s.labels['request_type'] === 'ls-remote'),
      );
      const count = find(e, 'argocd_git_request_duration_seconds_count');
      assert.deepEqual(
        count.map((s) => [s.labels['request_type'], s.value]),
        git.map((s) => [s.labels['request_type'], s.value]),
      );
    },
  );

  it('pending counts a kubectl process while it runs; credentials in a repo URL never reach a label', async () => {
    const { loop } = fakeLoop();
    const metrics = new Metrics({ loop, processMetrics: false, hostname: 'h' });
    let finish!: (r: ExecResult) => void;
    const base: Exec = (command) =>
      command.endsWith('kubectl')
        ? new Promise<ExecResult>((resolve) => (finish = resolve))
        : Promise.resolve({ stdout: '', stderr: '' });
    const exec = metrics.instrumentExec(base);
    const running = exec('/usr/bin/kubectl', ['kustomize', '/tmp/x']);
    const during = await scrapeOnce(metrics);
    assert.equal(one(during, 'argocd_kubectl_exec_pending', { command: 'kustomize' }).value, 1);
    finish({ stdout: '', stderr: '' });
    await running;
    await exec('git', ['ls-remote', '--', 'https://bot:s3cr3t@git.example.com/org/repo.git']);
    await exec('helm', ['template', 'x', '.']);
    await exec('git', ['-C', '/tmp', 'rev-parse', 'HEAD']);
    const e = await scrapeOnce(metrics);
    assert.equal(one(e, 'argocd_kubectl_exec_pending', { command: 'kustomize' }).value, 0);
    assert.deepEqual(one(e, 'argocd_git_request_total').labels, {
      repo: 'https://git.example.com/org/repo.git',
      request_type: 'ls-remote',
    });
    assert.ok(!JSON.stringify(e).includes('s3cr3t'));
    assert.equal(
      find(e, 'argocd_kubectl_exec_total', { command: 'template' }).length,
      0,
      'helm is no kubectl',
    );
  });
});
