/**
 * ApplicationSet cases (phase `appsets`, conformance/compare/appsets.ts): Argo CD's ApplicationSet
 * controller and ours reconcile the same set; the generated Applications and the set's status are
 * compared. Generated names carry `${NS}` so the twins never share an Application.
 */
import { readFileSync } from 'node:fs';
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

const POLICY_PROVENANCE = `${PROVENANCE}, applicationset/utils/policy.go`;

/** A list set under `policy` whose list then drops `a`, changes `b` (path, label) and adds `c`. */
function policyCase(policy: string): CaseDraft {
  return {
    name: `appset-policy-${policy}`,
    intent: `syncPolicy.applicationsSync ${policy}: after the first reconcile the list drops a, changes b (path and label) and adds c`,
    provenance: POLICY_PROVENANCE,
    repo,
    appset: {
      spec: {
        syncPolicy: { applicationsSync: policy },
        generators: [
          {
            list: {
              elements: [
                { env: 'a', leaf: 'one' },
                { env: 'b', leaf: 'one' },
              ],
            },
          },
        ],
        template: template(
          '${NS}-{{env}}',
          { source: { repoURL: '${REPO}', targetRevision: 'HEAD', path: 'apps/{{leaf}}' } },
          { labels: { leaf: '{{leaf}}' } },
        ),
      },
    },
    appsetSteps: [
      {
        patch: {
          spec: {
            generators: [
              {
                list: {
                  elements: [
                    { env: 'b', leaf: 'two' },
                    { env: 'c', leaf: 'one' },
                  ],
                },
              },
            ],
          },
        },
      },
    ],
  };
}

/** A cluster Secret of the case (labelled `case: ${NS}`), in Argo CD's namespace. */
function clusterSecret(short: string, labels: Obj, annotations: Obj = {}): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `\${NS}-${short}`,
      namespace: '${ARGOCD_NS}',
      labels: { 'argocd.argoproj.io/secret-type': 'cluster', case: '${NS}', ...labels },
      annotations,
    },
    type: 'Opaque',
    stringData: { name: `\${NS}-${short}`, server: `https://${short}.\${NS}.example.com`, config: '{}' },
  };
}

/** The cases of issue 32 §3 after the first ApplicationSet ones: each changes something after the first reconcile. */
export function appsetUpdates(): CaseDraft[] {
  return [
    policyCase('create-only'),
    policyCase('create-update'),
    policyCase('create-delete'),
    policyCase('sync'),
    {
      name: 'appset-ignore-app-differences',
      intent:
        'ignoreApplicationDifferences (a jsonPointer for every app, jqPathExpressions for one named app): generated Applications changed by hand, then the template changed',
      provenance: `${PROVENANCE}, applicationset/utils/createOrUpdate.go`,
      repo,
      appset: {
        spec: {
          ignoreApplicationDifferences: [
            { jsonPointers: ['/spec/source/targetRevision'] },
            { name: '${NS}-b', jqPathExpressions: ['.spec.source.path', '.metadata.labels.team'] },
          ],
          generators: [{ list: { elements: [{ env: 'a' }, { env: 'b' }] } }],
          template: template('${NS}-{{env}}', {}, { labels: { env: '{{env}}' } }),
        },
      },
      appsetSteps: [
        {
          apps: Object.fromEntries(
            ['a', 'b'].map((e) => [
              `\${NS}-${e}`,
              {
                metadata: { labels: { team: 'x' } },
                spec: { source: { targetRevision: 'main', path: 'apps/two' } },
              },
            ]),
          ),
        },
        {
          patch: {
            spec: {
              template: {
                metadata: { labels: { tier: 'web' } },
                spec: { source: { targetRevision: 'main2' } },
              },
            },
          },
        },
      ],
    },
    {
      name: 'appset-clusters-selector',
      intent:
        'a clusters generator with a label selector (the in-cluster left out), values from labels, annotations, preserveResourcesOnDeletion; cluster Secrets then added, changed and deleted (the Secret watch requeues the set)',
      provenance: `${PROVENANCE}, applicationset/generators/cluster.go, applicationset/controllers/clustereventhandler.go`,
      repo,
      argocd: [
        clusterSecret('east', { env: 'prod' }, { note: 'first' }),
        clusterSecret('west', { env: 'dev' }, { note: 'second' }),
      ],
      appset: {
        spec: {
          syncPolicy: { preserveResourcesOnDeletion: true },
          generators: [
            {
              clusters: {
                selector: { matchLabels: { case: '${NS}' } },
                values: { ns: '{{metadata.labels.env}}-ns' },
              },
            },
          ],
          template: template(
            '{{name}}',
            {
              info: [
                { name: 'values', value: '{{values.ns}} {{server}} {{nameNormalized}}' },
                // Not a parameter in Argo CD (excludedClusterAnnotations): `kubectl apply` writes it.
                {
                  name: 'applied',
                  value: '{{metadata.annotations.kubectl.kubernetes.io/last-applied-configuration}}',
                },
              ],
            },
            {
              labels: { env: '{{metadata.labels.env}}' },
              annotations: { note: '{{metadata.annotations.note}}' },
            },
          ),
        },
      },
      appsetSteps: [
        {
          refresh: false,
          argocd: [
            clusterSecret('east', { env: 'qa' }, { note: 'changed' }),
            clusterSecret('north', { env: 'dev' }, { note: 'third' }),
          ],
          deleteArgocd: ['secret/${NS}-west'],
        },
      ],
    },
    {
      name: 'appset-requeue-git-files',
      intent:
        'requeueAfterSeconds on a git files generator: a push after the first reconcile (a file changed, one added, one removed) is picked up by the requeue alone, once the revision cache (3 minutes) lets it',
      provenance: `${PROVENANCE}, applicationset/generators/git.go GetRequeueAfter, reposerver/repository/repository.go GetGitFiles`,
      repo,
      appset: {
        spec: {
          generators: [
            {
              git: {
                repoURL: '${REPO}',
                revision: 'HEAD',
                files: [{ path: 'config/*.json' }],
                requeueAfterSeconds: 20,
              },
            },
          ],
          template: template('${NS}-{{env}}', {}, { labels: { cluster: '{{cluster.name}}' } }),
        },
      },
      appsetSteps: [
        {
          refresh: false,
          waitSeconds: 300,
          push: {
            ...Object.fromEntries(Object.entries(repo).filter(([p]) => p !== 'config/prod.json')),
            'config/dev.json': JSON.stringify({ env: 'dev', cluster: { name: 'moved' } }),
            'config/qa.json': JSON.stringify({ env: 'qa', cluster: { name: 'in-cluster' } }),
          },
        },
      ],
    },
    {
      name: 'appset-clusters-in-cluster',
      intent:
        'a clusters generator without a selector: every cluster Secret and the in-cluster default (no Secret for it), goTemplate, values',
      provenance: `${PROVENANCE}, applicationset/generators/cluster.go`,
      repo,
      appset: {
        spec: {
          goTemplate: true,
          generators: [{ clusters: { values: { tier: 'local-{{ .name }}' } } }],
          template: template('${NS}-{{ .nameNormalized }}', {
            info: [{ name: 'cluster', value: '{{ .server }} {{ .values.tier }} {{ .project }}' }],
          }),
        },
      },
    },
    ...scmCases(),
    {
      name: 'appset-delete-create-update',
      intent:
        'a set of policy create-update being deleted (held by a finalizer of its own): its Applications lose their owner references, so the garbage collector keeps them',
      provenance: `${POLICY_PROVENANCE}, applicationset_controller.go removeOwnerReferencesOnDeleteAppSet`,
      repo,
      appset: {
        metadata: { finalizers: ['conformance.example.com/hold'] },
        spec: {
          syncPolicy: { applicationsSync: 'create-update' },
          generators: [{ list: { elements: [{ env: 'a' }, { env: 'b' }] } }],
          template: template('${NS}-{{env}}'),
        },
      },
      appsetSteps: [{ deleteSet: true, refresh: false }],
    },
    {
      name: 'appset-pull-request-requeue',
      intent:
        'requeueAfterSeconds on a GitHub pull request generator: the pull requests change after the first reconcile (one closed, one opened, one pushed to) and the requeue alone picks it up',
      provenance: `${SCM_PROVENANCE}, applicationset/generators/pull_request.go GetRequeueAfter`,
      repo,
      scm: { token: SCM_TOKEN, data: scmData },
      argocd: [scmTokenSecret],
      appset: {
        spec: {
          generators: [
            {
              pullRequest: {
                github: { api: '${SCM_API}', owner: 'acme', repo: 'web', labels: ['preview'], tokenRef },
                requeueAfterSeconds: 15,
              },
            },
          ],
          template: template('${NS}-pr-{{number}}', {
            info: [{ name: 'head', value: '{{branch}} {{head_sha}}' }],
          }),
        },
      },
      appsetSteps: [
        {
          refresh: false,
          waitSeconds: 90,
          scmData: {
            ...scmData,
            githubPulls: {
              'acme/web': [
                {
                  ...pr(7, 'Add login', 'feature/Login_Page', 'ann', ['preview']),
                  head: { ref: 'feature/Login_Page', sha: SHA2 },
                },
                pr(10, 'New one', 'feature/new', 'dan', ['preview']),
              ],
            },
          },
        },
      ],
    },
    gitlabTlsCase(),
  ];
}

const SHA2 = 'fedcba9876543210fedcba9876543210fedcba98';

/** GitLab on HTTPS with a private CA: one generator trusts it through caRef, one is insecure. */
function gitlabTlsCase(): CaseDraft {
  const ca = readFileSync(new URL('../../../test/fixtures/clusters/ca.pem', import.meta.url), 'utf8');
  const gitlab = (project: string, extra: Obj): Obj => ({
    pullRequest: { gitlab: { api: '${SCM_API}', project, tokenRef, ...extra } },
  });
  return {
    name: 'appset-pull-request-gitlab-tls',
    intent:
      "GitLab merge requests over HTTPS signed by a private CA: caRef (a ConfigMap of the set's namespace) and insecure",
    provenance: `${SCM_PROVENANCE}, applicationset/utils/utils.go GetTlsConfig`,
    repo,
    scm: {
      token: SCM_TOKEN,
      tls: true,
      data: {
        gitlabMergeRequests: {
          'grp/app': [mr(3, 'MR three', 'mr_3', 'dee', ['ok'])],
          'grp/other': [mr(8, 'MR eight', 'mr-8', 'gus', [])],
        },
      },
    },
    argocd: [
      scmTokenSecret,
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: '${NS}-ca', namespace: '${ARGOCD_NS}' },
        data: { 'ca.crt': ca },
      },
    ],
    appset: {
      spec: {
        generators: [
          gitlab('grp/app', { caRef: { configMapName: '${NS}-ca', key: 'ca.crt' } }),
          gitlab('grp/other', { insecure: true }),
        ],
        template: template('${NS}-mr-{{number}}', {
          info: [{ name: 'mr', value: '{{title}} {{branch}} {{author}}' }],
        }),
      },
    },
  };
}

const SHA = '0123456789abcdef0123456789abcdef01234567';
const SCM_TOKEN = 'conformance-scm-token';
const SCM_PROVENANCE = `${PROVENANCE}, applicationset/generators/{pull_request,scm_provider}.go, applicationset/services/{pull_request,scm_provider}/{github,gitlab}.go`;

/** The fake API's data (test/support/scm-api.ts `ScmData`): GitHub and GitLab as their APIs answer. */
const scmData: Obj = {
  githubPulls: {
    'acme/web': [
      pr(7, 'Add login', 'feature/Login_Page', 'ann', ['preview']),
      pr(8, 'WIP: draft', 'draft', 'bob', ['preview']),
      pr(9, 'No label', 'other', 'cy', []),
    ],
  },
  githubRepos: {
    acme: [
      ghRepo(11, 'api', ['svc']),
      ghRepo(12, 'docs', []),
      { ...ghRepo(13, 'old', ['svc']), archived: true },
    ],
  },
  githubBranches: {
    'acme/api': [{ name: 'main', commit: { sha: SHA } }],
    'acme/docs': [{ name: 'main', commit: { sha: SHA } }],
    'acme/old': [{ name: 'main', commit: { sha: SHA } }],
  },
  githubPaths: { 'acme/api@main': ['deploy'] },
  gitlabMergeRequests: {
    'grp/app': [
      mr(3, 'MR three', 'mr_3', 'dee', ['ok']),
      mr(4, 'MR four', 'mr-4', 'eve', []),
      { ...mr(5, 'MR five', 'closed-one', 'fay', ['ok']), state: 'closed' },
    ],
  },
  gitlabProjects: {
    grp: [
      {
        id: 21,
        path: 'svc',
        name: 'svc',
        path_with_namespace: 'grp/svc',
        namespace: { full_path: 'grp' },
        default_branch: 'main',
        ssh_url_to_repo: 'git@gitlab.example.com:grp/svc.git',
        http_url_to_repo: 'https://gitlab.example.com/grp/svc.git',
        topics: ['t'],
      },
    ],
  },
  gitlabBranches: {
    '21': [
      { name: 'main', commit: { id: SHA } },
      { name: 'dev', commit: { id: SHA } },
    ],
  },
};

function pr(number: number, title: string, branch: string, login: string, labels: string[]): Obj {
  return {
    number,
    title,
    head: { ref: branch, sha: SHA },
    base: { ref: 'main' },
    user: { login },
    labels: labels.map((name) => ({ name })),
  };
}

function mr(iid: number, title: string, branch: string, user: string, labels: string[]): Obj {
  return {
    iid,
    title,
    source_branch: branch,
    target_branch: 'develop',
    sha: SHA,
    labels,
    author: { username: user },
    state: 'opened',
  };
}

function ghRepo(id: number, name: string, topics: string[]): Obj {
  return {
    id,
    name,
    full_name: `acme/${name}`,
    owner: { login: 'acme' },
    default_branch: 'main',
    ssh_url: `git@github.example.com:acme/${name}.git`,
    clone_url: `https://github.example.com/acme/${name}.git`,
    topics,
  };
}

const tokenRef = { secretName: '${NS}-scm', key: 'token' };
const scmTokenSecret: Obj = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: '${NS}-scm', namespace: '${ARGOCD_NS}' },
  type: 'Opaque',
  stringData: { token: SCM_TOKEN },
};

/** Pull request and SCM provider generators against the fake API, the token from a Secret of the set's namespace. */
function scmCases(): CaseDraft[] {
  const base = (name: string, intent: string, spec: Obj): CaseDraft => ({
    name,
    intent,
    provenance: SCM_PROVENANCE,
    repo,
    scm: { token: SCM_TOKEN, data: scmData },
    argocd: [scmTokenSecret],
    appset: { spec },
  });
  return [
    base(
      'appset-pull-request-github',
      'a GitHub pull request generator (api on loopback, labels, a title filter, paged lists, tokenRef): one Application per open pull request',
      {
        generators: [
          {
            pullRequest: {
              github: { api: '${SCM_API}', owner: 'acme', repo: 'web', labels: ['preview'], tokenRef },
              filters: [{ titleMatch: '^Add' }, { branchMatch: '^draft$' }],
              requeueAfterSeconds: 1800,
            },
          },
        ],
        template: template('${NS}-pr-{{number}}-{{branch_slug}}', {
          info: [
            {
              name: 'pr',
              value:
                '{{title}} {{branch}} {{target_branch}} {{target_branch_slug}} {{head_sha}} {{head_short_sha}} {{head_short_sha_7}} {{author}}',
            },
          ],
        }),
      },
    ),
    base(
      'appset-pull-request-gitlab',
      'a GitLab merge request generator (goTemplate; labels and state as query filters, labels as a list parameter)',
      {
        goTemplate: true,
        goTemplateOptions: ['missingkey=error'],
        generators: [
          {
            pullRequest: {
              gitlab: {
                api: '${SCM_API}',
                project: 'grp/app',
                labels: ['ok'],
                pullRequestState: 'opened',
                tokenRef,
              },
            },
          },
        ],
        template: template('${NS}-mr-{{ .number }}-{{ .branch_slug }}', {
          info: [
            {
              name: 'mr',
              value:
                '{{ .title }} {{ .branch }} {{ .target_branch_slug }} {{ .head_short_sha }} {{ .author }} {{ index .labels 0 }} {{ len .labels }}',
            },
          ],
        }),
      },
    ),
    base(
      'appset-scm-github',
      'a GitHub SCM provider generator: an organization without archived repositories, a labelMatch and pathsExist filter, https clone URLs',
      {
        generators: [
          {
            scmProvider: {
              cloneProtocol: 'https',
              github: { api: '${SCM_API}', organization: 'acme', excludeArchivedRepos: true, tokenRef },
              filters: [{ labelMatch: '^svc$', pathsExist: ['deploy'] }],
            },
          },
        ],
        template: template('${NS}-{{repository}}-{{branchNormalized}}', {
          info: [
            {
              name: 'repo',
              value:
                '{{organization}} {{url}} {{branch}} {{sha}} {{short_sha}} {{short_sha_7}} {{labels}} {{repository_id}}',
            },
          ],
        }),
      },
    ),
    base(
      'appset-scm-gitlab',
      'a GitLab SCM provider generator: a group with every branch (allBranches), ssh clone URLs (the default)',
      {
        generators: [
          {
            scmProvider: {
              gitlab: { api: '${SCM_API}', group: 'grp', allBranches: true, tokenRef },
            },
          },
        ],
        template: template('${NS}-{{repository}}-{{branch}}', {
          info: [
            {
              name: 'repo',
              value: '{{organization}} {{url}} {{sha}} {{short_sha_7}} {{labels}} {{branchNormalized}}',
            },
          ],
        }),
      },
    ),
  ];
}
