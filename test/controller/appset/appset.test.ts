/**
 * Argo CD's ApplicationSet controller in this process (runAppSetController) on the embedded API server:
 * generated Applications created, updated and deleted with the set as controller owner, the policies,
 * preserveResourcesOnDeletion, ignoreApplicationDifferences, templatePatch with goTemplate, validation
 * and generation errors in status, git generators over a real Git repository (the git CLI), clusters
 * generators requeued by cluster Secret changes, and the set's deletion. Every wait follows an event or
 * an object change the step under test must produce.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { api, useEmbeddedCluster, waitForDeletion, waitForObject } from '../../support/embedded.js';
import { TestRepo } from '../../support/git.js';
import { newCacheRoot } from '../setup.js';
import { APPS, SETS, startAppSets } from './harness.js';
import type { AppSetHarness } from './harness.js';

const T = { timeout: 60_000 };
type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const listSet = (name: string, elements: string[], extra = '', policy = ''): string => `
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: ${name}
spec:
  generators:
    - list:
        elements:
${elements.map((e) => `          - env: ${e}`).join('\n')}
${policy ? `  syncPolicy:\n${policy}` : ''}
  template:
    metadata:
      name: '${name}-{{env}}'
      labels:
        env: '{{env}}'
    spec:
      project: default
      source:
        repoURL: https://example.com/repo.git
        targetRevision: main
        path: 'envs/{{env}}'
      destination:
        server: https://kubernetes.default.svc
        namespace: '{{env}}'
${extra}`;

const cond = (set: Any, type: string): Any => set?.status?.conditions?.find((c: Any) => c.type === type);
/** Deleted (or being deleted: no application controller runs here to remove the resources finalizer). */
const deleting = (o: Any): boolean => o === undefined || o.metadata.deletionTimestamp !== undefined;

describe('ApplicationSets reconciled by kubectl gitops controller', () => {
  const fx = useEmbeddedCluster();
  /** The Application's finalizers removed, as the application controller would once done. */
  const dropFinalizers = async (name: string): Promise<void> => {
    const res = await api(
      fx.cluster,
      'PATCH',
      `${APPS}/${name}`,
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let h: AppSetHarness;

  before(async () => {
    repo.commit({
      'apps/one/cm.yaml': 'kind: ConfigMap',
      'apps/two/cm.yaml': 'kind: ConfigMap',
      'config/a.json': '{"cluster": {"name": "alpha"}}',
    });
    h = await startAppSets(fx, cacheRoot);
  });

  after(async () => {
    await h.stop();
    repo.remove();
  });

  it(
    'creates the Applications with the set as controller owner, the resources finalizer, and status',
    T,
    async () => {
      await h.createSet(listSet('web', ['dev', 'prod']));
      const set = await waitForObject(
        fx.cluster,
        `${SETS}/web`,
        (o) => cond(o, 'ResourcesUpToDate')?.status === 'True' && o.status.resources?.length === 2,
      );
      const app = await h.getApp('web-dev');
      assert.deepEqual(app.metadata.ownerReferences, [
        {
          apiVersion: 'argoproj.io/v1alpha1',
          kind: 'ApplicationSet',
          name: 'web',
          uid: set.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      assert.deepEqual(app.metadata.finalizers, ['resources-finalizer.argocd.argoproj.io']);
      assert.deepEqual(app.metadata.labels, { env: 'dev' });
      assert.equal(app.spec.source.path, 'envs/dev');
      assert.equal(app.spec.destination.namespace, 'dev');
      const conditions = set.status.conditions.map((c: Any) => [c.type, c.status, c.reason, c.message]);
      assert.deepEqual(conditions, [
        [
          'ErrorOccurred',
          'False',
          'ApplicationSetUpToDate',
          'All applications have been generated successfully',
        ],
        [
          'ParametersGenerated',
          'True',
          'ParametersGenerated',
          'All parameters have been generated successfully',
        ],
        [
          'ResourcesUpToDate',
          'True',
          'ApplicationSetUpToDate',
          'All applications have been generated successfully',
        ],
      ]);
      assert.ok(
        set.status.conditions.every((c: Any) =>
          /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(c.lastTransitionTime),
        ),
      );
      assert.deepEqual(set.status.health, {
        status: 'Healthy',
        message: 'All applications have been generated successfully',
      });
      assert.deepEqual(set.status.resources, [
        {
          group: 'argoproj.io',
          version: 'v1alpha1',
          kind: 'Application',
          name: 'web-dev',
          namespace: 'argocd',
          health: {},
        },
        {
          group: 'argoproj.io',
          version: 'v1alpha1',
          kind: 'Application',
          name: 'web-prod',
          namespace: 'argocd',
          health: {},
        },
      ]);
      assert.equal(set.status.resourcesCount, 2);
    },
  );

  it(
    'updates a changed Application, deletes one no longer generated, and keeps what Argo CD preserves',
    T,
    async () => {
      // A set of its own (not the first test's `web`: on a real server its Applications may still be
      // changing when this test starts).
      await h.createSet(listSet('upd', ['dev', 'prod']));
      await waitForObject(fx.cluster, `${SETS}/upd`, (o) => o?.status?.resources?.length === 2);
      // A user's refresh annotation and a PostDelete finalizer on the live app survive the update.
      const res = await api(
        fx.cluster,
        'PATCH',
        `${APPS}/upd-prod`,
        {
          metadata: {
            annotations: { 'argocd.argoproj.io/refresh': 'normal', 'other.example.com/x': 'y' },
            finalizers: [
              'resources-finalizer.argocd.argoproj.io',
              'post-delete-finalizer.argocd.argoproj.io',
            ],
          },
        },
        'application/merge-patch+json',
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      await h.patchSet('upd', {
        spec: {
          generators: [{ list: { elements: [{ env: 'prod' }] } }],
          template: { spec: { source: { targetRevision: 'v2' } } },
        },
      });
      await waitForObject(fx.cluster, `${APPS}/upd-dev`, deleting);
      const prod = await waitForObject(
        fx.cluster,
        `${APPS}/upd-prod`,
        (o) => o?.spec?.source?.targetRevision === 'v2',
      );
      assert.deepEqual(prod.metadata.annotations, { 'argocd.argoproj.io/refresh': 'normal' });
      assert.deepEqual(prod.metadata.finalizers, [
        'resources-finalizer.argocd.argoproj.io',
        'post-delete-finalizer.argocd.argoproj.io',
      ]);
      // upd-dev, held by its resources finalizer (no application controller runs here), still exists and
      // is still listed, as Argo CD lists the Applications that exist after its deletes; once it is gone,
      // its removal queues the set and it leaves the list.
      let set = await h.getSet('upd');
      assert.deepEqual(
        set.status.resources.map((r: Any) => r.name),
        ['upd-dev', 'upd-prod'],
      );
      await dropFinalizers('upd-dev');
      set = await waitForObject(fx.cluster, `${SETS}/upd`, (o) => o.status.resources?.length === 1);
      assert.equal(set.status.resourcesCount, 1);
      await dropFinalizers('upd-prod');
    },
  );

  it(
    'honours applicationsSync: create-only neither updates nor deletes, create-delete does not update',
    T,
    async () => {
      await h.createSet(listSet('only', ['a', 'b'], '', '    applicationsSync: create-only'));
      await waitForObject(fx.cluster, `${SETS}/only`, (o) => o?.status?.resources?.length === 2);
      let from = h.events.length;
      await h.patchSet('only', {
        spec: {
          generators: [{ list: { elements: [{ env: 'a' }, { env: 'c' }] } }],
          template: { spec: { source: { targetRevision: 'v9' } } },
        },
      });
      // The pass that saw the new spec (only-c made), to its end: a pass already running when the spec
      // changed ends after `from` too (seen on the real server), with the old elements.
      const made = await h.until(
        (e) => e.type === 'appset-application' && e.app === 'only-c' && e.action === 'created',
        from,
      );
      await h.until(
        (e) => e.type === 'appset-reconciled' && e.appset === 'argocd/only',
        h.events.indexOf(made),
      );
      assert.deepEqual(
        (await h.appNames()).filter((n) => n.startsWith('only-')),
        ['only-a', 'only-b', 'only-c'],
      );
      assert.equal((await h.getApp('only-a')).spec.source.targetRevision, 'main');
      assert.equal((await h.getApp('only-c')).spec.source.targetRevision, 'v9');

      await h.patchSet('only', { spec: { syncPolicy: { applicationsSync: 'create-delete' } } });
      from = h.events.length;
      await h.until((e) => e.type === 'appset-reconciled' && e.appset === 'argocd/only', from);
      await waitForObject(fx.cluster, `${APPS}/only-b`, deleting);
      assert.equal((await h.getApp('only-a')).spec.source.targetRevision, 'main');

      await h.patchSet('only', { spec: { syncPolicy: { applicationsSync: 'create-update' } } });
      await waitForObject(fx.cluster, `${APPS}/only-a`, (o) => o?.spec?.source?.targetRevision === 'v9');
    },
  );

  it(
    'preserveResourcesOnDeletion: no resources finalizer; ignoreApplicationDifferences keeps live edits',
    T,
    async () => {
      await h.createSet(
        listSet(
          'keep',
          ['x'],
          `  ignoreApplicationDifferences:
    - jsonPointers: [/spec/source/targetRevision]
`,
          '    preserveResourcesOnDeletion: true',
        ),
      );
      const app = await waitForObject(fx.cluster, `${APPS}/keep-x`, (o) => o !== undefined);
      assert.equal(app.metadata.finalizers, undefined);
      // A user (or image updater) moves the revision: the controller leaves it.
      const res = await api(
        fx.cluster,
        'PATCH',
        `${APPS}/keep-x`,
        { spec: { source: { targetRevision: 'pinned' } } },
        'application/merge-patch+json',
      );
      assert.equal(res.status, 200);
      const from = h.events.length;
      await h.patchSet('keep', { spec: { template: { spec: { source: { path: 'moved/{{env}}' } } } } });
      await waitForObject(fx.cluster, `${APPS}/keep-x`, (o) => o?.spec?.source?.path === 'moved/x');
      await h.until((e) => e.type === 'appset-reconciled' && e.appset === 'argocd/keep', from);
      assert.equal((await h.getApp('keep-x')).spec.source.targetRevision, 'pinned');
    },
  );

  it(
    'goTemplate with templatePatch, and the git directory and file generators over a real repository',
    T,
    async () => {
      await h.createSet(`
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: git
spec:
  goTemplate: true
  goTemplateOptions: ["missingkey=error"]
  generators:
    - git:
        repoURL: ${repo.url}
        revision: HEAD
        directories:
          - path: apps/*
    - git:
        repoURL: ${repo.url}
        revision: HEAD
        files:
          - path: config/*.json
  template:
    metadata:
      name: 'git-{{ .path.basename }}'
    spec:
      project: default
      source:
        repoURL: ${repo.url}
        targetRevision: HEAD
        path: '{{ .path.path }}'
      destination:
        server: https://kubernetes.default.svc
        namespace: git
  templatePatch: |
    spec:
      syncPolicy:
        automated:
          prune: {{ if eq .path.basename "one" }}true{{ else }}false{{ end }}
`);
      const set = await waitForObject(fx.cluster, `${SETS}/git`, (o) => o?.status?.resources?.length === 3);
      assert.deepEqual(
        set.status.resources.map((r: Any) => r.name),
        ['git-config', 'git-one', 'git-two'],
      );
      assert.deepEqual((await h.getApp('git-one')).spec.syncPolicy, { automated: { prune: true } });
      // Written as Go serializes the typed spec: `prune: false` is omitted.
      assert.deepEqual((await h.getApp('git-two')).spec.syncPolicy, { automated: {} });
      // A new directory appears at the next generation (the requeue, or a refresh annotation).
      repo.commit({ 'apps/three/cm.yaml': 'kind: ConfigMap' });
      await h.patchSet('git', {
        metadata: { annotations: { 'argocd.argoproj.io/application-set-refresh': 'true' } },
      });
      await waitForObject(fx.cluster, `${APPS}/git-three`, (o) => o !== undefined);
      await waitForObject(
        fx.cluster,
        `${SETS}/git`,
        (o) => o?.metadata?.annotations?.['argocd.argoproj.io/application-set-refresh'] === undefined,
      );
    },
  );

  it(
    'reports generation and validation errors with Argo CD reasons; valid Applications are still written',
    T,
    async () => {
      await h.createSet(`
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: bad
spec:
  goTemplate: true
  goTemplateOptions: ["missingkey=error"]
  generators:
    - list:
        elements: [{env: a}]
  template:
    metadata:
      name: 'bad-{{ .nothere }}'
    spec:
      project: default
      source: {repoURL: https://example.com/r.git, path: x}
      destination: {server: https://kubernetes.default.svc, namespace: x}
`);
      let set = await waitForObject(
        fx.cluster,
        `${SETS}/bad`,
        (o) => cond(o, 'ErrorOccurred')?.status === 'True',
      );
      assert.equal(cond(set, 'ErrorOccurred').reason, 'RenderTemplateParamsError');
      // Go's text/template words it (checked against Argo CD v3.6.1 on the rig, corpus case appset-render-error).
      assert.equal(
        cond(set, 'ErrorOccurred').message,
        'failed to execute go template bad-{{ .nothere }}: template: base:1:7: executing "base" at <.nothere>: map has no entry for key "nothere"',
      );
      assert.equal(cond(set, 'ParametersGenerated').status, 'False');
      assert.equal(cond(set, 'ParametersGenerated').reason, 'ErrorOccurred');
      assert.equal(cond(set, 'ResourcesUpToDate').status, 'False');
      assert.equal(cond(set, 'ResourcesUpToDate').reason, 'ErrorOccurred');
      assert.equal(set.status.health.status, 'Degraded');

      await h.patchSet('bad', {
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
          template: { metadata: { name: 'bad-{{ .env }}' }, spec: { project: '{{ .project }}' } },
        },
      });
      set = await waitForObject(
        fx.cluster,
        `${SETS}/bad`,
        (o) => cond(o, 'ErrorOccurred')?.reason === 'ApplicationValidationError',
      );
      assert.equal(
        cond(set, 'ErrorOccurred').message,
        'application references project nope2 which does not exist (and 1 more)',
      );
      assert.equal(cond(set, 'ParametersGenerated').status, 'True');
      await waitForObject(fx.cluster, `${APPS}/bad-a`, (o) => o !== undefined);
      assert.equal((await api(fx.cluster, 'GET', `${APPS}/bad-b`)).status, 404);

      // A destination that names no cluster.
      await h.patchSet('bad', {
        spec: {
          generators: [{ list: { elements: [{ env: 'a', project: 'default' }] } }],
          template: { spec: { destination: { server: 'https://nowhere.example.com' } } },
        },
      });
      set = await waitForObject(fx.cluster, `${SETS}/bad`, (o) =>
        /destination/.test(cond(o, 'ErrorOccurred')?.message ?? ''),
      );
      assert.equal(
        cond(set, 'ErrorOccurred').message,
        'application destination spec is invalid: error getting cluster by server "https://nowhere.example.com": rpc error: code = NotFound desc = cluster "https://nowhere.example.com" not found',
      );
    },
  );

  it(
    'a clusters generator follows cluster Secrets; deleting the set deletes its Applications',
    { timeout: 120_000 },
    async () => {
      await h.createSet(`
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: fleet
spec:
  generators:
    - clusters:
        selector:
          matchLabels: {tier: edge}
  template:
    metadata:
      name: 'fleet-{{name}}'
    spec:
      project: default
      source: {repoURL: https://example.com/r.git, path: edge}
      destination: {server: '{{server}}', namespace: edge}
`);
      await waitForObject(
        fx.cluster,
        `${SETS}/fleet`,
        (o) => cond(o, 'ResourcesUpToDate')?.status === 'True',
      );
      assert.deepEqual(
        (await h.appNames()).filter((n) => n.startsWith('fleet-')),
        [],
      );
      const res = await api(fx.cluster, 'POST', '/api/v1/namespaces/argocd/secrets', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: 'edge-1',
          namespace: 'argocd',
          labels: { 'argocd.argoproj.io/secret-type': 'cluster', tier: 'edge' },
        },
        stringData: { name: 'edge-1', server: 'https://edge-1.example.com', config: '{}' },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const app = await waitForObject(fx.cluster, `${APPS}/fleet-edge-1`, (o) => o !== undefined);
      assert.equal(app.spec.destination.server, 'https://edge-1.example.com');

      // The set deleted (background): the garbage collector deletes its Applications through the owner reference.
      // A real one watches a kind only from its next resync of what the server serves (kube-controller-manager:
      // every 30 s): on a server where Argo CD's CRDs were just made, that is up to 30 s away.
      const del = await api(fx.cluster, 'DELETE', `${SETS}/fleet`);
      assert.equal(del.status, 200);
      await waitForObject(fx.cluster, `${APPS}/fleet-edge-1`, deleting, 110_000);
    },
  );

  it(
    'create-only: a set being deleted gives its Applications up (owner references removed), so they stay',
    T,
    async () => {
      await h.createSet(listSet('stay', ['s'], '', '    applicationsSync: create-only'));
      await waitForObject(fx.cluster, `${APPS}/stay-s`, (o) => o?.metadata?.ownerReferences?.length === 1);
      // Another finalizer holds the set while it is deleted: the controller sees deletionTimestamp.
      await h.patchSet('stay', { metadata: { finalizers: ['example.com/hold'] } });
      const del = await api(fx.cluster, 'DELETE', `${SETS}/stay`);
      assert.equal(del.status, 200);
      await waitForObject(
        fx.cluster,
        `${APPS}/stay-s`,
        (o) => o !== undefined && o.metadata.ownerReferences === undefined,
      );
      await h.patchSet('stay', { metadata: { finalizers: null } });
      await waitForDeletion(fx.cluster, `${SETS}/stay`);
      assert.equal((await api(fx.cluster, 'GET', `${APPS}/stay-s`)).status, 200);
    },
  );
});
