/** Helpers of the corpus generator: manifests as YAML text, an Application, the tracking annotation. */
import { stringify } from 'yaml';
import type { Obj } from '../../compare/case.js';

export interface CaseDraft {
  name: string;
  intent: string;
  provenance?: string;
  needs?: string[];
  phases?: string[];
  repo?: Record<string, string>;
  repos?: Record<string, Record<string, string>>;
  app?: Obj;
  apps?: Obj[];
  argocd?: Obj[];
  live?: Obj[];
  namespaces?: string[];
  createNamespace?: boolean;
  argocdCm?: Record<string, string>;
  sync?: Obj;
  shards?: Obj;
  appset?: Obj;
  operations?: Obj[];
  appsetSteps?: Obj[];
  scm?: { token: string; data: Obj; tls?: boolean };
}

export const IN_CLUSTER = 'https://kubernetes.default.svc';

/** Multi-document YAML of objects. */
export function docs(...objs: Obj[]): string {
  return objs.map((o) => stringify(o, { lineWidth: 0 })).join('---\n');
}

export function cm(name: string, data: Record<string, string> = { key: 'value' }, meta: Obj = {}): Obj {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta }, data };
}

export function secret(name: string, data: Record<string, string>, meta: Obj = {}): Obj {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, ...meta }, type: 'Opaque', stringData: data };
}

export function deployment(name: string, opts: { replicas?: number; image?: string; meta?: Obj } = {}): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, ...(opts.meta ?? {}) },
    spec: {
      replicas: opts.replicas ?? 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: opts.image ?? 'registry.example/app:1.0' }] },
      },
    },
  };
}

export function service(name: string, meta: Obj = {}): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, ...meta },
    spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] },
  };
}

export function job(name: string, meta: Obj = {}, fail = false): Obj {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, ...meta },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: fail ? { annotations: { 'gitops.kubectl.io/simulate-fail': 'true' } } : {},
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'main', image: 'registry.example/job:1.0', command: ['true'] }],
        },
      },
    },
  };
}

/** The annotation tracking id Argo CD writes, for live objects the case pre-creates as the app's. */
export function tracked(group: string, kind: string, name: string, ns = '${NS}'): Obj {
  return { annotations: { 'argocd.argoproj.io/tracking-id': `\${APP}:${group}/${kind}:${ns}/${name}` } };
}

export function hook(kind: string, deletePolicy?: string, wave?: number): Obj {
  return {
    annotations: {
      'argocd.argoproj.io/hook': kind,
      ...(deletePolicy ? { 'argocd.argoproj.io/hook-delete-policy': deletePolicy } : {}),
      ...(wave !== undefined ? { 'argocd.argoproj.io/sync-wave': String(wave) } : {}),
    },
  };
}

export function wave(n: number): Obj {
  return { annotations: { 'argocd.argoproj.io/sync-wave': String(n) } };
}

/** A single-source Application spec on the case's main repository. */
export function app(source: Obj = {}, spec: Obj = {}, metadata: Obj = {}): Obj {
  return {
    ...(Object.keys(metadata).length ? { metadata } : {}),
    spec: {
      project: 'default',
      source: { repoURL: '${REPO}', path: 'app', targetRevision: 'HEAD', ...source },
      destination: { server: IN_CLUSTER, namespace: '${NS}' },
      ...spec,
    },
  };
}

/** An AppProject named `${NS}` (the side's) allowing the case's repositories and namespaces unless overridden. */
export function project(spec: Obj = {}, name = '${NS}'): Obj {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AppProject',
    metadata: { name, namespace: '${ARGOCD_NS}' },
    spec: {
      sourceRepos: ['*'],
      destinations: [{ server: IN_CLUSTER, namespace: '${NS}*' }],
      clusterResourceWhitelist: [{ group: '*', kind: '*' }],
      ...spec,
    },
  };
}

/** Drops what a server assigns from a recorded object: uid, resourceVersion, times, owners, status. */
export function cleanRecorded(o: Obj): Obj {
  const x = structuredClone(o);
  const md = x.metadata ?? {};
  for (const k of [
    'uid',
    'resourceVersion',
    'creationTimestamp',
    'selfLink',
    'ownerReferences',
    'generation',
  ])
    delete md[k];
  delete md.namespace;
  delete x.status;
  return x;
}
