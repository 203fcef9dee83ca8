/** The message of an applied task, as kubectl prints it and Argo CD 3.6.1 records it (measured by the conformance corpus). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyMessage } from '../../src/sync/groups.js';

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
