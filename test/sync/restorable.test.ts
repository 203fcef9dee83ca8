import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { restorable } from '../../src/sync/object-copies.js';

describe('restorable: a live object as Force=true creates it again', () => {
  it('drops what the server sets, and a Job its generated selector and controller-uid labels', () => {
    const uid = '0b7c';
    const job = restorable({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name: 'migrate',
        namespace: 'web',
        uid,
        resourceVersion: '42',
        creationTimestamp: '2026-01-01T00:00:00Z',
        generation: 1,
        managedFields: [],
        labels: { app: 'web' },
      },
      spec: {
        selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
        template: {
          metadata: {
            labels: {
              'batch.kubernetes.io/controller-uid': uid,
              'controller-uid': uid,
              'batch.kubernetes.io/job-name': 'migrate',
              'job-name': 'migrate',
            },
          },
          spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
        },
      },
      status: { succeeded: 1 },
    });
    assert.deepEqual(job, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate', namespace: 'web', labels: { app: 'web' } },
      spec: {
        template: {
          metadata: { labels: { 'batch.kubernetes.io/job-name': 'migrate', 'job-name': 'migrate' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
        },
      },
    });
  });

  it('keeps a Job selector the user chose (manualSelector: true)', () => {
    const spec = { manualSelector: true, selector: { matchLabels: { app: 'x' } }, template: {} };
    const job = restorable({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec });
    assert.deepEqual(job['spec'], spec);
  });
});
