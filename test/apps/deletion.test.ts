/** `deletionStep`: Argo CD's finalizeApplicationDeletion, one step at a time, as a table. */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { deletionStep } from '../../src/apps/index.js';
import type { KubeObject } from '../../src/common/index.js';

const app = (
  finalizers: string[],
  extra: Record<string, unknown> = {},
  syncOptions: Record<string, string> = {},
) => ({
  manifest: {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: {
      name: 'web',
      namespace: 'argocd',
      deletionTimestamp: '2026-11-25T10:00:00Z',
      finalizers,
      ...extra,
    },
  },
  syncOptions,
});
const cm = (
  name: string,
  annotations: Record<string, string> = {},
  more: Record<string, unknown> = {},
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'web', annotations, ...more },
});
const F = 'resources-finalizer.argocd.argoproj.io';
const names = (step: ReturnType<typeof deletionStep>) =>
  step.kind === 'delete' ? step.objects.map((o) => o.metadata?.name) : step.kind;

describe('deletionStep (finalizeApplicationDeletion)', () => {
  it('no propagation finalizer: not cascading, nothing deleted', () => {
    assert.deepEqual(deletionStep(app(['other']), [cm('a')]), {
      kind: 'not-cascading',
      finalizers: ['other'],
    });
  });

  it('highest sync wave first, foreground by default', () => {
    const step = deletionStep(app([F]), [
      cm('low', { 'argocd.argoproj.io/sync-wave': '-1' }),
      cm('high-a', { 'argocd.argoproj.io/sync-wave': '5' }),
      cm('high-b', { 'argocd.argoproj.io/sync-wave': '5' }),
      cm('zero'),
    ]);
    assert.deepEqual(names(step), ['high-a', 'high-b']);
    assert.equal(step.kind === 'delete' && step.propagation, 'Foreground');
  });

  it('/background finalizer: background propagation', () => {
    const step = deletionStep(app([`${F}/background`]), [cm('a')]);
    assert.equal(step.kind === 'delete' && step.propagation, 'Background');
  });

  it('waits while an object is terminating', () => {
    assert.deepEqual(
      deletionStep(app([F]), [cm('a'), cm('b', {}, { deletionTimestamp: '2026-11-25T10:00:01Z' })]),
      {
        kind: 'waiting',
        reason: '1 objects remaining for deletion',
      },
    );
  });

  it('kept: Delete=false (object or app), helm.sh/resource-policy keep, CRDs, the app itself; then done', () => {
    const kept = [
      cm('opt', { 'argocd.argoproj.io/sync-options': 'Prune=false,Delete=false' }),
      cm('helm', { 'helm.sh/resource-policy': 'keep' }),
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'x.example.com' },
      },
      {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name: 'web', namespace: 'argocd' },
      },
    ];
    assert.deepEqual(deletionStep(app([F, 'keep-me']), kept), { kind: 'done', finalizers: ['keep-me'] });
    assert.deepEqual(deletionStep(app([F], {}, { Delete: 'false' }), [cm('a')]), {
      kind: 'done',
      finalizers: [],
    });
  });

  it('Delete=confirm waits for argocd.argoproj.io/deletion-approved at or after the deletion', () => {
    const objs = [cm('c', { 'argocd.argoproj.io/sync-options': 'Delete=confirm' })];
    assert.equal(deletionStep(app([F]), objs).kind, 'waiting');
    const early = { annotations: { 'argocd.argoproj.io/deletion-approved': '2026-11-25T09:00:00Z' } };
    assert.equal(deletionStep(app([F], early), objs).kind, 'waiting');
    const ok = { annotations: { 'argocd.argoproj.io/deletion-approved': '2026-11-25T10:00:00Z' } };
    assert.deepEqual(names(deletionStep(app([F], ok), objs)), ['c']);
  });
});
