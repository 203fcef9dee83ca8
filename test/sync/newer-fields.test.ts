/**
 * The case users hit first: a CRD with CEL rules (`x-kubernetes-validations`, added to CRD schemas after
 * Kubernetes 1.22) and a Deployment with a sidecar init container (`restartPolicy: Always`) and
 * `resizePolicy`, synced with `ServerSideApply=true` to the embedded server, which serves v1.32. The sync
 * succeeds, the fields are stored, and the next refresh finds nothing to do.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { api, useEmbeddedCluster } from '../support/embedded.js';
import { crdWithSchema } from '../support/crds.js';
import { TestRepo } from '../support/git.js';
import { application, newCacheRoot, refresh, reportOf, sync, syncRequest } from '../controller/setup.js';

const crd = crdWithSchema('example.com', 'Gadget', {
  type: 'object',
  'x-kubernetes-validations': [{ rule: 'has(self.spec)' }],
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= 0' }] },
      },
    },
  },
});

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        initContainers: [{ name: 'proxy', image: 'envoy:1', restartPolicy: 'Always' }],
        containers: [
          {
            name: 'web',
            image: 'nginx:1',
            resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }],
          },
        ],
      },
    },
  },
};

describe('sync with ServerSideApply=true of fields added after Kubernetes 1.22', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  after(() => repo.remove());

  it('succeeds, stores the fields, and the next refresh is Synced', async () => {
    repo.commit({
      'newer/crd.yaml': stringify(crd),
      'newer/deploy.yaml': stringify(deployment),
    });
    const app = application('newer', repo.url, 'newer', { namespace: 'newer' });
    const report = reportOf(
      await sync(
        fx,
        [app],
        cacheRoot,
        syncRequest({ syncOptions: { CreateNamespace: 'true', ServerSideApply: 'true' } }),
      ),
      'newer',
    );
    assert.equal(report.operation?.phase, 'Succeeded', report.operation?.message);
    const storedCrd = await api(
      fx.cluster,
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com',
    );
    const schema = storedCrd.body.spec.versions[0].schema.openAPIV3Schema;
    assert.deepEqual(schema['x-kubernetes-validations'], [{ rule: 'has(self.spec)' }]);
    assert.deepEqual(schema.properties.spec.properties.size['x-kubernetes-validations'], [
      { rule: 'self >= 0' },
    ]);
    const live = await api(fx.cluster, 'GET', '/apis/apps/v1/namespaces/newer/deployments/web');
    const pod = live.body.spec.template.spec;
    assert.equal(pod.initContainers[0].restartPolicy, 'Always');
    assert.deepEqual(pod.containers[0].resizePolicy, [
      { resourceName: 'memory', restartPolicy: 'RestartContainer' },
    ]);

    const again = reportOf(await refresh(fx, [app], cacheRoot), 'newer').comparison!;
    assert.deepEqual(
      again.resources
        .filter((r) => r.status !== 'Synced')
        .map((r) => `${r.kind}/${r.name}: ${r.diffText ?? ''}`),
      [],
    );
    assert.equal(again.sync, 'Synced');
  });
});
