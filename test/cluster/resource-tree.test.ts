/**
 * The resource tree (src/cluster resource-tree.ts, gitops-engine IterateHierarchyV2) over the live
 * cache's store and its owner index (live-cache-store.ts `childrenOf`): descendants by uid, namespaced
 * owners within their namespace, cluster-scoped owners across namespaces, the project's filter, cycles;
 * and the index kept right through owner changes, deletions and `fill`.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { LiveStore } from '../../src/cluster/live-cache-store.js';
import { resourceTree, stubOf, isStub } from '../../src/cluster/index.js';
import type { KubeObject } from '../../src/cluster/index.js';

const obj = (
  apiVersion: string,
  kind: string,
  name: string,
  namespace: string,
  owners: KubeObject[] = [],
  rv = '1',
): KubeObject => ({
  apiVersion,
  kind,
  metadata: {
    name,
    ...(namespace ? { namespace } : {}),
    uid: `uid-${namespace}-${name}`,
    resourceVersion: rv,
    ...(owners.length
      ? {
          ownerReferences: owners.map((o) => ({
            apiVersion: o.apiVersion!,
            kind: o.kind!,
            name: o.metadata!.name!,
            uid: o.metadata!.uid!,
          })),
        }
      : {}),
  },
});
const names = (nodes: KubeObject[]) => nodes.map((n) => n.metadata!.name).sort();
const key = (o: KubeObject) => ({
  group: o.apiVersion!.includes('/') ? o.apiVersion!.split('/')[0]! : '',
  kind: o.kind!,
  namespace: o.metadata!.namespace ?? '',
  name: o.metadata!.name!,
});

describe('stubs keep what the summary reads', () => {
  it('Ingress rules, TLS and load balancer; Gateway listeners and addresses; nothing else', () => {
    const ing = stubOf({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'i', namespace: 'n' },
      spec: { ingressClassName: 'x', tls: [{ secretName: 's' }], rules: [{ host: 'h' }] },
      status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
    });
    assert.deepEqual(ing['spec'], { tls: [{ secretName: 's' }], rules: [{ host: 'h' }] });
    assert.deepEqual(ing['status'], { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } });
    const gw = stubOf({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'g', namespace: 'n' },
      spec: { gatewayClassName: 'c', listeners: [{ name: 'a', hostname: 'h', protocol: 'HTTP', port: 80 }] },
      status: { addresses: [{ value: '1.2.3.4' }], conditions: [{ type: 'Ready' }] },
    });
    assert.deepEqual(gw['spec'], { listeners: [{ hostname: 'h', protocol: 'HTTP', port: 80 }] });
    assert.deepEqual(gw['status'], { addresses: [{ value: '1.2.3.4' }] });
    const svc = stubOf({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { type: 'LoadBalancer' },
    });
    assert.deepEqual(Object.keys(svc), ['apiVersion', 'kind', 'metadata']);
  });
});

describe('resourceTree', () => {
  it('managed objects and their descendants by uid; other namespaces only below cluster-scoped owners', () => {
    const store = new LiveStore(() => undefined);
    const deploy = obj('apps/v1', 'Deployment', 'web', 'a');
    const rs = obj('apps/v1', 'ReplicaSet', 'web-1', 'a', [deploy]);
    const pod = obj('v1', 'Pod', 'web-1-x', 'a', [rs]);
    const elsewhere = obj('v1', 'Pod', 'web-1-y', 'b', [rs]); // not a child: another namespace
    const unrelated = obj('v1', 'Pod', 'other', 'a');
    const crd = obj('example.com/v1', 'Provider', 'prov', '');
    const crossNs = obj('apps/v1', 'Deployment', 'prov-dep', 'c', [crd]);
    const crossPod = obj('v1', 'Pod', 'prov-pod', 'c', [crossNs]);
    for (const o of [deploy, rs, pod, elsewhere, unrelated, crd, crossNs, crossPod]) store.upsert(o);
    const missing = { group: 'apps', kind: 'Deployment', namespace: 'a', name: 'not-created' };
    assert.deepEqual(names(resourceTree(store, [key(deploy), missing])), ['web', 'web-1', 'web-1-x']);
    assert.deepEqual(names(resourceTree(store, [key(crd)])), ['prov', 'prov-dep', 'prov-pod']);
    // The project's filter leaves out an object and what hangs below it.
    const noRs = resourceTree(store, [key(deploy)], { permitted: (k) => k.kind !== 'ReplicaSet' });
    assert.deepEqual(names(noRs), ['web']);
  });

  it('a cycle of owners ends where it closes; each object once', () => {
    const store = new LiveStore(() => undefined);
    const a = obj('v1', 'ConfigMap', 'a', 'n');
    const b = obj('v1', 'ConfigMap', 'b', 'n', [a]);
    a.metadata!.ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'b', uid: b.metadata!.uid! }];
    store.upsert(a);
    store.upsert(b);
    assert.deepEqual(names(resourceTree(store, [key(a), key(b)])), ['a', 'b']);
  });

  it('the owner index follows changed owners, deletions and a stub filled in place', () => {
    const store = new LiveStore(
      () => undefined,
      undefined,
      (o) => stubOf(o),
    );
    const owner = obj('apps/v1', 'ReplicaSet', 'rs', 'n');
    const other = obj('apps/v1', 'ReplicaSet', 'rs2', 'n');
    store.upsert(owner);
    store.upsert(other);
    const pod = {
      ...obj('v1', 'Pod', 'p', 'n', [owner]),
      spec: { containers: [{ name: 'c', image: 'i:1' }] },
    };
    store.upsert(pod);
    const stored = store.childrenOf(owner.metadata!.uid!);
    assert.equal(stored.length, 1);
    assert.ok(isStub(stored[0]));
    assert.deepEqual(stored[0]!['spec'], { containers: [{ image: 'i:1' }] }, 'a stub keeps the images');
    const full = { ...pod };
    assert.ok(store.fill(full, isStub));
    assert.equal(store.childrenOf(owner.metadata!.uid!)[0], full, 'the filled object takes the stub’s place');
    store.upsert({ ...obj('v1', 'Pod', 'p', 'n', [other], '2') });
    assert.deepEqual(store.childrenOf(owner.metadata!.uid!), []);
    assert.equal(store.childrenOf(other.metadata!.uid!).length, 1);
    store.remove(pod);
    assert.deepEqual(store.childrenOf(other.metadata!.uid!), []);
  });
});
