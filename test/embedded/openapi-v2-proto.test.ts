/**
 * `/openapi/v2` in protobuf (issue 9): client-go's discovery (kubectl <= 1.28 `apply`, any kubectl's
 * `explain --output=plaintext-openapiv2`) asks with `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`
 * and decodes gnostic's openapi.v2.Document (gnostic-models openapiv2/OpenAPIv2.proto). Checked with an
 * independent protobuf wire reader written here from the proto's field numbers, and with the real kubectl.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hasKubectl, kubectl, useEmbeddedCluster } from '../support/embedded.js';

const PB = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

type Fields = Map<number, Array<Buffer | bigint>>;

/** Protobuf wire format: field number -> values (varints as bigint, length-delimited as bytes). */
function fields(buf: Buffer): Fields {
  const out: Fields = new Map();
  let i = 0;
  const varint = (): bigint => {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[i++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const [field, wire] = [key >> 3, key & 7];
    let value: Buffer | bigint;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const len = Number(varint());
      value = buf.subarray(i, i + len);
      i += len;
    } else if (wire === 1) {
      value = buf.subarray(i, i + 8);
      i += 8;
    } else throw new Error(`unexpected wire type ${wire} at ${i}`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

const str = (f: Fields, n: number): string | undefined =>
  (f.get(n)?.[0] as Buffer | undefined)?.toString('utf8');
const msgs = (f: Fields, n: number): Fields[] => (f.get(n) ?? []).map((b) => fields(b as Buffer));

describe('embedded server: /openapi/v2 as protobuf', () => {
  const fx = useEmbeddedCluster();

  const get = (accept?: string) =>
    fetch(`${fx.cluster.url}/openapi/v2`, accept ? { headers: { Accept: accept } } : {});

  it('answers the protobuf Accept with a gnostic Document holding every definition of the JSON one', async () => {
    const res = await get(PB);
    assert.equal(res.status, 200);
    assert.equal(
      res.headers.get('content-type'),
      'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
    );
    const doc = fields(Buffer.from(await res.arrayBuffer()));
    assert.equal(str(doc, 1), '2.0'); // swagger
    const json = (await (await get('application/json')).json()) as {
      definitions: Record<string, { required?: string[]; properties?: Record<string, { type?: string }> }>;
    };
    const [definitions] = msgs(doc, 9);
    assert.ok(definitions);
    const named = new Map(msgs(definitions, 1).map((d) => [str(d, 1)!, msgs(d, 2)[0]!]));
    assert.deepEqual([...named.keys()], Object.keys(json.definitions));

    const deployment = named.get('io.k8s.api.apps.v1.Deployment')!;
    // vendor_extension (31): NamedAny { name, Any { yaml } }
    const gvk = msgs(deployment, 31).find((e) => str(e, 1) === 'x-kubernetes-group-version-kind');
    assert.ok(gvk, 'x-kubernetes-group-version-kind is a vendor extension');
    assert.deepEqual(JSON.parse(str(msgs(gvk, 2)[0]!, 2)!), [
      { group: 'apps', kind: 'Deployment', version: 'v1' },
    ]);
    // properties (25) -> NamedSchema; spec.replicas: type (22) TypeItem ["integer"], format (2) int32
    const spec = named.get('io.k8s.api.apps.v1.DeploymentSpec')!;
    const props = new Map(msgs(msgs(spec, 25)[0]!, 1).map((p) => [str(p, 1)!, msgs(p, 2)[0]!]));
    assert.deepEqual(
      [...props.keys()].sort(),
      Object.keys(json.definitions['io.k8s.api.apps.v1.DeploymentSpec']!.properties!).sort(),
    );
    const replicas = props.get('replicas')!;
    assert.equal(str(msgs(replicas, 22)[0]!, 1), 'integer');
    assert.equal(str(replicas, 2), 'int32');
    // required (19), $ref (1)
    assert.deepEqual(
      (spec.get(19) ?? []).map((b) => (b as Buffer).toString()),
      json.definitions['io.k8s.api.apps.v1.DeploymentSpec']!.required,
    );
    assert.equal(str(props.get('template')!, 1), '#/definitions/io.k8s.api.core.v1.PodTemplateSpec');
  });

  it('negotiates as kube-openapi: JSON without Accept or for */*, 406 for a type it does not serve', async () => {
    for (const accept of [undefined, '*/*', `${PB};q=0.5, application/json`]) {
      const res = await get(accept);
      assert.equal(res.status, 200, accept);
      assert.equal(res.headers.get('content-type'), 'application/json', accept);
      assert.equal(((await res.json()) as { swagger: string }).swagger, '2.0');
    }
    const pb = await get(`application/json;q=0.5, ${PB}`);
    assert.match(pb.headers.get('content-type') ?? '', /protobuf/);
    const refused = await get('text/html');
    assert.equal(refused.status, 406);
    assert.equal(((await refused.json()) as { reason: string }).reason, 'NotAcceptable');
  });

  it('encodes paths as kubectl 1.20 walks them: the PATCH operation with the GVK and a dryRun query parameter', async () => {
    // client-go openapi `SupportsDryRun` (kubectl <= 1.21 diff, apply --dry-run=server): Paths (8) -> path (2)
    // NamedPathItem { name, PathItem }; PathItem.patch (8) -> Operation: vendor_extension (13), parameters (8)
    // ParametersItem.parameter (1) -> Parameter.non_body_parameter (2) -> query_parameter_sub_schema (3).name (4).
    const doc = fields(Buffer.from(await (await get(PB)).arrayBuffer()));
    const items = msgs(msgs(doc, 8)[0]!, 2).map((p) => [str(p, 1)!, msgs(p, 2)[0]!] as const);
    const withPatchOf = (kind: string) =>
      items.filter(([, item]) => {
        const patch = msgs(item, 8)[0];
        const gvk = patch && msgs(patch, 13).find((e) => str(e, 1) === 'x-kubernetes-group-version-kind');
        return gvk && (JSON.parse(str(msgs(gvk, 2)[0]!, 2)!) as { kind: string }).kind === kind;
      });
    const [[path, item]] = withPatchOf('Deployment') as [[string, Fields]];
    assert.equal(path, '/apis/apps/v1/namespaces/{namespace}/deployments/{name}');
    const patch = msgs(item, 8)[0]!;
    const queryNames = msgs(patch, 8)
      .flatMap((p) => msgs(p, 1))
      .flatMap((p) => msgs(p, 2))
      .flatMap((nb) => msgs(nb, 3))
      .map((q) => str(q, 4));
    assert.deepEqual(queryNames, ['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    const body = msgs(patch, 8)
      .flatMap((p) => msgs(p, 1))
      .flatMap((p) => msgs(p, 1))[0]!;
    assert.deepEqual([str(body, 2), str(body, 3)], ['body', 'body']);
    // responses (9) -> NamedResponseValue "200" -> ResponseValue.response (1) -> Response.schema (2) -> Schema._ref
    const ok = msgs(msgs(patch, 9)[0]!, 1).find((r) => str(r, 1) === '200')!;
    const schema = msgs(msgs(msgs(msgs(ok, 2)[0]!, 1)[0]!, 2)[0]!, 1)[0]!;
    assert.equal(str(schema, 1), '#/definitions/io.k8s.api.apps.v1.Deployment');
    // Path-level parameters (9): name and namespace as path sub-schemas (4), required (1).
    const shared = msgs(item, 9)
      .flatMap((p) => msgs(p, 1))
      .flatMap((p) => msgs(p, 2))
      .flatMap((nb) => msgs(nb, 4));
    assert.deepEqual(
      shared.map((s) => [str(s, 4), s.get(1)?.[0]]),
      [
        ['name', 1n],
        ['namespace', 1n],
      ],
    );
  });

  it(
    'kubectl explain --output=plaintext-openapiv2 reads it',
    { skip: hasKubectl ? false : 'no kubectl' },
    async () => {
      const r = await kubectl(fx, ['explain', 'deployment.spec.replicas', '--output=plaintext-openapiv2']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^FIELD: +replicas <integer>$/m);
      assert.match(r.stdout, /Number of desired pods/);
    },
  );
});
