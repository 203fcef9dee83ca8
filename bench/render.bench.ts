/**
 * Render benchmark: 200 Applications over 3 local Git repositories, 20 resources each (plain directories),
 * rendered through the source service as `kubectl gitops render` does. Cold = empty cache (mirrors cloned,
 * every app rendered); warm = same cache, same commits (manifests from the
 * cache; a local repository answers its branch from its ref files, no git process). Targets: warm >= 10x
 * faster than cold; each repository fetched at most once per run.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { adHocApplication, type Application } from '../src/apps/index.js';
import { createSourceService, type SourceStats } from '../src/source/index.js';
import type { BenchRow } from './run.js';
import { timeMs } from './util.js';

const APPS = 200;
const REPOS = 3;
const RESOURCES = 20;

function resource(app: number, i: number): string {
  const kind = i % 2 ? 'ConfigMap' : 'Service';
  const body =
    kind === 'ConfigMap'
      ? `data:\n  index: "${i}"\n  app: app-${app}\n`
      : `spec:\n  selector: {app: app-${app}}\n  ports: [{port: ${8000 + i}, targetPort: 8080}]\n`;
  return `apiVersion: v1\nkind: ${kind}\nmetadata:\n  name: app-${app}-${i}\n  labels: {app: app-${app}}\n${body}`;
}

function buildRepos(base: string): string[] {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'b',
    GIT_AUTHOR_EMAIL: 'b@b',
    GIT_COMMITTER_NAME: 'b',
    GIT_COMMITTER_EMAIL: 'b@b',
  };
  const urls: string[] = [];
  for (let r = 0; r < REPOS; r++) {
    const dir = join(base, `repo-${r}`);
    mkdirSync(dir, { recursive: true });
    for (let a = r; a < APPS; a += REPOS) {
      mkdirSync(join(dir, `apps/app-${a}`), { recursive: true });
      const docs = Array.from({ length: RESOURCES }, (_, i) => resource(a, i));
      writeFileSync(join(dir, `apps/app-${a}/a.yaml`), docs.slice(0, RESOURCES / 2).join('---\n'));
      writeFileSync(join(dir, `apps/app-${a}/b.yaml`), docs.slice(RESOURCES / 2).join('---\n'));
    }
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'bench');
    urls.push(pathToFileURL(dir).href);
  }
  return urls;
}

async function renderAll(
  apps: Application[],
  cacheRoot: string,
): Promise<{ ms: number; stats: SourceStats; objects: number }> {
  const service = createSourceService({ cacheRoot });
  try {
    const { ms, result } = await timeMs(() => Promise.all(apps.map((a) => service.renderApp(a))));
    return { ms, stats: service.stats, objects: result.reduce((n, r) => n + r.objects.length, 0) };
  } finally {
    await service.close();
  }
}

export default async function bench(): Promise<BenchRow[]> {
  const base = mkdtempSync(join(tmpdir(), 'kg-bench-render-'));
  try {
    const urls = buildRepos(join(base, 'repos'));
    const apps = Array.from({ length: APPS }, (_, a) =>
      adHocApplication({
        repo: urls[a % REPOS]!,
        path: `apps/app-${a}`,
        revision: 'main',
        destNamespace: `ns-${a}`,
        name: `app-${a}`,
      }),
    );
    const cacheRoot = join(base, 'cache');
    const cold = await renderAll(apps, cacheRoot);
    const warm = await renderAll(apps, cacheRoot);
    if (cold.objects !== APPS * RESOURCES || warm.objects !== APPS * RESOURCES) {
      throw new Error(`expected ${APPS * RESOURCES} objects, got cold ${cold.objects}, warm ${warm.objects}`);
    }
    const maxFetches = (s: SourceStats) => Math.max(0, ...Object.values(s.git.fetches));
    const scale = `${APPS} apps x ${RESOURCES} resources, ${REPOS} repos`;
    return [
      { name: `cold render (${scale})`, value: cold.ms, unit: 'ms' },
      { name: `warm render (${scale})`, value: warm.ms, unit: 'ms' },
      {
        name: 'warm speed-up (cold / warm)',
        value: cold.ms / warm.ms,
        unit: 'x',
        target: { value: 10, better: 'higher' },
      },
      { name: 'git processes, cold run', value: cold.stats.git.processes, unit: 'processes' },
      { name: 'git processes, warm run', value: warm.stats.git.processes, unit: 'processes' },
      {
        name: 'fetches per repository, cold run (max)',
        value: maxFetches(cold.stats),
        unit: 'fetches',
        target: { value: 1, better: 'lower' },
      },
      {
        name: 'fetches per repository, warm run (max)',
        value: maxFetches(warm.stats),
        unit: 'fetches',
        target: { value: 1, better: 'lower' },
      },
      {
        name: 'apps rendered, warm run',
        value: warm.stats.renders,
        unit: 'apps',
        note: `cache hits ${warm.stats.cache.hits}`,
      },
    ];
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
