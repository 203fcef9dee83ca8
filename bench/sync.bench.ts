/**
 * Sync benchmark: `kubectl gitops sync`'s engine (controller Run + sync operation) over 50 apps x 20
 * resources (refresh bench's manifests: 10 ConfigMaps, 4 Secrets, 3 Deployments, 3 Services per app, one
 * namespace per app, created by CreateNamespace=true) on the embedded API server, then a no-op re-sync;
 * and the same objects through one `kubectl apply -R -f` on a fresh embedded server, in the same run.
 * Figures: wall time, write requests (create/update/patch/delete, dry runs included) as the server counted
 * them. Targets: first sync at least 3x faster than kubectl apply; zero writes on a no-op re-sync.
 * The embedded server runs in this process (it shares the CPU with the client; kubectl is a child).
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchRow } from './util.js';
import { appManifest, manifests } from './refresh.bench.js';
import { parseApplication } from '../src/apps/index.js';
import { Run } from '../src/controller/index.js';
import { startEmbeddedCluster } from '../src/embedded/index.js';
import type { EmbeddedCluster } from '../src/embedded/index.js';
import { createSourceService } from '../src/source/index.js';
import { runOperation } from '../src/sync/index.js';

const APPS = 50;
const PER_APP = 20;
const WRITES = ['create', 'update', 'patch', 'delete'];

const writes = (c: EmbeddedCluster): number => WRITES.reduce((n, v) => n + c.stats.count(v), 0);

export default async function bench(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'kg-sync-bench-'));
  const repo = join(dir, 'repo');
  for (let i = 0; i < APPS; i++) {
    mkdirSync(join(repo, 'apps', `app-${i}`), { recursive: true });
    writeFileSync(join(repo, 'apps', `app-${i}`, 'all.yaml'), manifests(i));
  }
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], {
      cwd: repo,
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'bench');
  const repoURL = pathToFileURL(repo).href;
  const apps = Array.from({ length: APPS }, (_, i) => {
    const manifest = appManifest(i, repoURL);
    (manifest['spec'] as Record<string, unknown>)['syncPolicy'] = { syncOptions: ['CreateNamespace=true'] };
    return parseApplication(manifest, `bench app-${i}`);
  });
  const cluster = await startEmbeddedCluster();
  const kubeconfig = join(dir, 'kubeconfig');
  await cluster.writeKubeconfig(kubeconfig);
  const cacheRoot = join(dir, 'cache');
  const once = async () => {
    const source = createSourceService({ cacheRoot });
    cluster.stats.reset();
    const t0 = performance.now();
    const report = await new Run({
      apps,
      source,
      kubeconfig,
      statusProcessors: 8,
      // As `kubectl gitops sync` runs it (src/commands/sync.ts): sync reports print no diff text.
      diffText: false,
      discovery: { cacheDir: join(cacheRoot, 'discovery') },
      operation: (app, rec, signal) =>
        runOperation(
          { name: app.name, syncOptions: app.syncPolicy.options },
          rec,
          {
            prune: false,
            dryRun: false,
            allowEmpty: false,
            strategy: 'hook',
            resources: [],
            syncOptions: {},
          },
          signal,
        ),
    }).run();
    const ms = performance.now() - t0;
    await source.close();
    const failed = report.apps.filter((a) => a.error || a.operation?.phase !== 'Succeeded').length;
    return { ms, writes: writes(cluster), failed };
  };
  try {
    const first = await once();
    const again = await once();
    const rows: BenchRow[] = [
      {
        name: `sync first: ${APPS} apps x ${PER_APP} resources`,
        value: Math.round(first.ms),
        unit: 'ms',
        note: `${first.writes} write requests (dry runs included); ${first.failed} apps not Succeeded`,
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
    const kubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;
    if (!kubectl) {
      rows.push({ name: 'kubectl apply: skipped', value: 0, unit: 'ms', note: 'kubectl not installed' });
      return rows;
    }
    // The same objects, namespaced, through one kubectl apply on a fresh server.
    const plain = join(dir, 'plain');
    mkdirSync(plain);
    for (let i = 0; i < APPS; i++) {
      const docs = [`apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-${i}\n`];
      for (const doc of manifests(i).split('---\n'))
        docs.push(doc.replace(/^metadata:\n/m, `metadata:\n  namespace: ns-${i}\n`));
      writeFileSync(join(plain, `app-${i}.yaml`), docs.join('---\n'));
    }
    const fresh = await startEmbeddedCluster();
    const freshConfig = join(dir, 'fresh.kubeconfig');
    await fresh.writeKubeconfig(freshConfig);
    try {
      const env = { ...process.env, KUBECONFIG: freshConfig, KUBECACHEDIR: join(dir, 'kube-cache') };
      const t0 = performance.now();
      const r = await execFileAsync(['apply', '-R', '-f', plain], env);
      const applyMs = performance.now() - t0;
      rows.push({
        name: 'kubectl apply of the same objects',
        value: Math.round(applyMs),
        unit: 'ms',
        note: `exit ${r}; ${writes(fresh)} write requests`,
      });
      rows.push({
        name: 'sync first: speed-up over kubectl apply',
        value: applyMs / first.ms,
        unit: 'x',
        target: { value: 3, better: 'higher' },
      });
    } finally {
      await fresh.close();
    }
    return rows;
  } finally {
    await cluster.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** kubectl as a child process (async, so the in-process embedded server keeps answering). */
function execFileAsync(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve) => {
    execFile('kubectl', args, { env, maxBuffer: 64 * 1024 * 1024 }, (err) =>
      resolve(err ? (typeof err.code === 'number' ? err.code : 1) : 0),
    );
  });
}
