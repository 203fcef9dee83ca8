// Fixtures for the diff tests: a Git target and the object a real API server returns for it after apply
// (defaults, managedFields, status and server metadata written out by hand, not computed by the module).
import type { KubeObject } from '../../src/util/yaml-docs.js';

export const TRACKING = 'argocd.argoproj.io/tracking-id';
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export function deploymentTarget(): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'shop',
      labels: { app: 'web' },
      annotations: { [TRACKING]: 'shop:apps/Deployment:shop/web' },
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1.25',
              ports: [{ containerPort: 80 }],
              resources: { limits: { cpu: '500m', memory: '256Mi' } },
            },
          ],
        },
      },
    },
  };
}

/** What the API server stores for deploymentTarget() applied by argocd-controller (server-side apply). */
export function deploymentLive(): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'shop',
      uid: '3f1c0f9e-0000-4000-8000-000000000001',
      resourceVersion: '4711',
      generation: 3,
      creationTimestamp: '2026-11-01T10:00:00Z',
      labels: { app: 'web' },
      annotations: {
        [TRACKING]: 'shop:apps/Deployment:shop/web',
        'deployment.kubernetes.io/revision': '3',
      },
      managedFields: [
        {
          manager: 'argocd-controller',
          operation: 'Apply',
          apiVersion: 'apps/v1',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:annotations': { [`f:${TRACKING}`]: {} } },
            'f:spec': {
              'f:replicas': {},
              'f:selector': {},
              'f:template': {
                'f:metadata': { 'f:labels': { 'f:app': {} } },
                'f:spec': {
                  'f:containers': {
                    'k:{"name":"web"}': {
                      '.': {},
                      'f:image': {},
                      'f:name': {},
                      'f:ports': {
                        'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
                      },
                      'f:resources': { 'f:limits': { 'f:cpu': {}, 'f:memory': {} } },
                    },
                  },
                },
              },
            },
          },
        },
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          subresource: 'status',
          fieldsV1: { 'f:status': { 'f:replicas': {}, 'f:readyReplicas': {} } },
        },
      ],
    },
    spec: {
      replicas: 2,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { creationTimestamp: null, labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1.25',
              imagePullPolicy: 'IfNotPresent',
              ports: [{ containerPort: 80, protocol: 'TCP' }],
              resources: { limits: { cpu: '500m', memory: '256Mi' } },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
            },
          ],
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Always',
          schedulerName: 'default-scheduler',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
        },
      },
    },
    status: {
      observedGeneration: 3,
      replicas: 2,
      readyReplicas: 2,
      updatedReplicas: 2,
      availableReplicas: 2,
    },
  };
}

export function serviceTarget(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'shop' },
    spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] },
  };
}

export function serviceLive(): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'web',
      namespace: 'shop',
      uid: 'svc-uid',
      resourceVersion: '99',
      creationTimestamp: '2026-11-01T10:00:00Z',
    },
    spec: {
      clusterIP: '10.96.0.17',
      clusterIPs: ['10.96.0.17'],
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 80 }],
      selector: { app: 'web' },
      sessionAffinity: 'None',
      type: 'ClusterIP',
    },
    status: { loadBalancer: {} },
  };
}

/** Sets the last-applied-configuration annotation of `live` to `applied` (what kubectl apply records). */
export function withLastApplied(live: KubeObject, applied: KubeObject): KubeObject {
  const copy = structuredClone(live);
  copy.metadata = {
    ...copy.metadata,
    annotations: { ...copy.metadata?.annotations, [LAST_APPLIED]: JSON.stringify(applied) },
  };
  return copy;
}

/** Drops managedFields (an object created by an old client-side apply or by hand). */
export function withoutManagedFields(obj: KubeObject): KubeObject {
  const copy = structuredClone(obj);
  delete copy.metadata?.['managedFields'];
  return copy;
}

// Typed accessors for editing fixtures in tests.
export type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
export const podSpec = (o: KubeObject): Any => (o as Any)['spec']['template']['spec'];
export const container = (o: KubeObject, i = 0): Any => podSpec(o)['containers'][i];
