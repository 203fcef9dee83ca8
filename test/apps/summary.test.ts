/** `applicationSummary`: Argo CD's status.summary (images, external URLs, app of apps) from live objects. */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { applicationSummary } from '../../src/apps/index.js';

describe('applicationSummary', () => {
  it('images of Pods and workload templates, Ingress and link URLs, app of apps; sorted, deduplicated', () => {
    const summary = applicationSummary(
      [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: {
            name: 'web',
            annotations: { 'link.argocd.argoproj.io/docs': 'Docs|https://docs.example.com' },
          },
          spec: {
            template: {
              spec: { initContainers: [{ image: 'busybox:1' }], containers: [{ image: 'nginx:1.25' }] },
            },
          },
        },
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'p' },
          spec: { containers: [{ image: 'nginx:1.25' }] },
        },
        {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          metadata: { name: 'c' },
          spec: { jobTemplate: { spec: { template: { spec: { containers: [{ image: 'job:2' }] } } } } },
        },
        {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'Ingress',
          metadata: { name: 'i' },
          spec: {
            tls: [{ hosts: ['secure.example.com'] }],
            rules: [
              { host: 'secure.example.com', http: { paths: [{ path: '/app*' }] } },
              { host: 'plain.example.com', http: { paths: [{ path: '/' }] } },
            ],
          },
        },
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 's', annotations: { 'link.argocd.argoproj.io/x': 'javascript:alert(1)' } },
        },
        { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'child' } },
      ],
      { 'link.argocd.argoproj.io/dash': 'https://dash.example.com' },
    );
    assert.deepEqual(summary, {
      externalURLs: [
        'Docs|https://docs.example.com',
        'http://plain.example.com/',
        'https://dash.example.com',
        'https://secure.example.com/app',
      ],
      images: ['busybox:1', 'job:2', 'nginx:1.25'],
      isAppOfApps: true,
    });
  });

  it('nothing: empty lists', () => {
    assert.deepEqual(applicationSummary([]), { externalURLs: [], images: [], isAppOfApps: false });
  });
});
