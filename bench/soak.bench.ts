/**
 * Soak benchmark (issue 22: "memory stays bounded over days"): the continuous loop (src/controller/loop/loop.ts
 * `Loop`, the engine of `sync --watch` and `kubectl gitops controller`) over 1,000 Applications, automated
 * with prune and selfHeal (`autoSync: { mode: 'policy' }`), on the embedded API server, under a steady
 * stream of drift: a writer patches a random tracked object of a random app at a fixed rate (another field
 * manager, a field Git sets, a new value each time), and self-heal syncs it back.
 *
 * The embedded server runs in this process; the loop (and the writer) in a child process, so the child's
 * RSS and heap are the loop's alone. The child syncs every app once (auto-sync of the first revision: the
 * objects do not exist yet), then forces a GC and takes the start figures, writes drift for the soak's
 * minutes, stops the writer, lets the last heals finish (at most 120 s) and takes the end figures (after a
 * GC). Argo CD's defaults are kept: resync every 180 s + up to 60 s jitter (so each app is also fully
 * refreshed about once per 3-4 minutes), self-heal backoff 2 s x3 up to 300 s, 4 status and 2 operation
 * processors.
 *
 * Printed: RSS and heap used at start and end, growth per minute (end - start over the minutes, and the
 * least-squares slope of the heap after GC sampled each minute, which a one-off allocation does not bend),
 * loop events/s, refreshes/s and heals/s, drift-to-Synced-again latency p50/p99 (from the drift write to
 * the first `refreshed` event of the app showing Synced after a heal of it ended after the write), API
 * requests per heal (every request the loop made in the soak's minutes, the writer's excluded, over the
 * heals), and drift writes never healed.
 *
 * Options (after the bench name: `npm run bench -- soak --soak-minutes=30`):
 *   --soak-minutes=N  soak length (default 3; the long run: 60 or more, e.g. `--soak-minutes=240`)
 *   --soak-apps=N     Applications (default 1000; 5 objects each: 3 ConfigMaps, a Service, a Deployment)
 *   --soak-rate=N     drift writes per second (default 5)
 *   --soak-commits=N  commits per minute to the apps' repository (default 0): each changes one app's
 *                     ConfigMap, and every app of the repository gets a level-3 refresh (what the Git poller
 *                     asks); the end figures then include the checkouts left on disk
 *   --soak-snapshots=DIR  write V8 heap snapshots after minute 1 and at the end (for a heap comparison in
 *                     Chrome DevTools: "Comparison" view of end against minute 1)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execFileSync } from 'node:child_process';
import { writeHeapSnapshot } from 'node:v8';
import { parse } from 'yaml';
import type { BenchRow } from './util.js';
import { benchServer } from './server.js';
import { writeAppRepo } from './fixtures.js';
import { median } from './util.js';
import { parseApplication } from '../src/apps/index.js';
import type { Application } from '../src/apps/index.js';
import { connect } from '../src/cluster/index.js';
import type { KubeObject } from '../src/cluster/index.js';
import { Loop, syncRequestOf } from '../src/controller/index.js';
import type { LoopEvent } from '../src/controller/index.js';
import { createSourceService } from '../src/source/index.js';
import { runOperation } from '../src/sync/index.js';

/** The loop's own events about an app (counted as events/s); the sync engine's per-task events are not. */
const LOOP_OWN = new Set<string>([
  'app-added',
  'app-removed',
  'refreshed',
  'drift',
  'auto-sync-skipped',
  'app-operation-start',
  'app-operation-done',
]);

const NAMESPACES = 20;
const DRAIN_MS = 120_000;

interface SoakOptions {
  minutes: number;
  apps: number;
  rate: number;
  snapshots?: string;
  commits: number;
}

function option(name: string): string | undefined {
  const argv = process.argv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === `--${name}`) return argv[i + 1];
    if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
  }
  return undefined;
}

function soakOptions(): SoakOptions {
  const num = (name: string, dflt: number): number => {
    const v = option(name);
    const n = v === undefined ? dflt : Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`soak bench: --${name}: not a positive number: ${v}`);
    return n;
  };
  const snapshots = option('soak-snapshots');
  return {
    minutes: num('soak-minutes', 3),
    apps: Math.round(num('soak-apps', 1000)),
    rate: num('soak-rate', 5),
    commits: option('soak-commits') === undefined ? 0 : num('soak-commits', 0),
    ...(snapshots ? { snapshots } : {}),
  };
}

/** App `i`'s manifests as Git holds them (no namespace: the destination sets it). */
function manifests(i: number): string {
  const docs: string[] = [];
  for (let c = 0; c < 3; c++) {
    docs.push(
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-${i}-cm-${c}\ndata:\n  key: value-${i}-${c}\n  mode: prod\n`,
    );
  }
  docs.push(`apiVersion: v1
kind: Service
metadata:
  name: app-${i}-web
spec:
  selector: {app: app-${i}}
  ports: [{port: 80, targetPort: 8080, protocol: TCP}]
`);
  docs.push(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-${i}-web
spec:
  replicas: 2
  selector:
    matchLabels: {app: app-${i}}
  template:
    metadata:
      labels: {app: app-${i}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        resources: {limits: {cpu: 500m, memory: 256Mi}}
`);
  return docs.join('---\n');
}

/** The apps' namespaces: the bench's own on a real server (bench/server.ts); the child reads the parent's. */
const NS_PREFIX = process.env['SOAK_BENCH_NS_PREFIX'] ?? 'ns-';
const namespaceOf = (i: number): string => `${NS_PREFIX}${i % NAMESPACES}`;

function appOf(i: number, repoURL: string): Application {
  const manifest = parse(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: app-${i}, namespace: argocd}
spec:
  project: default
  source: {repoURL: ${repoURL}, path: apps/app-${i}, targetRevision: main}
  destination: {server: https://kubernetes.default.svc, namespace: ${namespaceOf(i)}}
  syncPolicy:
    automated: {prune: true, selfHeal: true}
`) as KubeObject;
  return parseApplication(manifest, `soak app-${i}`);
}

/** One drift write: a field Git sets, by another field manager, a new value each time. */
function driftOf(
  i: number,
  pick: number,
  n: number,
): { kind: 'ConfigMap' | 'Service' | 'Deployment'; name: string; patch?: object } {
  if (pick === 5) return { kind: 'ConfigMap', name: `app-${i}-cm-${n % 3}` }; // deleted: healed by a create
  if (pick < 3)
    return { kind: 'ConfigMap', name: `app-${i}-cm-${pick}`, patch: { data: { mode: `drift-${n}` } } };
  if (pick === 3)
    return {
      kind: 'Service',
      name: `app-${i}-web`,
      patch: { spec: { ports: [{ port: 80, targetPort: 9000 + (n % 1000), protocol: 'TCP' }] } },
    };
  return { kind: 'Deployment', name: `app-${i}-web`, patch: { spec: { replicas: 3 + (n % 5) } } };
}

interface Sample {
  minute: number;
  rssMb: number;
  heapMb: number;
  /** Memory of C++ objects bound to JS ones (Buffers included): where RSS grows when the heap does not. */
  externalMb: number;
}

interface ChildResult {
  initialSyncMs: number;
  start: Sample;
  end: Sample;
  samples: Sample[];
  soakMs: number;
  events: number;
  refreshes: number;
  /** Automated operations (self-heals, and auto-syncs to a new commit's revision). */
  heals: number;
  selfHeals: number;
  failedHeals: number;
  writes: number;
  /** Of the writes, the patches (the others are deletes). */
  patches: number;
  writeErrors: number;
  latenciesMs: number[];
  /** Those whose heal no self-heal backoff held back. */
  undelayedMs: number[];
  unhealed: number;
  /** Of those, the ones a self-heal backoff holds back (attempts 5 on wait 162 s and more). */
  unhealedHeldBack: number;
  commits: number;
  /** Git checkouts left on disk at the end. */
  checkouts: number;
  maxRssMb: number;
}

const mb = (n: number): number => Math.round((n / 1024 / 1024) * 10) / 10;

function sample(minute: number): Sample {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { minute, rssMb: mb(m.rss), heapMb: mb(m.heapUsed), externalMb: mb(m.external) };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function child(): Promise<void> {
  const [kubeconfig, cacheRoot, repoURL] = process.argv.slice(2) as [string, string, string];
  const o = JSON.parse(process.env['SOAK_BENCH_CHILD']!) as SoakOptions;
  const say = (line: object): void => void process.stdout.write(`${JSON.stringify(line)}\n`);
  const apps = Array.from({ length: o.apps }, (_, i) => appOf(i, repoURL));
  const source = createSourceService({ cacheRoot });

  // Per app: when the first unhealed drift write was sent, and whether a heal of it has ended since.
  const pending = new Map<string, { at: number; healed: boolean; delayed: boolean }>();
  const synced = new Set<string>();
  let steady = false;
  let events = 0;
  let refreshes = 0;
  let heals = 0;
  let failedHeals = 0;
  let selfHeals = 0;
  const latencies: number[] = [];
  const undelayed: number[] = [];
  let allSynced: () => void = () => {};
  const initial = new Promise<void>((r) => (allSynced = r));
  const onEvent = (e: LoopEvent): void => {
    if (!LOOP_OWN.has(e.type)) return; // the sync engine's own events (per resource, per phase) and the like
    if (steady) events++;
    if (e.type === 'refreshed') {
      if (steady) refreshes++;
      if (e.sync !== 'Synced') return;
      if (!steady) {
        if (e.reason === 'operation-done') synced.add(e.key);
        if (synced.size === o.apps) allSynced();
        return;
      }
      const p = pending.get(e.key);
      if (p?.healed) {
        latencies.push(performance.now() - p.at);
        if (!p.delayed) undelayed.push(performance.now() - p.at);
        pending.delete(e.key);
      }
    } else if (e.type === 'auto-sync-skipped' && steady) {
      const p = pending.get(e.key);
      if (p && /self-heal retrying/.test(e.reason)) p.delayed = true;
    } else if (e.type === 'app-operation-done' && steady) {
      // A heal: a self-heal, or (after a commit moved the revision) an auto-sync of the drifted app, as
      // Argo CD's alreadyAttemptedSync compares revisions.
      if (e.request.initiatedBy.automated) {
        heals++;
        if (e.request.selfHeal) selfHeals++;
        if (e.phase !== 'Succeeded') failedHeals++;
      }
      const p = pending.get(e.key);
      if (p && e.phase === 'Succeeded') p.healed = true;
    }
  };
  const loop = new Loop({
    apps,
    source,
    kubeconfig,
    discovery: { cacheDir: join(cacheRoot, 'discovery') },
    autoSync: { mode: 'policy' },
    onWarning: (m) => process.stderr.write(`soak: warning: ${m}\n`),
    operation: (app, reconciliation, request, signal) =>
      runOperation(
        { name: app.name, syncOptions: app.syncPolicy.options },
        reconciliation,
        syncRequestOf(request),
        signal,
      ),
    onEvent,
  });
  const t0 = performance.now();
  const done = loop.run();
  await Promise.race([
    initial,
    done.then(() => Promise.reject(new Error('the loop ended during the first sync'))),
  ]);
  const initialSyncMs = performance.now() - t0;
  const start = sample(0);
  say({ phase: 'steady' });
  steady = true;

  // The writer: its own connection, as another tool editing objects by hand.
  const writer = await connect({
    kubeconfig,
    discovery: { cacheDir: join(cacheRoot, 'writer-discovery') },
    client: { fieldManager: 'kubectl-edit' },
  });
  const infos = {
    ConfigMap: await writer.discovery.resolveApiVersionKind('v1', 'ConfigMap'),
    Service: await writer.discovery.resolveApiVersionKind('v1', 'Service'),
    Deployment: await writer.discovery.resolveApiVersionKind('apps/v1', 'Deployment'),
  };
  let writes = 0;
  let patches = 0;
  let writeErrors = 0;
  const inFlight = new Set<Promise<unknown>>();
  const write = (): void => {
    const i = Math.floor(Math.random() * o.apps);
    const d = driftOf(i, Math.floor(Math.random() * 6), writes);
    const key = `argocd/app-${i}`;
    const at = performance.now();
    writes++;
    if (d.patch) patches++;
    const p = (
      d.patch
        ? writer.client.patch(infos[d.kind], namespaceOf(i), d.name, d.patch, 'merge')
        : writer.client.delete(infos[d.kind], namespaceOf(i), d.name)
    )
      .then(
        () => {
          if (!pending.has(key)) pending.set(key, { at, healed: false, delayed: false });
        },
        () => writeErrors++,
      )
      .finally(() => inFlight.delete(p));
    inFlight.add(p);
  };
  const soakMs = o.minutes * 60_000;
  const samples: Sample[] = [start];
  const begin = performance.now();
  // Catches up on a late tick (a busy event loop), so the rate is the one asked for.
  const ticker = setInterval(() => {
    const due = Math.floor(((performance.now() - begin) / 1000) * o.rate);
    while (writes < due) write();
  }, 50);
  // Commits: one app's manifests change; every app of the repository is refreshed (as the Git poller does).
  let commits = 0;
  const repoDir = fileURLToPath(repoURL);
  const committer = o.commits
    ? setInterval(() => {
        const i = commits++ % o.apps;
        writeFileSync(
          join(repoDir, 'apps', `app-${i}`, 'all.yaml'),
          manifests(i).replace(`key: value-${i}-0`, `key: commit-${commits}`),
        );
        execFileSync(
          'git',
          ['-c', 'user.name=soak', '-c', 'user.email=soak@example.com', 'commit', '-qam', `soak ${commits}`],
          {
            cwd: repoDir,
          },
        );
        for (const key of loop.appsOfRepo(repoURL)) loop.requestRefresh(key, 3, 'git');
      }, 60_000 / o.commits)
    : undefined;
  for (let m = 1; m <= Math.ceil(o.minutes); m++) {
    await sleep(Math.min(m * 60_000, soakMs) - (performance.now() - begin));
    samples.push(sample(Math.min(m, o.minutes)));
    process.stderr.write(
      `soak: minute ${m}: rss ${samples.at(-1)!.rssMb} MB, heap ${samples.at(-1)!.heapMb} MB, external ${samples.at(-1)!.externalMb} MB, ${heals} heals, ${pending.size} drifted apps pending\n`,
    );
    if (m === 1 && o.snapshots) writeHeapSnapshot(join(o.snapshots, 'soak-minute-1.heapsnapshot'));
  }
  clearInterval(ticker);
  clearInterval(committer);
  const elapsed = performance.now() - begin;
  await Promise.allSettled([...inFlight]);
  const drainUntil = performance.now() + DRAIN_MS;
  while (pending.size > 0 && performance.now() < drainUntil) await sleep(250);
  const end = sample(o.minutes);
  // Git checkouts on disk now (the source service's work directory: kubectl-gitops-<pid>-*).
  let checkouts = 0;
  for (const d of readdirSync(tmpdir()).filter((n) => n.startsWith(`kubectl-gitops-${process.pid}-`)))
    for (const r of readdirSync(join(tmpdir(), d), { withFileTypes: true }))
      if (r.isDirectory())
        checkouts += readdirSync(join(tmpdir(), d, r.name)).filter((n) => !n.endsWith('.index')).length;
  if (o.snapshots) writeHeapSnapshot(join(o.snapshots, `soak-minute-${o.minutes}.heapsnapshot`));
  steady = false;
  writer.close();
  say({ phase: 'end' });
  await loop.shutdown(10_000);
  await done;
  await source.close();
  const result: ChildResult = {
    initialSyncMs,
    start,
    end,
    samples,
    soakMs: elapsed,
    events,
    refreshes,
    heals,
    selfHeals,
    failedHeals,
    writes,
    patches,
    writeErrors,
    latenciesMs: latencies,
    undelayedMs: undelayed,
    unhealed: pending.size,
    unhealedHeldBack: [...pending.values()].filter((p) => p.delayed).length,
    commits,
    checkouts,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
  say({ phase: 'result', result });
}

/** Runs the child; `onPhase` is called on its 'steady' and 'end' lines. */
function runChild(args: string[], o: SoakOptions, onPhase: (phase: string) => void): Promise<ChildResult> {
  const self = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', self, ...args], {
      env: { ...process.env, SOAK_BENCH_CHILD: JSON.stringify(o) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let result: ChildResult | undefined;
    createInterface({ input: p.stdout }).on('line', (line) => {
      const msg = JSON.parse(line) as { phase: string; result?: ChildResult };
      if (msg.result) result = msg.result;
      else onPhase(msg.phase);
    });
    p.on('error', reject);
    p.on('close', (code) =>
      code === 0 && result ? resolve(result) : reject(new Error(`soak bench child exited ${code}`)),
    );
  });
}

async function seed(kubeconfig: string, dir: string, apps: number): Promise<string> {
  const repo = join(dir, 'repo');
  writeAppRepo(repo, apps, manifests, 'soak');
  const conn = await connect({ kubeconfig, discovery: { cacheDir: join(dir, 'seed-discovery') } });
  const nsInfo = await conn.discovery.resolve({ group: '', kind: 'Namespace' });
  for (let i = 0; i < NAMESPACES; i++)
    await conn.client.create(nsInfo, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: `${NS_PREFIX}${i}` },
    });
  conn.close();
  return pathToFileURL(repo).href;
}

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return num / den;
}

export default async function soakBench(): Promise<BenchRow[]> {
  const o = soakOptions();
  if (o.snapshots) mkdirSync(o.snapshots, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'gitops-soak-bench-'));
  const cluster = await benchServer();
  process.stderr.write(`soak: against the ${cluster.label}\n`);
  if (cluster.real) process.env['SOAK_BENCH_NS_PREFIX'] = 'kg-soak-bench-';
  const nsPrefix = process.env['SOAK_BENCH_NS_PREFIX'] ?? 'ns-';
  await cluster.cleanup(nsPrefix);
  try {
    const kubeconfig = join(dir, 'kubeconfig');
    await cluster.writeKubeconfig(kubeconfig);
    const repoURL = await seed(kubeconfig, dir, o.apps);
    const marks: Record<string, { total: number; byVerb: Record<string, number> }> = {};
    const r = await runChild([kubeconfig, join(dir, 'cache'), repoURL], o, (phase) => {
      const s = cluster.requests();
      const byVerb: Record<string, number> = {};
      for (const [k, n] of Object.entries(s.byVerbResource)) {
        const verb = k.split(' ')[0]!;
        byVerb[verb] = (byVerb[verb] ?? 0) + n;
      }
      marks[phase] = { total: s.total, byVerb };
    });
    const before = marks['steady']!;
    const after = marks['end']!;
    // The writer's own requests: its PATCHes (and its discovery, a handful): left out of the loop's.
    // (A delete of an object already deleted and not yet healed is refused: 404, still a request.)
    const loopRequests = after.total - before.total - r.writes;
    const verbs = Object.keys(after.byVerb)
      .map(
        (v) =>
          [
            v,
            (after.byVerb[v] ?? 0) -
              (before.byVerb[v] ?? 0) -
              (v === 'patch' ? r.patches : v === 'delete' ? r.writes - r.patches : 0),
          ] as const,
      )
      .filter(([, n]) => n > 0)
      .map(([v, n]) => `${v} ${n}`)
      .join(', ');
    const secs = r.soakMs / 1000;
    const sorted = [...r.latenciesMs].sort((a, b) => a - b);
    const direct = [...r.undelayedMs].sort((a, b) => a - b);
    const heapSlope = slope(r.samples.slice(1).map((s) => [s.minute, s.heapMb]));
    const rssSlope = slope(r.samples.slice(1).map((s) => [s.minute, s.rssMb]));
    const label = `soak ${o.apps} apps, ${o.rate} drift writes/s, ${o.minutes} min`;
    return [
      {
        name: `${label}: first full sync`,
        value: Math.round(r.initialSyncMs / 1000),
        unit: 's',
        note: `${o.apps * 5} objects created by auto-sync`,
      },
      { name: `${label}: RSS at start`, value: r.start.rssMb, unit: 'MB' },
      {
        name: `${label}: RSS at end`,
        value: r.end.rssMb,
        unit: 'MB',
        note: `peak ${Math.round(r.maxRssMb)} MB`,
      },
      { name: `${label}: heap used at start (after GC)`, value: r.start.heapMb, unit: 'MB' },
      { name: `${label}: heap used at end (after GC)`, value: r.end.heapMb, unit: 'MB' },
      {
        name: `${label}: heap growth per minute`,
        value: Math.round(((r.end.heapMb - r.start.heapMb) / o.minutes) * 100) / 100,
        unit: 'MB/min',
        note: `least-squares slope of minutes 1-${o.minutes}: ${heapSlope.toFixed(2)} MB/min; samples ${r.samples.map((s) => s.heapMb).join(', ')}`,
      },
      {
        name: `${label}: RSS growth per minute`,
        value: Math.round(((r.end.rssMb - r.start.rssMb) / o.minutes) * 100) / 100,
        unit: 'MB/min',
        note: `slope of minutes 1-${o.minutes}: ${rssSlope.toFixed(2)} MB/min; samples ${r.samples.map((s) => s.rssMb).join(', ')}; external ${r.start.externalMb} -> ${r.end.externalMb} MB`,
      },
      {
        name: `${label}: loop events handled`,
        value: Math.round((r.events / secs) * 10) / 10,
        unit: 'events/s',
        note: `${(r.refreshes / secs).toFixed(1)} refreshes/s, ${(r.heals / secs).toFixed(2)} heals/s (${r.heals} heals: ${r.selfHeals} self-heals, ${r.heals - r.selfHeals} auto-syncs; ${r.failedHeals} failed), ${r.writes} drift writes (${r.writeErrors} refused)`,
      },
      {
        name: `${label}: drift to Synced again, p50`,
        value: Math.round(percentile(sorted, 50)),
        unit: 'ms',
        note: `${sorted.length} drifts healed; median ${Math.round(median(sorted))} ms`,
      },
      {
        name: `${label}: drift to Synced again, p99`,
        value: Math.round(percentile(sorted, 99)),
        unit: 'ms',
        note: `max ${Math.round(sorted.at(-1) ?? NaN)} ms (self-heal backoff included: an app drifted again within its backoff waits for it)`,
      },
      {
        name: `${label}: drift to Synced again, no backoff, p50 / p99`,
        value: Math.round(percentile(direct, 50)),
        unit: 'ms',
        note: `p99 ${Math.round(percentile(direct, 99))} ms over the ${direct.length} heals no self-heal backoff held back`,
      },
      {
        name: `${label}: API requests per heal`,
        value: Math.round((loopRequests / Math.max(1, r.heals)) * 10) / 10,
        unit: 'requests',
        note: `${loopRequests} requests of the loop in the soak (${verbs})`,
      },
      ...(o.commits
        ? [
            {
              name: `${label}: Git checkouts on disk at the end`,
              value: r.checkouts,
              unit: 'trees',
              note: `${r.commits} commits (${o.commits}/min), each refreshing every app`,
            },
          ]
        : []),
      {
        name: `${label}: drifted apps not healed at the end`,
        value: r.unhealed - r.unhealedHeldBack,
        unit: 'apps',
        note: `after ${DRAIN_MS / 1000} s without drift; ${r.unhealedHeldBack} more waiting for their self-heal backoff`,
        target: { value: 0, better: 'lower' },
      },
    ];
  } finally {
    await cluster.cleanup(nsPrefix);
    await cluster.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.env['SOAK_BENCH_CHILD']) await child();
