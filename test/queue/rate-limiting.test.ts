import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  BucketRateLimiter,
  FakeClock,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  RateLimitingQueue,
  defaultControllerRateLimiter,
} from '../../src/queue/index.js';

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles from 5 ms per failure of a key and caps at 1000 s by default', () => {
    const l = new ItemExponentialFailureRateLimiter();
    assert.deepEqual(
      [1, 2, 3, 4, 5].map(() => l.when('a')),
      [5, 10, 20, 40, 80],
    );
    assert.equal(l.when('b'), 5, 'keys are independent');
    assert.equal(l.numRequeues('a'), 5);
    for (let i = 0; i < 30; i++) l.when('a');
    assert.equal(l.when('a'), 1_000_000);
    for (let i = 0; i < 2000; i++) l.when('a');
    assert.equal(l.when('a'), 1_000_000, 'no overflow to Infinity/NaN');
    l.forget('a');
    assert.equal(l.numRequeues('a'), 0);
    assert.equal(l.when('a'), 5);
  });

  it('takes base, factor and max from its options', () => {
    const l = new ItemExponentialFailureRateLimiter({ baseDelayMs: 1, factor: 1.5, maxDelayMs: 3 });
    assert.deepEqual(
      [1, 2, 3, 4, 5].map(() => l.when('a')),
      [1, 1.5, 2.25, 3, 3],
    );
  });

  it('resets a key after the failure cooldown (Argo CD auto-reset)', () => {
    const clock = new FakeClock();
    const l = new ItemExponentialFailureRateLimiter({ baseDelayMs: 10, failureCooldownMs: 1000, clock });
    assert.equal(l.when('a'), 10);
    clock.step(999);
    assert.equal(l.when('a'), 20);
    clock.step(1000);
    assert.equal(l.when('a'), 10);
    const none = new ItemExponentialFailureRateLimiter({ baseDelayMs: 10, failureCooldownMs: 0, clock });
    assert.deepEqual([none.when('a'), none.when('a')], [10, 10], 'cooldown 0 disables per-key backoff');
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst through, then spaces reservations at 1/qps', () => {
    const clock = new FakeClock();
    const l = new BucketRateLimiter({ clock });
    for (let i = 0; i < 100; i++) assert.equal(l.when(`k${i}`), 0);
    assert.equal(l.when('x'), 100);
    assert.equal(l.when('y'), 200);
    clock.step(1000); // 10 tokens back, 2 already reserved
    for (let i = 0; i < 8; i++) assert.equal(l.when(`z${i}`), 0);
    assert.equal(l.when('w'), 100);
    assert.equal(l.numRequeues('x'), 0);
  });

  it('refills no further than its burst', () => {
    const clock = new FakeClock();
    const l = new BucketRateLimiter({ qps: 1, burst: 2, clock });
    clock.step(60_000);
    assert.deepEqual([l.when('a'), l.when('a'), l.when('a')], [0, 0, 1000]);
  });

  it('never limits with qps = Infinity', () => {
    const l = new BucketRateLimiter({ qps: Infinity, burst: 1, clock: new FakeClock() });
    assert.deepEqual([l.when('a'), l.when('a'), l.when('a')], [0, 0, 0]);
  });
});

describe('MaxOfRateLimiter', () => {
  it('returns the largest delay, forgets everywhere and reports the largest requeue count', () => {
    const clock = new FakeClock();
    const item = new ItemExponentialFailureRateLimiter({ baseDelayMs: 1, clock });
    const bucket = new BucketRateLimiter({ qps: 1, burst: 1, clock });
    const l = new MaxOfRateLimiter(item, bucket);
    assert.equal(l.when('a'), 1); // item 1, bucket 0
    assert.equal(l.when('a'), 1000); // item 2, bucket 1000
    assert.equal(l.numRequeues('a'), 2);
    l.forget('a');
    assert.equal(l.numRequeues('a'), 0);
    assert.equal(item.numRequeues('a'), 0);
  });
});

describe('RateLimitingQueue', () => {
  it('addRateLimited waits the limiter delay and counts a retry; forget resets the backoff', async () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue({ clock, rateLimiter: defaultControllerRateLimiter(clock) });
    q.addRateLimited('a');
    q.addRateLimited('a');
    assert.equal(q.numRequeues('a'), 2);
    assert.equal(q.metrics().retries, 2);
    clock.step(4);
    assert.equal(q.len(), 0);
    clock.step(1);
    assert.equal(q.len(), 1, 'the earlier (5 ms) delay wins over the 10 ms one');
    const { key } = await q.get();
    q.forget(key!);
    q.done(key!);
    assert.equal(q.numRequeues('a'), 0);
    q.addRateLimited('a');
    clock.step(5);
    assert.equal(q.len(), 1);
  });

  it('uses the default controller limiter on its own clock when none is given', () => {
    const clock = new FakeClock();
    const q = new RateLimitingQueue({ clock });
    for (let i = 0; i < 3; i++) q.addRateLimited('a');
    clock.step(4);
    assert.equal(q.len(), 0);
    clock.step(1);
    assert.equal(q.len(), 1);
    q.shutDown();
    q.addRateLimited('b');
    assert.equal(q.metrics().retries, 3, 'ignored after shutdown');
  });
});
