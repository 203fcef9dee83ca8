/**
 * `/openapi/v2` and `/openapi/v3` `paths` as kube-apiserver publishes them (issue 9): one path item per
 * resource route with its verbs, each operation tagged `x-kubernetes-action` and
 * `x-kubernetes-group-version-kind` (k8s.io/apiserver pkg/endpoints/installer.go), generated from the served
 * resources, CRDs included. kubectl <= 1.21 `diff` reads the PATCH operation's `dryRun` parameter.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { api, useEmbeddedCluster } from '../support/embedded.js';
import type { EmbeddedFixture } from '../support/embedded.js';

interface Operation {
  operationId: string;
  parameters?: Array<{ name: string; in: string }>;
  responses: Record<string, { schema?: { $ref: string } }>;
  'x-kubernetes-action': string;
  'x-kubernetes-group-version-kind': { group: string; kind: string; version: string };
}
type PathItem = Record<string, Operation>;

const summary = (item: PathItem | undefined): Record<string, string> =>
  Object.fromEntries(
    Object.entries(item ?? {})
      .filter(([method]) => method !== 'parameters')
      .map(([method, o]) => [method, `${o.operationId} ${o['x-kubernetes-action']}`]),
  );

describe('embedded server: OpenAPI paths of the served resources', () => {
  const fx = useEmbeddedCluster();
  const v2paths = async (): Promise<Record<string, PathItem>> =>
    (await api(fx.cluster, 'GET', '/openapi/v2')).body.paths;

  it('v2: collection, object, status, scale, all-namespaces and watch routes with their verbs', async () => {
    const paths = await v2paths();
    assert.deepEqual(summary(paths['/apis/apps/v1/namespaces/{namespace}/deployments']), {
      get: 'listAppsV1NamespacedDeployment list',
      post: 'createAppsV1NamespacedDeployment post',
      delete: 'deleteAppsV1CollectionNamespacedDeployment deletecollection',
    });
    assert.deepEqual(summary(paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']), {
      get: 'readAppsV1NamespacedDeployment get',
      put: 'replaceAppsV1NamespacedDeployment put',
      delete: 'deleteAppsV1NamespacedDeployment delete',
      patch: 'patchAppsV1NamespacedDeployment patch',
    });
    const scale = paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale']!;
    assert.deepEqual(scale['patch']!['x-kubernetes-group-version-kind'], {
      group: 'autoscaling',
      kind: 'Scale',
      version: 'v1',
    });
    assert.equal(
      paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status']!['get']!.responses['200']!
        .schema!.$ref,
      '#/definitions/io.k8s.api.apps.v1.Deployment',
    );
    assert.deepEqual(summary(paths['/apis/apps/v1/deployments']), {
      get: 'listAppsV1DeploymentForAllNamespaces list',
    });
    assert.deepEqual(summary(paths['/apis/apps/v1/watch/namespaces/{namespace}/deployments/{name}']), {
      get: 'watchAppsV1NamespacedDeployment watch',
    });
    // Cluster-scoped, and the verbs a resource does not serve are absent (Namespace: no deletecollection).
    assert.deepEqual(summary(paths['/api/v1/namespaces']), {
      get: 'listCoreV1Namespace list',
      post: 'createCoreV1Namespace post',
    });
    assert.deepEqual(Object.keys(summary(paths['/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}'])), [
      'get',
      'put',
      'delete',
      'patch',
    ]);
    assert.equal(
      paths['/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}']!['patch']!.operationId,
      'patchRbacAuthorizationV1ClusterRole',
    );
    assert.equal(paths['/api/v1/namespaces/{namespace}/configmaps/{name}/status'], undefined);
  });

  it("v2: PATCH declares dryRun, fieldManager, fieldValidation and force; the GVK is the kind's", async () => {
    const patch = (await v2paths())['/api/v1/namespaces/{namespace}/configmaps/{name}']!['patch']!;
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], {
      group: '',
      kind: 'ConfigMap',
      version: 'v1',
    });
    assert.deepEqual(
      patch.parameters!.map((p) => `${p.in}:${p.name}`),
      ['body:body', 'query:dryRun', 'query:fieldManager', 'query:fieldValidation', 'query:force'],
    );
  });

  it('a CRD adds its routes (no strategic merge patch) and deleting it removes them', async () => {
    await api(fx.cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gizmos.example.org' },
      spec: {
        group: 'example.org',
        scope: 'Cluster',
        names: { plural: 'gizmos', kind: 'Gizmo' },
        versions: ['v1', 'v2'].map((name) => ({
          name,
          served: true,
          storage: name === 'v2',
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        })),
      },
    });
    const paths = await v2paths();
    for (const v of ['v1', 'v2']) {
      const item = paths[`/apis/example.org/${v}/gizmos/{name}`]!;
      assert.equal(item['patch']!.operationId, `patchExampleOrg${v[0]!.toUpperCase()}${v.slice(1)}Gizmo`);
      assert.deepEqual(item['patch']!['x-kubernetes-group-version-kind'], {
        group: 'example.org',
        kind: 'Gizmo',
        version: v,
      });
      assert.ok(paths[`/apis/example.org/${v}/gizmos/{name}/status`]);
    }
    const v3 = await api(fx.cluster, 'GET', '/openapi/v3/apis/example.org/v2');
    const v3patch = v3.body.paths['/apis/example.org/v2/gizmos/{name}'].patch;
    assert.deepEqual(Object.keys(v3patch.requestBody.content), [
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    assert.ok(
      v3.body.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.Patch'],
      'referenced schemas are included',
    );
    await api(
      fx.cluster,
      'DELETE',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.org',
    );
    const after = await v2paths();
    assert.deepEqual(
      Object.keys(after).filter((p) => p.includes('example.org')),
      [],
    );
  });
});

/**
 * kubectl 1.20 (Debian bookworm's kubernetes-client, extracted with `apt-get download` + `dpkg-deb -x`), when
 * KUBECTL_1_20 names its binary: `kubectl diff` needs the v2 PATCH operation's dryRun parameter.
 */
const kubectl120 = process.env['KUBECTL_1_20'];
describe(
  'kubectl 1.20 against the embedded server',
  {
    skip: kubectl120 && existsSync(kubectl120) ? false : 'KUBECTL_1_20 does not name a kubectl 1.20 binary',
  },
  () => {
    const fx = useEmbeddedCluster();
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          kubectl120!,
          args,
          { env: { ...process.env, KUBECONFIG: fx.kubeconfig, KUBECACHEDIR: join(fx.dir, 'cache120') } },
          (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const manifest = (fx: EmbeddedFixture, value: string): string => {
      const file = join(fx.dir, 'cm.yaml');
      writeFileSync(
        file,
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1, namespace: default}\ndata: {a: ${value}}\n`,
      );
      return file;
    };

    it('kubectl diff shows the change (exit 1) through a server-side dry run', async () => {
      assert.equal((await run(['apply', '-f', manifest(fx, 'b')])).code, 0);
      const diff = await run(['diff', '-f', manifest(fx, 'c')]);
      assert.equal(diff.code, 1, diff.stderr);
      assert.match(diff.stdout, /^- {2}a: b$/m);
      assert.match(diff.stdout, /^\+ {2}a: c$/m);
    });
  },
);
