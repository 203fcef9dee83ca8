/**
 * Cold start (process start to exit, median of 10) of the built CLI: `--version`, `shards` on a
 * 100-cluster file, `render` of the example apps from a local directory (it runs `kubectl kustomize`, a
 * child process, so no start-up target applies), `--help` of every registered command, and for the commands
 * that talk to a cluster (`diff`, live `shards`) the time from process start to their first API request
 * (against the embedded API server) (so commands added later are measured too).
 * Targets: --version and shards under 250 ms, every command under 300 ms (before its first API request). For reference, the same
 * `--version` through the unbundled TypeScript sources (bin/dev.js), and the standalone executable when
 * `npm run package` has built it, with CPU time and peak memory of `version` through `node bin/kubectl-gitops`
 * and through the standalone executable (GNU time; target: the executable no costlier than node).
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launcher, repoRoot } from '../test/support/paths.js';
import { clusterSecretsYaml } from './fixtures.js';
import { coldStartMs, cpuAndRss, median, type BenchRow } from './util.js';
import { spawn, spawnSync } from 'node:child_process';
import { startEmbeddedCluster, type EmbeddedCluster } from '../src/embedded/index.js';

/**
 * Median time from spawning the CLI to the first request the embedded API server receives from it: the
 * start-up cost a command pays before it can talk to a cluster.
 */
async function msToFirstRequest(
  cluster: EmbeddedCluster,
  args: string[],
  env: NodeJS.ProcessEnv,
  runs = 10,
): Promise<number> {
  const stats = cluster.stats as unknown as { record(verb: string, resource: string): void };
  const record = stats.record.bind(stats);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    let first: bigint | undefined;
    stats.record = (verb, resource) => {
      first ??= process.hrtime.bigint();
      record(verb, resource);
    };
    const start = process.hrtime.bigint();
    const child = spawn(launcher, args, { env, stdio: 'ignore' });
    await new Promise((resolve) => child.on('close', resolve));
    if (first === undefined) throw new Error(`${args.join(' ')} made no API request`);
    times.push(Number(first - start) / 1e6);
  }
  stats.record = record;
  return median(times);
}

/**
 * Peak RSS (MB) of `node` running a one-line script and of a single executable application built from the
 * same script with this Node (blob + postject, as scripts/package.mjs does): Node's own cost of a SEA.
 */
function nodeSeaFloor(dir: string): { node: number; sea: number } {
  const seaDir = join(dir, 'sea-floor');
  mkdirSync(seaDir);
  writeFileSync(join(seaDir, 'main.cjs'), "process.stdout.write('1\\n');\n");
  writeFileSync(
    join(seaDir, 'sea-config.json'),
    JSON.stringify({ main: 'main.cjs', output: 'blob', disableExperimentalSEAWarning: true }),
  );
  const exe = join(seaDir, 'exe');
  const steps: [string, string[]][] = [
    [process.execPath, ['--experimental-sea-config', 'sea-config.json']],
    [
      process.execPath,
      [
        join(repoRoot, 'node_modules', 'postject', 'dist', 'cli.js'),
        exe,
        'NODE_SEA_BLOB',
        'blob',
        '--sentinel-fuse',
        'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
      ],
    ],
  ];
  copyFileSync(process.execPath, exe);
  chmodSync(exe, 0o755);
  for (const [cmd, args] of steps) {
    const r = spawnSync(cmd, args, { cwd: seaDir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  }
  const node = cpuAndRss(process.execPath, [join(seaDir, 'main.cjs')]);
  const sea = cpuAndRss(exe, []);
  if (!node || !sea) throw new Error('GNU time is needed for the SEA reference');
  return { node: node.rssMb, sea: sea.rssMb };
}

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
    const cluster = await startEmbeddedCluster({ namespaces: ['default', 'argocd'] });
    try {
      const kubeconfig = join(dir, 'kubeconfig');
      await cluster.writeKubeconfig(kubeconfig);
      const env = { ...process.env, XDG_CACHE_HOME: dir };
      rows.push({
        name: 'diff (plain directory app, --local): start to first API request',
        value: await msToFirstRequest(
          cluster,
          [
            'diff',
            '-f',
            join(repoRoot, 'examples', 'apps'),
            'guestbook',
            '--local',
            join(repoRoot, 'examples', 'repo'),
            '--kubeconfig',
            kubeconfig,
          ],
          env,
        ),
        unit: 'ms',
        target: { value: 300, better: 'lower' },
      });
      rows.push({
        name: 'shards live mode: start to first API request',
        value: await msToFirstRequest(
          cluster,
          ['shards', '--replicas', '3', '--kubeconfig', kubeconfig],
          env,
        ),
        unit: 'ms',
        target: { value: 300, better: 'lower' },
      });
    } finally {
      await cluster.close();
    }
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
    // Issue 12: the standalone executable should cost no more CPU and memory than `node bin/kubectl-gitops`.
    const viaNode = cpuAndRss(process.execPath, [launcher, 'version']);
    const viaSea = existsSync(standalone) ? cpuAndRss(standalone, ['version']) : undefined;
    if (viaNode) {
      rows.push({
        name: 'node bin/kubectl-gitops version: CPU (user+sys)',
        value: viaNode.cpuMs,
        unit: 'ms',
      });
      rows.push({ name: 'node bin/kubectl-gitops version: max RSS', value: viaNode.rssMb, unit: 'MB' });
    }
    if (viaNode && viaSea) {
      rows.push({
        name: 'standalone executable version: CPU (user+sys)',
        value: viaSea.cpuMs,
        unit: 'ms',
        target: { value: viaNode.cpuMs, better: 'lower' },
      });
      rows.push({
        name: 'standalone executable version: max RSS',
        value: viaSea.rssMb,
        unit: 'MB',
        target: { value: viaNode.rssMb, better: 'lower' },
      });
    }
    if (viaSea) {
      // What Node's single executable application costs on its own: the same Node with a one-line main
      // script, next to `node -e` running that line. The executable's memory above is read against these.
      const floor = nodeSeaFloor(dir);
      rows.push({
        name: 'reference: node running a one-line script: max RSS',
        value: floor.node,
        unit: 'MB',
      });
      rows.push({
        name: 'reference: standalone executable of a one-line script: max RSS',
        value: floor.sea,
        unit: 'MB',
      });
    }
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
