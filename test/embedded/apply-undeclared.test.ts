/**
 * Server-side apply of a field the kind's schema does not declare, as kube-apiserver 1.28-1.33 answers it:
 * the field manager converts the patch to its typed form (apimachinery managedfields/internal/
 * structuredmerge.go Apply -> structured-merge-diff typed/validate.go "field not declared in schema"),
 * and that error is a plain Go error, so the answer is 500 with no reason, whatever fieldValidation says
 * and with dryRun too; nothing is stored. Seen in kubernetes/kubernetes issues #122480 and #139253.
 * A `x-kubernetes-preserve-unknown-fields` node and an object schema without properties admit anything
 * (the CRD's pruning then drops what its schema does not keep).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { crdWithSchema } from '../support/crds.js';
import { api, hasKubectl, kubectl, useEmbeddedCluster } from '../support/embedded.js';

const APPLY = 'application/apply-patch+yaml';
const CMS = '/api/v1/namespaces/default/configmaps';
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

const deployment = (name: string, containerExtra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'web', image: 'nginx:1', ...containerExtra }] },
    },
  },
});

const widgetCrd = () =>
  crdWithSchema('example.com', 'Widget', {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          size: { type: 'integer' },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          bare: { type: 'object' },
          template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: {} },
        },
      },
    },
  });

describe('server-side apply of undeclared fields (typed conversion of the patch)', () => {
  const fx = useEmbeddedCluster();

  for (const fv of ['Strict', 'Warn', 'Ignore', undefined]) {
    it(`built-in kind, fieldValidation=${fv ?? 'absent'}: 500 "field not declared in schema", nothing stored`, async () => {
      const name = `cm-${(fv ?? 'absent').toLowerCase()}`;
      const q = `fieldManager=alice${fv ? `&fieldValidation=${fv}` : ''}`;
      const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' }, spec: {} };
      const res = await api(fx.cluster, 'PATCH', `${CMS}/${name}?${q}`, stringify(body), APPLY);
      assert.equal(res.status, 500);
      assert.equal(res.body.kind, 'Status');
      assert.equal(res.body.status, 'Failure');
      assert.equal(res.body.reason, undefined, 'StatusReasonUnknown is not sent');
      assert.equal(res.body.code, 500);
      assert.equal(
        res.body.message,
        `failed to create typed patch object (/${name}; /v1, Kind=ConfigMap): .spec: field not declared in schema`,
      );
      assert.equal((await api(fx.cluster, 'GET', `${CMS}/${name}`)).status, 404);
    });
  }

  it('names the field by structured-merge-diff path (list-map key), with dryRun too; the stored object is unchanged', async () => {
    const created = await api(
      fx.cluster,
      'PATCH',
      `${DEPLOYS}/web?fieldManager=alice`,
      stringify(deployment('web')),
      APPLY,
    );
    assert.equal(created.status, 201);
    for (const q of ['fieldManager=alice', 'fieldManager=alice&dryRun=All&fieldValidation=Ignore']) {
      const res = await api(
        fx.cluster,
        'PATCH',
        `${DEPLOYS}/web?${q}`,
        stringify(deployment('web', { imagePullPolicyy: 'Always' })),
        APPLY,
      );
      assert.equal(res.status, 500, q);
      assert.equal(
        res.body.message,
        'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): ' +
          '.spec.template.spec.containers[name="web"].imagePullPolicyy: field not declared in schema',
      );
    }
    const after = await api(fx.cluster, 'GET', `${DEPLOYS}/web`);
    assert.equal(after.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
  });

  it('several undeclared fields: an "errors:" list, one line each; metadata is typed ObjectMeta', async () => {
    const body = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'two', namespace: 'default', labelz: { a: 'b' } },
      data: { a: '1' },
      extra: 1,
    };
    const res = await api(fx.cluster, 'PATCH', `${CMS}/two?fieldManager=alice`, stringify(body), APPLY);
    assert.equal(res.status, 500);
    assert.equal(
      res.body.message,
      'failed to create typed patch object (default/two; /v1, Kind=ConfigMap): errors:\n' +
        '  .metadata.labelz: field not declared in schema\n' +
        '  .extra: field not declared in schema',
    );
  });

  it('refuses managedFields and a body of another kind or version (400), as the field manager does', async () => {
    const mf = await api(
      fx.cluster,
      'PATCH',
      `${CMS}/mf?fieldManager=alice`,
      stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mf', managedFields: [] } }),
      APPLY,
    );
    assert.equal(mf.status, 400);
    assert.equal(mf.body.message, 'metadata.managedFields must be nil');
    const noType = await api(
      fx.cluster,
      'PATCH',
      `${CMS}/nt?fieldManager=alice`,
      stringify({ metadata: { name: 'nt' }, data: { a: '1' } }),
      APPLY,
    );
    assert.equal(noType.status, 400);
    assert.equal(noType.body.message, 'invalid object type: /, Kind=');
  });

  it('duplicate keys: the last one wins; Strict refuses them (400), Warn warns, Ignore is silent', async () => {
    const text = (v: string) =>
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: dup',
        'data:',
        '  a: "1"',
        `  a: "${v}"`,
      ].join('\n');
    const strict = await api(
      fx.cluster,
      'PATCH',
      `${CMS}/dup?fieldManager=alice&fieldValidation=Strict`,
      text('2'),
      APPLY,
    );
    assert.equal(strict.status, 400);
    assert.equal(
      strict.body.message,
      'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n' +
        '  line 7: key "a" already set in map',
    );
    const warn = await api(fx.cluster, 'PATCH', `${CMS}/dup?fieldManager=alice`, text('2'), APPLY);
    assert.equal(warn.status, 201);
    assert.deepEqual(warn.body.data, { a: '2' });
    assert.equal(warn.headers.get('warning'), '299 - "line 7: key \\"a\\" already set in map"');
    const ignore = await api(
      fx.cluster,
      'PATCH',
      `${CMS}/dup?fieldManager=alice&fieldValidation=Ignore`,
      text('3'),
      APPLY,
    );
    assert.equal(ignore.status, 200);
    assert.equal(ignore.headers.get('warning'), null);
    assert.deepEqual(ignore.body.data, { a: '3' });
  });

  it("kubectl apply --server-side shows the server's error and exits 1", { skip: !hasKubectl }, async () => {
    const manifest = stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'kc', namespace: 'default' },
      data: { a: '1' },
      bogus: true,
    });
    const r = await kubectl(fx, ['apply', '--server-side', '--validate=false', '-f', '-'], manifest);
    assert.equal(r.code, 1, r.stdout);
    assert.match(
      r.stderr,
      /^Error from server: failed to create typed patch object \(default\/kc; \/v1, Kind=ConfigMap\): \.bogus: field not declared in schema$/m,
    );
    assert.equal((await api(fx.cluster, 'GET', `${CMS}/kc`)).status, 404);
  });

  it('custom resource: undeclared fields refused; preserve-unknown-fields and bare objects admit anything (pruned)', async () => {
    assert.equal((await api(fx.cluster, 'POST', CRDS, widgetCrd())).status, 201);
    const bad = await api(
      fx.cluster,
      'PATCH',
      `${WIDGETS}/w1?fieldManager=alice&fieldValidation=Ignore`,
      stringify({
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: { size: 1, colour: 'red' },
      }),
      APPLY,
    );
    assert.equal(bad.status, 500);
    assert.equal(
      bad.body.message,
      'failed to create typed patch object (/w1; example.com/v1, Kind=Widget): .spec.colour: field not declared in schema',
    );
    assert.equal((await api(fx.cluster, 'GET', `${WIDGETS}/w1`)).status, 404);

    const embeddedMeta = await api(
      fx.cluster,
      'PATCH',
      `${WIDGETS}/w1?fieldManager=alice`,
      stringify({
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', nope: 1 } } },
      }),
      APPLY,
    );
    assert.equal(embeddedMeta.status, 500);
    assert.match(
      embeddedMeta.body.message,
      /\.spec\.template\.metadata\.nope: field not declared in schema$/,
    );

    const ok = await api(
      fx.cluster,
      'PATCH',
      `${WIDGETS}/w1?fieldManager=alice`,
      stringify({
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: { size: 1, free: { any: { thing: 1 } }, bare: { gone: true } },
      }),
      APPLY,
    );
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.deepEqual(ok.body.spec, { size: 1, free: { any: { thing: 1 } }, bare: {} });
  });

  it('a CRD whose root preserves unknown fields admits any field but metadata stays typed', async () => {
    const crd = crdWithSchema(
      'example.com',
      'Blob',
      { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      'blobs',
    );
    assert.equal((await api(fx.cluster, 'POST', CRDS, crd)).status, 201);
    const path = '/apis/example.com/v1/namespaces/default/blobs/b1?fieldManager=alice';
    const body = {
      apiVersion: 'example.com/v1',
      kind: 'Blob',
      metadata: { name: 'b1' },
      spec: { x: 1 },
      y: 2,
    };
    const ok = await api(fx.cluster, 'PATCH', path, stringify(body), APPLY);
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.y, 2);
    const bad = await api(
      fx.cluster,
      'PATCH',
      path,
      stringify({ ...body, metadata: { name: 'b1', foo: 'bar' } }),
      APPLY,
    );
    assert.equal(bad.status, 500);
    assert.match(bad.body.message, /: \.metadata\.foo: field not declared in schema$/);
  });
});
