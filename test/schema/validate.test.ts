// What the API server would reject, checked against the kind's schema: the expectations follow
// apimachinery's util/validation (name rules and their messages), encoding/json and encoding/base64 (the
// decode failures of built-in kinds) and apiextensions' structural validation (custom resources).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crdWithSpec } from '../support/crds.js';
import {
  SchemaCatalog,
  base64ErrorOffset,
  builtinCatalog,
  formatViolation,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  validateObject,
} from '../../src/schema/index.js';
import type { SchemaViolation } from '../../src/schema/index.js';

const catalog = builtinCatalog();

type Obj = Record<string, unknown>;

/** Sets the value at a dotted path (numbers index lists), creating nothing. */
function set(obj: Obj, path: string, value: unknown): void {
  const keys = path.split('.');
  let cur = obj as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) cur = cur[k] as Record<string, unknown>;
  cur[keys[keys.length - 1]!] = value;
}

function deployment(edits: Record<string, unknown> = {}): Obj {
  const d: Obj = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx',
              ports: [{ containerPort: 8080 }],
              resources: { limits: { cpu: 1, memory: '1Gi' } },
              readinessProbe: { httpGet: { port: 'http', path: '/' } },
              livenessProbe: { tcpSocket: { port: 8080 } },
            },
          ],
        },
      },
    },
  };
  for (const [path, value] of Object.entries(edits)) set(d, path, value);
  return d;
}

const fields = (vs: SchemaViolation[]): string[] => vs.map((v) => v.field);

describe('schema validation: value types of built-in kinds', () => {
  it('a valid Deployment (int-or-string ports both ways, a numeric quantity) has no violation', () => {
    assert.deepEqual(validateObject(catalog, deployment()), []);
  });

  it('a string where the schema says integer is a decode failure naming the field, as the server words it', () => {
    const vs = validateObject(
      catalog,
      deployment({ 'spec.template.spec.containers.0.ports.0.containerPort': '8080' }),
    );
    assert.equal(vs.length, 1);
    const v = vs[0]!;
    assert.equal(v.field, 'spec.template.spec.containers[0].ports[0].containerPort');
    assert.equal(v.reason, 'FieldValueTypeInvalid');
    assert.equal(
      formatViolation(v),
      'spec.template.spec.containers[0].ports[0].containerPort: Invalid value: "string": spec.template.spec.containers[0].ports[0].containerPort in body must be of type integer: "string"',
    );
    assert.equal(
      v.decode,
      'json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32',
    );
  });

  it('numbers and booleans where the schema says string, objects for lists, fractions for integers', () => {
    const vs = validateObject(
      catalog,
      deployment({
        'metadata.labels': { app: 'web', version: 2 },
        'spec.replicas': 1.5,
        'spec.paused': 'true',
        'spec.template.spec.containers.0.args': { a: 1 },
        'spec.template.spec.containers.0.image': true,
      }),
    );
    assert.deepEqual(fields(vs), [
      'metadata.labels[version]',
      'spec.replicas',
      'spec.template.spec.containers[0].image',
      'spec.template.spec.containers[0].args',
      'spec.paused', // in the order of the object's fields, as the decoder meets them
    ]);
    assert.match(
      vs[0]!.decode!,
      /cannot unmarshal number into Go struct field ObjectMeta\.metadata\.labels of type string$/,
    );
    assert.match(
      vs[1]!.decode!,
      /cannot unmarshal number 1\.5 into Go struct field DeploymentSpec\.spec\.replicas of type int32$/,
    );
    assert.match(vs[2]!.decode!, /cannot unmarshal bool into .* of type string$/);
    // A fraction where a string belongs is just "number", as Go words it: a Secret's value stays out.
    const pin = validateObject(catalog, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      stringData: { pin: 3.14159 },
    });
    assert.match(
      pin[0]!.decode!,
      /cannot unmarshal number into Go struct field Secret\.stringData of type string$/,
    );
    assert.doesNotMatch(JSON.stringify(pin), /3\.14159/);
    assert.match(
      vs[3]!.decode!,
      /cannot unmarshal object into Go struct field Container\..*\.args of type \[\]string$/,
    );
    assert.match(vs[4]!.message, /must be of type boolean: "string"$/);
  });

  it('int-or-string fields refuse booleans and fractions; null is "not set" everywhere', () => {
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: {
        ports: [
          { port: 80, targetPort: true },
          { port: 81, targetPort: 1.5 },
        ],
        clusterIP: null,
      },
    };
    const vs = validateObject(catalog, svc);
    assert.deepEqual(fields(vs), ['spec.ports[0].targetPort', 'spec.ports[1].targetPort']);
    assert.match(vs[0]!.decode!, /of type intstr\.IntOrString$/);
  });

  it('fields the schema does not declare are not violations (the server drops them with a warning)', () => {
    const vs = validateObject(
      catalog,
      deployment({ 'spec.frobnicate': 'yes', 'spec.template.spec.containers.0.colour': 1 }),
    );
    assert.deepEqual(vs, []);
  });
});

describe('schema validation: Secret data and other base64 fields', () => {
  it('offsets as Go encoding/base64 StdEncoding reports them (padding required, newlines skipped)', () => {
    assert.equal(base64ErrorOffset('aGVsbG8='), undefined);
    assert.equal(base64ErrorOffset('aGVs\nbG8=\n'), undefined);
    assert.equal(base64ErrorOffset(''), undefined);
    assert.equal(base64ErrorOffset('hello'), 4);
    assert.equal(base64ErrorOffset('aGVsbG8'), 4);
    assert.equal(base64ErrorOffset('aGV$bG8='), 3);
    assert.equal(base64ErrorOffset('a==='), 1);
    assert.equal(base64ErrorOffset('aGVsbG8=x'), 8);
  });

  it('a Secret value that is not base64 is named by key, its value never shown', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds' },
      data: { ok: 'c2VjcmV0', password: 'hunter2-plain' },
      stringData: { plain: 'anything goes here' },
    };
    const vs = validateObject(catalog, secret);
    assert.equal(vs.length, 1);
    assert.equal(vs[0]!.field, 'data[password]');
    assert.equal(vs[0]!.decode, 'illegal base64 data at input byte 7');
    assert.ok(!JSON.stringify(vs).includes('hunter2'), 'the value never appears');
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, binaryData: { b: '!!' } };
    assert.deepEqual(fields(validateObject(catalog, cm)), ['binaryData[b]']);
  });
});

describe('schema validation: names as the API server validates them per kind', () => {
  it('apimachinery name rules and messages', () => {
    assert.deepEqual(isDNS1123Subdomain('a.b-c'), []);
    assert.deepEqual(isDNS1123Subdomain('x'.repeat(254)), ['must be no more than 253 characters']);
    assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
    assert.match(
      isDNS1123Label('A')[0]!,
      /^a lowercase RFC 1123 label must consist of .* \(e\.g\. 'my-name', {2}or '123-abc', regex used/,
    );
    assert.deepEqual(isDNS1035Label('web'), []);
    assert.match(isDNS1035Label('1web')[0]!, /^a DNS-1035 label must consist of /);
  });

  const named = (apiVersion: string, kind: string, name: string, extra: object = {}): string[] =>
    validateObject(catalog, { apiVersion, kind, metadata: { name }, ...extra }).map(formatViolation);

  it('subdomain for most kinds, label for Namespace, DNS-1035 for Service, path segments for RBAC', () => {
    assert.deepEqual(named('v1', 'ConfigMap', 'app.config'), []);
    assert.match(
      named('v1', 'ConfigMap', 'App_Config')[0]!,
      /^metadata\.name: Invalid value: "App_Config": a lowercase RFC 1123 subdomain/,
    );
    assert.deepEqual(named('v1', 'Namespace', 'team.a'), [
      'metadata.name: Invalid value: "team.a": must not contain dots',
    ]);
    assert.deepEqual(named('v1', 'Service', 'api'), []);
    assert.match(named('v1', 'Service', '9api')[0]!, /DNS-1035 label/);
    assert.deepEqual(named('rbac.authorization.k8s.io/v1', 'ClusterRole', 'system:Viewer'), []);
    assert.deepEqual(named('rbac.authorization.k8s.io/v1', 'Role', 'a/b'), [
      `metadata.name: Invalid value: "a/b": may not contain '/'`,
    ]);
    assert.deepEqual(named('batch/v1', 'CronJob', 'c'.repeat(53), { spec: {} }), [
      `metadata.name: Invalid value: "${'c'.repeat(53)}": must be no more than 52 characters`,
    ]);
    assert.deepEqual(
      validateObject(catalog, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }).map(formatViolation),
      ['metadata.name: Required value: name or generateName is required'],
    );
  });

  it('namespace and label keys/values', () => {
    const vs = validateObject(catalog, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'Team', labels: { 'bad key!': 'v', ok: 'has space' } },
    }).map(formatViolation);
    assert.equal(vs.length, 3);
    assert.match(vs[0]!, /^metadata\.namespace: Invalid value: "Team": a lowercase RFC 1123 label/);
    assert.match(vs[1]!, /^metadata\.labels: Invalid value: "bad key!": name part must consist of/);
    assert.match(
      vs[2]!,
      /^metadata\.labels: Invalid value: "has space": a valid label must be an empty string/,
    );
  });
});

describe('schema validation: custom resources against their CRD schema', () => {
  const crd = crdWithSpec(
    'example.com',
    'Widget',
    {
      size: { type: 'integer' },
      mode: { type: 'string', enum: ['fast', 'safe'] },
      port: { 'x-kubernetes-int-or-string': true },
      tags: { type: 'array', items: { type: 'string' } },
      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      level: { type: 'string', default: 'info' },
    },
    ['size', 'level'],
  );
  const cat = new SchemaCatalog();
  cat.addCustomResourceDefinition(crd);
  const widget = (spec: object, name = 'w'): Record<string, unknown> => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name },
    spec,
  });

  it('a required field with a default is never missing (apiextensions defaults before it validates)', () => {
    assert.deepEqual(validateObject(cat, widget({ size: 3 })), []);
    assert.deepEqual(
      validateObject(cat, widget({ level: 'debug' })).map((v) => `${v.field}: ${v.message}`),
      ['spec.size: Required value'],
    );
  });

  it('a valid custom resource has no violation; unknown and preserved fields are fine', () => {
    assert.deepEqual(validateObject(cat, widget({ size: 3, port: 'http', free: { x: [1] }, other: 1 })), []);
  });

  it('types, enum and required as apiextensions reports them (422 causes, no decode failure)', () => {
    const vs = validateObject(cat, widget({ size: '3', mode: 'slow', tags: ['a', 2], port: false }));
    assert.deepEqual(vs.map(formatViolation), [
      'spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"',
      'spec.mode: Unsupported value: "slow": supported values: "fast", "safe"',
      'spec.tags[1]: Invalid value: "integer": spec.tags[1] in body must be of type string: "integer"',
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    ]);
    assert.ok(vs.every((v) => v.decode === undefined));
    assert.deepEqual(validateObject(cat, widget({})).map(formatViolation), ['spec.size: Required value']);
  });

  it('custom resource names are DNS-1123 subdomains; CRD names are <plural>.<group>', () => {
    assert.match(
      formatViolation(validateObject(cat, widget({ size: 1 }, 'W'))[0]!),
      /^metadata\.name: .*RFC 1123 subdomain/,
    );
    assert.deepEqual(validateObject(cat, crd), []);
    const misnamed = { ...crd, metadata: { name: 'widget.example.com' } };
    assert.deepEqual(validateObject(cat, misnamed).map(formatViolation), [
      'metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group',
    ]);
  });

  it('a kind with no schema (or at a version the catalog lacks) gets the metadata checks alone', () => {
    assert.deepEqual(
      validateObject(cat, {
        apiVersion: 'example.com/v2',
        kind: 'Widget',
        metadata: { name: 'w' },
        spec: { size: 'x' },
      }),
      [],
    );
  });
});
