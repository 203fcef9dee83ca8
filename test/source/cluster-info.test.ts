/**
 * The destination cluster's version and API versions reach every render, as Argo CD's controller sends
 * them to its repo-server (controller/state.go GetRepoObjs: KubeVersion, ApiVersions from the live state
 * cache's discovery), and key the manifest cache (reposerver/cache clusterRuntimeInfoKey): a chart in Git
 * rendered by the real helm 4.2.4 prints `.Capabilities`; another cluster version renders again.
 */
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { adHocApplication } from '../../src/apps/index.js';
import { createSourceService, type ClusterInfo } from '../../src/source/index.js';
import { fixtureChart } from '../support/helm-repo.js';
import { TestRepo, tempDir } from '../support/git.js';
import { realTool } from '../support/tools.js';

const helm = realTool('helm');

describe('renders see the destination cluster', () => {
  it(
    'helm gets --kube-version and --api-versions from the cluster; the cache is keyed by them',
    { skip: helm.skip },
    async () => {
      const helmPath = helm.require();
      const repo = new TestRepo();
      const files: Record<string, string> = {};
      const chart = fixtureChart('web');
      const walk = (dir: string, rel: string): void => {
        for (const e of readdirSync(dir, { withFileTypes: true })) {
          if (e.isDirectory()) walk(join(dir, e.name), `${rel}/${e.name}`);
          else files[`${rel}/${e.name}`] = readFileSync(join(dir, e.name), 'utf8');
        }
      };
      walk(chart, 'charts/web');
      repo.commit(files);
      const app = adHocApplication({
        repo: repo.url,
        path: 'charts/web',
        name: 'web',
        destNamespace: 'prod',
      });
      const cacheRoot = tempDir();
      const render = async (info?: ClusterInfo) => {
        const service = createSourceService({ cacheRoot, helmPath });
        if (info) service.useClusterInfo?.(async () => info);
        try {
          const r = await service.renderApp(app);
          const cm = r.objects.find((o) => o.kind === 'ConfigMap') as { data: Record<string, string> };
          return { data: cm.data, renders: service.stats.renders };
        } finally {
          await service.close();
        }
      };
      const cluster: ClusterInfo = {
        kubeVersion: '1.34.4',
        apiVersions: ['apps/v1', 'apps/v1/Deployment', 'monitoring.coreos.com/v1', 'v1', 'v1/ConfigMap'],
      };
      const first = await render(cluster);
      assert.equal(first.data['kubeVersion'], 'v1.34.4');
      assert.equal(first.data['monitoring'], 'true', '--api-versions from discovery');
      assert.equal((await render(cluster)).renders, 0, 'the same cluster: from the cache');
      const older = await render({ ...cluster, kubeVersion: '1.29.3' });
      assert.equal(older.renders, 1, 'another cluster version renders again');
      assert.equal(older.data['kubeVersion'], 'v1.29.3');
      const none = await render();
      assert.equal(none.renders, 1, 'no cluster (render, diff --base): its own cache entry');
      assert.equal(none.data['monitoring'], 'false', "no cluster: helm's built-in API versions only");
      assert.notEqual(none.data['kubeVersion'], 'v1.34.4', "no cluster: helm's default version");
      repo.remove();
    },
  );
});
