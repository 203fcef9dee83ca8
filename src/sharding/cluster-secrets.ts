/**
 * Argo CD cluster Secrets -> the cluster list the sharding cache sees (spec 1.1), and every Secret Argo CD's
 * cluster informer holds as a cluster (for destination lookups). Malformed Secrets are handled as Argo CD
 * 3.x handles them (util/settings/cluster_informer.go `secretToCluster` and `ListAvailableClusters`,
 * util/db/cluster.go `ListClusters`, controller/sharding/cache.go `Init`); docs/clusters.md "Malformed
 * cluster Secrets" has the table. Each case warns once per read, naming the Secret, never a value:
 *
 * - ID = metadata.uid as-is. A Secret without one is an error naming it, unless `idFrom` says to use the
 *   server URL or the cluster name instead (results then differ from Argo CD's; the report says so).
 * - server = data.server (base64) or stringData.server, every trailing "/" removed. Missing or empty is
 *   kept, as Argo CD keeps it: the cluster (server "") takes part in the shard distribution; connecting to
 *   it is an error (src/cluster/destination.ts), only for an app whose destination resolves to it.
 * - shard = data.shard parsed strictly (optional sign, digits only, int64); anything else is "not set".
 * - A Secret whose `config` is not valid JSON, or not Argo CD's ClusterConfig shape (a field of the wrong
 *   type), is left out, as Argo CD leaves it out; unknown fields are ignored. `namespaces` and
 *   `clusterResources` never make a Secret invalid.
 * - Each cluster also gets its `ClusterAccess` (src/cluster/cluster-secret.ts: credentials, TLS, exec
 *   provider, namespaces/clusterResources scope), in `access`, for runs that reach destinations through
 *   cluster Secrets. Credentials stay in those objects: nothing here prints them.
 * - Secrets labelled with another argocd.argoproj.io/secret-type (repository, repo-creds) are skipped
 *   (Argo CD's informer selects secret-type=cluster); unlabelled Secrets in a clusters file are taken as
 *   cluster Secrets.
 * - In-cluster: unless disabled, an `in-cluster` entry with an empty ID is added when no Secret has server
 *   https://kubernetes.default.svc; when disabled, Secrets for that server are dropped.
 * - Two Secrets with the same server (empty included): the sharding cache keeps one per server, the later
 *   one in list order (as the controller's cluster watch adds them, in the API server's name order), with
 *   a warning; both stay in `secrets` (a lookup by their name finds two clusters, as Argo CD's does).
 * - data that is not base64 is an error naming the key: no API server stores such a Secret, so it is a
 *   broken file (plain text belongs in stringData), not a case Argo CD meets.
 */
import { UsageError, type KubeObject } from '../common/index.js';
import { describeSource, type SourcedObject } from '../util/yaml-docs.js';
import { ClusterAccess } from '../cluster/index.js';
import { IN_CLUSTER_NAME, IN_CLUSTER_SERVER, type ShardCluster } from './types.js';

export { SECRET_TYPE_LABEL, SKIP_RECONCILE_ANNOTATION } from '../common/index.js';
import { SECRET_TYPE_LABEL, SKIP_RECONCILE_ANNOTATION } from '../common/index.js';

export type IdFrom = 'uid' | 'server' | 'name';

export interface ClusterSecretOptions {
  /** Where the ID comes from for Secrets with no metadata.uid ("uid": they are an error). */
  idFrom: IdFrom;
  /** argocd-cm cluster.inClusterEnabled (on unless exactly "false"). */
  inClusterEnabled: boolean;
}

export interface ClusterEntry extends ShardCluster {
  /** Where the entry came from: "file.yaml (document 2)", "secret argocd/my-cluster", or "in-cluster". */
  source: string;
  /** True when the ID is not the Secret's UID (taken from --id-from). */
  idSubstituted: boolean;
  /** The Secret's labels and annotations and its `project` field (read by ApplicationSet clusters generators). */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  project?: string;
}

export interface ClusterList {
  /**
   * The sharding cache's clusters (controller/sharding/cache.go `ClusterSharding.Clusters`, keyed by
   * server): one per server, the later Secret winning, Secrets with no server included (as one entry with
   * server ""), plus the in-cluster entry. Every shard is computed over exactly these.
   */
  clusters: ClusterEntry[];
  /**
   * Every Secret Argo CD's cluster informer holds as a cluster, in list order, duplicates by server
   * included (what destination lookups by name count: src/cluster/cluster-lookup.ts). No in-cluster entry.
   */
  secrets: ClusterEntry[];
  /** How to reach each cluster of `secrets`, aligned with it. */
  access: ClusterAccess[];
  warnings: string[];
}

/** Go's strconv.ParseBool true values (spec 4). */
const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** data.shard as Argo CD parses it: base-10, optional sign, digits only, within int64; else undefined. */
export function parseManualShard(text: string | undefined): number | undefined {
  if (text === undefined || !/^[+-]?[0-9]+$/.test(text)) return undefined;
  const value = BigInt(text);
  if (value < INT64_MIN || value > INT64_MAX) return undefined;
  return Number(value);
}

/** A Secret's string fields: stringData wins over data, as the API server merges them on write. */
export function secretStrings(secret: Record<string, unknown>, subject: string): Map<string, string> {
  const out = new Map<string, string>();
  const data = secret['data'];
  if (data && typeof data === 'object') {
    for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
      if (v === null || v === undefined) continue;
      if (typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v.replace(/\s+/g, ''))) {
        throw new UsageError(`data.${k} is not base64 (use stringData for plain text)`, { subject });
      }
      out.set(k, Buffer.from(v, 'base64').toString('utf8'));
    }
  }
  const stringData = secret['stringData'];
  if (stringData && typeof stringData === 'object') {
    for (const [k, v] of Object.entries(stringData as Record<string, unknown>)) {
      if (v !== null && v !== undefined) out.set(k, String(v));
    }
  }
  return out;
}

/**
 * `--clusters-file` input with no document at all (an empty file or stdin, only comments or `---`) is an
 * error: it is almost always a failed export, and the in-cluster entry alone would read as a real answer.
 * Any document is valid input, an empty `List` included: `kubectl get secrets -l
 * argocd.argoproj.io/secret-type=cluster -o json` prints one on an Argo CD that knows only the in-cluster
 * cluster, and the cluster list is then the in-cluster entry alone (as Argo CD's is). Objects that are not
 * cluster Secrets are skipped with a warning by clustersFromSecrets.
 */
export function requireClusterDocuments(documents: number, files: readonly string[]): void {
  if (documents > 0) return;
  const names = files.map((f) => (f === '-' ? '<stdin>' : f)).join(', ');
  throw new UsageError('failed to read cluster Secrets: no documents', {
    subject: `--clusters-file ${names}`,
    hint: `an Argo CD with only the in-cluster cluster exports an empty List (kubectl get secrets -l ${SECRET_TYPE_LABEL}=cluster -o json)`,
  });
}

/** A cluster Secret of the input, with what readers name it by and its decoded data and stringData. */
export interface ClusterSecretDoc {
  object: KubeObject;
  /** Where it came from: "file.yaml (document 2)" or "secret ns/name". */
  subject: string;
  /** `<subject>: Secret <name>`, the subject of every message about it. */
  named: string;
  strings: Map<string, string>;
}

/**
 * `so` as a cluster Secret, or undefined (with a warning) when it is not one: an object of another kind, or
 * a Secret labelled with another secret-type. Shared by the controller's reading (clustersFromSecrets) and
 * the ApplicationSet generator's (cluster-source.ts), which skip the same objects.
 */
export function clusterSecretDoc(so: SourcedObject, warnings: string[]): ClusterSecretDoc | undefined {
  const obj = so.object;
  const ns = obj.metadata?.namespace;
  const subject = so.file ? describeSource(so) : `secret ${ns ? `${ns}/` : ''}${obj.metadata?.name ?? '?'}`;
  const secretName = obj.metadata?.name ?? '<unnamed>';
  if (obj.kind !== 'Secret') {
    warnings.push(`${subject}: skipped ${obj.kind ?? 'object without kind'} ${secretName}: not a Secret`);
    return undefined;
  }
  const type = obj.metadata?.labels?.[SECRET_TYPE_LABEL];
  if (type !== undefined && type !== 'cluster') {
    warnings.push(
      `${subject}: skipped Secret ${secretName}: ${SECRET_TYPE_LABEL} is "${type}", not "cluster"`,
    );
    return undefined;
  }
  const named = `${subject}: Secret ${secretName}`;
  return { object: obj, subject, named, strings: secretStrings(obj, named) };
}

/**
 * Builds the cluster list from Secret objects in list order. Objects that are not Secrets, and Secrets
 * labelled with another secret-type, are skipped with a warning; so is a Secret whose `config` Argo CD
 * cannot unmarshal. Nothing a Secret holds stops the list except what no API server would store (data that
 * is not base64) and a missing UID where the UID is needed (`idFrom: 'uid'`).
 */
export function clustersFromSecrets(
  objects: readonly SourcedObject[],
  options: ClusterSecretOptions,
): ClusterList {
  const warnings: string[] = [];
  const byServer = new Map<string, ClusterEntry>();
  const all: ClusterEntry[] = [];
  const access: ClusterAccess[] = [];
  for (const so of objects) {
    const doc = clusterSecretDoc(so, warnings);
    if (!doc) continue;
    const { object: obj, subject, named, strings } = doc;
    // Argo CD's SecretToCluster: string(data.server) with every trailing "/" removed; no check that it is
    // set (util/db/cluster.go, util/settings/cluster_informer.go secretToCluster).
    const server = (strings.get('server') ?? '').replace(/\/+$/, '');
    const name = strings.get('name') ?? '';
    let secretAccess: ClusterAccess;
    try {
      secretAccess = new ClusterAccess({
        server,
        name,
        config: strings.get('config'),
        namespaces: strings.get('namespaces'),
        clusterResources: strings.get('clusterResources'),
        project: strings.get('project'),
        source: subject,
      });
    } catch (err) {
      warnings.push(
        `${named}: left out: ${(err as Error).message} (Argo CD logs "failed to unmarshal cluster config" and skips the Secret)`,
      );
      continue;
    }
    if (server === '')
      warnings.push(
        `${named}: has no server (data.server missing or empty): counted in the shard distribution, as Argo CD counts it; an app whose destination resolves to it fails`,
      );
    const shardText = strings.get('shard');
    const manualShard = parseManualShard(shardText);
    if (shardText !== undefined && manualShard === undefined) {
      warnings.push(`${named}: shard "${shardText}" is not an integer: treated as not set (as Argo CD does)`);
    }
    const uid = obj.metadata?.uid;
    let id: string;
    let idSubstituted = false;
    if (typeof uid === 'string' && uid !== '') {
      id = uid;
    } else if (options.idFrom === 'uid') {
      throw new UsageError('has no metadata.uid: Argo CD hashes the UID to pick a shard', {
        subject: named,
        hint: "export Secrets with 'kubectl get secret -o yaml' (keeps the UID), or pass --id-from server|name",
      });
    } else {
      id = options.idFrom === 'server' ? server : name;
      idSubstituted = true;
    }
    const skipReconcile = GO_TRUE.has(obj.metadata?.annotations?.[SKIP_RECONCILE_ANNOTATION] ?? '');
    if (!options.inClusterEnabled && server === IN_CLUSTER_SERVER) {
      warnings.push(`${named}: dropped: in-cluster is disabled and this Secret targets ${IN_CLUSTER_SERVER}`);
      continue;
    }
    const entry: ClusterEntry = {
      id,
      server,
      name,
      manualShard,
      apps: 0,
      skipReconcile,
      source: subject,
      idSubstituted,
      labels: { ...(obj.metadata?.labels ?? {}) },
      annotations: { ...(obj.metadata?.annotations ?? {}) },
      ...(strings.has('project') ? { project: strings.get('project')! } : {}),
    };
    const previous = byServer.get(server);
    if (previous) {
      warnings.push(
        `${named}: duplicate server ${server || '(empty)'} (also ${previous.source}): the later Secret is used`,
      );
      byServer.delete(server);
    }
    byServer.set(server, entry);
    all.push(entry);
    access.push(secretAccess);
  }
  const clusters = [...byServer.values()];
  if (options.inClusterEnabled && !byServer.has(IN_CLUSTER_SERVER)) {
    clusters.unshift({
      id: '',
      server: IN_CLUSTER_SERVER,
      name: IN_CLUSTER_NAME,
      apps: 0,
      source: 'in-cluster',
      idSubstituted: false,
    });
  }
  return { clusters, secrets: all, access, warnings };
}
