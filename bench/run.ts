/**
 * `npm run bench`: runs every bench/*.bench.ts (or those named on the command line, e.g.
 * `npm run bench -- sharding`) and prints their figures. Each file default-exports an async function
 * returning rows of figures; targets are printed beside the figures, never asserted (benchmarks inform,
 * tests decide). Options (e.g. `npm run bench -- scale --large`) are left for the benches to read. Set BENCH_JSON=1 to print the rows as JSON instead.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import type { Bench, BenchRow } from './util.js';

export type { Bench, BenchRow };

const here = dirname(fileURLToPath(import.meta.url));
// Arguments starting with '-' are options of the benches themselves (e.g. `scale --large`).
const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();

const all: Record<string, BenchRow[]> = {};
for (const file of files) {
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: Bench };
  const group = file.replace(/\.bench\.ts$/, '');
  process.stderr.write(`running ${group}...\n`);
  const rows = await mod.default();
  all[group] = rows;
  if (process.env['BENCH_JSON']) continue;
  console.log(`\n## ${group}`);
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const r of rows) {
    const value = `${Number.isInteger(r.value) ? r.value : r.value.toFixed(1)} ${r.unit}`;
    let verdict = '';
    if (r.target) {
      const met = r.target.better === 'lower' ? r.value <= r.target.value : r.value >= r.target.value;
      verdict = `  (target ${r.target.better === 'lower' ? '<=' : '>='} ${r.target.value} ${r.unit}: ${met ? 'met' : 'MISSED'})`;
    }
    console.log(`${r.name.padEnd(width)}  ${value.padStart(12)}${verdict}${r.note ? `  ${r.note}` : ''}`);
  }
}
if (process.env['BENCH_JSON']) console.log(JSON.stringify(all, null, 2));
