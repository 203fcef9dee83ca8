/** Families: shards (cluster Secrets) and argocd-cm settings (Lua health override, global ignores, exclusions). */
import { app, cm, deployment, docs, tracked, type CaseDraft } from './lib.js';

const SP =
  'written for the corpus (Argo CD controller/sharding/sharding.go; docs/operator-manual/high_availability.md)';

function clusters(
  n: number,
  extra: (i: number) => Record<string, unknown> = () => ({}),
): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `\${NS}-cluster-${i}`,
      namespace: '${ARGOCD_NS}',
      labels: { 'argocd.argoproj.io/secret-type': 'cluster' },
    },
    type: 'Opaque',
    stringData: {
      name: `\${NS}-c${i}`,
      server: `https://c${i}.\${NS}.conformance.example:6443`,
      config: '{"tlsClientConfig":{"insecure":true}}',
      ...extra(i),
    },
  }));
}

export function shards(): CaseDraft[] {
  const s = (name: string, intent: string, spec: Record<string, unknown>): CaseDraft => ({
    name,
    intent,
    provenance: SP,
    shards: spec,
  });
  return [
    s('shards-legacy-2', 'legacy algorithm, 2 replicas, 5 clusters', { replicas: 2, clusters: clusters(5) }),
    s('shards-legacy-3', 'legacy algorithm, 3 replicas, 8 clusters', { replicas: 3, clusters: clusters(8) }),
    s('shards-round-robin-3', 'round-robin, 3 replicas, 7 clusters', {
      replicas: 3,
      algorithm: 'round-robin',
      clusters: clusters(7),
    }),
    s('shards-round-robin-4', 'round-robin, 4 replicas, 3 clusters', {
      replicas: 4,
      algorithm: 'round-robin',
      clusters: clusters(3),
    }),
    s('shards-consistent-3', 'consistent-hashing, 3 replicas, 6 clusters', {
      replicas: 3,
      algorithm: 'consistent-hashing',
      clusters: clusters(6),
    }),
    s('shards-manual', 'a cluster Secret with a manual shard', {
      replicas: 3,
      clusters: clusters(4, (i) => (i === 1 ? { shard: '2' } : {})),
    }),
    s('shards-manual-out-of-range', 'a manual shard beyond the replicas', {
      replicas: 2,
      clusters: clusters(3, (i) => (i === 0 ? { shard: '5' } : {})),
    }),
    s('shards-one-replica', 'one replica: everything on shard 0', { replicas: 1, clusters: clusters(4) }),
  ];
}

const CP =
  'written for the corpus (Argo CD argocd-cm: docs/operator-manual/health.md, diffing.md, declarative-setup.md)';

/** One argocd-cm shared by these cases, so they run in one batch. */
const CUSTOM_CM: Record<string, string> = {
  'resource.customizations.health.ConfigMap':
    'hs = {}\nif obj.data ~= nil and obj.data.state == "bad" then\n  hs.status = "Degraded"\n  hs.message = "state is bad"\nelse\n  hs.status = "Healthy"\n  hs.message = "state ok"\nend\nreturn hs\n',
  'resource.customizations.ignoreDifferences.apps_Deployment': 'jsonPointers:\n- /spec/replicas\n',
  'resource.customizations.ignoreDifferences.all': 'managedFieldsManagers:\n- hand-edit\n',
  'resource.exclusions': '- apiGroups: ["batch"]\n  kinds: ["CronJob"]\n  clusters: ["*"]\n',
};

export function argocdCm(): CaseDraft[] {
  return [
    {
      name: 'cm-lua-health-degraded',
      intent: 'a Lua health override for ConfigMap in argocd-cm: Degraded with its message',
      provenance: CP,
      argocdCm: CUSTOM_CM,
      repo: { 'app/c.yaml': docs(cm('cfg', { state: 'bad' })) },
      live: [cm('cfg', { state: 'bad' }, tracked('', 'ConfigMap', 'cfg'))],
      app: app(),
      phases: ['refresh', 'controller'],
    },
    {
      name: 'cm-lua-health-healthy',
      intent: 'the same Lua override judging Healthy',
      provenance: CP,
      argocdCm: CUSTOM_CM,
      repo: { 'app/c.yaml': docs(cm('cfg', { state: 'good' })) },
      app: app(),
    },
    {
      name: 'cm-global-ignore',
      intent: 'resource.customizations.ignoreDifferences for apps/Deployment replicas',
      provenance: CP,
      argocdCm: CUSTOM_CM,
      repo: { 'app/d.yaml': docs(deployment('web', { replicas: 2 })) },
      live: [deployment('web', { replicas: 4, meta: tracked('apps', 'Deployment', 'web') })],
      app: app(),
    },
    {
      name: 'cm-exclusion',
      intent: 'resource.exclusions drops CronJobs: ExcludedResourceWarning',
      provenance: CP,
      argocdCm: CUSTOM_CM,
      repo: {
        'app/c.yaml': docs(cm('cfg', { state: 'good' }), {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          metadata: { name: 'nightly' },
          spec: {
            schedule: '0 3 * * *',
            jobTemplate: {
              spec: {
                template: {
                  spec: {
                    restartPolicy: 'Never',
                    containers: [{ name: 'n', image: 'registry.example/n:1' }],
                  },
                },
              },
            },
          },
        }),
      },
      app: app(),
    },
  ];
}
