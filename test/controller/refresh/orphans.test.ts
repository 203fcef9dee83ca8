/** Orphaned resources of a namespace (src/controller/refresh/projects.ts `orphanedResources`, Argo CD's getResourceTree). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseProject } from '../../../src/apps/index.js';
import type { KubeObject } from '../../../src/cluster/index.js';
import { orphanedResources } from '../../../src/controller/refresh/projects.js';

const IN_CLUSTER = { server: 'https://kubernetes.default.svc', name: 'in-cluster' };
const project = (name: string, spec: Record<string, unknown>) =>
  parseProject(
    { apiVersion: 'argoproj.io/v1alpha1', kind: 'AppProject', metadata: { name }, spec },
    `test ${name}`,
  );

describe('orphaned resources of a namespace (src/controller/refresh/projects.ts)', () => {
  it('top-level untracked objects and their owned descendants, minus managed, tracked, excluded and refused', () => {
    const obj = (kind: string, name: string, extra: Record<string, unknown> = {}): KubeObject => ({
      apiVersion: kind === 'Deployment' || kind === 'ReplicaSet' ? 'apps/v1' : 'v1',
      kind,
      metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...extra },
    });
    const owned = (owner: string) => ({
      ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: owner, uid: `uid-${owner}` }],
    });
    const objects = [
      obj('Deployment', 'stray'),
      obj('ReplicaSet', 'stray-1', owned('stray')),
      obj('Pod', 'stray-1-a', owned('stray-1')),
      obj('Secret', 'refused'),
      obj('ConfigMap', 'mine'),
      obj('ConfigMap', 'theirs', {
        annotations: { 'argocd.argoproj.io/tracking-id': 'other:/ConfigMap:ns/theirs' },
      }),
      obj('ServiceAccount', 'default'),
      { ...obj('ConfigMap', 'elsewhere'), metadata: { name: 'elsewhere', namespace: 'other' } },
    ];
    const p = project('team', {
      destinations: [{ server: '*', namespace: '*' }],
      namespaceResourceBlacklist: [{ group: '', kind: 'Secret' }],
      orphanedResources: { warn: true },
    });
    const orphans = orphanedResources(objects, {
      namespace: 'ns',
      managed: new Set(['/ConfigMap/ns/mine']),
      p: { project: p, cluster: IN_CLUSTER },
      trackedBy: (o) => (o.metadata?.annotations?.['argocd.argoproj.io/tracking-id'] ? 'other' : undefined),
    });
    assert.deepEqual(
      orphans.map((o) => `${o.kind}/${o.metadata?.name}`),
      ['Pod/stray-1-a', 'Deployment/stray', 'ReplicaSet/stray-1'],
    );
  });
});
