/**
 * Application counts per cluster server, as Argo CD's sharding cache counts them (spec 1.2):
 * Applications are de-duplicated by bare metadata.name (the last one listed wins, whatever its
 * namespace), and an app counts for a cluster only when spec.destination.server equals the cluster's
 * server exactly: no trimming. Apps that name their destination by `name` have the server "" for Argo CD
 * (controller/sharding/sharding.go `getAppDistribution` keys by `Spec.Destination.Server`): they count for
 * a cluster only when a cluster Secret has no server (its server is "" too; docs/clusters.md "Malformed
 * cluster Secrets"), under the key "".
 */
import type { SourcedObject } from '../util/yaml-docs.js';

export interface AppCounts {
  /** server string -> number of distinct app names targeting it ("" : those without a server). */
  byServer: Map<string, number>;
  /** Distinct Applications read. */
  total: number;
  /** Distinct Applications whose destination has no server (by name): counted under "" in `byServer`. */
  withoutServer: number;
  warnings: string[];
}

export function countApplications(objects: readonly SourcedObject[]): AppCounts {
  const warnings: string[] = [];
  const byName = new Map<string, string | undefined>();
  for (const so of objects) {
    const obj = so.object;
    if (obj.kind !== 'Application' || !(obj.apiVersion ?? '').startsWith('argoproj.io/')) {
      warnings.push(
        `${so.file} (document ${so.doc + 1}): skipped ${obj.kind ?? 'object'}: not an Application`,
      );
      continue;
    }
    const name = obj.metadata?.name;
    if (!name) {
      warnings.push(`${so.file} (document ${so.doc + 1}): skipped Application without metadata.name`);
      continue;
    }
    const destination = (obj['spec'] as { destination?: { server?: unknown } } | undefined)?.destination;
    const server =
      typeof destination?.server === 'string' && destination.server !== '' ? destination.server : undefined;
    // Re-setting moves nothing in a Map's order, and order does not matter for counting.
    byName.set(name, server);
  }
  const byServer = new Map<string, number>();
  let withoutServer = 0;
  for (const server of byName.values()) {
    if (server === undefined) withoutServer++;
    const key = server ?? '';
    byServer.set(key, (byServer.get(key) ?? 0) + 1);
  }
  return { byServer, total: byName.size, withoutServer, warnings };
}
