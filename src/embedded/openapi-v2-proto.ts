/**
 * `/openapi/v2` in protobuf: the Swagger 2.0 document encoded as gnostic's `openapi.v2.Document`
 * (github.com/google/gnostic-models openapiv2/OpenAPIv2.proto), which kube-apiserver serves for
 * `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf` (kube-openapi's handler; client-go's
 * discovery `OpenAPISchema()` asks for it, and kubectl <= 1.28 `apply` and `explain
 * --output=plaintext-openapiv2` read it).
 *
 * What is encoded: `swagger`, `info`, `paths` (each `PathItem` with its operations, parameters as
 * `BodyParameter` or query/path sub-schemas, responses with their schemas, and vendor extensions such as
 * `x-kubernetes-action` and `x-kubernetes-group-version-kind`) and every definition as `Schema` messages: `$ref`, scalars, `required`, `enum`, `type`, `items`, `allOf`,
 * `properties`, `additionalProperties`, and each `x-*` key as a vendor extension. As gnostic does, values
 * without a typed field (defaults, enum members, examples, vendor extensions) are `Any` messages carrying
 * YAML text (JSON, which is YAML); proto3 drops zero values (an empty string, false, 0).
 */
import type { Json, JsonMap } from './types.js';

/**
 * The media types kube-openapi accepts for the protobuf document: the "@" name clients ask for (kube-openapi
 * calls it deprecated) and the dotted name it always answers with.
 */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
export const OPENAPI_V2_PROTOBUF_LEGACY = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** A protobuf message being written: fields appended in order. */
class Message {
  private readonly parts: Buffer[] = [];

  private varint(value: number | bigint): void {
    let v = BigInt.asUintN(64, BigInt(value));
    const bytes: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v) byte |= 0x80;
      bytes.push(byte);
    } while (v);
    this.parts.push(Buffer.from(bytes));
  }

  private key(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  string(field: number, value: unknown): this {
    if (typeof value === 'string' && value !== '') this.bytes(field, Buffer.from(value, 'utf8'));
    return this;
  }

  strings(field: number, values: unknown): this {
    if (Array.isArray(values))
      for (const v of values) if (typeof v === 'string') this.bytes(field, Buffer.from(v, 'utf8'));
    return this;
  }

  bool(field: number, value: unknown): this {
    if (value === true) {
      this.key(field, 0);
      this.varint(1);
    }
    return this;
  }

  int64(field: number, value: unknown): this {
    if (typeof value === 'number' && Number.isInteger(value) && value !== 0) {
      this.key(field, 0);
      this.varint(value);
    }
    return this;
  }

  double(field: number, value: unknown): this {
    if (typeof value === 'number' && value !== 0) {
      this.key(field, 1);
      const b = Buffer.alloc(8);
      b.writeDoubleLE(value);
      this.parts.push(b);
    }
    return this;
  }

  message(field: number, value: Message | undefined): this {
    if (value) this.bytes(field, value.toBuffer());
    return this;
  }

  private bytes(field: number, value: Buffer): void {
    this.key(field, 2);
    this.varint(value.length);
    this.parts.push(value);
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

const isMap = (v: unknown): v is JsonMap => typeof v === 'object' && v !== null && !Array.isArray(v);

/** gnostic `Any`: the value as YAML text (field 2). */
function any(value: Json): Message {
  return new Message().string(2, JSON.stringify(value));
}

/** gnostic `NamedAny` entries for the `x-*` keys of `node`, in the document's order. */
function vendorExtensions(out: Message, field: number, node: JsonMap): void {
  for (const [name, value] of Object.entries(node)) {
    if (name.startsWith('x-') && value !== undefined)
      out.message(field, new Message().string(1, name).message(2, any(value)));
  }
}

function schema(node: JsonMap): Message {
  const m = new Message()
    .string(1, node['$ref'])
    .string(2, node['format'])
    .string(3, node['title'])
    .string(4, node['description']);
  if (node['default'] !== undefined) m.message(5, any(node['default']));
  m.double(6, node['multipleOf'])
    .double(7, node['maximum'])
    .bool(8, node['exclusiveMaximum'])
    .double(9, node['minimum'])
    .bool(10, node['exclusiveMinimum'])
    .int64(11, node['maxLength'])
    .int64(12, node['minLength'])
    .string(13, node['pattern'])
    .int64(14, node['maxItems'])
    .int64(15, node['minItems'])
    .bool(16, node['uniqueItems'])
    .int64(17, node['maxProperties'])
    .int64(18, node['minProperties'])
    .strings(19, node['required']);
  if (Array.isArray(node['enum'])) for (const e of node['enum']) m.message(20, any(e));
  const additional = node['additionalProperties'];
  if (isMap(additional)) m.message(21, new Message().message(1, schema(additional)));
  else if (typeof additional === 'boolean') {
    // A oneof member is written even when false: its presence is the information.
    m.message(21, additional ? new Message().bool(2, true) : new Message());
  }
  const type = node['type'];
  if (type !== undefined) m.message(22, new Message().strings(1, Array.isArray(type) ? type : [type]));
  const items = node['items'];
  if (items !== undefined) {
    const list = (Array.isArray(items) ? items : [items]).filter(isMap);
    const itemsItem = new Message();
    for (const item of list) itemsItem.message(1, schema(item));
    m.message(23, itemsItem);
  }
  if (Array.isArray(node['allOf'])) for (const s of node['allOf']) if (isMap(s)) m.message(24, schema(s));
  const properties = node['properties'];
  if (isMap(properties)) {
    const props = new Message();
    for (const [name, value] of Object.entries(properties))
      if (isMap(value)) props.message(1, new Message().string(1, name).message(2, schema(value)));
    m.message(25, props);
  }
  m.string(26, node['discriminator']).bool(27, node['readOnly']);
  if (node['example'] !== undefined) m.message(30, any(node['example']));
  vendorExtensions(m, 31, node);
  return m;
}

/** gnostic `ParametersItem`: a `$ref`, a `BodyParameter`, or a `NonBodyParameter` by its `in`. */
function parametersItem(p: JsonMap): Message {
  if (typeof p['$ref'] === 'string') return new Message().message(2, new Message().string(1, p['$ref']));
  if (p['in'] === 'body') {
    const b = new Message()
      .string(1, p['description'])
      .string(2, p['name'])
      .string(3, p['in'])
      .bool(4, p['required']);
    if (isMap(p['schema'])) b.message(5, schema(p['schema']));
    vendorExtensions(b, 6, p);
    return new Message().message(1, new Message().message(1, b));
  }
  // Query and form-data sub-schemas share one layout, header and path sub-schemas another.
  const queryLike = p['in'] === 'query' || p['in'] === 'formData';
  const sub = new Message()
    .bool(1, p['required'])
    .string(2, p['in'])
    .string(3, p['description'])
    .string(4, p['name']);
  if (queryLike) sub.bool(5, p['allowEmptyValue']);
  const base = queryLike ? 6 : 5;
  sub.string(base, p['type']).string(base + 1, p['format']);
  sub.bool(queryLike ? 20 : 19, p['uniqueItems']);
  vendorExtensions(sub, queryLike ? 23 : 22, p);
  const which = { header: 1, formData: 2, query: 3, path: 4 }[String(p['in'])] ?? 3;
  return new Message().message(1, new Message().message(2, new Message().message(which, sub)));
}

/** gnostic `Operation`. */
function operation(o: JsonMap): Message {
  const m = new Message()
    .strings(1, o['tags'])
    .string(2, o['summary'])
    .string(3, o['description'])
    .string(5, o['operationId'])
    .strings(6, o['produces'])
    .strings(7, o['consumes']);
  for (const p of Array.isArray(o['parameters']) ? o['parameters'] : [])
    if (isMap(p)) m.message(8, parametersItem(p));
  if (isMap(o['responses'])) {
    const responses = new Message();
    for (const [code, r] of Object.entries(o['responses'])) {
      if (!isMap(r)) continue;
      const response = new Message().string(1, r['description']);
      if (isMap(r['schema'])) response.message(2, new Message().message(1, schema(r['schema'])));
      responses.message(1, new Message().string(1, code).message(2, new Message().message(1, response)));
    }
    m.message(9, responses);
  }
  m.strings(10, o['schemes']).bool(11, o['deprecated']);
  vendorExtensions(m, 13, o);
  return m;
}

/** gnostic `PathItem`: its operations by method, then the shared parameters. */
function pathItem(item: JsonMap): Message {
  const m = new Message().string(1, item['$ref']);
  const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];
  methods.forEach((method, i) => {
    const o = item[method];
    if (isMap(o)) m.message(i + 2, operation(o));
  });
  for (const p of Array.isArray(item['parameters']) ? item['parameters'] : [])
    if (isMap(p)) m.message(9, parametersItem(p));
  vendorExtensions(m, 10, item);
  return m;
}

/** The gnostic `openapi.v2.Document` bytes of a Swagger 2.0 document (as JSON). */
export function encodeOpenApiV2(doc: JsonMap): Buffer {
  const out = new Message().string(1, doc['swagger']);
  const info = doc['info'];
  if (isMap(info)) {
    const i = new Message()
      .string(1, info['title'])
      .string(2, info['version'])
      .string(3, info['description']);
    vendorExtensions(i, 7, info);
    out.message(2, i);
  }
  out.string(3, doc['host']).string(4, doc['basePath']);
  out.strings(5, doc['schemes']).strings(6, doc['consumes']).strings(7, doc['produces']);
  if (isMap(doc['paths'])) {
    const paths = new Message();
    vendorExtensions(paths, 1, doc['paths']);
    for (const [name, item] of Object.entries(doc['paths']))
      if (!name.startsWith('x-') && isMap(item))
        paths.message(2, new Message().string(1, name).message(2, pathItem(item)));
    out.message(8, paths);
  }
  if (isMap(doc['definitions'])) {
    const defs = new Message();
    for (const [name, value] of Object.entries(doc['definitions']))
      if (isMap(value)) defs.message(1, new Message().string(1, name).message(2, schema(value)));
    out.message(9, defs);
  }
  vendorExtensions(out, 16, doc);
  return out.toBuffer();
}
