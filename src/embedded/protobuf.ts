/**
 * Just enough Kubernetes protobuf to accept what kubectl's generators send (`kubectl create namespace`,
 * `create configmap`, `create secret generic`, `create serviceaccount` post
 * `application/vnd.kubernetes.protobuf` through client-go's typed clients). The body is the runtime.Unknown
 * envelope (magic "k8s\0", typeMeta, raw) around the object; it is decoded to the same JSON a JSON client
 * would send. Field numbers follow k8s.io/api's generated.proto. Other kinds are 415 Unsupported Media
 * Type (clients can send JSON). Responses are always JSON, which client-go accepts.
 */
import { ApiError } from './errors.js';
import type { Json, JsonMap } from './types.js';

type Field =
  | { name: string; type: 'string' | 'bool' | 'int' | 'bytes' | 'strings' | 'time' }
  | { name: string; type: 'map' | 'bytesMap' }
  | { name: string; type: 'message' | 'messages'; schema: Schema };
type Schema = Record<number, Field>;

const OWNER_REFERENCE: Schema = {
  1: { name: 'kind', type: 'string' },
  3: { name: 'name', type: 'string' },
  4: { name: 'uid', type: 'string' },
  5: { name: 'apiVersion', type: 'string' },
  6: { name: 'controller', type: 'bool' },
  7: { name: 'blockOwnerDeletion', type: 'bool' },
};

const OBJECT_META: Schema = {
  1: { name: 'name', type: 'string' },
  2: { name: 'generateName', type: 'string' },
  3: { name: 'namespace', type: 'string' },
  5: { name: 'uid', type: 'string' },
  6: { name: 'resourceVersion', type: 'string' },
  7: { name: 'generation', type: 'int' },
  11: { name: 'labels', type: 'map' },
  12: { name: 'annotations', type: 'map' },
  13: { name: 'ownerReferences', type: 'messages', schema: OWNER_REFERENCE },
  14: { name: 'finalizers', type: 'strings' },
};

const META: Field = { name: 'metadata', type: 'message', schema: OBJECT_META };

/** Schemas by apiVersion/kind. */
const KINDS: Record<string, Schema> = {
  'v1/Namespace': {
    1: META,
    2: { name: 'spec', type: 'message', schema: { 1: { name: 'finalizers', type: 'strings' } } },
  },
  'v1/ConfigMap': {
    1: META,
    2: { name: 'data', type: 'map' },
    3: { name: 'binaryData', type: 'bytesMap' },
    4: { name: 'immutable', type: 'bool' },
  },
  'v1/Secret': {
    1: META,
    2: { name: 'data', type: 'bytesMap' },
    3: { name: 'type', type: 'string' },
    4: { name: 'stringData', type: 'map' },
    5: { name: 'immutable', type: 'bool' },
  },
  'v1/ServiceAccount': {
    1: META,
    3: { name: 'imagePullSecrets', type: 'messages', schema: { 1: { name: 'name', type: 'string' } } },
    4: { name: 'automountServiceAccountToken', type: 'bool' },
  },
};

class Reader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): number {
    let result = 0;
    let mul = 1;
    for (;;) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw new Error('truncated varint');
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
  }
  bytes(): Buffer {
    const len = this.varint();
    const out = this.buf.subarray(this.pos, this.pos + len);
    if (out.length !== len) throw new Error('truncated field');
    this.pos += len;
    return out;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 2) this.bytes();
    else if (wire === 1) this.pos += 8;
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

function decodeMessage(buf: Buffer, schema: Schema): JsonMap {
  const r = new Reader(buf);
  const out: JsonMap = {};
  while (!r.done) {
    const tag = r.varint();
    const field = schema[Math.floor(tag / 8)];
    const wire = tag & 7;
    if (!field) {
      r.skip(wire);
      continue;
    }
    if (wire === 0) {
      const n = r.varint();
      if (field.type === 'bool') out[field.name] = n !== 0;
      else if (n !== 0) out[field.name] = n;
      continue;
    }
    const bytes = r.bytes();
    switch (field.type) {
      case 'string':
        if (bytes.length) out[field.name] = bytes.toString('utf8');
        break;
      case 'bytes':
        out[field.name] = bytes.toString('base64');
        break;
      case 'strings':
        ((out[field.name] ??= []) as Json[]).push(bytes.toString('utf8'));
        break;
      case 'map':
      case 'bytesMap': {
        const entry = decodeMessage(bytes, {
          1: { name: 'k', type: 'string' },
          2: { name: 'v', type: field.type === 'map' ? 'string' : 'bytes' },
        });
        ((out[field.name] ??= {}) as JsonMap)[String(entry['k'] ?? '')] = entry['v'] ?? '';
        break;
      }
      case 'message': {
        const m = decodeMessage(bytes, field.schema);
        if (Object.keys(m).length) out[field.name] = m;
        break;
      }
      case 'messages':
        ((out[field.name] ??= []) as Json[]).push(decodeMessage(bytes, field.schema));
        break;
      default:
        break;
    }
  }
  return out;
}

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Decodes a protobuf request body into the JSON object it stands for (415 for unsupported kinds). */
export function decodeProtobufObject(body: Buffer): JsonMap {
  const unsupported = (why: string): ApiError =>
    new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - ${why}; send application/json`,
    );
  if (!body.subarray(0, 4).equals(MAGIC)) throw unsupported('missing the protobuf envelope');
  let envelope: JsonMap;
  try {
    envelope = decodeMessage(body.subarray(4), {
      1: {
        name: 'typeMeta',
        type: 'message',
        schema: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } },
      },
      2: { name: 'raw', type: 'bytes' },
    });
  } catch (err) {
    throw unsupported((err as Error).message);
  }
  const tm = (envelope['typeMeta'] ?? {}) as JsonMap;
  const apiVersion = String(tm['apiVersion'] ?? '');
  const kind = String(tm['kind'] ?? '');
  const schema = KINDS[`${apiVersion}/${kind}`];
  if (!schema)
    throw unsupported(
      `protobuf is accepted for ${Object.keys(KINDS).join(', ')} only, not ${apiVersion}/${kind}`,
    );
  const raw = Buffer.from(String(envelope['raw'] ?? ''), 'base64');
  return { apiVersion, kind, metadata: {}, ...decodeMessage(raw, schema) };
}
