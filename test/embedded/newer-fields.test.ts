/**
 * Fields Kubernetes added after 1.22 (our built-in OpenAPI) that the release the embedded server serves
 * declares: server-side apply keeps them instead of answering "field not declared in schema", and create
 * keeps them instead of dropping them as unknown. The declared fields come from @kubernetes/client-node's
 * models (Kubernetes 1.34 OpenAPI, src/schema/declared.ts). A typo is still refused or dropped.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { api, hasKubectl, kubectl, useEmbeddedCluster } from '../support/embedded.js';
import { crdWithSchema } from '../support/crds.js';

const APPLY = 'application/apply-patch+yaml';
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

const deployment = (name: string, containerExtra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        initContainers: [{ name: 'proxy', image: 'envoy:1', restartPolicy: 'Always' }],
        containers: [
          {
            name: 'web',
            image: 'nginx:1',
            resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
            ...containerExtra,
          },
        ],
      },
    },
  },
});

const RULE = { rule: 'self.size >= 0', message: 'size must not be negative' };
const NESTED_RULE = { rule: 'self.matches("^[a-z]+$")', messageExpression: '"bad colour " + self' };

type Schema = { properties: { spec: Record<string, unknown> } };

const validatedCrd = () =>
  crdWithSchema('example.com', 'Gadget', {
    type: 'object',
    'x-kubernetes-validations': [{ rule: 'has(self.spec)', reason: 'FieldValueRequired' }],
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [RULE],
        properties: {
          size: { type: 'integer' },
          colour: { type: 'string', 'x-kubernetes-validations': [NESTED_RULE] },
        },
      },
    },
  });

const specOf = (d: { spec: { template: { spec: Record<string, unknown> } } }) =>
  d.spec.template.spec as {
    initContainers: Array<Record<string, unknown>>;
    containers: Array<Record<string, unknown>>;
  };

describe('fields added after Kubernetes 1.22 (declared by the 1.34 models)', () => {
  const fx = useEmbeddedCluster();

  it('server-side apply of a CRD with x-kubernetes-validations at the root and nested stores them', async () => {
    const res = await api(
      fx.cluster,
      'PATCH',
      `${CRDS}/gadgets.example.com?fieldManager=alice&fieldValidation=Strict`,
      stringify(validatedCrd()),
      APPLY,
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const got = await api(fx.cluster, 'GET', `${CRDS}/gadgets.example.com`);
    const schema = got.body.spec.versions[0].schema.openAPIV3Schema;
    assert.deepEqual(schema['x-kubernetes-validations'], [
      { rule: 'has(self.spec)', reason: 'FieldValueRequired' },
    ]);
    assert.deepEqual(schema.properties.spec['x-kubernetes-validations'], [RULE]);
    assert.deepEqual(schema.properties.spec.properties.colour['x-kubernetes-validations'], [NESTED_RULE]);
  });

  it('a typo inside a validation rule is still "field not declared in schema" (walked by the 1.34 model)', async () => {
    const crd = validatedCrd();
    const versions = (crd.spec as { versions: Array<{ schema: { openAPIV3Schema: Schema } }> }).versions;
    versions[0]!.schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [
      { rule: 'true', mesage: 'typo' },
    ];
    const res = await api(
      fx.cluster,
      'PATCH',
      `${CRDS}/gadgets.example.com?fieldManager=alice`,
      stringify(crd),
      APPLY,
    );
    assert.equal(res.status, 500);
    assert.match(
      res.body.message,
      /\.spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\.spec\.x-kubernetes-validations\[0\]\.mesage: field not declared in schema$/,
    );
  });

  it('server-side apply keeps an init container restartPolicy (sidecar) and resizePolicy', async () => {
    const res = await api(
      fx.cluster,
      'PATCH',
      `${DEPLOYS}/ssa?fieldManager=alice`,
      stringify(deployment('ssa')),
      APPLY,
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const pod = specOf(res.body);
    assert.equal(pod.initContainers[0]!.restartPolicy, 'Always');
    assert.deepEqual(pod.containers[0]!.resizePolicy, [
      { resourceName: 'cpu', restartPolicy: 'NotRequired' },
    ]);
    const managed = JSON.stringify(res.body.metadata.managedFields);
    assert.match(managed, /"f:resizePolicy":\{\}/);
  });

  it('create keeps them with no warning, even under fieldValidation=Strict', async () => {
    const res = await api(fx.cluster, 'POST', `${DEPLOYS}?fieldValidation=Strict`, deployment('created'));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.headers.get('warning'), null);
    const pod = specOf(res.body);
    assert.equal(pod.initContainers[0]!.restartPolicy, 'Always');
    assert.deepEqual(pod.containers[0]!.resizePolicy, [
      { resourceName: 'cpu', restartPolicy: 'NotRequired' },
    ]);
  });

  it('a typo is still refused by apply (500) and dropped with a warning by create', async () => {
    const typo = deployment('typo', { imagePullPolicyy: 'Always' });
    const applied = await api(
      fx.cluster,
      'PATCH',
      `${DEPLOYS}/typo?fieldManager=alice`,
      stringify(typo),
      APPLY,
    );
    assert.equal(applied.status, 500);
    assert.equal(
      applied.body.message,
      'failed to create typed patch object (default/typo; apps/v1, Kind=Deployment): ' +
        '.spec.template.spec.containers[name="web"].imagePullPolicyy: field not declared in schema',
    );
    const created = await api(fx.cluster, 'POST', DEPLOYS, typo);
    assert.equal(created.status, 201);
    assert.equal(
      created.headers.get('warning'),
      '299 - "unknown field \\"spec.template.spec.containers[0].imagePullPolicyy\\""',
    );
    const pod = specOf(created.body);
    assert.equal(pod.containers[0]!.imagePullPolicyy, undefined);
    assert.deepEqual(pod.containers[0]!.resizePolicy, [
      { resourceName: 'cpu', restartPolicy: 'NotRequired' },
    ]);
  });

  it('a typo below a field only 1.34 knows is dropped by create, by its 1.34 path', async () => {
    const body = deployment('deep', { resizePolicy: [{ resourceName: 'cpu', restartPolicyy: 'x' }] });
    const created = await api(fx.cluster, 'POST', DEPLOYS, body);
    assert.equal(created.status, 201);
    assert.equal(
      created.headers.get('warning'),
      '299 - "unknown field \\"spec.template.spec.containers[0].resizePolicy[0].restartPolicyy\\""',
    );
    assert.deepEqual(specOf(created.body).containers[0]!.resizePolicy, [{ resourceName: 'cpu' }]);
  });

  it('merge and strategic merge patches keep os, hostUsers and schedulingGates under Strict', async () => {
    assert.equal((await api(fx.cluster, 'POST', DEPLOYS, deployment('patched'))).status, 201);
    const merge = await api(
      fx.cluster,
      'PATCH',
      `${DEPLOYS}/patched?fieldValidation=Strict`,
      JSON.stringify({ spec: { template: { spec: { os: { name: 'linux' }, hostUsers: false } } } }),
      'application/merge-patch+json',
    );
    assert.equal(merge.status, 200, JSON.stringify(merge.body));
    const smp = await api(
      fx.cluster,
      'PATCH',
      `${DEPLOYS}/patched?fieldValidation=Strict`,
      JSON.stringify({ spec: { template: { spec: { schedulingGates: [{ name: 'example.com/quota' }] } } } }),
      'application/strategic-merge-patch+json',
    );
    assert.equal(smp.status, 200, JSON.stringify(smp.body));
    const pod = smp.body.spec.template.spec;
    assert.deepEqual(pod.os, { name: 'linux' });
    assert.equal(pod.hostUsers, false);
    assert.deepEqual(pod.schedulingGates, [{ name: 'example.com/quota' }]);
    const bad = await api(
      fx.cluster,
      'PATCH',
      `${DEPLOYS}/patched?fieldValidation=Strict`,
      JSON.stringify({ spec: { template: { spec: { os: { nam: 'linux' } } } } }),
      'application/merge-patch+json',
    );
    assert.equal(bad.status, 400);
    assert.equal(bad.body.message, 'strict decoding error: unknown field "spec.template.spec.os.nam"');
  });

  it(
    'kubectl apply, server-side and client-side, of a Deployment with a sidecar keeps it',
    { skip: !hasKubectl },
    async () => {
      const r = await kubectl(fx, ['apply', '--server-side', '-f', '-'], stringify(deployment('kc')));
      assert.equal(r.code, 0, r.stderr);
      const got = await api(fx.cluster, 'GET', `${DEPLOYS}/kc`);
      assert.equal(specOf(got.body).initContainers[0]!.restartPolicy, 'Always');
      // Client-side apply (validated by the server, fieldValidation=Strict) keeps them too.
      const csa = await kubectl(fx, ['apply', '-f', '-'], stringify(deployment('kc-csa')));
      assert.equal(csa.code, 0, csa.stderr);
      assert.equal(csa.stderr, '');
      const csaGot = await api(fx.cluster, 'GET', `${DEPLOYS}/kc-csa`);
      assert.deepEqual(specOf(csaGot.body).containers[0]!.resizePolicy, [
        { resourceName: 'cpu', restartPolicy: 'NotRequired' },
      ]);
    },
  );
});
