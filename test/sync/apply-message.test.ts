/** The message of an applied task, as kubectl prints it and Argo CD 3.6.1 records it (measured by the conformance corpus). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyMessage, missingLastAppliedWarning } from '../../src/sync/groups.js';
import type { SyncTask } from '../../src/sync/types.js';

describe('applyMessage', () => {
  it('names a grouped kind as kind.group, a core kind by its kind alone', () => {
    assert.equal(
      applyMessage({ group: 'apps', kind: 'Deployment', name: 'web' }, 'created'),
      'deployment.apps/web created',
    );
    assert.equal(
      applyMessage({ group: 'batch', kind: 'Job', name: 'migrate' }, 'configured'),
      'job.batch/migrate configured',
    );
    assert.equal(
      applyMessage({ group: '', kind: 'ConfigMap', name: 'settings' }, 'unchanged'),
      'configmap/settings unchanged',
    );
    assert.equal(
      applyMessage({ group: 'c001-a.conformance.example', kind: 'Widget', name: 'w1' }, 'created'),
      'widget.c001-a.conformance.example/w1 created',
    );
  });
});

describe('missingLastAppliedWarning', () => {
  const task = (action: SyncTask['action'], options: Record<string, string> = {}): SyncTask => ({
    id: 'Sync:/ConfigMap:ns/settings',
    phase: 'Sync',
    wave: 0,
    apiVersion: 'v1',
    key: { group: '', kind: 'ConfigMap', namespace: 'ns', name: 'settings' },
    deletePolicies: [],
    options,
    action,
    outOfSync: true,
    target: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'ns' } },
  });
  const bare = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'ns' } };

  it("is kubectl's words under Argo CD's empty command name when a client-side apply patches an object without last-applied", () => {
    assert.equal(
      missingLastAppliedWarning(task('apply'), bare, 'configmaps'),
      // Argo CD 3.6.1's message after "configmap/settings configured. " (conformance corpus c002).
      'Warning: resource configmaps/settings is missing the kubectl.kubernetes.io/last-applied-configuration ' +
        'annotation which is required by  apply.  apply should only be used on resources created declaratively ' +
        'by either  create --save-config or  apply. The missing annotation will be patched automatically.',
    );
  });

  it('is absent for a create, a server-side apply, or an object that has the annotation', () => {
    assert.equal(missingLastAppliedWarning(task('create'), undefined, 'configmaps'), undefined);
    assert.equal(
      missingLastAppliedWarning(task('apply', { ServerSideApply: 'true' }), bare, 'configmaps'),
      undefined,
    );
    const annotated = {
      ...bare,
      metadata: {
        ...bare.metadata,
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
      },
    };
    assert.equal(missingLastAppliedWarning(task('apply'), annotated, 'configmaps'), undefined);
  });
});
