import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock, WorkQueue } from '../../src/queue/index.js';
import { mulberry32, yieldRandomly } from './prng.js';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('WorkQueue', () => {
  it('hands keys out in FIFO order and coalesces adds of a waiting key', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.len(), 2);
    assert.deepEqual(await q.get(), { key: 'a', shutdown: false });
    assert.deepEqual(await q.get(), { key: 'b', shutdown: false });
    assert.equal(q.len(), 0);
    assert.equal(q.metrics().adds, 2);
  });

  it('runs a key re-added while processing exactly once more, after done', async () => {
    const q = new WorkQueue();
    q.add('k');
    const first = await q.get();
    assert.equal(first.key, 'k');
    q.add('k');
    q.add('k');
    q.add('k');
    assert.equal(q.len(), 0, 'a held key is not queued while held');
    let second: string | undefined;
    void q.get().then((r) => (second = r.key));
    await turn();
    assert.equal(second, undefined, 'a second worker must not get the held key');
    q.done('k');
    await turn();
    assert.equal(second, 'k');
    q.done('k');
    assert.equal(q.len(), 0);
    q.shutDown();
    assert.deepEqual(await q.get(), { key: undefined, shutdown: true });
    assert.equal(q.metrics().processed, 2);
  });

  it('serves waiting workers in call order', async () => {
    const q = new WorkQueue();
    const got: string[] = [];
    const a = q.get().then((r) => got.push(`w1:${r.key}`));
    const b = q.get().then((r) => got.push(`w2:${r.key}`));
    q.add('x');
    q.add('y');
    await Promise.all([a, b]);
    assert.deepEqual(got, ['w1:x', 'w2:y']);
  });

  it('shutDown wakes every waiter and ignores later adds, but still hands out waiting keys', async () => {
    const q = new WorkQueue();
    const waiters = [q.get(), q.get()];
    q.shutDown();
    assert.deepEqual(await Promise.all(waiters), [
      { key: undefined, shutdown: true },
      { key: undefined, shutdown: true },
    ]);
    q.add('late');
    assert.equal(q.len(), 0);

    const q2 = new WorkQueue();
    q2.add('queued');
    q2.shutDown();
    assert.deepEqual(await q2.get(), { key: 'queued', shutdown: false });
    assert.deepEqual(await q2.get(), { key: undefined, shutdown: true });
  });

  it('shutDownWithDrain waits for held keys to be done', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    await q.get();
    await q.get();
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => (drained = true));
    q.done('a');
    await turn();
    assert.equal(drained, false);
    q.done('b');
    await drain;
    assert.equal(drained, true);
    assert.equal(q.shuttingDown(), true);
  });

  it('shutDownWithDrain rejects when its signal aborts', async () => {
    const q = new WorkQueue();
    q.add('a');
    await q.get();
    const ac = new AbortController();
    const drain = q.shutDownWithDrain(ac.signal);
    ac.abort(new Error('timeout'));
    await assert.rejects(drain, /timeout/);
  });

  it('an aborted get takes no key; the next waiter gets it', async () => {
    const q = new WorkQueue();
    const ac = new AbortController();
    const aborted = q.get(ac.signal);
    const next = q.get();
    ac.abort();
    await assert.rejects(aborted, { name: 'AbortError' });
    q.add('a');
    assert.deepEqual(await next, { key: 'a', shutdown: false });
    await assert.rejects(q.get(AbortSignal.abort()), { name: 'AbortError' });
  });

  it('done of a key that is not held is ignored', () => {
    const q = new WorkQueue();
    q.done('nope');
    assert.equal(q.metrics().processed, 0);
  });

  it('measures waits and processing time on its clock', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue({ clock, name: 'refresh' });
    q.add('a');
    q.add('b');
    clock.step(30);
    await q.get(); // a waited 30
    clock.step(10);
    let m = q.metrics();
    assert.equal(m.longestWaitMs, 40, 'b is still waiting after 40 ms');
    assert.equal(m.longestProcessingMs, 10, 'a has been held 10 ms');
    q.done('a');
    await q.get(); // b waited 40
    clock.step(5);
    q.done('b');
    m = q.metrics();
    assert.deepEqual(m, {
      name: 'refresh',
      adds: 2,
      retries: 0,
      depth: 0,
      delayed: 0,
      processing: 0,
      processed: 2,
      longestWaitMs: 40,
      processingMs: 15,
      longestProcessingMs: 10,
    });
  });
});

describe('WorkQueue properties (seeded random workers and adds)', () => {
  for (let seed = 1; seed <= 25; seed++) {
    it(`seed ${seed}: no key held twice, every add followed by a processing, reruns coalesce`, async () => {
      const rand = mulberry32(seed);
      const workers = 1 + Math.floor(rand() * 16);
      const keys = Array.from({ length: 2 + Math.floor(rand() * 20) }, (_, i) => `ns/app-${i}`);
      const pick = (): string => keys[Math.floor(rand() * keys.length)]!;
      const q = new WorkQueue();
      let tick = 0;
      const held = new Set<string>();
      const lastAdd = new Map<string, number>();
      const lastStart = new Map<string, number>();
      const starts = new Map<string, number>();
      let effectiveAdds = 0;
      const add = (key: string): void => {
        const before = q.metrics().adds;
        q.add(key);
        effectiveAdds += q.metrics().adds - before;
        lastAdd.set(key, ++tick);
      };

      const worker = async (): Promise<void> => {
        for (;;) {
          const { key, shutdown } = await q.get();
          if (shutdown) return;
          assert.ok(!held.has(key), `seed ${seed}: ${key} handed to two workers`);
          held.add(key);
          lastStart.set(key, ++tick);
          starts.set(key, (starts.get(key) ?? 0) + 1);
          await yieldRandomly(rand);
          if (rand() < 0.2) add(key); // re-add while processing
          if (rand() < 0.2) add(pick());
          await yieldRandomly(rand);
          held.delete(key);
          q.done(key);
        }
      };
      const running = Array.from({ length: workers }, worker);

      const ops = 300 + Math.floor(rand() * 300);
      for (let i = 0; i < ops; i++) {
        add(pick());
        await yieldRandomly(rand, 2);
      }
      while (q.len() > 0 || held.size > 0) await turn();
      q.shutDown();
      await Promise.all(running);

      for (const [key, added] of lastAdd) {
        assert.ok(
          (lastStart.get(key) ?? 0) > added,
          `seed ${seed}: ${key} added at ${added} never processed after`,
        );
      }
      const processed = [...starts.values()].reduce((a, b) => a + b, 0);
      assert.equal(processed, effectiveAdds, `seed ${seed}: one processing per effective add`);
      assert.equal(q.metrics().processed, processed);
      assert.equal(q.metrics().depth, 0);
    });
  }
});
