/**
 * The API server a benchmark runs against (issue 31): the real kube-apiserver of a conformance rig when one is
 * up, our embedded server otherwise. Headline figures come from the real server only (docs/benchmarks.md).
 *
 * The switch: `BENCH_SERVER=real` or `embedded` forces one (real with no rig up is an error); unset, the
 * real server is used when `$CONFORMANCE_WORK/rig.json` (default `conformance/.work/rig.json` of this
 * checkout, as `npm run conformance -- up` writes it) exists. Start one for benchmarks with
 * `npm run conformance -- up --kube-only --no-audit` (no Argo CD, no audit log: what a user's cluster costs).
 *
 * On the real server everything a bench creates lives in namespaces it names with its own prefix
 * (`namespaces(prefix)`), deleted by `cleanup` (waiting until they are gone, so the next size's lists hold
 * no objects of the last), so benches can share a rig with other work. API requests are counted from the
 * server's `apiserver_request_total` (every client's: the rig's controllers add a few; Lease renewals are left
 * out); a watch is counted when it ends. On the embedded server they are its own counters.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../test/support/paths.js';
import type { EmbeddedCluster } from '../src/embedded/index.js';

export interface RequestSnapshot {
  total: number;
  /** "verb resource" -> count, e.g. "create configmaps". */
  byVerbResource: Record<string, number>;
}

export interface BenchServer {
  real: boolean;
  /** What runs, for the bench's first line, e.g. "real kube-apiserver v1.34.4 (rig /tmp/x/rig.json)". */
  label: string;
  writeKubeconfig(path: string): Promise<void>;
  /** API requests the server has answered so far. */
  requests(): RequestSnapshot;
  /** Deletes the namespaces named `<prefix>*` and waits until they are gone (real server); nothing on the embedded one. */
  cleanup(prefix: string): Promise<void>;
  close(): Promise<void>;
  /** The embedded server, when that is what runs. */
  embedded?: EmbeddedCluster;
}

interface RigJson {
  kubeOnly?: boolean;
  kubeconfig: string;
  server: string;
  auditLog?: string;
  versions: { kubernetes: string };
}

/** The rig.json the switch reads (see the header), or undefined. */
export function rigJsonPath(): string | undefined {
  const forced = process.env['BENCH_SERVER'];
  if (forced === 'embedded') return undefined;
  if (forced !== undefined && forced !== 'real')
    throw new Error(`BENCH_SERVER=${forced}: failed to choose a server: use "real" or "embedded"`);
  const work = process.env['CONFORMANCE_WORK'] ?? join(repoRoot, 'conformance', '.work');
  const path = join(work, 'rig.json');
  if (existsSync(path)) return path;
  if (forced === 'real')
    throw new Error(
      `${path}: failed to read the rig: BENCH_SERVER=real needs a rig (npm run conformance -- up --kube-only --no-audit)`,
    );
  return undefined;
}

function kubectl(kubeconfig: string, args: string[]): string {
  const r = spawnSync('kubectl', ['--kubeconfig', kubeconfig, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: failed: ${r.stderr.trim().slice(0, 500)}`);
  return r.stdout;
}

/** Sums `apiserver_request_total` by verb and resource (Leases left out). */
export function parseRequestMetrics(text: string): RequestSnapshot {
  const byVerbResource: Record<string, number> = {};
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const labels = line.slice(line.indexOf('{') + 1, line.lastIndexOf('}'));
    const value = Number(line.slice(line.lastIndexOf('}') + 1).trim());
    const get = (k: string): string => new RegExp(`(?:^|,)${k}="([^"]*)"`).exec(labels)?.[1] ?? '';
    const resource = get('resource');
    if (resource === 'leases') continue;
    const key = `${get('verb').toLowerCase()} ${resource}`;
    byVerbResource[key] = (byVerbResource[key] ?? 0) + value;
    total += value;
  }
  return { total, byVerbResource };
}

/** Requests between two snapshots. */
export function requestsBetween(a: RequestSnapshot, b: RequestSnapshot): RequestSnapshot {
  const byVerbResource: Record<string, number> = {};
  for (const [k, v] of Object.entries(b.byVerbResource)) {
    const d = v - (a.byVerbResource[k] ?? 0);
    if (d) byVerbResource[k] = d;
  }
  return { total: b.total - a.total, byVerbResource };
}

/** Write requests (create, update, patch, delete) in a snapshot, dry runs included. */
export function writeRequests(s: RequestSnapshot): number {
  let n = 0;
  for (const [k, v] of Object.entries(s.byVerbResource))
    if (/^(create|post|update|put|patch|apply|delete|deletecollection) /.test(k)) n += v;
  return n;
}

export async function benchServer(): Promise<BenchServer> {
  const rigPath = rigJsonPath();
  if (!rigPath) {
    const { startEmbeddedCluster } = await import('../src/embedded/index.js');
    const cluster = await startEmbeddedCluster({ namespaces: ['default', 'argocd'] });
    return {
      real: false,
      label: 'embedded API server (no rig up: figures are not headline figures)',
      writeKubeconfig: (path) => cluster.writeKubeconfig(path),
      requests: () => {
        const s = cluster.stats.snapshot();
        return { total: s.total, byVerbResource: { ...s.byVerbResource } };
      },
      cleanup: async () => {},
      close: () => cluster.close(),
      embedded: cluster,
    };
  }
  const rig = JSON.parse(readFileSync(rigPath, 'utf8')) as RigJson;
  kubectl(rig.kubeconfig, ['get', '--raw', '/readyz']);
  // The corpus's Applications say `namespace: argocd`; a kube-only rig has no such namespace.
  spawnSync('kubectl', ['--kubeconfig', rig.kubeconfig, 'create', 'namespace', 'argocd'], {
    stdio: 'ignore',
  });
  return {
    real: true,
    label:
      `real kube-apiserver ${rig.versions.kubernetes} at ${rig.server} (rig ${rigPath}` +
      `${rig.kubeOnly ? ', kube-only' : ', with Argo CD'}${rig.auditLog ? ', audit log ON' : ', no audit log'})`,
    writeKubeconfig: async (path) => copyFileSync(rig.kubeconfig, path),
    requests: () => parseRequestMetrics(kubectl(rig.kubeconfig, ['get', '--raw', '/metrics'])),
    cleanup: async (prefix) => {
      const names = kubectl(rig.kubeconfig, ['get', 'namespaces', '-o', 'name'])
        .split('\n')
        .map((l) => l.replace(/^namespace\//, ''))
        .filter((n) => n.startsWith(prefix));
      if (names.length === 0) return;
      kubectl(rig.kubeconfig, ['delete', 'namespace', '--wait=false', ...names]);
      // The namespace controller deletes the objects; 30,000 of them take a while on 2 cores.
      const deadline = Date.now() + 15 * 60_000;
      for (;;) {
        const left = kubectl(rig.kubeconfig, ['get', 'namespaces', '-o', 'name'])
          .split('\n')
          .filter((l) => l.startsWith(`namespace/${prefix}`));
        if (left.length === 0) return;
        if (Date.now() > deadline)
          throw new Error(`namespaces ${left.join(', ')}: failed to delete within 15 minutes`);
        await new Promise((r) => setTimeout(r, 2000));
      }
    },
    close: async () => {},
  };
}
