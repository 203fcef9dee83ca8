/**
 * `kubectl gitops controller` (src/controller/app-controller/run.ts) writes `status.summary` from the app's resource tree, on
 * the embedded API server with its workload simulation and Argo CD's CRDs: the images of the live Pods of
 * an automated app's Deployment; a Pod whose image changed in place (a child of the managed Deployment by
 * ownerReferences) is a level-0 refresh that renders nothing and patches the Application's summary, and
 * nothing else of its status (Argo CD's ComparisonWithNothing: `reconciledAt` stays).
 * Every wait follows an event the step under test must produce.
 */
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { connect } from '../../../src/cluster/index.js';
import type { ClusterConnection, KubeObject } from '../../../src/cluster/index.js';
import { runController } from '../../../src/controller/index.js';
import type { ControllerEvent, LoopEvent } from '../../../src/controller/index.js';
import { APP_PROJECT_CRD, APPLICATION_CRD } from '../../support/argocd.js';
import { api, useEmbeddedCluster, waitForObject, crdsEstablished } from '../../support/embedded.js';
import { TestRepo, appYaml } from '../../support/git.js';
import { newCacheRoot } from '../setup.js';
import { countingSource, deploymentYaml } from '../tree-setup.js';

const T = { timeout: 60_000 };
const APPS = '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications';

describe('kubectl gitops controller: status.summary from the resource tree', () => {
  const fx = useEmbeddedCluster({ simulateWorkloads: { delayMs: 5 } });
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  const abort = new AbortController();
  const events: Array<LoopEvent | ControllerEvent> = [];
  const counting = countingSource(cacheRoot);
  let conn: ClusterConnection;
  let done: Promise<unknown>;

  before(async () => {
    conn = await connect({
      kubeconfig: fx.kubeconfig,
      discovery: { cacheDir: join(fx.dir, 'd0'), ttlMs: 0 },
    });
    const crd = {
      group: 'apiextensions.k8s.io',
      version: 'v1',
      kind: 'CustomResourceDefinition',
      plural: 'customresourcedefinitions',
      namespaced: false,
      verbs: ['create'],
    };
    await conn.client.create(crd, structuredClone(APPLICATION_CRD) as unknown as KubeObject);
    await conn.client.create(crd, structuredClone(APP_PROJECT_CRD) as unknown as KubeObject);
    await crdsEstablished(fx);
    for (const name of ['argocd', 'web', 'front', 'other'])
      await api(fx.cluster, 'POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      });
    repo.commit({
      'web/deploy.yaml': deploymentYaml('web', 'nginx:1.25'),
      // A Deployment in a namespace of its own (as a kustomization's `namespace` puts it) and a child
      // Application in the Argo CD namespace: neither is in the app's destination namespace.
      'front/deploy.yaml': deploymentYaml('front', 'httpd:2.4').replace(
        '  name: front\n',
        '  name: front\n  namespace: other\n',
      ),
      'front/child.yaml': appYaml('front-child', repo.url, 'web', { namespace: 'web' }).replace(
        '  name: front-child\n',
        '  name: front-child\n  namespace: argocd\n',
      ),
      'parent/child.yaml': appYaml('not-yet', repo.url, 'web', { namespace: 'web' }).replace(
        '  name: not-yet\n',
        '  name: not-yet\n  namespace: argocd\n',
      ),
    });
    let ready!: () => void;
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    done = runController({
      argocdNamespace: 'argocd',
      kubeconfig: fx.kubeconfig,
      client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
      signal: abort.signal,
      loopOptions: {
        kubeconfig: fx.kubeconfig,
        discovery: { cacheDir: join(fx.dir, 'discovery'), ttlMs: 0 },
        client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
        eventBatchMs: 10,
        appResyncMs: 0,
        diffText: false,
        source: counting.source,
      },
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'controller-ready') ready();
      },
    });
    await isReady;
  });

  after(async () => {
    abort.abort();
    await done;
    await counting.source.close();
    conn.close();
    repo.remove();
  });

  it(
    "the tree reaches resources outside the destination namespace: their Pods' images, child Applications",
    T,
    async () => {
      const app = parse(
        appYaml('front', repo.url, 'front', {
          namespace: 'front',
          spec: '  syncPolicy:\n    automated: {}\n',
        }),
      );
      app.metadata.namespace = 'argocd';
      assert.equal((await api(fx.cluster, 'POST', APPS, app)).status, 201);
      // Bounded by the test's time: the first refresh widens the live cache (listed again), and the refresh
      // after the operation waits for that list: 13 s on the loaded real server (round 3's full tier).
      const synced = await waitForObject(
        fx.cluster,
        `${APPS}/front`,
        (o) =>
          o?.status?.operationState?.phase === 'Succeeded' &&
          JSON.stringify(o.status.summary?.images) === '["httpd:2.4"]' &&
          o.status.summary?.isAppOfApps === true,
        55_000,
      );
      assert.deepEqual(
        synced.status.resources.map((r: { kind: string; namespace: string }) => [r.kind, r.namespace]),
        [
          ['Deployment', 'other'],
          ['Application', 'argocd'],
        ],
      );
    },
  );

  it(
    'a child Application not created yet already makes an app of apps (a node for each missing resource)',
    T,
    async () => {
      const app = parse(appYaml('parent', repo.url, 'parent', { namespace: 'argocd' }));
      app.metadata.namespace = 'argocd';
      assert.equal((await api(fx.cluster, 'POST', APPS, app)).status, 201);
      const seen = await waitForObject(fx.cluster, `${APPS}/parent`, (o) => o?.status?.sync?.status);
      assert.deepEqual(
        seen.status.resources.map((r: { kind: string; status: string }) => [r.kind, r.status]),
        [['Application', 'OutOfSync']],
      );
      assert.equal(seen.status.summary?.isAppOfApps, true);
    },
  );

  it("writes the live Pods' images; a Pod's change updates the summary without rendering", T, async () => {
    const app = parse(
      appYaml('web', repo.url, 'web', { namespace: 'web', spec: '  syncPolicy:\n    automated: {}\n' }),
    );
    app.metadata.namespace = 'argocd';
    assert.equal((await api(fx.cluster, 'POST', APPS, app)).status, 201);
    const first = await waitForObject(
      fx.cluster,
      `${APPS}/web`,
      (o) =>
        o?.status?.sync?.status === 'Synced' &&
        o.status.health?.status === 'Healthy' &&
        o.status.operationState?.phase === 'Succeeded' &&
        JSON.stringify(o.status.summary?.images) === '["nginx:1.25"]',
    );
    const pods = (await api(fx.cluster, 'GET', '/api/v1/namespaces/web/pods')).body.items;
    assert.equal(pods.length, 1);
    // Refreshes queued before (a widened live cache refreshes every app of its cluster once) end first: the
    // renders counted from here are the Pod change's alone.
    let rendered = counting.renders();
    for (let stable = 0; stable < 3;) {
      await new Promise((r) => setTimeout(r, 500));
      const now = counting.renders();
      stable = now === rendered ? stable + 1 : 0;
      rendered = now;
    }
    const from = events.length;
    const res = await api(
      fx.cluster,
      'PATCH',
      `/api/v1/namespaces/web/pods/${pods[0].metadata.name}`,
      { spec: { containers: [{ name: 'main', image: 'nginx:1.26' }] } },
      'application/strategic-merge-patch+json',
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const second = await waitForObject(
      fx.cluster,
      `${APPS}/web`,
      (o) => JSON.stringify(o?.status?.summary?.images) === '["nginx:1.26"]',
    );
    assert.equal(counting.renders(), rendered, 'no render for a level-0 refresh');
    assert.equal(second.status.reconciledAt, first.status.reconciledAt, 'reconciledAt stays');
    assert.ok(
      !events.slice(from).some((e) => e.type === 'compare-done' || e.type === 'render-start'),
      'nor a comparison',
    );
    assert.ok(
      events.slice(from).some((e) => e.type === 'refreshed' && e.app === 'web' && e.level === 0),
      'a level-0 refresh',
    );
  });
});
