/**
 * `Metrics` scraped over HTTP (`MetricsServer` on port 0) and parsed (./exposition.ts): Argo CD's names,
 * types and help texts (expected values copied here from argo-cd controller/metrics/metrics.go and
 * clustercollector.go, not read from our table), `argocd_app_info` built from the loop's states at scrape
 * time, sync and reconcile metrics fed by LoopEvents, cluster gauges from cache-sync events, app labels and
 * conditions, and Node's process metrics in the same registry.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type {
  ComparisonResult,
  ConditionType,
  LoopEvent,
  OperationRequest,
} from '../../src/controller/index.js';
import { Metrics, MetricsServer } from '../../src/metrics/index.js';
import { find, one, scrape } from './exposition.js';
import { app, fakeLoop, state } from './fixtures.js';

const compared = (
  sync: 'Synced' | 'OutOfSync',
  health: 'Healthy' | 'Degraded',
  conditions: ConditionType[] = [],
): ComparisonResult => ({
  revision: 'abc',
  resources: [],
  sync,
  health: { status: health },
  conditions: conditions.map((type) => ({ type, message: 'x' })),
});

const request: OperationRequest = { initiatedBy: { automated: true }, prune: false, dryRun: false };

async function serve(metrics: Metrics): Promise<{ url: string; close: () => Promise<void> }> {
  const server = new MetricsServer({ addr: '127.0.0.1:0', metrics });
  const { url } = await server.listen();
  return { url: `${url}/metrics`, close: () => server.close() };
}

describe('Metrics over HTTP', () => {
  const { apps, loop } = fakeLoop();
  let now = 1_000_000;
  const metrics = new Metrics({
    loop,
    hostname: 'ctl-0',
    now: () => now,
    appLabels: ['team-name'],
    appConditions: ['SharedResourceWarning', 'ComparisonError'],
  });
  let url: string;
  let close: () => Promise<void>;
  before(async () => ({ url, close } = await serve(metrics)));
  after(() => close());

  it("declares Argo CD's metric names, types and help texts", async () => {
    const { status, contentType, exposition: e } = await scrape(url);
    assert.equal(status, 200);
    assert.match(contentType, /^text\/plain; version=0\.0\.4/);
    const expected: Array<[string, string, string]> = [
      ['argocd_app_info', 'gauge', 'Information about application.'],
      ['argocd_app_labels', 'gauge', 'Argo Application labels converted to Prometheus labels'],
      ['argocd_app_condition', 'gauge', 'Report application conditions.'],
      ['argocd_app_sync_total', 'counter', 'Number of application syncs.'],
      ['argocd_app_sync_duration_seconds_total', 'counter', 'Application sync performance in seconds total.'],
      [
        'argocd_app_k8s_request_total',
        'counter',
        'Number of kubernetes requests executed during application reconciliation.',
      ],
      ['argocd_kubectl_exec_total', 'counter', 'Number of kubectl executions'],
      ['argocd_kubectl_exec_pending', 'gauge', 'Number of pending kubectl executions'],
      ['argocd_app_reconcile', 'histogram', 'Application reconciliation performance in seconds.'],
      ['argocd_cluster_events_total', 'counter', 'Number of processes k8s resource events.'],
      ['argocd_cluster_info', 'gauge', 'Information about cluster.'],
      ['argocd_cluster_api_resource_objects', 'gauge', 'Number of k8s resource objects in the cache.'],
      ['argocd_cluster_api_resources', 'gauge', 'Number of monitored kubernetes API resources.'],
      ['argocd_cluster_cache_age_seconds', 'gauge', 'Cluster cache age in seconds.'],
      ['argocd_cluster_connection_status', 'gauge', 'The k8s cluster current connection status.'],
      ['argocd_kubectl_requests_total', 'counter', 'Number of kubectl request results'],
      ['argocd_git_request_total', 'counter', 'Number of git requests performed by repo server'],
      ['argocd_git_request_duration_seconds', 'histogram', 'Git requests duration seconds.'],
    ];
    for (const [name, type, help] of expected) {
      assert.equal(e.type.get(name), type, `TYPE of ${name}`);
      assert.equal(e.help.get(name), help, `HELP of ${name}`);
    }
    // Node's process metrics share the registry.
    assert.ok(e.type.has('process_cpu_user_seconds_total'));
    assert.ok(e.type.has('nodejs_heap_size_used_bytes'));
    assert.ok(one(e, 'process_resident_memory_bytes').value > 0);
  });

  it('argocd_app_info lists the loop states at scrape time with Argo CD labels', async () => {
    const synced = app(
      'web',
      { syncPolicy: { automated: { prune: true } } },
      { labels: { 'team-name': 'blue' } },
    );
    const multi = app(
      'multi',
      {
        source: undefined,
        sources: [
          { repoURL: 'git@github.com:Example/Other.git', path: 'a', targetRevision: 'main' },
          { repoURL: 'https://charts.example.com', chart: 'c', targetRevision: '1.0.0' },
        ],
        destination: { name: 'edge', namespace: 'ns' },
      },
      { namespace: 'teams' },
    );
    const broken = app('broken', {}, { deletionTimestamp: '2026-01-01T00:00:00Z' });
    apps.set('argocd/web', state(synced, { comparison: compared('Synced', 'Healthy') }));
    apps.set(
      'teams/multi',
      state(multi, {
        comparison: compared('OutOfSync', 'Degraded', ['SharedResourceWarning', 'SharedResourceWarning']),
        running: { request, startedAt: '2026-01-01T00:00:00Z' },
      }),
    );
    apps.set(
      'argocd/broken',
      state(broken, {
        comparison: compared('Synced', 'Healthy'),
        error: { message: 'app "broken": failed to render: boom', exitCode: 1 },
      }),
    );
    const { exposition: e } = await scrape(url);
    assert.deepEqual(
      find(e, 'argocd_app_info').map((s) => [s.labels, s.value]),
      [
        [
          {
            namespace: 'argocd',
            name: 'web',
            project: 'team',
            autosync_enabled: 'true',
            repo: 'https://github.com/example/repo',
            dest_server: 'https://kubernetes.default.svc',
            dest_namespace: 'prod',
            sync_status: 'Synced',
            health_status: 'Healthy',
            operation: '',
          },
          1,
        ],
        [
          {
            namespace: 'teams',
            name: 'multi',
            project: 'team',
            autosync_enabled: 'false',
            repo: 'git@github.com/example/other', // Argo CD's NormalizeGitURL
            dest_server: '',
            dest_namespace: 'ns',
            sync_status: 'OutOfSync',
            health_status: 'Degraded',
            operation: 'sync',
          },
          1,
        ],
        [
          {
            namespace: 'argocd',
            name: 'broken',
            project: 'team',
            autosync_enabled: 'false',
            repo: 'https://github.com/example/repo',
            dest_server: 'https://kubernetes.default.svc',
            dest_namespace: 'prod',
            sync_status: 'Unknown',
            health_status: 'Healthy',
            operation: 'delete',
          },
          1,
        ],
      ],
    );
    assert.deepEqual(
      find(e, 'argocd_app_labels').map((s) => [s.labels['name'], s.labels['label_team_name']]),
      [
        ['web', 'blue'],
        ['multi', ''],
        ['broken', ''],
      ],
    );
    assert.deepEqual(
      find(e, 'argocd_app_condition').map((s) => [s.labels['name'], s.labels['condition'], s.value]),
      [
        ['multi', 'SharedResourceWarning', 2],
        ['broken', 'ComparisonError', 1],
      ],
    );

    apps.delete('argocd/broken');
    const later = (await scrape(url)).exposition;
    assert.deepEqual(
      find(later, 'argocd_app_info').map((s) => s.labels['name']),
      ['web', 'multi'],
      'a removed app leaves argocd_app_info at the next scrape',
    );
  });

  it('LoopEvents feed argocd_app_reconcile, argocd_app_sync_total and the sync duration', async () => {
    const events: LoopEvent[] = [
      { type: 'refreshed', app: 'web', key: 'argocd/web', reason: 'git', level: 3, durationMs: 300 },
      { type: 'refreshed', app: 'web', key: 'argocd/web', reason: 'resync', level: 2, durationMs: 20_000 },
      { type: 'refreshed', app: 'multi', key: 'teams/multi', reason: 'drift', level: 1, durationMs: 100 },
      {
        type: 'app-operation-done',
        app: 'web',
        key: 'argocd/web',
        request,
        phase: 'Succeeded',
        message: 'ok',
        revision: 'abc',
        durationMs: 2500,
      },
      {
        type: 'app-operation-done',
        app: 'web',
        key: 'argocd/web',
        request: { ...request, dryRun: true },
        phase: 'Failed',
        message: 'no',
        revision: 'abc',
        durationMs: 500,
      },
      {
        type: 'app-operation-done',
        app: 'web',
        key: 'argocd/web',
        request,
        phase: 'Terminating',
        message: 'stopping',
        revision: 'abc',
        durationMs: 1000,
      },
      // The engine's own operation-done (one per attempt): the loop's reports the operation once; not counted.
      { type: 'operation-done', app: 'web', phase: 'Succeeded', message: 'ok' },
    ];
    for (const ev of events) metrics.onEvent(ev);
    const { exposition: e } = await scrape(url);
    const web = { namespace: 'argocd', dest_server: 'https://kubernetes.default.svc' };
    assert.deepEqual(
      find(e, 'argocd_app_reconcile_bucket', web).map((s) => [s.labels['le'], s.value]),
      [
        ['0.25', 0],
        ['0.5', 1],
        ['1', 1],
        ['2', 1],
        ['4', 1],
        ['8', 1],
        ['16', 1],
        ['+Inf', 2],
      ],
    );
    assert.equal(one(e, 'argocd_app_reconcile_count', web).value, 2);
    assert.equal(one(e, 'argocd_app_reconcile_sum', web).value, 20.3);
    assert.equal(one(e, 'argocd_app_reconcile_count', { namespace: 'teams', dest_server: '' }).value, 1);

    const sync = find(e, 'argocd_app_sync_total').map((s) => s.labels);
    assert.deepEqual(sync, [
      {
        namespace: 'argocd',
        name: 'web',
        project: 'team',
        dest_server: 'https://kubernetes.default.svc',
        phase: 'Succeeded',
        dry_run: 'false',
      },
      {
        namespace: 'argocd',
        name: 'web',
        project: 'team',
        dest_server: 'https://kubernetes.default.svc',
        phase: 'Failed',
        dry_run: 'true',
      },
    ]);
    assert.ok(find(e, 'argocd_app_sync_total').every((s) => s.value === 1));
    assert.equal(one(e, 'argocd_app_sync_duration_seconds_total', { name: 'web' }).value, 4);
  });

  it('cache-sync events and the requests that name each context fill the cluster gauges', async () => {
    metrics.onEvent({ type: 'cache-sync-start', cluster: 'edge', kinds: 40 });
    metrics.onEvent({ type: 'cache-sync-done', cluster: 'edge', kinds: 42, objects: 1234 });
    metrics.onEvent({
      type: 'cache-sync-done',
      cluster: 'down',
      kinds: 7,
      objects: 0,
      error: 'connection refused',
    });
    metrics.onRequest({
      verb: 'list',
      method: 'GET',
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      resource: 'deployments',
      namespace: '',
      code: 200,
      dryRun: false,
      server: 'https://10.0.0.1:6443',
      context: 'edge',
    });
    metrics.onEvent({
      type: 'cache-sync-done',
      cluster: 'in-cluster (https://10.0.0.9)',
      kinds: 1,
      objects: 2,
    });
    metrics.onRequest({
      verb: 'discovery',
      method: 'GET',
      group: '',
      version: '',
      kind: '',
      resource: '',
      namespace: '',
      code: 200,
      dryRun: false,
      server: 'https://10.0.0.9',
      context: 'in-cluster (https://10.0.0.9)',
    });
    now += 90_500;
    const { exposition: e } = await scrape(url);
    const edge = { server: 'https://10.0.0.1:6443' };
    assert.deepEqual(one(e, 'argocd_cluster_info', edge).labels, { ...edge, k8s_version: '', name: 'edge' });
    assert.equal(one(e, 'argocd_cluster_api_resource_objects', edge).value, 1234);
    assert.equal(one(e, 'argocd_cluster_api_resources', edge).value, 42);
    assert.equal(one(e, 'argocd_cluster_cache_age_seconds', edge).value, 90);
    assert.equal(one(e, 'argocd_cluster_connection_status', edge).value, 1);
    // A cluster from an Argo CD Secret (context "<name> (<server>)") is named as its Secret names it.
    assert.deepEqual(one(e, 'argocd_cluster_info', { server: 'https://10.0.0.9' }).labels, {
      server: 'https://10.0.0.9',
      k8s_version: '',
      name: 'in-cluster',
    });
    // A cluster no request has named yet is shown by its context name; it never synced.
    assert.equal(one(e, 'argocd_cluster_connection_status', { server: 'down' }).value, 0);
    assert.equal(one(e, 'argocd_cluster_cache_age_seconds', { server: 'down' }).value, -1);
    assert.deepEqual(one(e, 'argocd_kubectl_requests_total', { host: '10.0.0.1:6443' }).labels, {
      host: '10.0.0.1:6443',
      method: 'GET',
      code: '200',
    });
  });
});

describe('Metrics options', () => {
  it('autoSync mode, destServer and a clusters source replace the defaults; process metrics can be left out', async () => {
    const { apps, loop } = fakeLoop();
    const a = app('one', { destination: { name: 'edge', namespace: 'x' } });
    apps.set('argocd/one', state(a));
    const metrics = new Metrics({
      loop,
      processMetrics: false,
      autoSync: { mode: 'all', prune: false, selfHeal: true, allowEmpty: false },
      destServer: (x) => (x.destination.name === 'edge' ? 'https://edge.example:6443' : undefined),
      clusters: () => [
        {
          server: 'https://edge.example:6443',
          name: 'edge',
          k8sVersion: 'v1.31.0',
          objects: 5,
          apis: 2,
          lastSyncAt: 0,
        },
      ],
      now: () => 61_000,
    });
    const { url, close } = await serve(metrics);
    try {
      const { exposition: e } = await scrape(url);
      assert.deepEqual(one(e, 'argocd_app_info').labels, {
        namespace: 'argocd',
        name: 'one',
        project: 'team',
        autosync_enabled: 'true',
        repo: 'https://github.com/example/repo',
        dest_server: 'https://edge.example:6443',
        dest_namespace: 'x',
        sync_status: 'Unknown',
        health_status: 'Unknown',
        operation: '',
      });
      assert.deepEqual(one(e, 'argocd_cluster_info').labels, {
        server: 'https://edge.example:6443',
        k8s_version: 'v1.31.0',
        name: 'edge',
      });
      assert.equal(one(e, 'argocd_cluster_cache_age_seconds').value, 61);
      assert.equal(
        e.type.has('argocd_app_labels'),
        false,
        'argocd_app_labels only when labels are asked for',
      );
      assert.equal(e.type.has('argocd_app_condition'), false);
      assert.equal(e.type.has('process_cpu_user_seconds_total'), false);
    } finally {
      await close();
    }
  });
});
