/**
 * Unknown paths answer as kube-apiserver does (issue 9). Its handler chain (k8s.io/apiserver): built-in
 * group/versions are go-restful web services, whose unmatched routes get a `Status` NotFound ("the server
 * could not find the requested resource"); everything else falls through the CRD handler (which delegates
 * resources no CRD serves) to the not-found handler, Go's http.NotFound: `404 page not found`, text/plain.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hasKubectl, kubectl, useEmbeddedCluster } from '../support/embedded.js';
import { preserveUnknownFieldsCrd } from '../support/crds.js';

describe('embedded server: unknown paths', () => {
  const fx = useEmbeddedCluster();

  const status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server could not find the requested resource',
    reason: 'NotFound',
    details: {},
    code: 404,
  };

  it('an unknown resource of a built-in group/version is a Status NotFound', async () => {
    for (const path of ['/api/v1/nosuch', '/apis/apps/v1/nosuch', '/api/v1/namespaces/default/nosuch/x']) {
      const res = await fetch(`${fx.cluster.url}${path}`);
      assert.equal(res.status, 404, path);
      assert.equal(res.headers.get('content-type'), 'application/json', path);
      assert.deepEqual(await res.json(), status, path);
    }
  });

  it('non-API paths, unknown groups and versions, and unknown resources of CRD groups: 404 page not found', async () => {
    const created = await fetch(`${fx.cluster.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(preserveUnknownFieldsCrd('gizmos.example.com', 'Gizmo')),
    });
    assert.equal(created.status, 201, await created.text());
    const gv = 'gizmos.example.com/v1';
    const served = await fetch(`${fx.cluster.url}/apis/${gv}/namespaces/default/gizmos`);
    assert.equal(served.status, 200, 'the CRD is served');
    for (const path of [
      '/nosuch',
      '/api/v2',
      '/apis/nosuch.example.com',
      '/apis/nosuch.example.com/v1',
      '/apis/nosuch.example.com/v1/things',
      '/apis/apps/v9',
      '/apis/apps/v9/deployments',
      `/apis/${gv}/nosuch`,
    ]) {
      const res = await fetch(`${fx.cluster.url}${path}`);
      assert.equal(res.status, 404, path);
      assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8', path);
      assert.equal(await res.text(), '404 page not found\n', path);
    }
  });

  it(
    'kubectl get --raw reports both as kubectl does',
    { skip: hasKubectl ? false : 'no kubectl' },
    async () => {
      for (const path of ['/api/v1/nosuch', '/apis/nosuch.example.com/v1/things']) {
        const r = await kubectl(fx, ['get', '--raw', path]);
        assert.equal(r.code, 1, path);
        assert.equal(
          r.stderr.trim(),
          'Error from server (NotFound): the server could not find the requested resource',
        );
      }
    },
  );
});
