/**
 * Sync benchmark: `kubectl gitops sync`'s engine (controller Run + sync operation) over 50 apps x 20
 * resources (refresh bench's manifests: 10 ConfigMaps, 4 Secrets, 3 Deployments, 3 Services per app, one
 * namespace per app, created by CreateNamespace=true) on the embedded API server, then a no-op re-sync;
 * and the same objects through kubectl on fresh embedded servers, in the same run: one `kubectl apply -R -f`
 * for every app (kubectl at its fastest: one process, one discovery) and one `kubectl apply -f` per app
 * directory, one after another (what a CI job applying each app runs). The first sync also runs as a user
 * runs it: `kubectl gitops sync --async` from the built bundle, a child process like kubectl (so its
 * figure includes process start and, like kubectl's, leaves this process's thread to the server).
 * Figures: wall time, write requests (create/update/patch/delete, dry runs included) as the server counted
 * them. Targets: first sync at least 3x faster than kubectl apply (both ways); zero writes on a no-op
 * re-sync.
 * The embedded server runs in this process: the engine run shares its thread with the server (a real
 * API server is elsewhere); kubectl and the CLI run are children.
 * On a real kube-apiserver (a rig is up, bench/server.ts) the apps' namespaces are `kg-sync-bench-<i>`,
 * deleted before each first sync and each kubectl run (so each creates every object) and at the end.
 * BENCH_SYNC_APPS (default 50) sets the fleet (500: 10,000 objects); BENCH_SYNC_NO_KUBECTL=1 leaves kubectl
 * out; BENCH_SYNC_KUBECTL_PER_APP=0 leaves out the slow one-kubectl-per-app run.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import type { BenchRow } from './util.js';
import { writeAppRepo } from './fixtures.js';
import { appManifest, manifests } from './refresh.bench.js';
import { parseApplication } from '../src/apps/index.js';
import { Run } from '../src/controller/index.js';
import { createSourceService } from '../src/source/index.js';
import { benchServer, requestsBetween, writeRequests, type BenchServer } from './server.js';
import { defaultSyncOperation } from './sync-operation.js';

const APPS = Number(process.env['BENCH_SYNC_APPS'] ?? 50);
const PER_APP = 20;

/** Runs `fn`; the write requests (create, update, patch, delete; dry runs included) the server saw meanwhile. */
async function countingWrites<T>(
  c: BenchServer,
  fn: () => Promise<T>,
): Promise<{ result: T; writes: number }> {
  const before = c.requests();
  const result = await fn();
  return { result, writes: writeRequests(requestsBetween(before, c.requests())) };
}

export default async function bench(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'kg-sync-bench-'));
  const repo = join(dir, 'repo');
  writeAppRepo(repo, APPS, manifests, 'bench');
  const repoURL = pathToFileURL(repo).href;
  const cluster = await benchServer();
  process.stderr.write(`sync: against the ${cluster.label}\n`);
  const nsPrefix = cluster.real ? 'kg-sync-bench-' : 'ns-';
  const appManifests = Array.from({ length: APPS }, (_, i) => {
    const manifest = appManifest(i, repoURL);
    const spec = manifest['spec'] as Record<string, unknown>;
    spec['syncPolicy'] = { syncOptions: ['CreateNamespace=true'] };
    (spec['destination'] as Record<string, unknown>)['namespace'] = `${nsPrefix}${i}`;
    return manifest;
  });
  const apps = appManifests.map((m, i) => parseApplication(m, `bench app-${i}`));
  await cluster.cleanup(nsPrefix);
  const kubeconfig = join(dir, 'kubeconfig');
  await cluster.writeKubeconfig(kubeconfig);
  const cacheRoot = join(dir, 'cache');
  const once = async () => {
    const source = createSourceService({ cacheRoot });
    const before = cluster.requests();
    const t0 = performance.now();
    const report = await new Run({
      apps,
      source,
      kubeconfig,
      statusProcessors: 8,
      // As `kubectl gitops sync` runs it (src/commands/sync.ts): sync reports print no diff text.
      diffText: false,
      discovery: { cacheDir: join(cacheRoot, 'discovery') },
      operation: defaultSyncOperation,
    }).run();
    const ms = performance.now() - t0;
    await source.close();
    const failed = report.apps.filter((a) => a.error || a.operation?.phase !== 'Succeeded').length;
    return { ms, writes: writeRequests(requestsBetween(before, cluster.requests())), failed };
  };
  try {
    const first = await once();
    const again = await once();
    const rows: BenchRow[] = [
      {
        name: `sync first: ${APPS} apps x ${PER_APP} resources`,
        value: Math.round(first.ms),
        unit: 'ms',
        note: `${first.writes} write requests (dry runs included); ${first.failed} apps not Succeeded; ${cluster.real ? 'REAL kube-apiserver' : 'embedded server'}`,
      },
      {
        name: 'sync no-op re-sync: wall time',
        value: Math.round(again.ms),
        unit: 'ms',
        note: `${again.failed} apps not Succeeded`,
      },
      {
        name: 'sync no-op re-sync: write requests',
        value: again.writes,
        unit: 'requests',
        target: { value: 0, better: 'lower' },
      },
    ];
    // The same first sync as a user runs it: `kubectl gitops sync` (the built bundle) as a child process
    // on a fresh server, every cache cold, `--async` as the engine run above (no wait for health: the
    // embedded server runs no workloads). Process start, app loading and output are in its time; the
    // server is not on its thread, as for kubectl below.
    const cli = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'kubectl-gitops');
    let cliMs: number | undefined;
    if (!existsSync(join(dirname(cli), '..', 'dist', 'cli.js'))) {
      rows.push({
        name: 'kubectl gitops sync: skipped',
        value: 0,
        unit: 'ms',
        note: 'run npm run build first',
      });
    } else {
      const appsFile = join(dir, 'apps.yaml');
      writeFileSync(appsFile, appManifests.map((m) => stringify(m)).join('---\n'));
      const fresh = await freshServer(cluster, nsPrefix);
      const server = fresh.server;
      const serverConfig = join(dir, 'cli.kubeconfig');
      await server.writeKubeconfig(serverConfig);
      try {
        const env = {
          ...process.env,
          XDG_CACHE_HOME: join(dir, 'cli-cache'),
          KUBECACHEDIR: join(dir, 'cli-kube-cache'),
        };
        const t0 = performance.now();
        const { result: exit, writes } = await countingWrites(server, () =>
          execFileAsync(
            'node',
            [cli, 'sync', '-f', appsFile, '--kubeconfig', serverConfig, '--async', '-o', 'json'],
            env,
          ),
        );
        cliMs = performance.now() - t0;
        rows.push({
          name: 'kubectl gitops sync (CLI, first sync)',
          value: Math.round(cliMs),
          unit: 'ms',
          note: `exit ${exit}; ${writes} write requests (dry runs included); load average ${loadavg()
            .map((l) => l.toFixed(1))
            .join(' ')}`,
        });
      } finally {
        await fresh.close();
      }
    }
    const kubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
    if (process.env['BENCH_SYNC_NO_KUBECTL'] === '1') return rows;
    if (!kubectl) {
      rows.push({ name: 'kubectl apply: skipped', value: 0, unit: 'ms', note: 'kubectl not installed' });
      return rows;
    }
    // The same objects, namespaced, through one kubectl apply on a fresh server.
    const plain = join(dir, 'plain');
    mkdirSync(plain);
    for (let i = 0; i < APPS; i++) {
      const docs = [`apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${nsPrefix}${i}\n`];
      for (const doc of manifests(i).split('---\n'))
        docs.push(doc.replace(/^metadata:\n/m, `metadata:\n  namespace: ${nsPrefix}${i}\n`));
      writeFileSync(join(plain, `app-${i}.yaml`), docs.join('---\n'));
    }
    // Each kubectl run on a fresh server of its own, so both create every object.
    const kubectlRun = async (
      label: string,
      runs: string[][],
    ): Promise<{ ms: number; exit: number; writes: number }> => {
      const fresh = await freshServer(cluster, nsPrefix);
      const freshConfig = join(dir, `${label}.kubeconfig`);
      await fresh.server.writeKubeconfig(freshConfig);
      try {
        const env = { ...process.env, KUBECONFIG: freshConfig, KUBECACHEDIR: join(dir, `${label}-cache`) };
        const t0 = performance.now();
        let exit = 0;
        const { writes } = await countingWrites(fresh.server, async () => {
          for (const args of runs) exit = Math.max(exit, await execFileAsync('kubectl', args, env));
        });
        return { ms: performance.now() - t0, exit, writes };
      } finally {
        await fresh.close();
      }
    };
    /** The kubectl run's row, then our first sync's speed-up over it (in process, and as the CLI). */
    const versusKubectl = (
      run: { ms: number; exit: number | null; writes: number },
      what: string,
      over: string,
    ) => {
      rows.push({
        name: `kubectl apply of the same objects (${what})`,
        value: Math.round(run.ms),
        unit: 'ms',
        note: `exit ${run.exit}; ${run.writes} write requests`,
      });
      const speedUp = (name: string, ms: number) =>
        rows.push({
          name,
          value: run.ms / ms,
          unit: 'x',
          target: { value: APPS * PER_APP >= 10000 ? 5 : 3, better: 'higher' },
        });
      speedUp(`sync first: speed-up over ${over}`, first.ms);
      if (cliMs !== undefined) speedUp(`kubectl gitops sync (CLI): speed-up over ${over}`, cliMs);
    };
    // One process for every app's manifests: kubectl at its fastest.
    const all = await kubectlRun('all', [['apply', '-R', '-f', plain]]);
    versusKubectl(all, 'one kubectl for all apps', 'one kubectl apply');
    if (process.env['BENCH_SYNC_KUBECTL_PER_APP'] === '0') return rows;
    // One `kubectl apply -f` per app directory, one after another: what a CI job applying apps runs.
    const perApp = await kubectlRun(
      'per-app',
      Array.from({ length: APPS }, (_, i) => ['apply', '-f', join(plain, `app-${i}.yaml`)]),
    );
    versusKubectl(perApp, `one kubectl per app, ${APPS} in a row`, 'kubectl apply per app');
    return rows;
  } finally {
    await cluster.cleanup(nsPrefix);
    await cluster.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A server where none of the bench's objects exist: a new embedded server, or the same real one with the
 * bench's namespaces deleted.
 */
async function freshServer(
  cluster: BenchServer,
  nsPrefix: string,
): Promise<{ server: BenchServer; close(): Promise<void> }> {
  if (cluster.real) {
    await cluster.cleanup(nsPrefix);
    return { server: cluster, close: async () => {} };
  }
  const { benchServer: start } = await import('./server.js');
  const server = await start();
  return { server, close: () => server.close() };
}

/** A child process (async, so the in-process embedded server keeps answering). */
function execFileAsync(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    execFile(command, args, { env, maxBuffer: 64 * 1024 * 1024 }, (err) =>
      resolve(err ? (typeof err.code === 'number' ? err.code : 1) : 0),
    );
  });
}
