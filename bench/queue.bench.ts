/**
 * Work queue throughput: 20 workers draining 200,000 adds over 5,000 keys (adds coalesce while a key waits),
 * with every tenth key re-added while held. Reports keys processed per second and the queue's own counters.
 */
import type { BenchRow } from './run.js';
import { timeMs } from './util.js';
import { WorkQueue } from '../src/queue/index.js';

export default async function queueBench(): Promise<BenchRow[]> {
  const q = new WorkQueue({ name: 'bench' });
  const keys = Array.from({ length: 5000 }, (_, i) => `ns/app-${i}`);
  let processed = 0;
  const { ms } = await timeMs(async () => {
    const workers = Array.from({ length: 20 }, async () => {
      for (;;) {
        const { key, shutdown } = await q.get();
        if (shutdown) return;
        processed++;
        if (processed % 10 === 0) q.add(key);
        await Promise.resolve();
        q.done(key);
      }
    });
    for (let i = 0; i < 200_000; i++) {
      q.add(keys[(i * 7919) % keys.length]!);
      if (i % 100 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    while (q.len() > 0 || q.metrics().processing > 0)
      await new Promise<void>((resolve) => setImmediate(resolve));
    await q.shutDownWithDrain();
    await Promise.all(workers);
  });
  const m = q.metrics();
  return [
    {
      name: 'queue: keys processed per second (20 workers)',
      value: Math.round(processed / (ms / 1000)),
      unit: 'keys/s',
    },
    { name: 'queue: effective adds (200,000 calls + re-adds while held)', value: m.adds, unit: 'adds' },
    { name: 'queue: longest wait of a key', value: m.longestWaitMs, unit: 'ms' },
  ];
}
