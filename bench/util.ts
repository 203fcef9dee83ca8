/** Helpers for benchmarks: timing and process cold starts. */
import { spawnSync } from 'node:child_process';

export interface BenchRow {
  /** What was measured, e.g. "legacy: 10,000 clusters x 100 replicas". */
  name: string;
  value: number;
  unit: string;
  /** Optional target in the same unit, with how to read it. */
  target?: { value: number; better: 'lower' | 'higher' };
  note?: string;
}

/** What a bench/*.bench.ts file default-exports. */
export type Bench = () => Promise<BenchRow[]>;

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export async function timeMs<T>(fn: () => T | Promise<T>): Promise<{ ms: number; result: T }> {
  const start = process.hrtime.bigint();
  const result = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, result };
}

/** Median wall time (ms) of `runs` spawns of `command args`, process start to exit. */
export function coldStartMs(
  command: string,
  args: string[],
  runs = 10,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const r = spawnSync(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  }
  return median(times);
}
