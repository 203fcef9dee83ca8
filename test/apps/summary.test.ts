/**
 * `applicationSummary`: Argo CD's status.summary (types.go GetSummary over controller/cache/info.go
 * populateNodeInfo) from the nodes of the app's resource tree: images of live Pods only (no Pod
 * templates), Ingress and link URLs with Argo CD's rules, app of apps.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { applicationSummary } from '../../src/apps/index.js';

const ingress = (name: string, spec: object, annotations?: Record<string, string>, status?: object) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec,
  ...(status ? { status } : {}),
});

describe('applicationSummary', () => {
  it('images of live Pods, never of Pod templates; Ingress and link URLs; app of apps; sorted', () => {
    const summary = applicationSummary(
      [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: {
            name: 'web',
            annotations: { 'link.argocd.argoproj.io/docs': 'Docs|https://docs.example.com' },
          },
          spec: { template: { spec: { containers: [{ image: 'nginx:1.25' }] } } },
        },
        {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'web-1' },
          spec: { initContainers: [{ image: 'busybox:1' }], containers: [{ image: 'nginx:1.26' }] },
        },
        {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          metadata: { name: 'c' },
          spec: { jobTemplate: { spec: { template: { spec: { containers: [{ image: 'job:2' }] } } } } },
        },
        // TLS hosts without a secretName: http (populateIngressInfo reads `hosts` as a map: never matches).
        ingress('hosts-only', {
          tls: [{ hosts: ['a.example.com'] }],
          rules: [{ host: 'a.example.com', http: { paths: [{ path: '/app*' }] } }],
        }),
        // A secretName: every rule https; a rule without host takes the load balancer's address.
        ingress(
          'secret',
          {
            tls: [{ secretName: 'cert' }],
            rules: [{ host: 'b.example.com', http: { paths: [{ path: '/' }] } }, { http: { paths: [{}] } }],
          },
          undefined,
          { loadBalancer: { ingress: [{ ip: '10.0.0.9' }] } },
        ),
        ingress(
          'ignored',
          { rules: [{ host: 'c.example.com', http: { paths: [{ path: '/' }] } }] },
          { 'argocd.argoproj.io/ignore-default-links': 'True' },
        ),
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 's', annotations: { 'link.argocd.argoproj.io/x': 'javascript:alert(1)' } },
        },
        { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'child' } },
        // A Gateway: listener hostnames, else its addresses (a NamedAddress is not one); :port unless 80/443.
        {
          apiVersion: 'gateway.networking.k8s.io/v1',
          kind: 'Gateway',
          metadata: { name: 'gw' },
          spec: {
            listeners: [
              { name: 'tls', hostname: 'gw.example.com', protocol: 'HTTPS', port: 443 },
              { name: 'any', hostname: '*', protocol: 'HTTP', port: 8080 },
            ],
          },
          status: {
            addresses: [
              { type: 'IPAddress', value: '10.1.1.1' },
              { type: 'NamedAddress', value: 'internal' },
            ],
          },
        },
      ],
      // The Application's own links are taken as they are (GetSummary does not validate them).
      {
        'link.argocd.argoproj.io/dash': 'https://dash.example.com',
        'link.argocd.argoproj.io/raw': 'not a url',
      },
    );
    assert.deepEqual(summary, {
      externalURLs: [
        'Docs|https://docs.example.com',
        'http://10.1.1.1:8080',
        'http://a.example.com/app',
        'https://10.0.0.9',
        'https://b.example.com/',
        'https://dash.example.com',
        'https://gw.example.com',
        'not a url',
      ],
      images: ['busybox:1', 'nginx:1.26'],
      isAppOfApps: true,
    });
  });

  it('nothing: empty lists', () => {
    assert.deepEqual(applicationSummary([]), { externalURLs: [], images: [], isAppOfApps: false });
  });
});
