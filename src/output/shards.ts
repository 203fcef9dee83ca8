/**
 * Printers for `kubectl gitops shards`: the human table and the stable JSON/YAML document.
 * The JSON shape is documented in docs/usage/shards.md ("shards -o json"); change it only compatibly.
 */
import type { Algorithm, AlgorithmSummary, ClusterRow, ShardsReport } from '../sharding/index.js';
import { renderStructured, type StructuredFormat } from './structured.js';
import { renderTable } from './table.js';

function fmtPercent(v: number | null): string {
  return v === null ? 'n/a' : `${Math.round(v)}%`;
}

function fmtRatio(v: number | null): string {
  return v === null ? 'n/a' : `${v.toFixed(2)}x`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function algorithmLabel(report: ShardsReport, a: Algorithm): string {
  const tags: string[] = [];
  if (a === report.defaultAlgorithm) tags.push('default');
  if (report.installed?.algorithm !== undefined && installedAlgorithm(report) === a) tags.push('installed');
  return tags.length ? `${a} (${tags.join(', ')})` : a;
}

/** The algorithm the installed controller runs: unknown or unset names mean legacy, as in Argo CD. */
function installedAlgorithm(report: ShardsReport): Algorithm | undefined {
  if (!report.installed || !report.installed.workload) return undefined;
  const name = report.installed.algorithm;
  return name === 'round-robin' || name === 'consistent-hashing' ? name : 'legacy';
}

function shardCell(c: ClusterRow, a: Algorithm): string {
  const shard = c.shards[a]!;
  if (shard < 0) return `none (${shard})`;
  if (c.skipReconcile) return `none (${shard})`;
  return String(shard) + (c.manualShard !== null ? '*' : '');
}

function clusterNote(c: ClusterRow, replicas: number): string {
  const notes: string[] = [];
  if (c.manualShard !== null) {
    if (c.manualShard < 0) notes.push(`manual shard ${c.manualShard}: no controller manages this cluster`);
    else if (c.manualShard >= replicas)
      notes.push(`manual shard ${c.manualShard} >= replicas: Argo CD uses shard 0`);
    else notes.push(`manual shard ${c.manualShard}`);
  }
  if (c.skipReconcile) notes.push('skip-reconcile: no controller manages this cluster');
  // Argo CD keeps a cluster Secret with no server (docs/clusters.md "Malformed cluster Secrets").
  if (c.server === '') notes.push('no server: counted, but no app can reach it');
  return notes.join('; ');
}

function summaryTable(s: AlgorithmSummary): string {
  const rows = s.shards.map((t) => [
    String(t.shard),
    String(t.clusters),
    String(t.apps),
    fmtPercent(t.appsPercentOfAverage),
    fmtPercent(t.clustersPercentOfAverage),
  ]);
  if (s.unmanaged.clusters > 0)
    rows.push(['none', String(s.unmanaged.clusters), String(s.unmanaged.apps), '-', '-']);
  return renderTable(['SHARD', 'CLUSTERS', 'APPS', '% OF AVG APPS', '% OF AVG CLUSTERS'], rows, {
    indent: 2,
  });
}

export function renderShardsTable(report: ShardsReport): string {
  const out: string[] = [];
  const src = report.source;
  const where =
    src.mode === 'live' ? `context ${src.context}, namespace ${src.namespace}` : src.clustersFiles.join(', ');
  out.push(`Replicas: ${report.replicas}    Clusters: ${report.clusters.length} (${where})`);
  const apps = report.applications;
  out.push(
    apps.source === 'none'
      ? 'Apps: none given (consistent-hashing balances Application counts; pass --apps-file)'
      : `Apps: ${apps.total} from ${apps.source}` +
          (apps.withoutServer
            ? ` (${apps.withoutServer} name their destination by name and count for no cluster)`
            : ''),
  );
  if (report.idFrom !== 'uid' || report.substitutedIds > 0) {
    out.push(
      `IDs: metadata.uid; ${plural(report.substitutedIds, 'cluster')} without a UID use their ${report.idFrom === 'uid' ? 'server' : report.idFrom} ` +
        `(--id-from ${report.idFrom}): Argo CD hashes the UID, so their shards are estimates`,
    );
  }
  if (report.installed) {
    const i = report.installed;
    out.push(
      i.workload
        ? `Installed controller: ${i.workload}, algorithm ${i.algorithm ?? 'not set (legacy)'}, ` +
            `${i.replicas ?? '?'} replicas${i.dynamic ? ' (dynamic cluster distribution)' : ''}`
        : `Installed controller: not found; controller.sharding.algorithm is ${i.algorithm ?? 'not set (legacy)'}`,
    );
  }
  out.push('');
  const algorithms = report.algorithms;
  const header = [
    'NAME',
    'SERVER',
    'APPS',
    ...algorithms.map((a) => algorithmLabel(report, a).toUpperCase()),
    'NOTE',
  ];
  const rows = report.clusters.map((c) => [
    c.name || '-',
    c.server,
    String(c.apps),
    ...algorithms.map((a) => shardCell(c, a)),
    clusterNote(c, report.replicas),
  ]);
  out.push(renderTable(header, rows));
  if (report.clusters.some((c) => c.manualShard !== null)) out.push('* manual shard from the cluster Secret');
  for (const a of algorithms) {
    const s = report.summary[a]!;
    out.push('');
    out.push(
      `${algorithmLabel(report, a)}: imbalance (largest shard / average) apps ${fmtRatio(s.imbalance.apps)}, ` +
        `clusters ${fmtRatio(s.imbalance.clusters)}`,
    );
    out.push(summaryTable(s));
  }
  if (report.moves && report.fromReplicas !== undefined) {
    const totalApps = report.clusters.reduce((n, c) => n + c.apps, 0);
    out.push('');
    out.push(`Scaling from ${report.fromReplicas} to ${report.replicas} replicas:`);
    out.push(
      renderTable(
        ['ALGORITHM', 'CLUSTERS MOVED', 'APPS MOVED'],
        algorithms.map((a) => {
          const m = report.moves![a]!;
          return [
            algorithmLabel(report, a),
            `${m.clusters} of ${report.clusters.length}`,
            `${m.apps} of ${totalApps}`,
          ];
        }),
        { indent: 2 },
      ),
    );
    for (const a of algorithms) {
      const m = report.moves[a]!;
      if (m.moved.length === 0) continue;
      out.push('');
      out.push(`Moves under ${a}:`);
      out.push(
        renderTable(
          ['NAME', 'SERVER', 'APPS', 'FROM', 'TO'],
          m.moved.map((x) => [x.name || '-', x.server, String(x.apps), String(x.from), String(x.to)]),
          { indent: 2 },
        ),
      );
    }
  }
  if (report.claims) {
    const c = report.claims;
    out.push('');
    out.push(
      `Shard claims (argocd-app-controller-shard-cm; heartbeat every ${c.heartbeatSeconds}s, stale after ${c.timeoutSeconds}s):`,
    );
    out.push(
      renderTable(
        ['SHARD', 'CONTROLLER', 'HEARTBEAT', 'STATUS'],
        c.claims.map((x) => [
          String(x.shard),
          x.controller ?? '-',
          x.heartbeat ?? 'never',
          x.controller === null ? 'unclaimed' : x.stale ? 'STALE' : 'ok',
        ]),
        { indent: 2 },
      ),
    );
  }
  return `${out.join('\n')}\n`;
}

export function renderShards(report: ShardsReport, format: 'table' | StructuredFormat): string {
  return format === 'table' ? renderShardsTable(report) : renderStructured(report, format);
}
