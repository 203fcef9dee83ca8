/** Families: directory, kustomize, Helm, jsonnet, multi-source and app-of-apps sources. */
import { IN_CLUSTER, app, cm, deployment, docs, secret, service, tracked, type CaseDraft } from './lib.js';

const P = 'written for the corpus (docs/desired-state.md rules; Argo CD reposerver/repository/repository.go)';

export function directory(): CaseDraft[] {
  const base = docs(cm('settings', { mode: 'prod' }), deployment('web'), service('web'));
  return [
    {
      name: 'dir-empty-namespace',
      intent: 'a ConfigMap, Deployment and Service into an empty namespace: all missing',
      provenance: P,
      repo: { 'app/all.yaml': base },
      app: app(),
    },
    {
      name: 'dir-in-sync',
      intent: 'live objects already as Git says, with the tracking annotation: Synced (defaults only differ)',
      provenance: P,
      repo: { 'app/cm.yaml': docs(cm('settings', { mode: 'prod' })) },
      live: [cm('settings', { mode: 'prod' }, tracked('', 'ConfigMap', 'settings'))],
      app: app(),
    },
    {
      name: 'dir-drift',
      intent: 'a live ConfigMap whose data differs from Git: OutOfSync, modified',
      provenance: P,
      repo: { 'app/cm.yaml': docs(cm('settings', { mode: 'prod' })) },
      live: [cm('settings', { mode: 'dev' }, tracked('', 'ConfigMap', 'settings'))],
      app: app(),
    },
    {
      name: 'dir-extra-tracked',
      intent: 'a live object tracked by the app but gone from Git: requiresPruning, OutOfSync',
      provenance: P,
      repo: { 'app/cm.yaml': docs(cm('settings')) },
      live: [
        cm('settings', { key: 'value' }, tracked('', 'ConfigMap', 'settings')),
        cm('old', {}, tracked('', 'ConfigMap', 'old')),
      ],
      app: app(),
    },
    {
      name: 'dir-untracked-same-name',
      intent:
        'a live object with the target name but no tracking id: compared as the target (annotation missing)',
      provenance: P,
      repo: { 'app/cm.yaml': docs(cm('settings')) },
      live: [cm('settings')],
      app: app(),
    },
    {
      name: 'dir-ignore-extraneous',
      intent: 'an extra tracked object annotated compare-options IgnoreExtraneous: the app stays Synced',
      provenance: P,
      repo: { 'app/cm.yaml': docs(cm('settings')) },
      live: [
        cm('settings', { key: 'value' }, tracked('', 'ConfigMap', 'settings')),
        cm(
          'extra',
          {},
          {
            annotations: {
              ...tracked('', 'ConfigMap', 'extra').annotations,
              'argocd.argoproj.io/compare-options': 'IgnoreExtraneous',
            },
          },
        ),
      ],
      app: app(),
    },
    {
      name: 'dir-shared-resource',
      intent: 'a live object tracked by another app: SharedResourceWarning, not taken over',
      provenance: P,
      repo: { 'app/cm.yaml': docs(cm('settings')) },
      live: [
        cm(
          'settings',
          {},
          { annotations: { 'argocd.argoproj.io/tracking-id': 'someone-else:/ConfigMap:${NS}/settings' } },
        ),
      ],
      app: app(),
    },
    {
      name: 'dir-recurse-off',
      intent: 'manifests in a sub-folder are not read without directory.recurse',
      provenance: P,
      repo: { 'app/top.yaml': docs(cm('top')), 'app/sub/nested.yaml': docs(cm('nested')) },
      app: app(),
    },
    {
      name: 'dir-recurse-on',
      intent: 'directory.recurse reads sub-folders',
      provenance: P,
      repo: { 'app/top.yaml': docs(cm('top')), 'app/sub/nested.yaml': docs(cm('nested')) },
      app: app({ directory: { recurse: true } }),
    },
    {
      name: 'dir-include-exclude',
      intent: 'directory.include and exclude globs',
      provenance: P,
      repo: {
        'app/a.yaml': docs(cm('a')),
        'app/b.yaml': docs(cm('b')),
        'app/skip-c.yaml': docs(cm('c')),
        'app/d.json': JSON.stringify(cm('d')),
      },
      app: app({ directory: { include: '{*.yaml,*.json}', exclude: 'skip-*' } }),
    },
    {
      name: 'dir-json-and-list',
      intent: 'a JSON file and a v1 List are read as their items',
      provenance: P,
      repo: {
        'app/one.json': JSON.stringify(cm('from-json')),
        'app/list.yaml': docs({ apiVersion: 'v1', kind: 'List', items: [cm('item-1'), cm('item-2')] }),
      },
      app: app(),
    },
    {
      name: 'dir-secret-masked',
      intent: 'a Secret with stringData whose live value differs: OutOfSync, values never printed',
      provenance: P,
      repo: { 'app/s.yaml': docs(secret('creds', { password: 'from-git' })) },
      live: [secret('creds', { password: 'live-value' }, tracked('', 'Secret', 'creds'))],
      app: app(),
    },
    {
      name: 'dir-explicit-namespace',
      intent: 'a manifest naming another namespace than the destination',
      provenance: P,
      namespaces: ['${NS}-x'],
      repo: { 'app/cm.yaml': docs(cm('elsewhere', {}, { namespace: '${NS}-x' }), cm('here')) },
      app: app(),
    },
    {
      name: 'dir-cluster-scoped',
      intent: 'a ClusterRole (cluster-scoped) beside namespaced objects',
      provenance: P,
      repo: {
        'app/rbac.yaml': docs(
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRole',
            metadata: { name: '${NS}-reader' },
            rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
          },
          { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader' } },
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'RoleBinding',
            metadata: { name: 'reader' },
            roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: '${NS}-reader' },
            subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: '${NS}' }],
          },
        ),
      },
      app: app(),
    },
    {
      name: 'dir-unknown-kind',
      intent:
        'a kind the cluster does not serve: the resource is OutOfSync/missing, condition names the kind',
      provenance: P,
      repo: {
        'app/w.yaml': docs(
          { apiVersion: 'nope.example.com/v1', kind: 'Nonesuch', metadata: { name: 'w' }, spec: {} },
          cm('ok'),
        ),
      },
      app: app(),
    },
    {
      name: 'dir-invalid-yaml',
      intent: 'a file that is not YAML: ComparisonError, sync Unknown',
      provenance: P,
      repo: { 'app/bad.yaml': 'kind: ConfigMap\nmetadata: [unclosed\n' },
      app: app(),
    },
    {
      name: 'dir-missing-path',
      intent: 'a path that does not exist in the repository: ComparisonError',
      provenance: P,
      repo: { 'other/cm.yaml': docs(cm('x')) },
      app: app({ path: 'app' }),
    },
    {
      name: 'dir-missing-revision',
      intent: 'a targetRevision that does not exist: ComparisonError naming it',
      provenance: P,
      repo: { 'app/cm.yaml': docs(cm('x')) },
      app: app({ targetRevision: 'no-such-branch' }),
    },
    {
      name: 'dir-duplicate-resource',
      intent: 'the same object twice in Git: RepeatedResourceWarning',
      provenance: P,
      repo: { 'app/a.yaml': docs(cm('twice', { v: '1' })), 'app/b.yaml': docs(cm('twice', { v: '2' })) },
      app: app(),
    },
    {
      name: 'dir-workloads',
      intent: 'StatefulSet, DaemonSet, CronJob, PVC, Ingress and NetworkPolicy in one app',
      provenance: P,
      repo: {
        'app/all.yaml': docs(
          {
            apiVersion: 'apps/v1',
            kind: 'StatefulSet',
            metadata: { name: 'db' },
            spec: {
              serviceName: 'db',
              replicas: 1,
              selector: { matchLabels: { app: 'db' } },
              template: {
                metadata: { labels: { app: 'db' } },
                spec: { containers: [{ name: 'db', image: 'registry.example/db:1' }] },
              },
            },
          },
          {
            apiVersion: 'apps/v1',
            kind: 'DaemonSet',
            metadata: { name: 'agent' },
            spec: {
              selector: { matchLabels: { app: 'agent' } },
              template: {
                metadata: { labels: { app: 'agent' } },
                spec: { containers: [{ name: 'a', image: 'registry.example/agent:1' }] },
              },
            },
          },
          {
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
          },
          {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
          {
            apiVersion: 'networking.k8s.io/v1',
            kind: 'Ingress',
            metadata: { name: 'web' },
            spec: {
              rules: [
                {
                  host: 'web.example.com',
                  http: {
                    paths: [
                      {
                        path: '/',
                        pathType: 'Prefix',
                        backend: { service: { name: 'web', port: { number: 80 } } },
                      },
                    ],
                  },
                },
              ],
            },
          },
          {
            apiVersion: 'networking.k8s.io/v1',
            kind: 'NetworkPolicy',
            metadata: { name: 'deny-all' },
            spec: { podSelector: {}, policyTypes: ['Ingress'] },
          },
        ),
      },
      app: app(),
    },
    {
      name: 'dir-namespace-object',
      intent: 'a Namespace object in Git beside objects in it (hoisted before them in the sync)',
      provenance: P,
      createNamespace: true,
      repo: {
        'app/ns.yaml': docs(
          { apiVersion: 'v1', kind: 'Namespace', metadata: { name: '${NS}-made' } },
          cm('inside', {}, { namespace: '${NS}-made' }),
        ),
      },
      app: app(),
    },
    {
      name: 'dir-live-defaults',
      intent: 'a live Deployment created from the same manifest: server defaults are not differences',
      provenance: P,
      repo: { 'app/d.yaml': docs(deployment('web')) },
      live: [deployment('web', { meta: tracked('apps', 'Deployment', 'web') })],
      app: app(),
    },
    {
      name: 'dir-live-replicas-drift',
      intent: 'a live Deployment scaled by hand: OutOfSync on spec.replicas',
      provenance: P,
      repo: { 'app/d.yaml': docs(deployment('web', { replicas: 2 })) },
      live: [deployment('web', { replicas: 3, meta: tracked('apps', 'Deployment', 'web') })],
      app: app(),
    },
    {
      name: 'dir-annotation-tracking-copied',
      intent: 'a live object carrying this app tracking id of another object (copied): not the app resource',
      provenance: P,
      repo: { 'app/cm.yaml': docs(cm('settings')) },
      live: [
        cm(
          'copy',
          {},
          { annotations: { 'argocd.argoproj.io/tracking-id': '${APP}:/ConfigMap:${NS}/settings' } },
        ),
      ],
      app: app(),
    },
  ];
}

const KP =
  'written for the corpus (Argo CD kustomize source options, reposerver kustomize.go; kustomize 5 docs)';

function kustomization(extra: Record<string, unknown> = {}): string {
  return docs({
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: ['all.yaml'],
    ...extra,
  });
}

export function kustomize(): CaseDraft[] {
  const all = docs(cm('settings', { mode: 'prod' }), deployment('web'));
  return [
    {
      name: 'kust-plain',
      intent: 'a plain kustomization',
      provenance: KP,
      repo: { 'app/kustomization.yaml': kustomization(), 'app/all.yaml': all },
      app: app(),
    },
    {
      name: 'kust-name-prefix',
      intent: 'namePrefix and commonLabels in the kustomization',
      provenance: KP,
      repo: {
        'app/kustomization.yaml': kustomization({ namePrefix: 'p-', commonLabels: { team: 'a' } }),
        'app/all.yaml': all,
      },
      app: app(),
    },
    {
      name: 'kust-generator',
      intent: 'configMapGenerator: hashed name, the Deployment refers to it',
      provenance: KP,
      repo: {
        'app/kustomization.yaml': kustomization({
          configMapGenerator: [{ name: 'gen', literals: ['a=1', 'b=2'] }],
        }),
        'app/all.yaml': all,
      },
      app: app(),
    },
    {
      name: 'kust-app-options',
      intent:
        "the Application's kustomize options: namePrefix, nameSuffix, commonLabels, commonAnnotations, images",
      provenance: KP,
      repo: { 'app/kustomization.yaml': kustomization(), 'app/all.yaml': all },
      app: app({
        kustomize: {
          namePrefix: 'ap-',
          nameSuffix: '-s',
          commonLabels: { owner: 'team' },
          commonAnnotations: { note: 'from-app' },
          images: ['registry.example/app=registry.example/app:2.0'],
        },
      }),
    },
    {
      name: 'kust-patches',
      intent: 'strategic merge and JSON 6902 patches',
      provenance: KP,
      repo: {
        'app/kustomization.yaml': kustomization({
          patches: [
            { path: 'replicas.yaml' },
            {
              target: { kind: 'ConfigMap', name: 'settings' },
              patch: '- op: add\n  path: /data/extra\n  value: "yes"\n',
            },
          ],
        }),
        'app/replicas.yaml': docs({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'web' },
          spec: { replicas: 3 },
        }),
        'app/all.yaml': all,
      },
      app: app(),
    },
    {
      name: 'kust-base-overlay',
      intent: 'an overlay on a base in another folder of the repository',
      provenance: KP,
      repo: {
        'base/kustomization.yaml': kustomization(),
        'base/all.yaml': all,
        'app/kustomization.yaml': docs({
          apiVersion: 'kustomize.config.k8s.io/v1beta1',
          kind: 'Kustomization',
          resources: ['../base'],
          nameSuffix: '-prod',
        }),
      },
      app: app(),
    },
    {
      name: 'kust-namespace',
      intent: 'the kustomization sets its own namespace (other than the destination)',
      provenance: KP,
      namespaces: ['${NS}-k'],
      repo: { 'app/kustomization.yaml': kustomization({ namespace: '${NS}-k' }), 'app/all.yaml': all },
      app: app(),
    },
    {
      name: 'kust-app-namespace-option',
      intent: "the Application's kustomize.namespace option",
      provenance: KP,
      namespaces: ['${NS}-k'],
      repo: { 'app/kustomization.yaml': kustomization(), 'app/all.yaml': all },
      app: app({ kustomize: { namespace: '${NS}-k' } }),
    },
    {
      name: 'kust-drift',
      intent: 'live state drifted from a kustomize render',
      provenance: KP,
      repo: {
        'app/kustomization.yaml': kustomization({ commonLabels: { team: 'a' } }),
        'app/all.yaml': docs(cm('settings', { mode: 'prod' })),
      },
      live: [
        cm('settings', { mode: 'dev' }, { labels: { team: 'a' }, ...tracked('', 'ConfigMap', 'settings') }),
      ],
      app: app(),
    },
    {
      name: 'kust-broken',
      intent: 'a kustomization naming a missing resource: ComparisonError',
      provenance: KP,
      repo: {
        'app/kustomization.yaml': docs({
          apiVersion: 'kustomize.config.k8s.io/v1beta1',
          kind: 'Kustomization',
          resources: ['missing.yaml'],
        }),
      },
      app: app(),
    },
  ];
}

const HP = 'written for the corpus (Argo CD helm source options, reposerver helm.go; helm 4 template)';

function chart(values = 'replicas: 1\nmessage: hello\n'): Record<string, string> {
  return {
    'chart/Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 0.1.0\n',
    'chart/values.yaml': values,
    'chart/values-prod.yaml': 'replicas: 2\nmessage: prod\n',
    'chart/templates/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\n  labels:\n    chart: {{ .Chart.Name }}\ndata:\n  message: {{ .Values.message | quote }}\n  namespace: {{ .Release.Namespace | quote }}\n',
    'chart/templates/deploy.yaml':
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-web\nspec:\n  replicas: {{ .Values.replicas }}\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: registry.example/web:1\n',
  };
}

export function helm(): CaseDraft[] {
  const needs = ['helm'];
  const c = (
    name: string,
    intent: string,
    helmOpts: Record<string, unknown>,
    extra: Partial<CaseDraft> = {},
  ): CaseDraft => ({
    name,
    intent,
    provenance: HP,
    needs,
    repo: chart(),
    app: app({ path: 'chart', helm: helmOpts }),
    ...extra,
  });
  return [
    c('helm-defaults', 'a local chart with its default values; release name = app name', {}),
    c('helm-value-files', 'valueFiles', { valueFiles: ['values-prod.yaml'] }),
    c('helm-parameters', 'parameters (--set) over values', {
      parameters: [
        { name: 'message', value: 'from-param' },
        { name: 'replicas', value: '3' },
      ],
    }),
    c('helm-values-object', 'valuesObject', { valuesObject: { message: 'object', replicas: 4 } }),
    c('helm-release-name', 'releaseName', { releaseName: 'rel' }),
    c('helm-missing-value-file', 'a value file that does not exist: ComparisonError', {
      valueFiles: ['nope.yaml'],
    }),
    c('helm-ignore-missing', 'ignoreMissingValueFiles', {
      valueFiles: ['nope.yaml'],
      ignoreMissingValueFiles: true,
    }),
    {
      name: 'helm-multi-source-ref',
      intent: 'multi-source: chart from one repository, values file from a ref source ($values/...)',
      provenance: HP,
      needs,
      repo: chart(),
      repos: { values: { 'env/prod.yaml': 'message: from-ref\nreplicas: 2\n' } },
      app: {
        spec: {
          project: 'default',
          sources: [
            {
              repoURL: '${REPO}',
              path: 'chart',
              targetRevision: 'HEAD',
              helm: { valueFiles: ['$values/env/prod.yaml'] },
            },
            { repoURL: '${REPO:values}', targetRevision: 'HEAD', ref: 'values' },
          ],
          destination: { server: IN_CLUSTER, namespace: '${NS}' },
        },
      },
    },
  ];
}

const JP = 'written for the corpus (Argo CD directory.jsonnet options, reposerver jsonnet rendering)';

export function jsonnet(): CaseDraft[] {
  const needs = ['jsonnet'];
  return [
    {
      name: 'jsonnet-plain',
      intent: 'a .jsonnet file rendering a list of objects',
      provenance: JP,
      needs,
      repo: {
        'app/main.jsonnet':
          "[{apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: 'j-' + i}, data: {i: std.toString(i)}} for i in [1, 2, 3]]\n",
      },
      app: app(),
    },
    {
      name: 'jsonnet-tla-extvar',
      intent: 'top-level arguments and external variables (code and string)',
      provenance: JP,
      needs,
      repo: {
        'app/main.jsonnet':
          "function(name, count=1) {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: name}, data: {env: std.extVar('env'), count: std.toString(count)}}\n",
      },
      app: app({
        directory: {
          jsonnet: {
            tlas: [
              { name: 'name', value: 'from-tla' },
              { name: 'count', value: '3', code: true },
            ],
            extVars: [{ name: 'env', value: 'prod' }],
          },
        },
      }),
    },
    {
      name: 'jsonnet-libs',
      intent: 'a jsonnet library path (libs) and an import',
      provenance: JP,
      needs,
      repo: {
        'lib/util.libsonnet': "{ cm(n):: {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: n}} }\n",
        'app/main.jsonnet': "local u = import 'util.libsonnet'; [u.cm('lib-a'), u.cm('lib-b')]\n",
      },
      app: app({ directory: { jsonnet: { libs: ['lib'] } } }),
    },
    {
      name: 'jsonnet-error',
      intent: 'a jsonnet runtime error: ComparisonError',
      provenance: JP,
      needs,
      repo: { 'app/main.jsonnet': "error 'boom'\n" },
      app: app(),
    },
  ];
}

export function multiSource(): CaseDraft[] {
  const MP = 'written for the corpus (Argo CD multi-source applications, spec.sources)';
  const ms = (sources: unknown[]) => ({
    spec: { project: 'default', sources, destination: { server: IN_CLUSTER, namespace: '${NS}' } },
  });
  return [
    {
      name: 'multi-two-dirs',
      intent: 'two directory sources from two repositories',
      provenance: MP,
      repo: { 'app/a.yaml': docs(cm('from-a')) },
      repos: { second: { 'more/b.yaml': docs(cm('from-b')) } },
      app: ms([
        { repoURL: '${REPO}', path: 'app', targetRevision: 'HEAD' },
        { repoURL: '${REPO:second}', path: 'more', targetRevision: 'HEAD' },
      ]),
    },
    {
      name: 'multi-same-repo',
      intent: 'two paths of the same repository',
      provenance: MP,
      repo: { 'app/a.yaml': docs(cm('one')), 'app2/b.yaml': docs(cm('two')) },
      app: ms([
        { repoURL: '${REPO}', path: 'app', targetRevision: 'HEAD' },
        { repoURL: '${REPO}', path: 'app2', targetRevision: 'HEAD' },
      ]),
    },
    {
      name: 'multi-overlap',
      intent: 'two sources rendering the same object: RepeatedResourceWarning, the last wins',
      provenance: MP,
      repo: { 'app/a.yaml': docs(cm('same', { v: '1' })), 'app2/b.yaml': docs(cm('same', { v: '2' })) },
      app: ms([
        { repoURL: '${REPO}', path: 'app', targetRevision: 'HEAD' },
        { repoURL: '${REPO}', path: 'app2', targetRevision: 'HEAD' },
      ]),
    },
    {
      name: 'multi-kustomize-dir',
      intent: 'a kustomize source and a directory source',
      provenance: MP,
      repo: {
        'k/kustomization.yaml': kustomization({ namePrefix: 'k-' }),
        'k/all.yaml': docs(cm('cfg')),
        'd/x.yaml': docs(cm('plain')),
      },
      app: ms([
        { repoURL: '${REPO}', path: 'k', targetRevision: 'HEAD' },
        { repoURL: '${REPO}', path: 'd', targetRevision: 'HEAD' },
      ]),
    },
  ];
}

export function appOfApps(): CaseDraft[] {
  const AP = 'written for the corpus (Argo CD cluster bootstrapping, app-of-apps pattern)';
  const child = (n: string) => ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name: `\${NS}-${n}`, namespace: '${ARGOCD_NS}' },
    spec: {
      project: 'default',
      source: { repoURL: '${REPO}', path: `children/${n}`, targetRevision: 'HEAD' },
      destination: { server: IN_CLUSTER, namespace: '${NS}' },
    },
  });
  return [
    {
      name: 'app-of-apps',
      intent: 'a parent app rendering two child Applications into the Argo CD namespace',
      provenance: AP,
      repo: {
        'apps/children.yaml': docs(child('one'), child('two')),
        'children/one/cm.yaml': docs(cm('one')),
        'children/two/cm.yaml': docs(cm('two')),
      },
      app: {
        spec: {
          ...app({ path: 'apps' }).spec,
          destination: { server: IN_CLUSTER, namespace: '${ARGOCD_NS}' },
        },
      },
      phases: ['refresh', 'controller'],
    },
    {
      name: 'app-of-apps-waves',
      intent: 'child Applications in sync waves (Application health is not assessed, as Argo CD 1.8+)',
      provenance: AP,
      repo: {
        'apps/children.yaml': docs(
          {
            ...child('first'),
            metadata: { ...child('first').metadata, annotations: { 'argocd.argoproj.io/sync-wave': '1' } },
          },
          {
            ...child('second'),
            metadata: { ...child('second').metadata, annotations: { 'argocd.argoproj.io/sync-wave': '2' } },
          },
        ),
        'children/first/cm.yaml': docs(cm('first')),
        'children/second/cm.yaml': docs(cm('second')),
      },
      app: {
        spec: {
          ...app({ path: 'apps' }).spec,
          destination: { server: IN_CLUSTER, namespace: '${ARGOCD_NS}' },
        },
      },
      phases: ['refresh', 'controller'],
    },
  ];
}
