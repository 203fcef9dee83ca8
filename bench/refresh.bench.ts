/**
 * Refresh benchmark: `kubectl gitops diff`'s engine (controller Run) over 100 apps x 20 resources (10
 * ConfigMaps, 4 Secrets, 3 Deployments, 3 Services each, one namespace per app) on the embedded API
 * server, every resource applied by server-side apply, then 10 % of them drifted by another field manager.
 * A child process runs the refresh twice: cold (first run: discovery and manifest caches empty) and warm
 * (caches on disk, as a second `diff` would find them); it reports wall time, API requests by verb and
 * peak RSS. It also checks the drift found is exactly the drift made.
 * Targets: warm < 2 s; API requests independent of resource count (lists/watches per kind, no GET per
 * object).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import type { BenchRow } from './util.js';
import { writeAppRepo } from './fixtures.js';
import { parseApplication } from '../src/apps/index.js';
import type { Application } from '../src/apps/index.js';
import { connect } from '../src/cluster/index.js';
import type { KubeObject } from '../src/cluster/index.js';
import { Run } from '../src/controller/index.js';
import { createSourceService } from '../src/source/index.js';

const APPS = 100;
const PER_APP = 20;
const DRIFT_EVERY = 10; // 10 %

interface ChildResult {
  coldMs: number;
  warmMs: number;
  requests: number;
  outOfSync: number;
  errors: number;
  maxRssMb: number;
}

export function manifests(app: number): string {
  const docs: string[] = [];
  for (let i = 0; i < 10; i++) {
    docs.push(
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\ndata:\n  key: value-${app}-${i}\n  mode: prod\n`,
    );
  }
  for (let i = 0; i < 4; i++) {
    docs.push(
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: secret-${i}\nstringData:\n  password: pw-${app}-${i}\n`,
    );
  }
  for (let i = 0; i < 3; i++) {
    docs.push(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-${i}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web-${i}}
  template:
    metadata:
      labels: {app: web-${i}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        ports: [{containerPort: 80}]
        resources: {limits: {cpu: 500m, memory: 256Mi}}
`);
    docs.push(`apiVersion: v1
kind: Service
metadata:
  name: web-${i}
spec:
  selector: {app: web-${i}}
  ports: [{port: 80, targetPort: 8080}]
`);
  }
  return docs.join('---\n');
}

export function appManifest(i: number, repoURL: string): KubeObject {
  return parse(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: app-${i}, namespace: argocd}
spec:
  project: default
  source: {repoURL: ${repoURL}, path: apps/app-${i}, targetRevision: main}
  destination: {server: https://kubernetes.default.svc, namespace: ns-${i}}
`) as KubeObject;
}

const appsFor = (repoURL: string): Application[] =>
  Array.from({ length: APPS }, (_, i) => parseApplication(appManifest(i, repoURL), `bench app-${i}`));

async function pool(n: number, width: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < n; i = next++) await task(i);
    }),
  );
}

async function child(): Promise<void> {
  const [kubeconfig, cacheRoot, repoURL] = process.argv.slice(2) as [string, string, string];
  const apps = appsFor(repoURL);
  const once = async () => {
    const source = createSourceService({ cacheRoot });
    const t0 = performance.now();
    const report = await new Run({
      apps,
      source,
      kubeconfig,
      discovery: { cacheDir: join(cacheRoot, 'discovery') },
    }).run();
    const ms = performance.now() - t0;
    await source.close();
    return { ms, report };
  };
  const cold = await once();
  const warm = await once();
  const resources = warm.report.apps.flatMap((a) => a.comparison?.resources ?? []);
  const result: ChildResult = {
    coldMs: cold.ms,
    warmMs: warm.ms,
    requests: warm.report.requests,
    outOfSync: resources.filter((r) => r.status !== 'Synced').length,
    errors: warm.report.apps.filter((a) => a.error).length,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(JSON.stringify(result));
}

function runChild(kubeconfig: string, cacheRoot: string, repoURL: string): Promise<ChildResult> {
  const self = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', self, kubeconfig, cacheRoot, repoURL], {
      env: { ...process.env, REFRESH_BENCH_CHILD: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.on('error', reject);
    p.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as ChildResult)
        : reject(new Error(`refresh bench child exited ${code}`)),
    );
  });
}

async function seed(kubeconfig: string, dir: string): Promise<{ repoURL: string; drifted: number }> {
  const repo = join(dir, 'repo');
  writeAppRepo(repo, APPS, manifests, 'bench');
  const repoURL = pathToFileURL(repo).href;

  const conn = await connect({
    kubeconfig,
    discovery: { cacheDir: join(dir, 'seed-discovery') },
    client: { fieldManager: 'argocd-controller' },
  });
  const other = await connect({
    kubeconfig,
    discovery: { cacheDir: join(dir, 'seed-discovery') },
    client: { fieldManager: 'kubectl-edit' },
  });
  const nsInfo = await conn.discovery.resolve({ group: '', kind: 'Namespace' });
  await pool(APPS, 16, (i) =>
    conn.client.create(nsInfo, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns-${i}` } }),
  );
  const source = createSourceService({ cacheRoot: join(dir, 'seed-cache') });
  const objects: KubeObject[] = [];
  const apps = appsFor(repoURL);
  for (const app of apps) {
    for (const o of (await source.renderApp(app)).objects) {
      objects.push({ ...o, metadata: { ...o.metadata, namespace: app.destination.namespace } });
    }
  }
  await source.close();
  const infos = new Map<string, Awaited<ReturnType<typeof conn.discovery.resolve>>>();
  for (const o of objects) {
    const id = `${o.apiVersion}/${o.kind}`;
    if (!infos.has(id)) infos.set(id, await conn.discovery.resolveApiVersionKind(o.apiVersion!, o.kind!));
  }
  await pool(objects.length, 32, (i) => {
    const o = objects[i]!;
    return conn.client.patch(
      infos.get(`${o.apiVersion}/${o.kind}`)!,
      o.metadata!.namespace!,
      o.metadata!.name!,
      o,
      'apply',
      {
        force: true,
      },
    );
  });
  // Drift every 10th object (by another manager): a spec or data change that Git sets.
  const drift = objects.filter((_, i) => i % DRIFT_EVERY === 0);
  await pool(drift.length, 32, (i) => {
    const o = drift[i]!;
    const patch =
      o.kind === 'Deployment'
        ? { spec: { replicas: 7 } }
        : o.kind === 'Service'
          ? { spec: { ports: [{ port: 80, targetPort: 9090 }] } }
          : o.kind === 'Secret'
            ? { data: { password: Buffer.from('drifted').toString('base64') } }
            : { data: { mode: 'drifted' } };
    return other.client.patch(
      infos.get(`${o.apiVersion}/${o.kind}`)!,
      o.metadata!.namespace!,
      o.metadata!.name!,
      patch,
      'merge',
    );
  });
  conn.close();
  other.close();
  return { repoURL, drifted: drift.length };
}

export default async function refreshBench(): Promise<BenchRow[]> {
  const { startEmbeddedCluster } = await import('../src/embedded/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'gitops-refresh-bench-'));
  const cluster = await startEmbeddedCluster();
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    await cluster.writeKubeconfig(kubeconfig);
    const t0 = performance.now();
    const { repoURL, drifted } = await seed(kubeconfig, dir);
    const seedMs = performance.now() - t0;
    const before = cluster.stats.snapshot().byVerbResource;
    const r = await runChild(kubeconfig, join(dir, 'cache'), repoURL);
    const after = cluster.stats.snapshot().byVerbResource;
    const delta = (verb: string, objectsOnly = false): number =>
      Object.entries(after)
        .filter(([k]) => k.startsWith(`${verb} `) && !(objectsOnly && k === `${verb} discovery`))
        .reduce((sum, [k, n]) => sum + n - (before[k] ?? 0), 0);
    const total = APPS * PER_APP;
    return [
      {
        name: `refresh warm: ${APPS} apps x ${PER_APP} resources, 10% drifted`,
        value: Math.round(r.warmMs),
        unit: 'ms',
        target: { value: 2000, better: 'lower' },
        note: `cold ${Math.round(r.coldMs)} ms; seeding took ${Math.round(seedMs)} ms`,
      },
      {
        name: 'refresh warm: API requests',
        value: r.requests,
        unit: 'requests',
        note: `both runs: ${delta('list')} lists, ${delta('watch')} watches, ${delta('get') - delta('get', true)} discovery GETs, ${delta('patch')} patches (${total} objects)`,
      },
      {
        name: 'refresh: object GETs per run (independent of resource count)',
        value: delta('get', true),
        unit: 'requests',
        target: { value: 0, better: 'lower' },
      },
      {
        name: 'refresh: drifted resources found',
        value: r.outOfSync,
        unit: 'resources',
        target: { value: drifted, better: 'higher' },
        note: `${drifted} drifted; ${r.errors} app errors`,
      },
      { name: 'refresh: peak RSS (child, both runs)', value: Math.round(r.maxRssMb), unit: 'MB' },
    ];
  } finally {
    await cluster.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.env['REFRESH_BENCH_CHILD'] === '1') await child();
