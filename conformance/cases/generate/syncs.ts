/** Families: hooks and waves, prune options, sync options, server-side apply, CRDs in the same sync. */
import {
  app,
  cm,
  deployment,
  docs,
  hook,
  job,
  secret,
  service,
  tracked,
  wave,
  type CaseDraft,
} from './lib.js';

const SP =
  'written for the corpus (Argo CD sync phases and waves: docs/user-guide/sync-waves.md, gitops-engine sync_context.go)';

export function hooksAndWaves(): CaseDraft[] {
  return [
    {
      name: 'waves-order',
      intent: 'three waves across kinds: writes go wave by wave, kind order inside a wave',
      provenance: SP,
      repo: {
        'app/all.yaml': docs(
          cm('w-minus', {}, wave(-1)),
          service('web', wave(1)),
          deployment('web', { meta: wave(1) }),
          cm('w-zero'),
          secret('w-two', { a: 'b' }, wave(2)),
        ),
      },
      app: app(),
    },
    {
      name: 'kind-order',
      intent:
        'one wave, many kinds: Argo CD kind order (Namespace, SA, Secret, ConfigMap, ... Deployment, Job)',
      provenance: SP,
      repo: {
        'app/all.yaml': docs(
          job('migrate'),
          deployment('web'),
          service('web'),
          cm('cfg'),
          secret('sec', { k: 'v' }),
          { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'runner' } },
          {
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'Role',
            metadata: { name: 'r' },
            rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
          },
        ),
      },
      app: app(),
    },
    {
      name: 'hook-presync',
      intent: 'a PreSync Job hook runs before the ConfigMap (default delete policy BeforeHookCreation)',
      provenance: SP,
      repo: { 'app/all.yaml': docs(job('pre', hook('PreSync')), cm('cfg')) },
      app: app(),
    },
    {
      name: 'hook-postsync-succeeded',
      intent: 'a PostSync hook deleted when it succeeds (HookSucceeded)',
      provenance: SP,
      repo: { 'app/all.yaml': docs(cm('cfg'), job('post', hook('PostSync', 'HookSucceeded'))) },
      app: app(),
    },
    {
      name: 'hook-sync-phase',
      intent: 'a Sync-phase hook beside normal resources',
      provenance: SP,
      repo: { 'app/all.yaml': docs(cm('cfg'), job('during', hook('Sync'))) },
      app: app(),
    },
    {
      name: 'hook-fails',
      intent: 'a PreSync hook that fails: the operation fails, the Sync phase never runs, SyncFail hook runs',
      provenance: SP,
      repo: {
        'app/all.yaml': docs(job('pre', hook('PreSync'), true), cm('cfg'), job('on-fail', hook('SyncFail'))),
      },
      app: app(),
    },
    {
      name: 'hook-failed-policy',
      intent: 'HookFailed delete policy on a failing hook',
      provenance: SP,
      repo: { 'app/all.yaml': docs(job('pre', hook('PreSync', 'HookFailed'), true), cm('cfg')) },
      app: app(),
    },
    {
      name: 'hook-waves',
      intent: 'two PreSync hooks in waves 1 and 2, then the resources',
      provenance: SP,
      repo: {
        'app/all.yaml': docs(
          job('second', hook('PreSync', undefined, 2)),
          job('first', hook('PreSync', undefined, 1)),
          cm('cfg'),
        ),
      },
      app: app(),
    },
    {
      name: 'hook-skip',
      intent: 'a resource annotated hook: Skip is not applied',
      provenance: SP,
      repo: { 'app/all.yaml': docs(cm('skipped', {}, hook('Skip')), cm('applied')) },
      app: app(),
    },
    {
      name: 'hook-generate-name',
      intent: 'a hook with generateName (a new object on every sync)',
      provenance: SP,
      repo: {
        'app/all.yaml': docs(
          { ...job('x', hook('PostSync')), metadata: { generateName: 'gen-', ...hook('PostSync') } },
          cm('cfg'),
        ),
      },
      app: app(),
    },
    {
      name: 'hook-live-existing',
      intent:
        'a live hook left from a previous sync is listed without sync status and replaced (BeforeHookCreation)',
      provenance: SP,
      repo: { 'app/all.yaml': docs(job('pre', hook('PreSync')), cm('cfg')) },
      live: [
        job('pre', {
          annotations: { ...hook('PreSync').annotations, ...tracked('batch', 'Job', 'pre').annotations },
        }),
      ],
      app: app(),
    },
    {
      name: 'hook-pod',
      intent: 'a bare Pod as PreSync hook',
      provenance: SP,
      repo: {
        'app/all.yaml': docs(
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'pre-pod', ...hook('PreSync', 'HookSucceeded') },
            spec: {
              restartPolicy: 'Never',
              containers: [{ name: 'p', image: 'registry.example/p:1', command: ['true'] }],
            },
          },
          cm('cfg'),
        ),
      },
      app: app(),
    },
    {
      name: 'wave-health-wait',
      intent: 'a Deployment in wave 0 must be healthy before the ConfigMap of wave 1',
      provenance: SP,
      repo: { 'app/all.yaml': docs(deployment('web'), cm('after', {}, wave(1))) },
      app: app(),
    },
    {
      name: 'wave-negative-and-strings',
      intent: "waves '-5', '10' and none",
      provenance: SP,
      repo: { 'app/all.yaml': docs(cm('late', {}, wave(10)), cm('early', {}, wave(-5)), cm('default')) },
      app: app(),
    },
  ];
}

const PP =
  'written for the corpus (Argo CD sync options: docs/user-guide/sync-options.md; gitops-engine sync prune)';

export function prune(): CaseDraft[] {
  const live = [
    cm('keep', {}, tracked('', 'ConfigMap', 'keep')),
    cm('gone', {}, tracked('', 'ConfigMap', 'gone')),
  ];
  const repo = { 'app/cm.yaml': docs(cm('keep')) };
  return [
    {
      name: 'prune-off',
      intent: 'an extra tracked object without prune: PruneSkipped',
      provenance: PP,
      repo,
      live,
      app: app(),
      sync: { prune: false },
    },
    {
      name: 'prune-on',
      intent: 'prune deletes the extra tracked object',
      provenance: PP,
      repo,
      live,
      app: app(),
      sync: { prune: true },
    },
    {
      name: 'prune-disabled-annotation',
      intent: 'Prune=false on the live object keeps it even with prune',
      provenance: PP,
      repo,
      live: [
        cm('keep', {}, tracked('', 'ConfigMap', 'keep')),
        cm(
          'gone',
          {},
          {
            annotations: {
              ...tracked('', 'ConfigMap', 'gone').annotations,
              'argocd.argoproj.io/sync-options': 'Prune=false',
            },
          },
        ),
      ],
      app: app(),
      sync: { prune: true },
    },
    {
      name: 'prune-last',
      intent: 'PruneLast=true: prunes after every wave',
      provenance: PP,
      repo: { 'app/all.yaml': docs(cm('keep'), cm('later', {}, wave(3))) },
      live,
      app: app(),
      sync: { prune: true, syncOptions: ['PruneLast=true'] },
    },
    {
      name: 'prune-wave-order',
      intent: 'extra objects of several waves are pruned in reverse wave order',
      provenance: PP,
      repo,
      live: [
        cm('keep', {}, tracked('', 'ConfigMap', 'keep')),
        cm(
          'p1',
          {},
          {
            annotations: {
              ...tracked('', 'ConfigMap', 'p1').annotations,
              'argocd.argoproj.io/sync-wave': '1',
            },
          },
        ),
        cm(
          'p5',
          {},
          {
            annotations: {
              ...tracked('', 'ConfigMap', 'p5').annotations,
              'argocd.argoproj.io/sync-wave': '5',
            },
          },
        ),
      ],
      app: app(),
      sync: { prune: true },
    },
    {
      name: 'prune-propagation-background',
      intent: 'PrunePropagationPolicy=background',
      provenance: PP,
      repo,
      live: [
        cm('keep', {}, tracked('', 'ConfigMap', 'keep')),
        deployment('old', { meta: tracked('apps', 'Deployment', 'old') }),
      ],
      app: app(),
      sync: { prune: true, syncOptions: ['PrunePropagationPolicy=background'] },
    },
    {
      name: 'prune-everything-refused',
      intent: 'a sync that would prune every resource without allowEmpty',
      provenance: PP,
      repo: { 'app/README.md': 'nothing here\n' },
      live,
      app: app(),
      sync: { prune: true },
    },
    {
      name: 'delete-false',
      intent: 'Delete=false on an extra object: pruning leaves it',
      provenance: PP,
      repo,
      live: [
        cm('keep', {}, tracked('', 'ConfigMap', 'keep')),
        cm(
          'gone',
          {},
          {
            annotations: {
              ...tracked('', 'ConfigMap', 'gone').annotations,
              'argocd.argoproj.io/sync-options': 'Delete=false',
            },
          },
        ),
      ],
      app: app(),
      sync: { prune: true },
    },
  ];
}

export function syncOptions(): CaseDraft[] {
  const repo = { 'app/all.yaml': docs(cm('cfg', { a: '1' }), deployment('web')) };
  const opt = (
    name: string,
    intent: string,
    syncOptions: string[],
    extra: Partial<CaseDraft> = {},
  ): CaseDraft => ({
    name,
    intent,
    provenance: PP,
    repo,
    app: app(),
    sync: { syncOptions },
    ...extra,
  });
  return [
    opt(
      'opt-create-namespace',
      'CreateNamespace=true on a destination that does not exist',
      ['CreateNamespace=true'],
      { createNamespace: false },
    ),
    opt(
      'opt-managed-ns-metadata',
      'CreateNamespace with managedNamespaceMetadata labels and annotations',
      ['CreateNamespace=true'],
      {
        createNamespace: false,
        app: app(
          {},
          {
            syncPolicy: {
              syncOptions: ['CreateNamespace=true'],
              managedNamespaceMetadata: { labels: { team: 'a' }, annotations: { owner: 'x' } },
            },
          },
        ),
      },
    ),
    opt('opt-no-namespace', 'no CreateNamespace and no namespace: the sync fails naming it', [], {
      createNamespace: false,
    }),
    opt('opt-replace', 'Replace=true: objects are created or replaced (PUT)', ['Replace=true'], {
      live: [cm('cfg', { a: 'old' }, tracked('', 'ConfigMap', 'cfg'))],
    }),
    opt(
      'opt-apply-out-of-sync-only',
      'ApplyOutOfSyncOnly=true: only the drifted object is written',
      ['ApplyOutOfSyncOnly=true'],
      {
        live: [
          cm('cfg', { a: 'old' }, tracked('', 'ConfigMap', 'cfg')),
          deployment('web', { meta: tracked('apps', 'Deployment', 'web') }),
        ],
      },
    ),
    opt('opt-validate-false', 'Validate=false', ['Validate=false']),
    opt('opt-server-side-apply', 'ServerSideApply=true (field manager argocd-controller, force conflicts)', [
      'ServerSideApply=true',
    ]),
    opt(
      'opt-ssa-live-owned',
      'ServerSideApply=true over a field another manager owns',
      ['ServerSideApply=true'],
      {
        live: [cm('cfg', { a: 'theirs', b: 'kept' }, tracked('', 'ConfigMap', 'cfg'))],
      },
    ),
    opt(
      'opt-force-immutable',
      'Force=true,Replace=true on a Job whose immutable template changed',
      ['Force=true', 'Replace=true'],
      {
        repo: { 'app/j.yaml': docs(job('once')) },
        live: [
          {
            ...job('once', tracked('batch', 'Job', 'once')),
            spec: {
              ...job('once').spec,
              template: {
                spec: {
                  restartPolicy: 'Never',
                  containers: [{ name: 'main', image: 'registry.example/job:0.9' }],
                },
              },
            },
          },
        ],
      },
    ),
    opt('opt-immutable-no-force', 'an immutable Job template change without Force: the sync fails', [], {
      repo: { 'app/j.yaml': docs(job('once')) },
      live: [
        {
          ...job('once', tracked('batch', 'Job', 'once')),
          spec: {
            ...job('once').spec,
            template: {
              spec: {
                restartPolicy: 'Never',
                containers: [{ name: 'main', image: 'registry.example/job:0.9' }],
              },
            },
          },
        },
      ],
    }),
    opt('opt-per-resource-replace', 'sync-options Replace=true on one resource only', [], {
      repo: {
        'app/all.yaml': docs(
          cm('cfg', { a: '1' }, { annotations: { 'argocd.argoproj.io/sync-options': 'Replace=true' } }),
          cm('other'),
        ),
      },
    }),
    opt('opt-strategy-apply', 'strategy apply: hooks are skipped', [], {
      repo: { 'app/all.yaml': docs(job('pre', hook('PreSync')), cm('cfg')) },
      sync: { strategy: 'apply' },
    }),
    opt('opt-dry-run', 'a dry-run sync writes nothing', [], { sync: { dryRun: true } }),
    opt('opt-selective', 'a selective sync of one resource', [], { sync: { resources: [':ConfigMap:cfg'] } }),
    opt(
      'opt-server-side-diff-ssa',
      'compare-options ServerSideDiff=true with ServerSideApply=true',
      ['ServerSideApply=true'],
      {
        app: app({}, {}, { annotations: { 'argocd.argoproj.io/compare-options': 'ServerSideDiff=true' } }),
        live: [cm('cfg', { a: 'drift' }, tracked('', 'ConfigMap', 'cfg'))],
      },
    ),
    opt(
      'opt-invalid-object',
      'an object the server refuses (invalid name): the dry run fails, nothing written',
      [],
      {
        repo: { 'app/all.yaml': docs(cm('Not_Valid'), cm('fine')) },
      },
    ),
    opt('opt-sync-options-in-app', "the app's syncPolicy.syncOptions (not the operation's)", [], {
      app: app({}, { syncPolicy: { syncOptions: ['PruneLast=true', 'ApplyOutOfSyncOnly=true'] } }),
      live: [cm('cfg', { a: '1' }, tracked('', 'ConfigMap', 'cfg'))],
    }),
  ];
}

const CP =
  'written for the corpus (Argo CD: CRDs in the same sync, SkipDryRunOnMissingResource; gitops-engine sync_context.go)';

function crd(group: string, kind: string): Record<string, unknown> {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          },
        },
      ],
    },
  };
}

export function crds(): CaseDraft[] {
  const g = '${NS}.conformance.example';
  return [
    {
      name: 'crd-same-sync',
      intent: 'a CRD and a custom resource of it in the same sync: the CRD first, no dry-run failure',
      provenance: CP,
      repo: {
        'app/all.yaml': docs(crd(g, 'Widget'), {
          apiVersion: `${g}/v1`,
          kind: 'Widget',
          metadata: { name: 'w1' },
          spec: { size: 1 },
        }),
      },
      app: app(),
    },
    {
      name: 'crd-wave-later',
      intent: 'the custom resource in a later wave than its CRD',
      provenance: CP,
      repo: {
        'app/all.yaml': docs(crd(g, 'Gadget'), {
          apiVersion: `${g}/v1`,
          kind: 'Gadget',
          metadata: { name: 'g1', ...wave(1) },
          spec: {},
        }),
      },
      app: app(),
    },
    {
      name: 'cr-no-crd-skip-dry-run',
      intent: 'a custom resource whose CRD is absent, with SkipDryRunOnMissingResource=true',
      provenance: CP,
      repo: {
        'app/all.yaml': docs(
          {
            apiVersion: 'absent.conformance.example/v1',
            kind: 'Ghost',
            metadata: {
              name: 'g',
              annotations: { 'argocd.argoproj.io/sync-options': 'SkipDryRunOnMissingResource=true' },
            },
          },
          cm('cfg'),
        ),
      },
      app: app(),
    },
    {
      name: 'cr-no-crd',
      intent: 'a custom resource whose CRD is absent: the sync fails in the dry run',
      provenance: CP,
      repo: {
        'app/all.yaml': docs(
          { apiVersion: 'absent.conformance.example/v1', kind: 'Ghost', metadata: { name: 'g' } },
          cm('cfg'),
        ),
      },
      app: app(),
    },
    {
      name: 'crd-live-cr-drift',
      intent: 'a live CRD and custom resource (created before), the custom resource drifted',
      provenance: CP,
      repo: {
        'app/all.yaml': docs(crd(g, 'Thing'), {
          apiVersion: `${g}/v1`,
          kind: 'Thing',
          metadata: { name: 't' },
          spec: { n: 2 },
        }),
      },
      live: [
        {
          ...crd(g, 'Thing'),
          metadata: {
            name: `things.${g}`,
            ...tracked('apiextensions.k8s.io', 'CustomResourceDefinition', `things.${g}`, ''),
          },
        },
        {
          apiVersion: `${g}/v1`,
          kind: 'Thing',
          metadata: { name: 't', ...tracked(g, 'Thing', 't') },
          spec: { n: 1 },
        },
      ],
      app: app(),
    },
  ];
}

/**
 * A custom resource whose group serves its kind at another version only (the CRD live, serving v1; the
 * target at v2): Argo CD refuses the sync in getSyncTasks, naming the served version (util/argo
 * AugmentSyncMsg). Cases added after the appsets' (ids c247 on).
 */
export function crdVersions(): CaseDraft[] {
  const g = '${NS}.conformance.example';
  return [
    {
      name: 'cr-unserved-version',
      intent: 'a custom resource at a version its CRD does not serve (v2; the live CRD serves v1 only)',
      provenance: CP,
      repo: {
        'app/all.yaml': docs(
          { apiVersion: `${g}/v2`, kind: 'Sprocket', metadata: { name: 's' }, spec: { teeth: 12 } },
          cm('cfg'),
        ),
      },
      live: [crd(g, 'Sprocket')],
      app: app(),
    },
    {
      name: 'cr-unserved-version-live',
      intent: 'a live custom resource (v1) whose target names a version its CRD does not serve (v2)',
      provenance: CP,
      repo: {
        'app/all.yaml': docs(
          { apiVersion: `${g}/v2`, kind: 'Cog', metadata: { name: 'c' }, spec: { teeth: 12 } },
          cm('cfg'),
        ),
      },
      live: [
        crd(g, 'Cog'),
        {
          apiVersion: `${g}/v1`,
          kind: 'Cog',
          metadata: { name: 'c', ...tracked(g, 'Cog', 'c') },
          spec: { teeth: 10 },
        },
      ],
      app: app(),
    },
  ];
}
