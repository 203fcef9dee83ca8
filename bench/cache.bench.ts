/**
 * Live cache benchmark: 20,000 objects over 40 kinds (ConfigMap, Secret and 38 CRD kinds) in 100 namespaces
 * of the embedded API server, created by server-side apply (so they carry managedFields, as on a real
 * cluster). A child process (`--expose-gc`) builds a live cache scoped to the 100 namespaces and reports the
 * time from `start` to synced (discovery excluded, it is cached), the list/watch requests it made, and the
 * heap the cache retains, once with the default transform (drops managedFields) and once without.
 * Targets: synced < 3 s; requests <= kinds x namespaces + kinds; heap with transform <= half of without.
 */
import { preserveUnknownFieldsCrd } from '../test/support/crds.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchRow } from './run.js';
import { connect } from '../src/cluster/index.js';
import type { KubeObject, LiveStateCache, ResourceInfo } from '../src/cluster/index.js';

const KINDS = 40;
const NAMESPACES = 100;
const OBJECTS = 20_000;
const CRD_GROUP = 'bench.example.com';
const crdKinds = Array.from({ length: KINDS - 2 }, (_, i) => `Widget${String(i).padStart(2, '0')}`);

interface ChildResult {
  syncMs: number;
  requests: number;
  lists: number;
  watches: number;
  objects: number;
  heapBytes: number;
}

async function child(): Promise<void> {
  const [kubeconfig, cacheDir, mode] = process.argv.slice(2);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('cache bench child: run with --expose-gc');
  const conn = await connect({ kubeconfig, discovery: { cacheDir: cacheDir! } });
  const kinds = [
    { group: '', kind: 'ConfigMap' },
    { group: '', kind: 'Secret' },
    ...crdKinds.map((kind) => ({ group: CRD_GROUP, kind })),
  ];
  const resources: ResourceInfo[] = [];
  for (const k of kinds) resources.push(await conn.discovery.resolve(k));
  const namespaces = Array.from({ length: NAMESPACES }, (_, i) => `ns-${i}`);
  conn.client.resetCounts();
  let cache: LiveStateCache | undefined = conn.liveCache({
    resources,
    namespaces,
    ...(mode === 'raw' ? { transform: false as const } : {}),
  });
  const t0 = performance.now();
  await cache.start();
  const syncMs = performance.now() - t0;
  while (cache.stats().watchesOpened < cache.stats().scopes) await new Promise((r) => setTimeout(r, 5));
  const counts = conn.client.counts();
  const objects = cache.stats().objects;
  gc();
  const synced = process.memoryUsage().heapUsed;
  cache.stop();
  await cache.stopped();
  cache = undefined;
  gc();
  // What the cache retained: the heap it held when synced minus the heap once it is gone.
  const heapBytes = synced - process.memoryUsage().heapUsed;
  const result: ChildResult = {
    syncMs,
    requests: counts.total,
    lists: counts.byVerb['list'] ?? 0,
    watches: counts.byVerb['watch'] ?? 0,
    objects,
    heapBytes,
  };
  process.stdout.write(JSON.stringify(result));
  conn.close();
}

function runChild(kubeconfig: string, cacheDir: string, mode: 'transform' | 'raw'): Promise<ChildResult> {
  const self = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', self, kubeconfig, cacheDir, mode], {
      env: { ...process.env, CACHE_BENCH_CHILD: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code === 0) resolve(JSON.parse(out) as ChildResult);
      else reject(new Error(`cache bench child (${mode}) exited ${code}`));
    });
  });
}

async function seed(kubeconfig: string, cacheDir: string): Promise<void> {
  const conn = await connect({ kubeconfig, discovery: { cacheDir } });
  const d = conn.discovery;
  const nsInfo = await d.resolve({ group: '', kind: 'Namespace' });
  const crdInfo = await d.resolve({ group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' });
  await pool(NAMESPACES, 16, (i) =>
    conn.client.create(nsInfo, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns-${i}` } }),
  );
  await pool(crdKinds.length, 8, (i) => {
    const kind = crdKinds[i]!;
    return conn.client.create(crdInfo, preserveUnknownFieldsCrd(CRD_GROUP, kind));
  });
  await d.refresh();
  const kinds: ResourceInfo[] = [
    await d.resolve({ group: '', kind: 'ConfigMap' }),
    await d.resolve({ group: '', kind: 'Secret' }),
  ];
  for (const kind of crdKinds) kinds.push(await d.resolve({ group: CRD_GROUP, kind }));
  await pool(OBJECTS, 32, (i) => {
    const info = kinds[i % KINDS]!;
    const namespace = `ns-${Math.floor(i / KINDS) % NAMESPACES}`;
    const name = `obj-${i}`;
    const app = `app-${i % 50}`;
    const group = info.group;
    const body: KubeObject = {
      apiVersion: group ? `${group}/${info.version}` : info.version,
      kind: info.kind,
      metadata: {
        name,
        namespace,
        labels: { 'app.kubernetes.io/instance': app, tier: 'backend' },
        annotations: {
          'argocd.argoproj.io/tracking-id': `${app}:${group}/${info.kind}:${namespace}/${name}`,
        },
      },
    };
    const payload = Object.fromEntries(Array.from({ length: 8 }, (_, k) => [`key${k}`, `value-${i}-${k}`]));
    if (info.kind === 'ConfigMap') body['data'] = payload;
    else if (info.kind === 'Secret')
      body['data'] = Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, btoa(v)]));
    else body['spec'] = { replicas: 3, settings: payload, ports: [{ name: 'http', port: 8080 }] };
    return conn.client.patch(info, namespace, name, body, 'apply', { force: true });
  });
  conn.close();
}

async function pool(n: number, width: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < n; i = next++) await task(i);
    }),
  );
}

export default async function cacheBench(): Promise<BenchRow[]> {
  const { startEmbeddedCluster } = await import('../src/embedded/index.js');
  const dir = mkdtempSync(join(tmpdir(), 'gitops-cache-bench-'));
  const cluster = await startEmbeddedCluster();
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    const cacheDir = join(dir, 'discovery');
    await cluster.writeKubeconfig(kubeconfig);
    const seedStart = performance.now();
    await seed(kubeconfig, cacheDir);
    const seedMs = performance.now() - seedStart;
    const withTransform = await runChild(kubeconfig, cacheDir, 'transform');
    const raw = await runChild(kubeconfig, cacheDir, 'raw');
    const mb = (b: number): number => Math.round((b / 1024 / 1024) * 10) / 10;
    return [
      {
        name: `cache: time to synced (${OBJECTS} objects, ${KINDS} kinds, ${NAMESPACES} namespaces)`,
        value: Math.round(withTransform.syncMs),
        unit: 'ms',
        target: { value: 3000, better: 'lower' },
        note: `${withTransform.objects} objects cached; seeding took ${Math.round(seedMs)} ms`,
      },
      {
        name: 'cache: API requests to synced + watching',
        value: withTransform.requests,
        unit: 'requests',
        target: { value: KINDS * NAMESPACES + KINDS, better: 'lower' },
        note: `${withTransform.lists} lists, ${withTransform.watches} watches`,
      },
      {
        name: 'cache: retained heap with transform',
        value: mb(withTransform.heapBytes),
        unit: 'MB',
        target: { value: mb(raw.heapBytes / 2), better: 'lower' },
        note: 'target: half of without',
      },
      { name: 'cache: retained heap without transform', value: mb(raw.heapBytes), unit: 'MB' },
      { name: 'cache: time to synced without transform', value: Math.round(raw.syncMs), unit: 'ms' },
    ];
  } finally {
    await cluster.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.env['CACHE_BENCH_CHILD'] === '1') await child();
