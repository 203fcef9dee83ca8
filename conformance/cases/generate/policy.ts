/** Families: ignoreDifferences, server-side diff, projects and windows, tracking, other namespaces, auto-sync. */
import { IN_CLUSTER, app, cm, deployment, docs, project, tracked, type CaseDraft } from './lib.js';

const IP = 'written for the corpus (Argo CD docs/user-guide/diffing.md; argo-cd util/argo/normalizers)';

export function ignoreDifferences(): CaseDraft[] {
  const liveDeploy = { ...deployment('web', { replicas: 5, meta: tracked('apps', 'Deployment', 'web') }) };
  liveDeploy.metadata.labels = { extra: 'live' };
  const repo = { 'app/d.yaml': docs(deployment('web', { replicas: 2 })) };
  const ig = (name: string, intent: string, rules: unknown[], extra: Partial<CaseDraft> = {}): CaseDraft => ({
    name,
    intent,
    provenance: IP,
    repo,
    live: [liveDeploy],
    app: app({}, { ignoreDifferences: rules }),
    ...extra,
  });
  return [
    ig('ignore-none', 'the baseline: replicas and a label drifted', []),
    ig('ignore-json-pointer', 'jsonPointers /spec/replicas', [
      { group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] },
    ]),
    ig('ignore-json-pointer-both', 'jsonPointers for replicas and the label: Synced', [
      { group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas', '/metadata/labels'] },
    ]),
    ig('ignore-jq', 'jqPathExpressions .spec.replicas', [
      { group: 'apps', kind: 'Deployment', jqPathExpressions: ['.spec.replicas'] },
    ]),
    ig(
      'ignore-jq-select',
      'a jq select over containers',
      [
        {
          group: 'apps',
          kind: 'Deployment',
          jqPathExpressions: ['.spec.template.spec.containers[] | select(.name == "main") | .image'],
        },
      ],
      {
        live: [
          {
            ...deployment('web', {
              replicas: 2,
              image: 'registry.example/app:live',
              meta: tracked('apps', 'Deployment', 'web'),
            }),
          },
        ],
      },
    ),
    ig('ignore-by-name', 'a rule naming another object does not apply', [
      { group: 'apps', kind: 'Deployment', name: 'other', jsonPointers: ['/spec/replicas'] },
    ]),
    ig('ignore-by-name-match', 'a rule naming this object and its namespace', [
      {
        group: 'apps',
        kind: 'Deployment',
        name: 'web',
        namespace: '${NS}',
        jsonPointers: ['/spec/replicas', '/metadata/labels'],
      },
    ]),
    ig('ignore-kind-wildcard', 'group and kind wildcards', [
      { group: '*', kind: '*', jsonPointers: ['/spec/replicas'] },
    ]),
    ig(
      'ignore-managed-fields',
      'managedFieldsManagers: fields the live creator (kubectl-create) owns are ignored',
      [{ group: 'apps', kind: 'Deployment', managedFieldsManagers: ['kubectl-create'] }],
    ),
    ig(
      'ignore-respect-sync',
      'RespectIgnoreDifferences=true: the sync keeps the ignored live replicas',
      [{ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] }],
      {
        app: app(
          {},
          {
            ignoreDifferences: [{ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] }],
            syncPolicy: { syncOptions: ['RespectIgnoreDifferences=true'] },
          },
        ),
      },
    ),
    ig('ignore-bad-jq', 'an invalid jq expression', [
      { group: 'apps', kind: 'Deployment', jqPathExpressions: ['.spec.[['] },
    ]),
    ig(
      'ignore-cm-data-key',
      // An annotation key (a ConfigMap data key may not hold "/": the API server refuses such a live object).
      'a json pointer with an escaped key (~1) on a ConfigMap annotation',
      [{ kind: 'ConfigMap', jsonPointers: ['/metadata/annotations/example.com~1owner'] }],
      {
        repo: {
          'app/c.yaml': docs(cm('cfg', { c: 'same' }, { annotations: { 'example.com/owner': 'git' } })),
        },
        live: [
          cm(
            'cfg',
            { c: 'same' },
            {
              annotations: {
                ...tracked('', 'ConfigMap', 'cfg').annotations,
                'example.com/owner': 'live',
              },
            },
          ),
        ],
      },
    ),
  ];
}

const DP = 'written for the corpus (Argo CD server-side diff: docs/user-guide/diff-strategies.md)';

export function serverSideDiff(): CaseDraft[] {
  const ssd = { annotations: { 'argocd.argoproj.io/compare-options': 'ServerSideDiff=true' } };
  const sd = (name: string, intent: string, extra: Partial<CaseDraft>): CaseDraft => ({
    name,
    intent,
    provenance: DP,
    app: app({}, {}, ssd),
    phases: ['refresh', 'controller'],
    ...extra,
  });
  return [
    sd('ssd-missing', 'server-side diff of objects not yet live', {
      repo: { 'app/a.yaml': docs(cm('cfg'), deployment('web')) },
    }),
    sd('ssd-in-sync', 'server-side diff of a live Deployment created from the same manifest', {
      repo: { 'app/d.yaml': docs(deployment('web')) },
      live: [deployment('web', { meta: tracked('apps', 'Deployment', 'web') })],
    }),
    sd('ssd-drift', 'server-side diff of a drifted ConfigMap', {
      repo: { 'app/c.yaml': docs(cm('cfg', { a: 'git' })) },
      live: [cm('cfg', { a: 'live', extra: 'x' }, tracked('', 'ConfigMap', 'cfg'))],
    }),
    sd('ssd-defaults', 'server-side diff sees the server defaults (Service ports protocol)', {
      repo: {
        'app/s.yaml': docs({
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 's' },
          spec: { selector: { a: 'b' }, ports: [{ port: 80 }] },
        }),
      },
      live: [
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 's', ...tracked('', 'Service', 's') },
          spec: { selector: { a: 'b' }, ports: [{ port: 80 }] },
        },
      ],
    }),
    sd('ssd-ignore-differences', 'server-side diff with ignoreDifferences', {
      repo: { 'app/c.yaml': docs(cm('cfg', { a: 'git' })) },
      live: [cm('cfg', { a: 'live' }, tracked('', 'ConfigMap', 'cfg'))],
      app: app({}, { ignoreDifferences: [{ kind: 'ConfigMap', jsonPointers: ['/data/a'] }] }, ssd),
    }),
    sd('ssd-extra', 'server-side diff with an extra tracked object', {
      repo: { 'app/c.yaml': docs(cm('cfg')) },
      live: [
        cm('cfg', { key: 'value' }, tracked('', 'ConfigMap', 'cfg')),
        cm('old', {}, tracked('', 'ConfigMap', 'old')),
      ],
    }),
  ];
}

const JP =
  'written for the corpus (Argo CD AppProject: docs/user-guide/projects.md, docs/user-guide/sync_windows.md)';

export function projects(): CaseDraft[] {
  const repo = { 'app/c.yaml': docs(cm('cfg')) };
  const pj = (
    name: string,
    intent: string,
    spec: Record<string, unknown>,
    extra: Partial<CaseDraft> = {},
  ): CaseDraft => ({
    name,
    intent,
    provenance: JP,
    repo,
    argocd: [project(spec)],
    app: app({}, { project: '${NS}' }),
    ...extra,
  });
  return [
    pj('proj-allows', 'a project allowing the repository and namespace', {}),
    pj('proj-repo-denied', 'sourceRepos not matching the repository: InvalidSpecError', {
      sourceRepos: ['https://example.com/other.git'],
    }),
    pj('proj-repo-negation', 'sourceRepos with a negation that excludes the repository', {
      sourceRepos: ['!${REPO}', '*'],
    }),
    pj('proj-dest-denied', 'destinations not matching: InvalidSpecError', {
      destinations: [{ server: IN_CLUSTER, namespace: 'elsewhere' }],
    }),
    pj('proj-dest-negation', 'a destination negation', {
      destinations: [
        { server: '*', namespace: '!${NS}' },
        { server: '*', namespace: '*' },
      ],
    }),
    pj('proj-dest-by-name', 'a destination by cluster name in-cluster', {
      destinations: [{ name: 'in-cluster', namespace: '${NS}' }],
    }),
    pj('proj-ns-blacklist', 'namespaceResourceBlacklist refuses ConfigMaps', {
      namespaceResourceBlacklist: [{ group: '', kind: 'ConfigMap' }],
    }),
    pj('proj-ns-whitelist', 'namespaceResourceWhitelist allows Services only', {
      namespaceResourceWhitelist: [{ group: '', kind: 'Service' }],
    }),
    pj(
      'proj-cluster-denied',
      'no clusterResourceWhitelist: a ClusterRole is not permitted',
      { clusterResourceWhitelist: [] },
      {
        repo: {
          'app/c.yaml': docs(cm('cfg'), {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRole',
            metadata: { name: '${NS}-cr' },
            rules: [],
          }),
        },
      },
    ),
    pj(
      'proj-missing',
      'an app naming a project that does not exist',
      {},
      { argocd: [], app: app({}, { project: '${NS}-nope' }) },
    ),
    pj('proj-window-deny-active', 'a deny window open now: a manual sync is refused', {
      syncWindows: [{ kind: 'deny', schedule: '* * * * *', duration: '24h', applications: ['*'] }],
    }),
    pj('proj-window-deny-manual', 'a deny window open now with manualSync: a manual sync goes ahead', {
      syncWindows: [
        { kind: 'deny', schedule: '* * * * *', duration: '24h', applications: ['*'], manualSync: true },
      ],
    }),
    pj('proj-window-allow-closed', 'an allow window not open now: a manual sync is refused', {
      syncWindows: [{ kind: 'allow', schedule: '0 0 29 2 *', duration: '1h', applications: ['*'] }],
    }),
    pj('proj-window-other-app', 'a deny window for other apps only', {
      syncWindows: [{ kind: 'deny', schedule: '* * * * *', duration: '24h', applications: ['someone-else'] }],
    }),
    pj(
      'proj-orphaned',
      'orphanedResources warn: an untracked ConfigMap in the namespace',
      { orphanedResources: { warn: true } },
      {
        live: [cm('stray')],
      },
    ),
  ];
}

const TP = 'written for the corpus (Argo CD resource tracking: docs/user-guide/resource_tracking.md)';

export function tracking(): CaseDraft[] {
  const label = { 'application.resourceTrackingMethod': 'label' };
  const both = { 'application.resourceTrackingMethod': 'annotation+label' };
  const inst = (v = '${APP}') => ({ labels: { 'app.kubernetes.io/instance': v } });
  return [
    {
      name: 'track-label-missing',
      intent: 'label tracking: objects not yet live',
      provenance: TP,
      argocdCm: label,
      repo: { 'app/c.yaml': docs(cm('cfg'), deployment('web')) },
      app: app(),
    },
    {
      name: 'track-label-extra',
      intent: 'label tracking: an extra live object with the instance label needs pruning',
      provenance: TP,
      argocdCm: label,
      repo: { 'app/c.yaml': docs(cm('cfg')) },
      live: [cm('cfg', { key: 'value' }, inst()), cm('old', {}, inst())],
      app: app(),
      sync: { prune: true },
    },
    {
      name: 'track-label-other-app',
      intent: 'label tracking: a live object labelled for another app',
      provenance: TP,
      argocdCm: label,
      repo: { 'app/c.yaml': docs(cm('cfg')) },
      live: [cm('cfg', {}, inst('another'))],
      app: app(),
    },
    {
      name: 'track-annotation-label',
      intent: 'annotation+label tracking: writes both, reads the annotation',
      provenance: TP,
      argocdCm: both,
      repo: { 'app/c.yaml': docs(cm('cfg')) },
      live: [cm('old', {}, { ...inst(), ...tracked('', 'ConfigMap', 'old') })],
      app: app(),
      sync: { prune: true },
    },
    {
      name: 'track-label-only-annotation-live',
      intent: 'label tracking with a live object that only has the tracking annotation: not tracked',
      provenance: TP,
      argocdCm: label,
      repo: { 'app/c.yaml': docs(cm('cfg')) },
      live: [cm('stray', {}, tracked('', 'ConfigMap', 'stray'))],
      app: app(),
    },
  ];
}

const NP =
  'written for the corpus (Argo CD apps in any namespace: docs/operator-manual/app-any-namespace.md)';

export function otherNamespaces(): CaseDraft[] {
  const repo = { 'app/c.yaml': docs(cm('cfg')) };
  return [
    {
      name: 'appns-allowed',
      intent: 'an Application in another namespace whose project lists it in sourceNamespaces',
      provenance: NP,
      repo,
      namespaces: ['${NS}-apps'],
      argocd: [project({ sourceNamespaces: ['${NS}-apps'] })],
      app: app({}, { project: '${NS}' }, { namespace: '${NS}-apps' }),
    },
    {
      name: 'appns-not-allowed',
      intent: 'an Application in another namespace whose project does not list it',
      provenance: NP,
      repo,
      namespaces: ['${NS}-apps'],
      argocd: [project({})],
      app: app({}, { project: '${NS}' }, { namespace: '${NS}-apps' }),
    },
    {
      name: 'appns-tracking-id',
      intent: 'an Application in another namespace: tracking id and instance name <ns>_<app>',
      provenance: NP,
      repo,
      namespaces: ['${NS}-apps'],
      argocd: [project({ sourceNamespaces: ['${NS}-apps'] })],
      live: [
        cm(
          'cfg',
          {},
          { annotations: { 'argocd.argoproj.io/tracking-id': '${NS}-apps_${APP}:/ConfigMap:${NS}/cfg' } },
        ),
      ],
      app: app({}, { project: '${NS}' }, { namespace: '${NS}-apps' }),
    },
  ];
}

const AP = 'written for the corpus (Argo CD automated sync: controller/appcontroller.go autoSync)';

export function autoSync(): CaseDraft[] {
  const repo = { 'app/c.yaml': docs(cm('cfg'), deployment('web')) };
  const auto = (
    name: string,
    intent: string,
    automated: Record<string, unknown>,
    extra: Partial<CaseDraft> = {},
  ): CaseDraft => ({
    name,
    intent,
    provenance: AP,
    repo,
    phases: ['controller'],
    app: app({}, { syncPolicy: { automated } }),
    ...extra,
  });
  return [
    auto('auto-basic', 'automated sync of a new app', {}),
    auto(
      'auto-prune',
      'automated sync with prune',
      { prune: true },
      { live: [cm('old', {}, tracked('', 'ConfigMap', 'old'))] },
    ),
    auto(
      'auto-no-prune',
      'automated sync without prune leaves the extra object',
      {},
      { live: [cm('old', {}, tracked('', 'ConfigMap', 'old'))] },
    ),
    auto(
      'auto-self-heal',
      'automated with selfHeal over drift',
      { selfHeal: true },
      {
        live: [cm('cfg', { key: 'drift' }, tracked('', 'ConfigMap', 'cfg'))],
      },
    ),
    auto(
      'auto-allow-empty-off',
      'automated prune of everything without allowEmpty',
      { prune: true },
      {
        repo: { 'app/README.md': 'empty\n' },
        live: [cm('old', {}, tracked('', 'ConfigMap', 'old'))],
      },
    ),
    auto(
      'auto-failing',
      'automated sync that fails (invalid object): SyncError condition',
      {},
      {
        repo: { 'app/c.yaml': docs(cm('Bad_Name')) },
        // One short retry on both sides, so the case ends in seconds (the default retry is measured elsewhere).
        app: app(
          {},
          {
            syncPolicy: {
              automated: {},
              retry: { limit: 1, backoff: { duration: '1s', factor: 2, maxDuration: '2s' } },
            },
          },
        ),
      },
    ),
    auto(
      'auto-retry',
      'automated sync with a retry policy on a failing hook',
      {},
      {
        repo: {
          'app/c.yaml': docs(cm('cfg'), {
            apiVersion: 'batch/v1',
            kind: 'Job',
            metadata: { name: 'pre', annotations: { 'argocd.argoproj.io/hook': 'PreSync' } },
            spec: {
              backoffLimit: 0,
              template: {
                metadata: { annotations: { 'gitops.kubectl.io/simulate-fail': 'true' } },
                spec: { restartPolicy: 'Never', containers: [{ name: 'm', image: 'registry.example/j:1' }] },
              },
            },
          }),
        },
        app: app(
          {},
          {
            syncPolicy: {
              automated: {},
              retry: { limit: 1, backoff: { duration: '1s', factor: 2, maxDuration: '2s' } },
            },
          },
        ),
      },
    ),
  ];
}

/**
 * ignoreDifferences cases added after the appsets' (ids c249 on): a resource's own
 * `argocd.argoproj.io/ignore-differences` annotation (Argo CD 3.6), and RespectIgnoreDifferences on a
 * field inside a list merged by key.
 */
export function ignoreDifferencesLater(): CaseDraft[] {
  const ANNOTATION = 'argocd.argoproj.io/ignore-differences';
  const own = { [ANNOTATION]: 'jsonPointers:\n- /spec/replicas\n' };
  const annotated = (replicas: number, meta: Record<string, unknown> = {}) => {
    const d = deployment('web', { replicas, meta });
    d.metadata.annotations = { ...(d.metadata.annotations ?? {}), ...own };
    return d;
  };
  const withEnv = (image: string, replicas: number, meta: Record<string, unknown> = {}) => {
    const d = deployment('web', { replicas, image, meta });
    d.spec.template.spec.containers[0].env = [{ name: 'MODE', value: 'git' }];
    return d;
  };
  return [
    {
      name: 'ignore-annotation',
      intent:
        'the resource names its own ignored field (argocd.argoproj.io/ignore-differences: /spec/replicas)',
      provenance: IP,
      repo: { 'app/d.yaml': docs(annotated(2)) },
      live: [annotated(5, tracked('apps', 'Deployment', 'web'))],
      app: app(),
    },
    {
      name: 'ignore-respect-list-element',
      intent:
        'RespectIgnoreDifferences=true on a container image: the sync keeps the live image, writes the rest of Git',
      provenance: IP,
      repo: { 'app/d.yaml': docs(withEnv('registry.example/app:2.0', 2)) },
      live: [
        deployment('web', {
          replicas: 3,
          image: 'registry.example/app:pinned',
          meta: tracked('apps', 'Deployment', 'web'),
        }),
      ],
      app: app(
        {},
        {
          ignoreDifferences: [
            { group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/template/spec/containers/0/image'] },
          ],
          syncPolicy: { syncOptions: ['RespectIgnoreDifferences=true'] },
        },
      ),
    },
  ];
}
