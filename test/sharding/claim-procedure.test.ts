/**
 * The shard-claim procedure against the vectors of test/fixtures/sharding/shard-claim-vectors.json (Argo CD's
 * Test_getOrUpdateShardNumberForController and generateDefaultShardMappingCM scenarios at commit 37ee009,
 * plus one hand-worked case per quirk of controller/sharding/sharding.go; the file says how).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  claimShard,
  decodeShardMapping,
  defaultShardMapping,
  encodeShardMapping,
  initialShardMapping,
} from '../../src/sharding/index.js';

interface ClaimCase {
  name: string;
  input: string;
  hostname: string;
  replicas: number;
  shard: number;
  heartbeatSeconds: number;
  now: string;
  expectedShard: number;
  expected: string;
}
interface InitialCase {
  name: string;
  hostname: string;
  replicas: number;
  shard: number;
  now: string;
  expectedShard?: number;
  expected?: string;
  error?: string;
}
interface Vectors {
  claims: ClaimCase[];
  initial: InitialCase[];
  decodeErrors: { name: string; input: string; error: string }[];
}

const vectors = JSON.parse(
  readFileSync(join(import.meta.dirname, '../fixtures/sharding/shard-claim-vectors.json'), 'utf8'),
) as Vectors;

describe('claim procedure (getOrUpdateShardNumberForController)', () => {
  for (const c of vectors.claims) {
    it(c.name, () => {
      const entries = decodeShardMapping(c.input);
      const r = claimShard(entries, c.hostname, c.replicas, c.shard, Date.parse(c.now), c.heartbeatSeconds);
      assert.equal(r.shard, c.expectedShard);
      assert.equal(encodeShardMapping(r.entries), c.expected);
    });
  }

  it('does not change the list it was given', () => {
    const entries = decodeShardMapping('[{"ShardNumber":0,"ControllerName":"","HeartbeatTime":null}]');
    claimShard(entries, 'c', 3, -1, Date.parse('2026-08-22T10:00:00Z'), 10);
    assert.deepEqual(entries, [{ shardNumber: 0, controllerName: '', heartbeatMs: null }]);
  });

  it('reports how the shard was got and the holder it was taken from', () => {
    const now = Date.parse('2026-08-22T10:00:10Z');
    const live = '[{"ShardNumber":0,"ControllerName":"a","HeartbeatTime":"2026-08-22T10:00:00Z"}]';
    const takeover = claimShard(decodeShardMapping(live), 'c', 1, 0, now, 10);
    assert.equal(takeover.how, 'takeover');
    assert.equal(takeover.previous?.controllerName, 'a');
    const grown = claimShard(decodeShardMapping(live), 'c', 3, -1, now, 10);
    assert.deepEqual([grown.how, grown.appended, grown.reset, grown.shard], ['free', 2, false, 1]);
    const shrunk = claimShard(decodeShardMapping(live), 'a', 0, -1, now, 10);
    assert.deepEqual([shrunk.how, shrunk.reset, shrunk.shard, shrunk.entries], ['none', true, -1, []]);
  });
});

describe('the ConfigMap is missing (generateDefaultShardMappingCM)', () => {
  for (const c of vectors.initial) {
    it(c.name, () => {
      const run = () => initialShardMapping(c.hostname, c.replicas, c.shard, Date.parse(c.now));
      if (c.error) {
        assert.throws(run, (err: Error) => err.message.includes(c.error!));
        return;
      }
      const r = run();
      assert.equal(r.shard, c.expectedShard);
      assert.equal(encodeShardMapping(r.entries), c.expected);
    });
  }

  it('default mapping: R unclaimed entries (getDefaultShardMappingData)', () => {
    assert.equal(
      encodeShardMapping(defaultShardMapping(2)),
      '[{"ShardNumber":0,"ControllerName":"","HeartbeatTime":null},{"ShardNumber":1,"ControllerName":"","HeartbeatTime":null}]',
    );
  });
});

describe('decoding as json.Unmarshal does', () => {
  it('keys differing only in case set the same field; the last one wins', () => {
    assert.deepEqual(
      decodeShardMapping('[{"ShardNumber":2,"shardNUMBER":1,"controllername":"x","ControllerName":"y"}]'),
      [{ shardNumber: 1, controllerName: 'y', heartbeatMs: null }],
    );
  });
});

describe('values json.Unmarshal rejects', () => {
  for (const c of vectors.decodeErrors) {
    it(c.name, () => {
      assert.throws(
        () => decodeShardMapping(c.input),
        (err: Error) => err.message.includes(c.error),
      );
    });
  }
});
