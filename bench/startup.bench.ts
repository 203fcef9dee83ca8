/**
 * Cold start (process start to exit, median of 10) of the built CLI: `--version`, `shards` on a
 * 100-cluster file, `render` of the example apps from a local directory (it runs `kubectl kustomize`, a
 * child process, so no start-up target applies), and `--help` of every registered command (so commands added later are measured too).
 * Targets: --version and shards under 250 ms, every command under 300 ms. For reference, the same
 * `--version` through the unbundled TypeScript sources (bin/dev.js), and the standalone executable when
 * `npm run package` has built it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launcher, repoRoot } from '../test/support/paths.js';
import { clusterSecretsYaml } from './fixtures.js';
import { coldStartMs, type BenchRow } from './util.js';

export default async function (): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-startup-'));
  try {
    const clusters = join(dir, 'clusters.yaml');
    writeFileSync(clusters, clusterSecretsYaml(100));
    rows.push({
      name: '--version',
      value: coldStartMs(launcher, ['--version']),
      unit: 'ms',
      target: { value: 250, better: 'lower' },
    });
    rows.push({
      name: 'shards --replicas 10, 100-cluster file',
      value: coldStartMs(launcher, ['shards', '--replicas', '10', '--clusters-file', clusters]),
      unit: 'ms',
      target: { value: 250, better: 'lower' },
    });
    rows.push({
      name: 'render -f examples/apps --local examples/repo (kustomize + directory)',
      value: coldStartMs(
        launcher,
        ['render', '-f', join(repoRoot, 'examples', 'apps'), '--local', join(repoRoot, 'examples', 'repo')],
        10,
        {
          ...process.env,
          XDG_CACHE_HOME: dir,
        },
      ),
      unit: 'ms',
    });
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, unknown>;
    };
    for (const id of Object.keys(manifest.commands).sort()) {
      rows.push({
        name: `${id} --help`,
        value: coldStartMs(launcher, [...id.split(':'), '--help']),
        unit: 'ms',
        target: { value: 300, better: 'lower' },
      });
    }
    rows.push({
      name: 'reference: --version from TypeScript sources (bin/dev.js)',
      value: coldStartMs(join(repoRoot, 'bin', 'dev.js'), ['--version'], 5),
      unit: 'ms',
    });
    const standalone = join(repoRoot, 'dist', 'bin', 'kubectl-gitops');
    if (existsSync(standalone)) {
      rows.push({
        name: 'standalone executable --version',
        value: coldStartMs(standalone, ['--version']),
        unit: 'ms',
      });
      rows.push({
        name: 'standalone executable shards, 100-cluster file',
        value: coldStartMs(standalone, ['shards', '--replicas', '10', '--clusters-file', clusters]),
        unit: 'ms',
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
