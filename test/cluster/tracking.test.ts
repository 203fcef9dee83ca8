import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  owningApp,
  parseTrackingId,
  defaultTransform,
  stripTransform,
  keyOf,
  formatKey,
} from '../../src/cluster/index.js';
import type { KubeObject } from '../../src/cluster/index.js';

const obj = (labels: Record<string, string>, annotations: Record<string, string>): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', labels, annotations },
});

describe('resource tracking', () => {
  it('parses a tracking-id into app, group/kind and namespace/name', () => {
    assert.deepEqual(parseTrackingId('guestbook:apps/Deployment:shop/web'), {
      app: 'guestbook',
      group: 'apps',
      kind: 'Deployment',
      namespace: 'shop',
      name: 'web',
    });
    assert.deepEqual(parseTrackingId('argocd_guestbook:/ConfigMap:shop/cm'), {
      app: 'argocd_guestbook',
      group: '',
      kind: 'ConfigMap',
      namespace: 'shop',
      name: 'cm',
    });
  });

  it('rejects tracking-ids without exactly three parts or without their slashes', () => {
    for (const bad of [
      'guestbook',
      'a:b:c:d',
      'app:Deployment:shop/web',
      'app:apps/Deployment:web',
      ':apps/D:ns/n',
    ]) {
      assert.equal(parseTrackingId(bad), undefined, bad);
    }
  });

  it('annotation tracking (the default) reads the tracking-id, not the label', () => {
    const o = obj(
      { 'app.kubernetes.io/instance': 'from-label' },
      { 'argocd.argoproj.io/tracking-id': 'from-id:apps/Deployment:shop/web' },
    );
    assert.equal(owningApp(o), 'from-id');
    assert.equal(owningApp(o, { method: 'annotation+label' }), 'from-id');
    assert.equal(owningApp(obj({ 'app.kubernetes.io/instance': 'x' }, {})), undefined);
    assert.equal(owningApp(obj({}, { 'argocd.argoproj.io/tracking-id': 'broken' })), undefined);
  });

  it('label tracking reads the instance label, with a configurable key', () => {
    const o = obj({ 'app.kubernetes.io/instance': 'a', custom: 'b' }, {});
    assert.equal(owningApp(o, { method: 'label' }), 'a');
    assert.equal(owningApp(o, { method: 'label', instanceLabelKey: 'custom' }), 'b');
  });

  it('an installation ID excludes objects stamped by another installation', () => {
    const id = 'app:apps/Deployment:shop/web';
    const mine = obj(
      {},
      { 'argocd.argoproj.io/tracking-id': id, 'argocd.argoproj.io/installation-id': 'one' },
    );
    const other = obj(
      {},
      { 'argocd.argoproj.io/tracking-id': id, 'argocd.argoproj.io/installation-id': 'two' },
    );
    assert.equal(owningApp(mine, { installationId: 'one' }), 'app');
    assert.equal(owningApp(other, { installationId: 'one' }), undefined);
  });
});

describe('transforms and keys', () => {
  it('the default transform drops managedFields and keeps last-applied-configuration', () => {
    const o: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        managedFields: [{ manager: 'kubectl' }],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
      },
      data: { a: '1' },
    };
    const t = defaultTransform(o);
    assert.equal(t.metadata?.managedFields, undefined);
    assert.deepEqual(t.metadata?.annotations, { 'kubectl.kubernetes.io/last-applied-configuration': '{}' });
    assert.deepEqual(t.data, { a: '1' });
  });

  it('stripTransform drops chosen annotations and fields', () => {
    const t = stripTransform({ managedFields: false, annotations: ['big'], fields: ['status'] });
    const o = t({
      kind: 'X',
      metadata: { managedFields: [], annotations: { big: 'x', keep: 'y' } },
      status: {},
    });
    assert.deepEqual(o, { kind: 'X', metadata: { managedFields: [], annotations: { keep: 'y' } } });
  });

  it('keys use the group of the apiVersion and "" for cluster-scoped namespaces', () => {
    assert.equal(
      formatKey(
        keyOf({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'w', namespace: 'n' } }),
      ),
      'apps/Deployment/n/w',
    );
    assert.equal(
      formatKey(keyOf({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } })),
      '/Namespace//n',
    );
  });
});
