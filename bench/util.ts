/** Helpers for benchmarks: timing and process cold starts. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

/**
 * Median CPU time (user + system, ms) and median peak RSS (MB) of `runs` runs of `command args`, read from
 * GNU time (`/usr/bin/time -f`), or undefined where it is not installed.
 */
export function cpuAndRss(
  command: string,
  args: string[],
  runs = 5,
): { cpuMs: number; rssMb: number } | undefined {
  if (!existsSync('/usr/bin/time')) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'bench-rusage-'));
  try {
    const cpu: number[] = [];
    const rss: number[] = [];
    for (let i = 0; i < runs; i++) {
      const out = join(dir, 'time');
      const r = spawnSync('/usr/bin/time', ['-o', out, '-f', '%U %S %M', command, ...args], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
      const [user, sys, maxKb] = readFileSync(out, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
      cpu.push((user! + sys!) * 1000);
      rss.push(maxKb! / 1024);
    }
    return { cpuMs: median(cpu), rssMb: Math.round(median(rss) * 10) / 10 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
