/**
 * User Lua health checks (argocd-cm): the cost of one check per resource, a fresh Lua state each run as Argo
 * CD does, for a small script (Argo CD's PodDisruptionBudget check) and a large one (its Argo Rollouts
 * check), both from test/fixtures/lua-health-scripts; and how long a runaway script takes to be stopped by
 * the instruction limit.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { BenchRow } from './run.js';
import { timeMs } from './util.js';
import { loadLuaVm, type Unstructured } from '../src/health/index.js';

const root = join(import.meta.dirname, '..', 'test', 'fixtures', 'lua-health-scripts');

function load(folder: string): { script: string; obj: Unstructured } {
  const script = readFileSync(join(root, folder, 'health.lua'), 'utf8');
  const tests = (
    parse(readFileSync(join(root, folder, 'health_test.yaml'), 'utf8')) as {
      tests: Array<{ inputPath: string }>;
    }
  ).tests;
  const obj = parse(readFileSync(join(root, folder, tests[0]!.inputPath), 'utf8')) as Unstructured;
  return { script, obj };
}

export default async function luaBench(): Promise<BenchRow[]> {
  const { LuaHealthError, runHealthLua } = await loadLuaVm();
  const rows: BenchRow[] = [];
  for (const [label, folder] of [
    ['PodDisruptionBudget', 'policy/PodDisruptionBudget'],
    ['Rollout', 'argoproj.io/Rollout'],
  ] as const) {
    const { script, obj } = load(folder);
    for (let i = 0; i < 50; i++) runHealthLua(script, obj, { useOpenLibs: true });
    const runs = 1000;
    const { ms } = await timeMs(() => {
      for (let i = 0; i < runs; i++) runHealthLua(script, obj, { useOpenLibs: true });
    });
    rows.push({
      name: `lua: one ${label} health check (fresh state)`,
      value: (ms / runs) * 1000,
      unit: 'us',
    });
  }
  const { ms } = await timeMs(() => {
    try {
      runHealthLua('while true do end', {});
    } catch (err) {
      if (!(err instanceof LuaHealthError)) throw err;
    }
  });
  rows.push({
    name: 'lua: a runaway script stopped by the instruction limit',
    value: ms,
    unit: 'ms',
    note: "Argo CD's limit is 1 s",
  });
  return rows;
}
