/**
 * The embedded server refuses what kube-apiserver refuses, with its status and words: a built-in kind's
 * value of the wrong type or a Secret value that is not base64 fails the decode (400 BadRequest "<Kind> in
 * version "v1" cannot be handled as a <Kind>: ..."), dry run or not, before anything is stored; a custom
 * resource is validated against its CRD schema (422 Invalid, one cause per field); names per kind are 422.
 * Unknown fields stay a warning (field-validation tests).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crdWithSpec } from '../support/crds.js';
import { api, useEmbeddedCluster } from '../support/embedded.js';

const deployment = (port: unknown) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: port }] }] },
    },
  },
});

describe('embedded server: schema validation as kube-apiserver', () => {
  const fx = useEmbeddedCluster();
  const deployments = '/apis/apps/v1/namespaces/default/deployments';

  it('a string in an integer field of a built-in kind is a 400 decode failure, dry run included; nothing stored', async () => {
    for (const query of ['?dryRun=All', '']) {
      const res = await api(fx.cluster, 'POST', `${deployments}${query}`, deployment('8080'));
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.reason, 'BadRequest');
      assert.equal(
        res.body.message,
        'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32',
      );
    }
    assert.equal((await api(fx.cluster, 'GET', `${deployments}/web`)).status, 404);
    const ok = await api(fx.cluster, 'POST', deployments, deployment(8080));
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    // A patch that introduces the wrong type fails its own decode: 422 on the field "patch", the patched
    // object as its value (endpoints/handlers/patch.go), for each patch type; nothing stored.
    for (const [type, body] of [
      ['application/merge-patch+json', { spec: { replicas: 'two' } }],
      ['application/json-patch+json', [{ op: 'replace', path: '/spec/replicas', value: 'two' }]],
    ] as const) {
      const patch = await api(fx.cluster, 'PATCH', `${deployments}/web`, body, type);
      assert.equal(patch.status, 422, `${type}: ${JSON.stringify(patch.body)}`);
      assert.equal(patch.body.reason, 'Invalid');
      assert.match(
        patch.body.message,
        /^ "" is invalid: patch: Invalid value: "\{.*\}": json: cannot unmarshal string/,
      );
      assert.match(patch.body.message, /Go struct field DeploymentSpec\.spec\.replicas of type int32$/);
      assert.equal(patch.body.details.causes[0].field, 'patch');
    }
    // A strategic merge patch is merged into the stored object's unstructured map and converted by
    // apimachinery's unstructured converter: its words, the patch printed as a Go map (%+v).
    const smp: Array<[object, string]> = [
      [{ spec: { replicas: 'two' } }, 'map[spec:map[replicas:two]]": unrecognized type: int32'],
      [{ spec: { replicas: 1.5 } }, 'map[spec:map[replicas:1.5]]": cannot convert float64 to int32'],
      [{ spec: { paused: 'yes' } }, 'map[spec:map[paused:yes]]": unrecognized type: bool'],
      [{ spec: { strategy: 'fast' } }, 'map[spec:map[strategy:fast]]": cannot restore struct from: string'],
      [
        { spec: { template: { spec: { nodeSelector: 'a', tolerations: [] } } } },
        'map[spec:map[template:map[spec:map[nodeSelector:a tolerations:[]]]]]": cannot restore map from string',
      ],
      [
        { metadata: { labels: { b: 'x', a: 7 } } },
        'map[metadata:map[labels:map[a:7 b:x]]]": cannot convert int64 to string',
      ],
    ];
    for (const [body, tail] of smp) {
      const patch = await api(
        fx.cluster,
        'PATCH',
        `${deployments}/web`,
        body,
        'application/strategic-merge-patch+json',
      );
      assert.equal(patch.status, 422, JSON.stringify(patch.body));
      assert.equal(patch.body.message, ` "" is invalid: patch: Invalid value: "${tail}`);
      assert.equal(patch.body.details.causes[0].field, 'patch');
    }
    const stored = await api(fx.cluster, 'GET', `${deployments}/web`);
    assert.equal(stored.body.spec.replicas, 1);
  });

  it('a Secret whose data is not base64 is 400 with the byte offset, the value never echoed', async () => {
    const res = await api(fx.cluster, 'POST', '/api/v1/namespaces/default/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds' },
      data: { password: 'hunter2-plain' },
    });
    assert.equal(res.status, 400);
    assert.equal(
      res.body.message,
      'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 7',
    );
  });

  it('names per kind are 422 Invalid with apimachinery messages', async () => {
    const res = await api(fx.cluster, 'POST', '/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: '9api' },
      spec: { ports: [{ port: 80 }] },
    });
    assert.equal(res.status, 422);
    assert.equal(res.body.details.causes[0].field, 'metadata.name');
    assert.match(
      res.body.details.causes[0].message,
      /^Invalid value: "9api": a DNS-1035 label must consist of/,
    );
  });

  it('a custom resource is validated against its CRD schema: 422 with one cause per field', async () => {
    const crd = await api(
      fx.cluster,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crdWithSpec(
        'example.com',
        'Widget',
        { size: { type: 'integer' }, mode: { type: 'string', enum: ['fast', 'safe'] } },
        ['size'],
      ),
    );
    assert.equal(crd.status, 201, JSON.stringify(crd.body));
    const widgets = '/apis/example.com/v1/namespaces/default/widgets';
    const bad = await api(fx.cluster, 'POST', widgets, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { size: '3', mode: 'slow' },
    });
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    assert.equal(bad.body.reason, 'Invalid');
    assert.deepEqual(
      bad.body.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`),
      [
        'spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"',
        'spec.mode: Unsupported value: "slow": supported values: "fast", "safe"',
      ],
    );
    const good = await api(fx.cluster, 'POST', widgets, {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { size: 3, mode: 'safe' },
    });
    assert.equal(good.status, 201, JSON.stringify(good.body));
  });

  it("a custom resource gets its CRD schema's defaults before it is validated (apiextensions structural defaulting)", async () => {
    const crd = await api(
      fx.cluster,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      crdWithSpec(
        'defaults.example.com',
        'Gizmo',
        {
          mode: { type: 'string', default: 'fast' },
          retries: { type: 'integer', default: 3 },
          limits: {
            type: 'object',
            properties: { cpu: { type: 'string', default: '100m' } },
          },
          ports: {
            type: 'array',
            items: {
              type: 'object',
              properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' } },
            },
          },
        },
        ['mode'],
      ),
    );
    assert.equal(crd.status, 201, JSON.stringify(crd.body));
    const created = await api(fx.cluster, 'POST', '/apis/defaults.example.com/v1/namespaces/default/gizmos', {
      apiVersion: 'defaults.example.com/v1',
      kind: 'Gizmo',
      metadata: { name: 'g' },
      spec: { retries: null, ports: [{ name: 'web' }] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // Required `mode` is filled in, not refused; null where null is not allowed is defaulted; an absent
    // parent (`limits`) is not created; list items get their defaults.
    assert.deepEqual(JSON.parse(JSON.stringify(created.body.spec)), {
      mode: 'fast',
      retries: 3,
      ports: [{ name: 'web', protocol: 'TCP' }],
    });
  });

  it('a quantity resource.ParseQuantity refuses is a 400 decode failure worded as the server words it', async () => {
    const pod = await api(fx.cluster, 'POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'q' },
      spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { memory: '512MB' } } }] },
    });
    assert.equal(pod.status, 400, JSON.stringify(pod.body));
    assert.equal(
      pod.body.message,
      `Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
    );
  });
});
