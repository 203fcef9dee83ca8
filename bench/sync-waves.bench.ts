/**
 * Sync of an unchanged multi-wave app (issue 21): the app of a typical migration setup, a PreSync hook Job,
 * ConfigMaps and a Deployment in waves -1, 0 and 1, a PostSync hook Job, synced once, then synced again with
 * nothing changed in Git or on the cluster. The embedded server runs the workload simulation (Jobs complete,
 * the Deployment becomes available) and nothing else writes: a quiet cluster, where a sync that waits for
 * an event a no-op step does not produce would never end. The re-sync runs with no timeout.
 * Figures: the re-sync's wall time (target under 1 s; its hooks run again, as in Argo CD: each is deleted
 * (BeforeHookCreation, the default) and created, and waits for its Job to complete), and its write requests
 * as the server counted them, split into hooks (Jobs) and everything else (target: zero).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchRow } from './util.js';
import { parseApplication } from '../src/apps/index.js';
import { Run } from '../src/controller/index.js';
import { startEmbeddedCluster } from '../src/embedded/index.js';
import type { EmbeddedCluster } from '../src/embedded/index.js';
import { createSourceService } from '../src/source/index.js';
import { defaultSyncOperation } from './sync-operation.js';

const WRITES = /^(create|update|patch|delete) /;

const job = (name: string, hook: string): string => `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  annotations:
    argocd.argoproj.io/hook: ${hook}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
`;
const configMap = (name: string, wave: number): string => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  annotations:
    argocd.argoproj.io/sync-wave: "${wave}"
data:
  key: ${name}
`;
const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    argocd.argoproj.io/sync-wave: "0"
spec:
  replicas: 2
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
      - name: web
        image: nginx
`;

/** Write requests the server counted since its last reset: [hooks (Jobs), everything else]. */
function writes(cluster: EmbeddedCluster): { hooks: number; other: number } {
  let hooks = 0;
  let other = 0;
  for (const [k, n] of Object.entries(cluster.stats.snapshot().byVerbResource)) {
    if (!WRITES.test(k)) continue;
    if (k.endsWith(' jobs.batch')) hooks += n;
    else other += n;
  }
  return { hooks, other };
}

export default async function bench(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'kg-sync-waves-bench-'));
  const repo = join(dir, 'repo');
  mkdirSync(join(repo, 'app'), { recursive: true });
  writeFileSync(
    join(repo, 'app', 'all.yaml'),
    [
      job('migrate', 'PreSync'),
      configMap('early', -1),
      configMap('middle', 0),
      deployment,
      configMap('late', 1),
      job('smoke', 'PostSync'),
    ].join('---\n'),
  );
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], {
      cwd: repo,
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'bench');
  const app = parseApplication(
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'waves', namespace: 'argocd' },
      spec: {
        project: 'default',
        source: { repoURL: pathToFileURL(repo).href, path: 'app', targetRevision: 'HEAD' },
        destination: { server: 'https://kubernetes.default.svc', namespace: 'waves' },
        syncPolicy: { syncOptions: ['CreateNamespace=true'] },
      },
    },
    'bench waves',
  );
  const cluster = await startEmbeddedCluster({ simulateWorkloads: true });
  const kubeconfig = join(dir, 'kubeconfig');
  await cluster.writeKubeconfig(kubeconfig);
  const cacheRoot = join(dir, 'cache');
  const once = async () => {
    const source = createSourceService({ cacheRoot });
    cluster.stats.reset();
    const t0 = performance.now();
    const report = await new Run({
      apps: [app],
      source,
      kubeconfig,
      diffText: false,
      discovery: { cacheDir: join(cacheRoot, 'discovery') },
      operation: defaultSyncOperation,
    }).run();
    const ms = performance.now() - t0;
    await source.close();
    const r = report.apps[0];
    return { ms, writes: writes(cluster), phase: r?.error ? 'error' : (r?.operation?.phase ?? 'none') };
  };
  try {
    const first = await once();
    const again = await once();
    return [
      {
        name: 'multi-wave app, first sync',
        value: Math.round(first.ms),
        unit: 'ms',
        note: `${first.phase}; ${first.writes.hooks + first.writes.other} write requests (dry runs included)`,
      },
      {
        name: 'multi-wave app, unchanged re-sync: wall time',
        value: Math.round(again.ms),
        unit: 'ms',
        target: { value: 1000, better: 'lower' },
        note: `${again.phase}; hooks run again`,
      },
      {
        name: 'multi-wave app, unchanged re-sync: writes besides hooks',
        value: again.writes.other,
        unit: 'requests',
        target: { value: 0, better: 'lower' },
        note: `${again.writes.hooks} hook (Job) write requests, dry runs included`,
      },
    ];
  } finally {
    await cluster.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
