/**
 * @kubernetes/client-node (a dependency of this project) against the embedded server with the kubeconfig
 * it writes: typed and generic clients, strategic merge patch, and Watch.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { useEmbeddedCluster } from '../support/embedded.js';

describe('@kubernetes/client-node against the embedded server', () => {
  const fx = useEmbeddedCluster();
  const config = (): k8s.KubeConfig => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(fx.kubeconfig);
    return kc;
  };

  it('lists, creates, patches and reads through the typed and generic clients', async () => {
    const kc = config();
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const namespaces = await core.listNamespace();
    assert.ok(namespaces.items.some((n) => n.metadata?.name === 'default'));
    const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
    const cm: k8s.KubernetesObject & { data: Record<string, string> } = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cn', namespace: 'default' },
      data: { a: '1' },
    };
    const created = await objects.create(cm);
    assert.ok(created.metadata?.uid);
    await objects.patch(
      { ...cm, data: { b: '2' } },
      undefined,
      undefined,
      'client-node-test',
      undefined,
      k8s.PatchStrategy.StrategicMergePatch,
    );
    const read = (await core.readNamespacedConfigMap({
      name: 'cn',
      namespace: 'default',
    })) as k8s.V1ConfigMap;
    assert.deepEqual(read.data, { a: '1', b: '2' });
  });

  it('Watch delivers events and ends when aborted', async () => {
    const kc = config();
    const seen: string[] = [];
    let resolveDone: (e: unknown) => void = () => {};
    const done = new Promise((r) => (resolveDone = r));
    let resolveAdded: () => void = () => {};
    const added = new Promise<void>((r) => (resolveAdded = r));
    const req = await new k8s.Watch(kc).watch(
      '/api/v1/namespaces/default/configmaps',
      {},
      (type: string, obj: k8s.KubernetesObject) => {
        seen.push(`${type} ${obj.metadata?.name}`);
        if (seen.includes('ADDED watched')) resolveAdded();
      },
      (err) => resolveDone(err),
    );
    const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
    await objects.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'watched', namespace: 'default' },
    });
    await added;
    req.abort();
    await done;
    assert.ok(seen.includes('ADDED watched'), seen.join(', '));
  });
});
