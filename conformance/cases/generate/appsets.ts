/**
 * ApplicationSet cases (phase `appsets`, conformance/compare/appsets.ts): Argo CD's ApplicationSet
 * controller and ours reconcile the same set; the generated Applications and the set's status are
 * compared. Generated names carry `${NS}` so the twins never share an Application.
 */
import { cm, docs, IN_CLUSTER, type CaseDraft } from './lib.js';
import type { Obj } from '../../compare/case.js';

const PROVENANCE =
  'argo-cd applicationset/controllers/applicationset_controller.go, applicationset/generators, docs/appset-controller.md';

const template = (name: string, spec: Obj = {}, meta: Obj = {}): Obj => ({
  metadata: { name, ...meta },
  spec: {
    project: 'default',
    source: { repoURL: '${REPO}', targetRevision: 'HEAD', path: 'apps/one' },
    destination: { server: IN_CLUSTER, namespace: '${NS}' },
    ...spec,
  },
});

const repo = {
  'apps/one/cm.yaml': docs(cm('one')),
  'apps/two/cm.yaml': docs(cm('two')),
  'envs/dev/cm.yaml': docs(cm('dev')),
  'envs/prod/cm.yaml': docs(cm('prod')),
  'config/dev.json': JSON.stringify({ env: 'dev', cluster: { name: 'in-cluster' } }),
  'config/prod.json': JSON.stringify({ env: 'prod', cluster: { name: 'in-cluster' } }),
};

export function appsets(): CaseDraft[] {
  return [
    {
      name: 'appset-list',
      intent:
        'a list generator (fasttemplate) with labels: Applications, owner references, finalizer, status',
      provenance: PROVENANCE,
      repo,
      appset: {
        spec: {
          generators: [{ list: { elements: [{ env: 'dev' }, { env: 'prod' }] } }],
          template: template(
            '${NS}-{{env}}',
            {
              source: {
                repoURL: '${REPO}',
                targetRevision: 'HEAD',
                path: 'envs/{{env}}',
                directory: { recurse: false },
              },
            },
            { labels: { env: '{{env}}' } },
          ),
        },
      },
    },
    {
      name: 'appset-gotemplate-patch',
      intent:
        'goTemplate with templatePatch and preserveResourcesOnDeletion (no finalizer; zero values as Go writes them)',
      provenance: PROVENANCE,
      repo,
      appset: {
        spec: {
          goTemplate: true,
          goTemplateOptions: ['missingkey=error'],
          syncPolicy: { preserveResourcesOnDeletion: true },
          generators: [
            {
              list: {
                elements: [
                  { env: 'a', prune: 'true' },
                  { env: 'b', prune: 'false' },
                ],
              },
            },
          ],
          template: template('${NS}-{{ .env }}'),
          templatePatch:
            "spec:\n  syncPolicy:\n    syncOptions: [CreateNamespace=false]\n    retry:\n      limit: 0\n  info:\n    - name: prune\n      value: '{{ .prune }}'\n",
        },
      },
    },
    {
      name: 'appset-git-directories',
      intent: 'a git directories generator over the case repository (path.basename, path)',
      provenance: PROVENANCE,
      repo,
      appset: {
        spec: {
          generators: [{ git: { repoURL: '${REPO}', revision: 'HEAD', directories: [{ path: 'apps/*' }] } }],
          template: template('${NS}-{{path.basename}}', {
            source: { repoURL: '${REPO}', targetRevision: 'HEAD', path: '{{path}}' },
          }),
        },
      },
    },
    {
      name: 'appset-git-files',
      intent: 'a git files generator (JSON files flattened: env, cluster.name, path.basename)',
      provenance: PROVENANCE,
      repo,
      appset: {
        spec: {
          generators: [{ git: { repoURL: '${REPO}', revision: 'HEAD', files: [{ path: 'config/*.json' }] } }],
          template: template(
            '${NS}-{{env}}',
            {},
            { labels: { cluster: '{{cluster.name}}', dir: '{{path.basename}}' } },
          ),
        },
      },
    },
    {
      name: 'appset-matrix-merge',
      intent: 'matrix of a list and git directories, and a merge of two lists by mergeKeys',
      provenance: PROVENANCE,
      repo,
      appset: {
        spec: {
          generators: [
            {
              matrix: {
                generators: [
                  { list: { elements: [{ stage: 'qa' }] } },
                  { git: { repoURL: '${REPO}', revision: 'HEAD', directories: [{ path: 'apps/*' }] } },
                ],
              },
            },
            {
              merge: {
                mergeKeys: ['stage'],
                generators: [
                  {
                    list: {
                      elements: [
                        { stage: 'x', leaf: 'one' },
                        { stage: 'y', leaf: 'two' },
                      ],
                    },
                  },
                  { list: { elements: [{ stage: 'y', leaf: 'one' }] } },
                ],
                // A generator's own template: its fields win over the set's (mergeGeneratorTemplate).
                template: {
                  metadata: { name: '${NS}-{{stage}}-{{leaf}}' },
                  // (project and destination: the CRD requires them in every template)
                  spec: {
                    project: 'default',
                    source: { repoURL: '${REPO}', targetRevision: 'HEAD', path: 'apps/{{leaf}}' },
                    destination: { server: IN_CLUSTER, namespace: '${NS}' },
                  },
                },
              },
            },
          ],
          template: template('${NS}-{{stage}}-{{path.basename}}', {
            source: { repoURL: '${REPO}', targetRevision: 'HEAD', path: '{{path}}' },
          }),
        },
      },
    },
    {
      name: 'appset-invalid-projects',
      intent:
        'two Applications of three name AppProjects that do not exist: ApplicationValidationError "(and 1 more)"; the valid one is written',
      provenance: PROVENANCE,
      repo,
      appset: {
        spec: {
          generators: [
            {
              list: {
                elements: [
                  { env: 'a', project: 'default' },
                  { env: 'b', project: 'nope' },
                  { env: 'c', project: 'nope2' },
                ],
              },
            },
          ],
          template: template('${NS}-{{env}}', { project: '{{project}}' }),
        },
      },
    },
    {
      name: 'appset-invalid-destination',
      intent:
        'a destination server that names no cluster: ApplicationValidationError with the cluster lookup message',
      provenance: PROVENANCE,
      repo,
      appset: {
        spec: {
          generators: [{ list: { elements: [{ env: 'a' }] } }],
          template: template('${NS}-{{env}}', {
            destination: { server: 'https://nowhere.example.com', namespace: '${NS}' },
          }),
        },
      },
    },
    {
      name: 'appset-render-error',
      intent:
        'a goTemplate with missingkey=error naming a missing key: RenderTemplateParamsError, nothing written',
      provenance: PROVENANCE,
      repo,
      appset: {
        spec: {
          goTemplate: true,
          goTemplateOptions: ['missingkey=error'],
          generators: [{ list: { elements: [{ env: 'a' }] } }],
          template: template('${NS}-{{ .nothere }}'),
        },
      },
    },
    {
      name: 'appset-rolling-sync',
      intent:
        'progressive sync: RollingSync of two steps; step 2 syncs after step 1 is Healthy; applicationStatus and RolloutProgressing',
      provenance: `${PROVENANCE}, applicationset/progressivesync/progressive_sync.go`,
      repo,
      appset: {
        spec: {
          generators: [{ list: { elements: [{ env: 'dev' }, { env: 'prod' }] } }],
          strategy: {
            type: 'RollingSync',
            rollingSync: {
              steps: [
                { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] },
                { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }], maxUpdate: 1 },
              ],
            },
          },
          template: template(
            '${NS}-{{env}}',
            {
              source: { repoURL: '${REPO}', targetRevision: 'HEAD', path: 'envs/{{env}}' },
              syncPolicy: { automated: { prune: true } },
            },
            { labels: { env: '{{env}}' } },
          ),
        },
      },
    },
  ];
}
