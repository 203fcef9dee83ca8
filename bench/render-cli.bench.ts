/**
 * Warm `kubectl gitops render` against the CLI's own start-up (issue 21): 100 Applications x 10 objects
 * from one local Git repository (file://), through the built CLI as a user runs it. Cold = a fresh cache
 * (mirror cloned, every app rendered); warm = the same cache and commit, where the run must read the cache
 * and nothing else (no git process, no schema, no validation: see docs/desired-state.md, "Manifest cache").
 * Start-up = `kubectl-gitops version`. Figures: medians of wall time, and of CPU time (user + system, from
 * GNU time when installed: steadier than wall time on a busy machine). Target: warm within 2x of start-up.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launcher } from '../test/support/paths.js';
import type { BenchRow } from './run.js';
import { coldStartMs, cpuAndRss } from './util.js';

const APPS = 100;
const OBJECTS = 10;

function buildInputs(base: string): string {
  const repo = join(base, 'repo');
  for (let a = 0; a < APPS; a++) {
    mkdirSync(join(repo, `apps/app-${a}`), { recursive: true });
    const docs = Array.from(
      { length: OBJECTS },
      (_, i) =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-${a}-${i}\n  labels: {app: app-${a}}\ndata:\n  index: "${i}"\n  mode: fast\n`,
    );
    writeFileSync(join(repo, `apps/app-${a}/cm.yaml`), docs.join('---\n'));
  }
  const env = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b' };
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repo,
      env: { ...env, GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' },
      stdio: 'ignore',
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'bench');
  const url = pathToFileURL(repo).href;
  const apps = Array.from(
    { length: APPS },
    (_, a) =>
      `apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: app-${a}\n  namespace: argocd\nspec:\n  project: default\n  source:\n    repoURL: ${url}\n    path: apps/app-${a}\n    targetRevision: main\n  destination:\n    server: https://kubernetes.default.svc\n    namespace: ns-${a}\n`,
  );
  const file = join(base, 'apps.yaml');
  writeFileSync(file, apps.join('---\n'));
  return file;
}

/** Runs `fn` with XDG_CACHE_HOME set (cpuAndRss spawns with this process's environment). */
function withCache<T>(dir: string, fn: () => T): T {
  const before = process.env['XDG_CACHE_HOME'];
  process.env['XDG_CACHE_HOME'] = dir;
  try {
    return fn();
  } finally {
    if (before === undefined) delete process.env['XDG_CACHE_HOME'];
    else process.env['XDG_CACHE_HOME'] = before;
  }
}

export default async function bench(): Promise<BenchRow[]> {
  const base = mkdtempSync(join(tmpdir(), 'kg-bench-render-cli-'));
  try {
    const appsFile = buildInputs(base);
    const args = ['render', '-f', appsFile, '-q'];
    // Cold: a fresh cache each run.
    const colds: number[] = [];
    for (let i = 0; i < 3; i++) {
      const cache = join(base, `cold-${i}`);
      colds.push(withCache(cache, () => coldStartMs(launcher, args, 1, process.env)));
    }
    colds.sort((a, b) => a - b);
    const cold = colds[1]!;
    const warmCache = join(base, 'warm');
    withCache(warmCache, () => coldStartMs(launcher, args, 1, process.env)); // fills the cache
    const warm = withCache(warmCache, () => coldStartMs(launcher, args, 7, process.env));
    const startup = coldStartMs(launcher, ['version'], 7);
    const warmCpu = withCache(warmCache, () => cpuAndRss(launcher, args, 5));
    const startupCpu = cpuAndRss(launcher, ['version'], 5);
    const scale = `${APPS} apps x ${OBJECTS} objects, local repo`;
    const rows: BenchRow[] = [
      { name: `cold render, CLI (${scale})`, value: cold, unit: 'ms' },
      { name: `warm render, CLI (${scale})`, value: warm, unit: 'ms' },
      { name: 'CLI start-up (version)', value: startup, unit: 'ms' },
      {
        name: 'warm render / start-up (wall)',
        value: warm / startup,
        unit: 'x',
        target: { value: 2, better: 'lower' },
      },
    ];
    if (warmCpu && startupCpu) {
      rows.push(
        { name: 'warm render CPU (user + system)', value: warmCpu.cpuMs, unit: 'ms' },
        { name: 'start-up CPU (user + system)', value: startupCpu.cpuMs, unit: 'ms' },
        {
          name: 'warm render / start-up (CPU)',
          value: warmCpu.cpuMs / startupCpu.cpuMs,
          unit: 'x',
          target: { value: 2, better: 'lower' },
        },
      );
    }
    return rows;
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
