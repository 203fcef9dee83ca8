/**
 * `kubectl auth reconcile` before the client-side apply of a role or binding, as Argo CD 3.6.1 runs it
 * (src/sync/rbac-reconcile.ts): what it decides, the words it leaves in the result message (measured by the
 * conformance corpus, c014 and c054), and a sync on the embedded API server.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterConnection, ResourceInfo } from '../../src/cluster/index.js';
import type { KubeObject } from '../../src/common/index.js';
import { formatRule, planReconcile, reconcileOutput, uncovered } from '../../src/sync/rbac-reconcile.js';
import { useEmbeddedCluster } from '../support/embedded.js';
import { TestRepo } from '../support/git.js';
import { application, connectAs, newCacheRoot, reportOf, sync, syncRequest } from '../controller/setup.js';

const role = (rules: unknown[], extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: { name: 'r', namespace: 'ns', annotations: { 'argocd.argoproj.io/tracking-id': 'app:x' } },
  rules,
  ...extra,
});
const binding = (subjects: unknown[], roleName = 'r'): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name: 'reader', namespace: 'ns' },
  subjects,
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
});
const ROLE_KEY = { group: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' };
const GET_PODS = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };

describe('planReconcile and its output', () => {
  it('creates an absent role as it is, every rule missing, in kubectl words (Argo CD 3.6.1, c054)', () => {
    const plan = planReconcile(role([GET_PODS]), undefined);
    assert.equal(plan.operation, 'create');
    assert.deepEqual(plan.object['rules'], [GET_PODS]);
    assert.equal(
      plan.object.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration'],
      undefined,
    );
    assert.equal(
      reconcileOutput(ROLE_KEY, plan),
      'role.rbac.authorization.k8s.io/r reconciled. reconciliation required create\n\tmissing rules added:\n\t\t' +
        '{Verbs:[get] APIGroups:[] Resources:[pods] ResourceNames:[] NonResourceURLs:[]}',
    );
  });

  it('creates an absent binding with its subjects missing (Argo CD 3.6.1, c014)', () => {
    const subject = { kind: 'ServiceAccount', name: 'reader', namespace: 'c014-X' };
    const plan = planReconcile(binding([subject]), undefined);
    assert.equal(
      reconcileOutput({ group: 'rbac.authorization.k8s.io', kind: 'RoleBinding', name: 'reader' }, plan),
      'rolebinding.rbac.authorization.k8s.io/reader reconciled. reconciliation required create\n' +
        '\tmissing subjects added:\n\t\t{Kind:ServiceAccount APIGroup: Name:reader Namespace:c014-X}',
    );
  });

  it('leaves a live object that already covers the target alone: only the stdout line', () => {
    const live = role([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]);
    const plan = planReconcile(role([GET_PODS]), live);
    assert.equal(plan.operation, 'none');
    assert.equal(
      reconcileOutput(
        { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'c014-X-reader' },
        plan,
      ),
      'clusterrole.rbac.authorization.k8s.io/c014-X-reader reconciled',
    );
  });

  it('adds the broken-down rules the live role lacks and the labels it lacks, keeping its own', () => {
    const live = role([GET_PODS], {});
    live.metadata = { ...live.metadata, labels: { team: 'live' }, resourceVersion: '7' };
    const target = role([{ apiGroups: [''], resources: ['pods', 'configmaps'], verbs: ['get', 'list'] }]);
    target.metadata = { ...target.metadata, labels: { team: 'git', tier: 'web' } };
    const plan = planReconcile(target, live);
    assert.equal(plan.operation, 'update');
    assert.deepEqual(plan.object.metadata?.labels, { team: 'live', tier: 'web' });
    assert.equal(plan.object.metadata?.resourceVersion, '7', 'a PUT of the live object');
    assert.deepEqual(plan.missingRules.map(formatRule), [
      '{Verbs:[list] APIGroups:[] Resources:[pods] ResourceNames:[] NonResourceURLs:[]}',
      '{Verbs:[get] APIGroups:[] Resources:[configmaps] ResourceNames:[] NonResourceURLs:[]}',
      '{Verbs:[list] APIGroups:[] Resources:[configmaps] ResourceNames:[] NonResourceURLs:[]}',
    ]);
    assert.equal((plan.object['rules'] as unknown[]).length, 4, 'the live rule kept, three added');
  });

  it('says when the live object opted out, and a changed roleRef re-creates the binding', () => {
    const live = role([]);
    live.metadata = {
      ...live.metadata,
      annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' },
    };
    const plan = planReconcile(role([GET_PODS]), live);
    assert.equal(plan.protected, true);
    assert.match(
      reconcileOutput(ROLE_KEY, plan),
      /required update, but object opted out \(rbac\.authorization\.kubernetes\.io\/autoupdate: false\)/,
    );
    assert.equal(planReconcile(binding([], 'other'), binding([])).operation, 'recreate');
  });

  it("covers as RBAC's escalation check does: wildcards, subresources, resource names, URLs", () => {
    const owner = [
      { apiGroups: ['apps'], resources: ['*/scale'], verbs: ['get'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
      { nonResourceURLs: ['/healthz/*'], verbs: ['get'] },
    ];
    const servant = [
      { apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['get'] },
      { apiGroups: [''], resources: ['secrets'], resourceNames: ['a'], verbs: ['get'] },
      { nonResourceURLs: ['/healthz/ready', '/metrics'], verbs: ['get'] },
    ];
    assert.deepEqual(uncovered(owner, servant), [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }]);
  });
});

describe('a sync of roles and bindings on the embedded API server', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;
  before(async () => {
    conn = await connectAs(fx);
  });
  after(() => conn?.close());

  it("creates by reconcile, then patches in last-applied-configuration, with Argo CD's message", async () => {
    repo.commit({
      'rbac/role.yaml':
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: r\nrules:\n- apiGroups: [""]\n  resources: [pods]\n  verbs: [get]\n',
      'rbac/binding.yaml':
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: reader\nsubjects:\n- kind: ServiceAccount\n  name: reader\n  namespace: rbac\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: r\n',
    });
    const app = application('rbac', repo.url, 'rbac', { namespace: 'rbac' });
    const op = reportOf(await sync(fx, [app], cacheRoot, syncRequest()), 'rbac').operation!;
    assert.equal(op.phase, 'Succeeded', JSON.stringify(op.resources.map((r) => r.message)));
    const warning = (plural: string, name: string) =>
      `Warning: resource ${plural}/${name} is missing the kubectl.kubernetes.io/last-applied-configuration ` +
      'annotation which is required by  apply.  apply should only be used on resources created declaratively ' +
      'by either  create --save-config or  apply. The missing annotation will be patched automatically.';
    assert.equal(
      op.resources.find((r) => r.kind === 'Role')?.message,
      'role.rbac.authorization.k8s.io/r reconciled. reconciliation required create\n\tmissing rules added:\n\t\t' +
        '{Verbs:[get] APIGroups:[] Resources:[pods] ResourceNames:[] NonResourceURLs:[]}' +
        `role.rbac.authorization.k8s.io/r configured. ${warning('roles', 'r')}`,
    );
    assert.equal(
      op.resources.find((r) => r.kind === 'RoleBinding')?.message,
      'rolebinding.rbac.authorization.k8s.io/reader reconciled. reconciliation required create\n' +
        '\tmissing subjects added:\n\t\t{Kind:ServiceAccount APIGroup: Name:reader Namespace:rbac}' +
        `rolebinding.rbac.authorization.k8s.io/reader configured. ${warning('rolebindings', 'reader')}`,
    );
    const ROLE: ResourceInfo = {
      group: 'rbac.authorization.k8s.io',
      version: 'v1',
      kind: 'Role',
      plural: 'roles',
      namespaced: true,
      verbs: [],
    };
    const live = await conn.client.get(ROLE, 'rbac', 'r');
    assert.ok(live.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration']);
    assert.deepEqual(live['rules'], [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]);

    // Again, nothing to change: the reconcile's line, then the apply's "unchanged".
    const again = reportOf(await sync(fx, [app], cacheRoot, syncRequest()), 'rbac').operation!;
    assert.equal(
      again.resources.find((r) => r.kind === 'Role')?.message,
      'role.rbac.authorization.k8s.io/r reconciledrole.rbac.authorization.k8s.io/r unchanged',
    );
  });
});
