/**
 * What kube-apiserver writes into a new Pod's status and keeps there (src/embedded/pod-status.ts): phase
 * Pending and the QoS class from the Pod's resources; `status.qosClass` is immutable, and a status write
 * that leaves it out keeps it. Found by our tests on the real server (docs/conformance.md, "Our tests on the
 * real server"): the workload simulation wrote BestEffort for every Pod, which a real server refuses for a
 * Pod with resources. The Pods name a node nobody runs, so no kubelet (the rig's stand-in) races the test.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, useEmbeddedCluster } from '../support/embedded.js';
import { podQosClass } from '../../src/embedded/pod-status.js';
import type { Json } from '../../src/embedded/types.js';

const PODS = '/api/v1/namespaces/default/pods';
const pod = (name: string, resources: object, extra: object = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { nodeName: 'no-such-node', containers: [{ name: 'main', image: 'busybox', resources, ...extra }] },
});

describe('Pod status written by the API server (embedded API server)', () => {
  const fx = useEmbeddedCluster();

  it('a new Pod is Pending with the QoS class of its resources', async () => {
    const cases: Array<[string, object, string]> = [
      ['best', {}, 'BestEffort'],
      ['zero', { requests: { cpu: '0' } }, 'BestEffort'],
      ['burst', { requests: { cpu: '100m' } }, 'Burstable'],
      ['guar', { limits: { cpu: '100m', memory: '64Mi' } }, 'Guaranteed'],
      [
        'same',
        { requests: { cpu: '0.1', memory: '64Mi' }, limits: { cpu: '100m', memory: '67108864' } },
        'Guaranteed',
      ],
      [
        'more',
        { requests: { cpu: '50m', memory: '64Mi' }, limits: { cpu: '100m', memory: '64Mi' } },
        'Burstable',
      ],
      ['gpu', { limits: { 'example.com/gpu': '1' } }, 'BestEffort'],
    ];
    for (const [name, resources, qos] of cases) {
      const res = await api(fx.cluster, 'POST', PODS, pod(name, resources));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual([name, res.body.status.phase, res.body.status.qosClass], [name, 'Pending', qos]);
      assert.equal(podQosClass(pod(name, resources).spec as unknown as Json), qos, name);
    }
  });

  it('status.qosClass is immutable; a status write without it keeps it', async () => {
    assert.equal(
      (await api(fx.cluster, 'POST', PODS, pod('fixed', { limits: { cpu: '1', memory: '1Gi' } }))).status,
      201,
    );
    const patch = (status: object) =>
      api(fx.cluster, 'PATCH', `${PODS}/fixed/status`, { status }, 'application/merge-patch+json');
    const changed = await patch({ qosClass: 'BestEffort' });
    assert.equal(changed.status, 422, JSON.stringify(changed.body));
    assert.match(changed.body.message, /status\.qosClass: Invalid value: "BestEffort": field is immutable/);
    const left = await patch({ qosClass: null, phase: 'Running' });
    assert.equal(left.status, 200, JSON.stringify(left.body));
    assert.deepEqual([left.body.status.phase, left.body.status.qosClass], ['Running', 'Guaranteed']);
  });
});
