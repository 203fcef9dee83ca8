/**
 * Protobuf request bodies as kubectl's generators send them, decoded to JSON objects.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeProtobufObject } from '../../src/embedded/protobuf.js';

/** `kubectl create secret generic psec --from-literal=u=p` as sent by kubectl v1.32. */
const SECRET = Buffer.from(
  '6b3873000a0c0a0276311206536563726574122' +
    '60a140a047073656312001a0022002a0032003800420012060a0175120170' +
    '1a064f70617175651a002200',
  'hex',
);

describe('protobuf bodies', () => {
  it('decodes the runtime.Unknown envelope and a Secret inside it', () => {
    assert.deepEqual(decodeProtobufObject(SECRET), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'psec' },
      data: { u: Buffer.from('p').toString('base64') },
      type: 'Opaque',
    });
  });

  it('refuses bodies without the envelope and kinds it has no schema for', () => {
    assert.throws(() => decodeProtobufObject(Buffer.from('{}')), { code: 415 });
    const deployment = Buffer.concat([
      Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x15, 0x0a, 0x07]),
      Buffer.from('apps/v1'),
      Buffer.from([0x12, 0x0a]),
      Buffer.from('Deployment'),
    ]);
    assert.throws(() => decodeProtobufObject(deployment), /not apps\/v1\/Deployment/);
  });
});
