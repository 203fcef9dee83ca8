import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { compareResource } from '../../src/diff/index.js';
import type { KubeObject } from '../../src/util/yaml-docs.js';
import {
  TRACKING,
  container,
  deploymentLive,
  deploymentTarget,
  podSpec,
  serviceLive,
  serviceTarget,
  withLastApplied,
  withoutManagedFields,
} from './fixtures.js';
import type { Any } from './fixtures.js';

const edit = (obj: KubeObject, fn: (o: Any) => void): KubeObject => {
  const copy = structuredClone(obj);
  fn(copy as Any);
  return copy;
};

describe('Synced: nothing but server additions differ', () => {
  it('a Deployment is in sync despite server defaults, managedFields, metadata and status', () => {
    const r = compareResource({ target: deploymentTarget(), live: deploymentLive() });
    assert.equal(r.status, 'Synced');
    assert.equal(r.difference, 'none');
    assert.deepEqual(r.changes, []);
    assert.equal(r.diffText, undefined);
    const meta = (r.normalizedLive as Any)['metadata'];
    for (const f of ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields']) {
      assert.equal(meta[f], undefined, f);
    }
    assert.equal((r.normalizedLive as Any)['status'], undefined);
  });

  it('a Service is in sync despite the allocated clusterIP, targetPort, protocol and type defaults', () => {
    const r = compareResource({ target: serviceTarget(), live: serviceLive() });
    assert.equal(r.status, 'Synced');
  });

  it('the inputs are not mutated', () => {
    const target = deploymentTarget();
    const live = deploymentLive();
    const before = JSON.stringify([target, live]);
    compareResource({ target, live });
    assert.equal(JSON.stringify([target, live]), before);
  });

  it('quantities written differently are equal: 1000m = 1, 0.5 = 500m, 1024Mi = 1Gi', () => {
    const target = edit(deploymentTarget(), (o) => {
      container(o as KubeObject)['resources'] = {
        limits: { cpu: '1000m', memory: '1024Mi' },
        requests: { cpu: 0.5 },
      };
    });
    const live = edit(deploymentLive(), (o) => {
      container(o as KubeObject)['resources'] = {
        limits: { cpu: '1', memory: '1Gi' },
        requests: { cpu: '500m' },
      };
    });
    assert.equal(compareResource({ target, live }).status, 'Synced');
  });

  it('a different quantity is drift', () => {
    const target = edit(deploymentTarget(), (o) => {
      container(o as KubeObject)['resources'] = { limits: { cpu: '2' } };
    });
    const live = edit(deploymentLive(), (o) => {
      container(o as KubeObject)['resources'] = { limits: { cpu: '1000m' } };
    });
    assert.equal(compareResource({ target, live }).status, 'OutOfSync');
  });

  it('ports written as strings are not normalized away: OutOfSync against the live numbers', () => {
    // Argo CD's typed remarshal fails on a string in an integer field and compares the object as written.
    const svc = edit(serviceTarget(), (o) => {
      o['spec']['ports'] = [{ name: 'http', port: '80', targetPort: '80' }];
    });
    assert.equal(compareResource({ target: svc, live: serviceLive() }).status, 'OutOfSync');
    const dep = edit(deploymentTarget(), (o) => {
      container(o as KubeObject)['ports'] = [{ containerPort: '8080' }];
    });
    const live = edit(deploymentLive(), (o) => {
      container(o as KubeObject)['ports'] = [{ containerPort: 8080, protocol: 'TCP' }];
    });
    assert.equal(compareResource({ target: dep, live }).status, 'OutOfSync');
    const numbers = edit(deploymentTarget(), (o) => {
      container(o as KubeObject)['ports'] = [{ containerPort: 8080 }];
    });
    assert.equal(compareResource({ target: numbers, live }).status, 'Synced', 'the same port as a number');
  });

  it('empty and missing maps/lists are equal', () => {
    const target = edit(deploymentTarget(), (o) => {
      o['metadata']['annotations'] = { ...o['metadata']['annotations'] };
      o['spec']['template']['metadata']['annotations'] = {};
      container(o as KubeObject)['args'] = [];
      container(o as KubeObject)['env'] = null;
      podSpec(o as KubeObject)['volumes'] = [];
    });
    assert.equal(compareResource({ target, live: deploymentLive() }).status, 'Synced');
  });

  it('a sidecar injected by a webhook (never applied by us) is not a difference', () => {
    const live = edit(deploymentLive(), (o) => {
      podSpec(o as KubeObject)['containers'].unshift({ name: 'istio-proxy', image: 'istio/proxyv2:1.22' });
    });
    assert.equal(compareResource({ target: deploymentTarget(), live }).status, 'Synced');
  });

  it('replicas set by an autoscaler are not a difference when Git does not set them', () => {
    const target = edit(deploymentTarget(), (o) => delete o['spec']['replicas']);
    const live = edit(withoutManagedFields(deploymentLive()), (o) => {
      o['spec']['replicas'] = 7;
    });
    assert.equal(compareResource({ target, live }).status, 'Synced');
  });

  it('tracking migration: live with the instance label but no tracking-id matches an annotated target', () => {
    const live = edit(deploymentLive(), (o) => {
      delete o['metadata']['annotations'][TRACKING];
      o['metadata']['labels']['app.kubernetes.io/instance'] = 'shop';
    });
    assert.equal(compareResource({ target: deploymentTarget(), live }).status, 'Synced');
    assert.equal(
      compareResource({ target: deploymentTarget(), live, trackingMethod: 'label' }).status,
      'OutOfSync',
    );
  });

  it('tracking migration leaves a live tracking-id alone: one that differs is a difference (argo-cd#17965)', () => {
    // A chart's own app.kubernetes.io/instance label on an object whose tracking-id names it elsewhere
    // (conformance c191-c194: a cluster-scoped APIService whose live id lacks the destination namespace).
    const live = edit(deploymentLive(), (o) => {
      o['metadata']['annotations'][TRACKING] = 'shop:apps/Deployment:elsewhere/web';
      o['metadata']['labels']['app.kubernetes.io/instance'] = 'external-dns';
    });
    const r = compareResource({ target: deploymentTarget(), live });
    assert.equal(r.status, 'OutOfSync');
  });

  it('a StatefulSet is in sync despite the fields the server adds to volumeClaimTemplates', () => {
    const vct = {
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1024Mi' } } },
    };
    const target: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'shop' },
      spec: { serviceName: 'db', selector: { matchLabels: { app: 'db' } }, volumeClaimTemplates: [vct] },
    };
    const live = edit(target, (o) => {
      o['spec']['replicas'] = 1;
      o['spec']['volumeClaimTemplates'] = [
        {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: { name: 'data', creationTimestamp: null },
          spec: {
            accessModes: ['ReadWriteOnce'],
            resources: { requests: { storage: '1Gi' } },
            volumeMode: 'Filesystem',
          },
          status: { phase: 'Pending' },
        },
      ];
    });
    assert.equal(compareResource({ target, live }).status, 'Synced');
    const bigger = edit(target, (o) => {
      o['spec']['volumeClaimTemplates'][0]['spec']['resources']['requests']['storage'] = '2Gi';
    });
    assert.equal(compareResource({ target: bigger, live }).status, 'OutOfSync');
  });

  it('custom resources: fields the server adds inside list elements are not differences', () => {
    const target: KubeObject = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'shop' },
      spec: { size: 1, parts: [{ name: 'a' }] },
    };
    const live = edit(target, (o) => {
      o['metadata']['uid'] = 'x';
      o['spec']['parts'][0]['weight'] = 10;
      o['spec']['defaulted'] = true;
    });
    assert.equal(compareResource({ target, live }).status, 'Synced');
  });
});

describe('OutOfSync: drift in what Git sets', () => {
  it('scaled by hand and image changed: OutOfSync with structured changes and a diff', () => {
    const live = edit(deploymentLive(), (o) => {
      o['spec']['replicas'] = 5;
      container(o as KubeObject)['image'] = 'nginx:1.24';
    });
    const r = compareResource({ target: deploymentTarget(), live });
    assert.equal(r.status, 'OutOfSync');
    assert.equal(r.difference, 'modified');
    const spec = r.changes.find((c) => c.key === 'spec');
    const replicas = spec?.changes?.find((c) => c.key === 'replicas');
    assert.deepEqual({ value: replicas?.value, oldValue: replicas?.oldValue }, { value: 2, oldValue: 5 });
    assert.match(r.diffText ?? '', /^- {2}replicas: 5$/m);
    assert.match(r.diffText ?? '', /^\+ {2}replicas: 2$/m);
    assert.match(r.diffText ?? '', /^\+ {6}- image: nginx:1\.25$/m);
  });

  it('an atomic list changed in Git (container args) is drift', () => {
    const target = edit(deploymentTarget(), (o) => {
      container(o as KubeObject)['args'] = ['--port=80', '--verbose'];
    });
    const live = edit(deploymentLive(), (o) => {
      container(o as KubeObject)['args'] = ['--port=80'];
    });
    assert.equal(compareResource({ target, live }).status, 'OutOfSync');
  });

  it('a Git status differs only when status is compared (ignoreResourceStatusField)', () => {
    const target = edit(deploymentTarget(), (o) => {
      o['status'] = { replicas: 9 };
    });
    assert.equal(compareResource({ target, live: deploymentLive() }).status, 'Synced');
    assert.equal(
      compareResource({ target, live: deploymentLive(), ignoreResourceStatusField: 'crd' }).status,
      'OutOfSync',
    );
    assert.equal(
      compareResource({ target, live: deploymentLive(), ignoreResourceStatusField: 'none' }).status,
      'OutOfSync',
    );
  });
});

describe('Field removed in Git (three-way)', () => {
  const applied = edit(deploymentTarget(), (o) => {
    o['metadata']['labels']['tier'] = 'front';
  });
  const liveWithTier = edit(withoutManagedFields(deploymentLive()), (o) => {
    o['metadata']['labels']['tier'] = 'front';
  });

  it('OutOfSync when the last-applied annotation lists the removed field', () => {
    const r = compareResource({ target: deploymentTarget(), live: withLastApplied(liveWithTier, applied) });
    assert.equal(r.status, 'OutOfSync');
    assert.match(r.diffText ?? '', /^- {4}tier: front$/m);
    assert.doesNotMatch(r.diffText ?? '', /last-applied/);
  });

  it('Synced without last-applied or managedFields: a live-only field may be the server’s', () => {
    assert.equal(compareResource({ target: deploymentTarget(), live: liveWithTier }).status, 'Synced');
  });

  it('OutOfSync when our field manager owns the removed field (structured-merge)', () => {
    const live = edit(deploymentLive(), (o) => {
      o['metadata']['labels']['tier'] = 'front';
      o['metadata']['managedFields'][0]['fieldsV1']['f:metadata']['f:labels']['f:tier'] = {};
    });
    assert.equal(
      compareResource({ target: deploymentTarget(), live, structuredMergeDiff: true }).status,
      'OutOfSync',
    );
    // Owned by someone else: not ours to remove.
    assert.equal(
      compareResource({
        target: deploymentTarget(),
        live,
        structuredMergeDiff: true,
        fieldManagers: ['kubectl-gitops'],
      }).status,
      'Synced',
    );
    // Without ServerSideApply=true (and no last-applied) Argo CD diffs two-way: a live-only field is kept.
    const twoWay = compareResource({ target: deploymentTarget(), live });
    assert.deepEqual([twoWay.status, twoWay.strategy], ['Synced', 'two-way']);
  });

  it('a container removed from Git that was applied before is drift', () => {
    const twoContainers = edit(deploymentTarget(), (o) => {
      podSpec(o as KubeObject)['containers'].push({ name: 'log', image: 'busybox:1.36' });
    });
    const live = edit(withoutManagedFields(deploymentLive()), (o) => {
      podSpec(o as KubeObject)['containers'].push({ name: 'log', image: 'busybox:1.36' });
    });
    const r = compareResource({ target: deploymentTarget(), live: withLastApplied(live, twoContainers) });
    assert.equal(r.status, 'OutOfSync');
    assert.match(r.diffText ?? '', /^- {6}- image: busybox:1\.36$/m);
  });

  it('removing a field whose default equals the live value is not drift; removing replicas: 3 is', () => {
    const applied3 = edit(deploymentTarget(), (o) => {
      o['spec']['replicas'] = 3;
      container(o as KubeObject)['imagePullPolicy'] = 'IfNotPresent';
    });
    const live3 = edit(withoutManagedFields(deploymentLive()), (o) => {
      o['spec']['replicas'] = 3;
    });
    const target = edit(deploymentTarget(), (o) => delete o['spec']['replicas']);
    const r = compareResource({ target, live: withLastApplied(live3, applied3) });
    assert.equal(r.status, 'OutOfSync');
    assert.match(r.diffText ?? '', /^- {2}replicas: 3\n\+ {2}replicas: 1$/m);
    assert.doesNotMatch(r.diffText ?? '', /imagePullPolicy/);
  });
});

describe('Structured-merge (ServerSideApply=true): the original is our Apply entry, minus what others own', () => {
  const cm = (data: Record<string, string>, managedFields?: unknown[]): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', namespace: 'shop', ...(managedFields ? { managedFields } : {}) },
    data,
  });
  const entry = (manager: string, operation: string, keys: string[]): unknown => ({
    manager,
    operation,
    apiVersion: 'v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:data': Object.fromEntries(keys.map((k) => [`f:${k}`, {}])) },
  });
  const target = cm({ kept: 'v' });

  it('a key only our Apply entry owns and Git dropped is drift (pruned by the apply)', () => {
    const live = cm({ kept: 'v', mine: 'x' }, [entry('argocd-controller', 'Apply', ['kept', 'mine'])]);
    const r = compareResource({ target, live, structuredMergeDiff: true });
    assert.deepEqual([r.status, r.strategy], ['OutOfSync', 'structured-merge']);
    assert.match(r.diffText ?? '', /^- {2}mine: x$/m);
  });

  it('a key another manager also owns is kept (structured-merge-diff addBackOwnedItems)', () => {
    const live = cm({ kept: 'v', shared: 'x' }, [
      entry('argocd-controller', 'Apply', ['kept', 'shared']),
      entry('kubectl', 'Apply', ['shared']),
    ]);
    assert.equal(compareResource({ target, live, structuredMergeDiff: true }).status, 'Synced');
  });

  it('an Update entry of our manager (a client-side apply) is not the applied set', () => {
    const live = cm({ kept: 'v', old: 'x' }, [entry('argocd-controller', 'Update', ['kept', 'old'])]);
    assert.equal(compareResource({ target, live, structuredMergeDiff: true }).status, 'Synced');
  });

  it('a map Git dropped whole loses only our keys; the keys others own stay', () => {
    const live = cm({ mine: 'x', theirs: 'y' }, [
      entry('argocd-controller', 'Apply', ['mine']),
      entry('someone-else', 'Update', ['theirs']),
    ]);
    const r = compareResource({ target: cm({}), live, structuredMergeDiff: true });
    assert.equal(r.status, 'OutOfSync');
    assert.deepEqual((r.normalizedTarget as Any)['data'], { theirs: 'y' });
  });
});

describe('Missing and extra resources', () => {
  it('missing live: OutOfSync/missing, the whole target as additions', () => {
    const r = compareResource({ target: serviceTarget(), live: null });
    assert.equal(r.status, 'OutOfSync');
    assert.equal(r.difference, 'missing');
    assert.equal(r.normalizedLive, null);
    assert.equal((r.normalizedTarget as Any)['metadata']['namespace'], 'shop');
    const lines = (r.diffText ?? '').split('\n').slice(3).filter(Boolean);
    assert.ok(lines.length > 5 && lines.every((l) => l.startsWith('+')));
  });

  it('extra live (no target): OutOfSync/extra, the whole live object as removals', () => {
    const r = compareResource({ target: undefined, live: serviceLive() });
    assert.equal(r.status, 'OutOfSync');
    assert.equal(r.difference, 'extra');
    assert.equal(r.normalizedTarget, null);
    const lines = (r.diffText ?? '').split('\n').slice(3).filter(Boolean);
    assert.ok(lines.length > 5 && lines.every((l) => l.startsWith('-')));
  });
});

describe('argo-cd#15898: an empty metadata.labels in Git on a custom resource', () => {
  const cr = (metadata: Record<string, unknown>): KubeObject => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: {
      name: 'w',
      namespace: 'default',
      ...metadata,
      annotations: { [TRACKING]: 'app:example.com/Widget:default/w', ...(metadata['annotations'] as object) },
    },
    spec: { size: 1 },
  });
  // The API server stores no empty map: the live object has no labels.
  const live = withLastApplied(cr({}), cr({ labels: {} }));

  it('is OutOfSync as Argo CD reports it (three-way and two-way), with a note naming the issue', () => {
    for (const l of [live, cr({})]) {
      const r = compareResource({ target: cr({ labels: {} }), live: l });
      assert.equal(r.status, 'OutOfSync');
      assert.equal(r.difference, 'modified');
      assert.equal(r.strategy, l === live ? 'three-way' : 'two-way');
      assert.match(r.note ?? '', /argo-cd#15898/);
      assert.match(r.diffText ?? '', /^\+ {2}labels: \{\}$/m);
    }
  });

  it('is Synced when live has labels, on built-in kinds, without the empty map, and in server-side diff', () => {
    const labelled = compareResource({ target: cr({ labels: {} }), live: cr({ labels: { a: 'b' } }) });
    assert.equal(labelled.status, 'Synced');
    assert.equal(labelled.note, undefined);
    const configMap = (labels?: Record<string, string>): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'default', ...(labels ? { labels } : {}) },
      data: { a: '1' },
    });
    assert.equal(compareResource({ target: configMap({}), live: configMap() }).status, 'Synced');
    assert.equal(compareResource({ target: cr({}), live: cr({}) }).status, 'Synced');
    const predicted = {
      ...cr({}),
      metadata: {
        ...cr({}).metadata,
        managedFields: [
          {
            manager: 'argocd-controller',
            operation: 'Apply',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:spec': { 'f:size': {} } },
          },
        ],
      },
    };
    const ssd = compareResource({ target: cr({ labels: {} }), live: cr({}), predictedLive: predicted });
    assert.equal(ssd.strategy, 'server-side');
    assert.equal(ssd.status, 'Synced');
  });

  it('an empty annotations map is not affected (removeNamespaceAnnotation drops it): Synced', () => {
    const bare = (annotations?: Record<string, string>): KubeObject => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: {
        name: 'w',
        namespace: 'default',
        labels: { 'app.kubernetes.io/instance': 'app' },
        ...(annotations ? { annotations } : {}),
      },
      spec: { size: 1 },
    });
    const r = compareResource({ target: bare({}), live: bare(), trackingMethod: 'label' });
    assert.equal(r.status, 'Synced');
    assert.equal(r.note, undefined);
  });
});
