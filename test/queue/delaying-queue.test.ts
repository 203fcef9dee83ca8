import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DelayingQueue, FakeClock } from '../../src/queue/index.js';
import { mulberry32 } from './prng.js';

describe('DelayingQueue', () => {
  it('adds a key once its delay has passed on the clock', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('a', 100);
    clock.step(99);
    assert.equal(q.len(), 0);
    assert.equal(q.metrics().delayed, 1);
    clock.step(1);
    assert.equal(q.len(), 1);
    assert.equal(q.metrics().delayed, 0);
    assert.deepEqual(await q.get(), { key: 'a', shutdown: false });
  });

  it('adds at once for a zero or negative delay', () => {
    const q = new DelayingQueue({ clock: new FakeClock() });
    q.addAfter('a', 0);
    q.addAfter('b', -5);
    assert.equal(q.len(), 2);
  });

  it('a repeated addAfter only moves a waiting key earlier', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('a', 100);
    q.addAfter('a', 300); // later: ignored
    q.addAfter('b', 200);
    q.addAfter('b', 50); // earlier: wins
    assert.equal(q.metrics().delayed, 2);
    clock.step(50);
    assert.equal(q.len(), 1);
    clock.step(50);
    assert.equal(q.len(), 2);
    assert.equal(q.metrics().delayed, 0);
    clock.step(1000);
    assert.equal(q.len(), 2, 'the later addAfter left no second entry');
  });

  it('releases keys in due order, ties in add order, with one timer', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('c', 30);
    q.addAfter('a', 10);
    q.addAfter('b', 10);
    q.addAfter('d', 20);
    assert.equal(clock.pendingTimers, 1);
    clock.step(30);
    const got: string[] = [];
    while (q.len() > 0) got.push((await q.get()).key!);
    assert.deepEqual(got, ['a', 'b', 'd', 'c']);
    assert.equal(clock.pendingTimers, 0);
  });

  it('a delayed key that comes due while held is run once more after done', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.add('a');
    const { key } = await q.get();
    q.addAfter('a', 10);
    clock.step(10);
    assert.equal(q.len(), 0);
    q.done(key!);
    assert.equal(q.len(), 1);
  });

  it('shutDown drops delayed keys and cancels its timer', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue({ clock });
    q.addAfter('a', 10);
    q.shutDown();
    assert.equal(clock.pendingTimers, 0);
    q.addAfter('b', 10);
    clock.step(100);
    assert.equal(q.len(), 0);
    assert.equal(q.metrics().delayed, 0);
  });

  it('works on the real clock', async () => {
    const q = new DelayingQueue();
    q.addAfter('a', 5);
    assert.deepEqual(await q.get(), { key: 'a', shutdown: false });
    q.shutDown();
  });
});

describe('DelayingQueue properties (seeded random delays and clock steps)', () => {
  for (let seed = 1; seed <= 20; seed++) {
    it(`seed ${seed}: each key becomes ready at the earliest of its pending delays, never before`, async () => {
      const rand = mulberry32(seed);
      const clock = new FakeClock();
      const q = new DelayingQueue({ clock });
      const keys = Array.from({ length: 1 + Math.floor(rand() * 30) }, (_, i) => `k${i}`);
      const waiting = new Map<string, number>(); // model: key -> due time
      const ready = new Set<string>(); // model: dirty keys
      const taken: string[] = [];
      for (let op = 0; op < 400; op++) {
        const r = rand();
        if (r < 0.6) {
          const key = keys[Math.floor(rand() * keys.length)]!;
          const delay = Math.floor(rand() * 200) - 20;
          q.addAfter(key, delay);
          if (delay <= 0) ready.add(key);
          else waiting.set(key, Math.min(waiting.get(key) ?? Infinity, clock.now() + delay));
        } else if (r < 0.9) {
          clock.step(Math.floor(rand() * 60));
          for (const [key, due] of waiting) {
            if (due <= clock.now()) {
              waiting.delete(key);
              ready.add(key);
            }
          }
        } else if (q.len() > 0) {
          const { key } = await q.get();
          assert.ok(ready.delete(key!), `seed ${seed}: ${key} handed out but not ready`);
          taken.push(key!);
          q.done(key!);
        }
        assert.equal(q.len(), ready.size, `seed ${seed} op ${op}: ready keys`);
        assert.equal(q.metrics().delayed, waiting.size, `seed ${seed} op ${op}: waiting keys`);
      }
      q.shutDown();
      assert.equal(clock.pendingTimers, 0);
    });
  }
});
