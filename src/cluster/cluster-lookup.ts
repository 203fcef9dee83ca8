/**
 * Which cluster Secret an Application's destination means, as Argo CD looks it up: one function for every
 * reader (diff/sync destinations in destination.ts, the controller's shard ownership and fleet splitting in
 * src/sharding), so they cannot decide differently. Rules (docs/clusters.md "Malformed cluster Secrets"):
 *
 * - Both `server` and `name`: "application destination can't have both name and server defined"; neither:
 *   "Destination server missing from app spec" (util/argo/argo.go `GetDestinationServer`).
 * - `server` (trailing "/" removed) is looked up as is; `name` goes through `GetClusterServersByName`
 *   (util/db/cluster.go): the servers of every Secret with that name, duplicates by server included (two
 *   Secrets for one server with one name are "2 clusters with the same name"); `in-cluster` means the
 *   in-cluster server when no Secret carries that name and in-cluster is enabled; with in-cluster disabled,
 *   the in-cluster server is filtered out. None: "there are no clusters with this name: N"; several:
 *   "there are K clusters with the same name: [S1 S2]".
 * - The server then goes through `GetCluster` (util/db/cluster.go over util/settings/cluster_informer.go
 *   `GetClusterByURL`): the in-cluster server is refused when disabled, else it is its Secret or, without
 *   one, the synthesised in-cluster cluster; any other server must be a Secret's ("cluster S not found").
 *   Two Secrets with one server: the later one in list order (docs/clusters.md says why).
 * - A Secret with an empty `server` is found by its name (its server is then ""); what to do with it is the
 *   caller's business (sharding counts it, connecting to it is an error).
 *
 * `secrets` are the Secrets Argo CD's cluster informer holds as clusters: every cluster Secret whose
 * `config` parses (a Secret whose config does not is in no index), in list order. The synthesised
 * in-cluster cluster is not among them.
 */
import { IN_CLUSTER_NAME, IN_CLUSTER_SERVER } from './kubeconfig.js';

export interface LookupSecret {
  /** data.server with trailing "/" removed ("" when the Secret has none). */
  server: string;
  /** data.name ("" when the Secret has none). */
  name: string;
}

export type DestinationLookup<T> =
  | { found: 'secret'; secret: T; server: string }
  | { found: 'in-cluster'; server: string }
  | {
      found: 'none';
      /** Argo CD's message (without the gRPC status prefix). */
      error: string;
      why: 'both' | 'missing' | 'no-name' | 'same-name' | 'not-found' | 'disabled';
    };

const trim = (s: string): string => s.replace(/\/+$/, '');

/** Argo CD's `GetClusterServersByName` over `secrets`. */
export function serversByName(
  name: string,
  secrets: readonly LookupSecret[],
  inClusterEnabled: boolean,
): string[] {
  const servers = secrets.filter((s) => s.name !== '' && s.name === name).map((s) => s.server);
  if (name !== IN_CLUSTER_NAME && !servers.includes(IN_CLUSTER_SERVER)) return servers;
  if (servers.length === 0 && name === IN_CLUSTER_NAME && inClusterEnabled) return [IN_CLUSTER_SERVER];
  return inClusterEnabled ? servers : servers.filter((s) => s !== IN_CLUSTER_SERVER);
}

/** Argo CD's `GetDestinationCluster` over `secrets` (see the module comment). */
export function lookupDestination<T extends LookupSecret>(
  dest: { server?: string | undefined; name?: string | undefined },
  secrets: readonly T[],
  inClusterEnabled: boolean,
): DestinationLookup<T> {
  if (dest.name && dest.server)
    return {
      found: 'none',
      why: 'both',
      error: `application destination can't have both name and server defined: ${dest.name} ${dest.server}`,
    };
  let server: string;
  if (dest.server) server = trim(dest.server);
  else if (dest.name) {
    const servers = serversByName(dest.name, secrets, inClusterEnabled);
    if (servers.length === 0)
      return { found: 'none', why: 'no-name', error: `there are no clusters with this name: ${dest.name}` };
    if (servers.length > 1)
      return {
        found: 'none',
        why: 'same-name',
        error: `there are ${servers.length} clusters with the same name: [${servers.join(' ')}]`,
      };
    server = servers[0]!;
  } else return { found: 'none', why: 'missing', error: 'Destination server missing from app spec' };
  const wrap = (desc: string): string =>
    dest.server
      ? `error getting cluster by server "${dest.server}": ${desc}`
      : `error getting cluster by URL: ${desc}`;
  const secret = secrets.findLast((s) => s.server === server);
  if (server === IN_CLUSTER_SERVER) {
    if (!inClusterEnabled)
      return { found: 'none', why: 'disabled', error: wrap(`cluster "${server}" is disabled`) };
    return secret ? { found: 'secret', secret, server } : { found: 'in-cluster', server };
  }
  if (!secret) return { found: 'none', why: 'not-found', error: wrap(`cluster "${server}" not found`) };
  return { found: 'secret', secret, server };
}
