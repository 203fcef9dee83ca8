/**
 * Discovery documents, built from the registry on every request so CRD changes show at once:
 * `/version`, `/api` (APIVersions), `/api/v1` and `/apis/<group>/<version>` (APIResourceList, with a
 * `<plural>/status` row for kinds with a status subresource), `/apis` (APIGroupList), `/apis/<group>`
 * (APIGroup). Aggregated discovery (`as=APIGroupDiscoveryList`) is not offered: the response is the plain
 * document with `Content-Type: application/json`, which client-go and kubectl take as "fall back to
 * per-group discovery". `/openapi/v2` and `/openapi/v3` are 404, which kubectl also tolerates.
 */
import type { ResourceRegistry } from './resources.js';
import type { JsonMap, ResourceType } from './types.js';
import { apiVersionOf, hasScale, hasStatus } from './types.js';

export const SERVER_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0+embedded' };

export function versionDoc(): JsonMap {
  return {
    ...SERVER_VERSION,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.23.0',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export function apiVersionsDoc(hostPort: string): JsonMap {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: hostPort }],
  };
}

function groupDoc(name: string, versions: string[]): JsonMap {
  const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: vs, preferredVersion: vs[0] ?? null };
}

export function groupListDoc(registry: ResourceRegistry): JsonMap {
  const groups = [...registry.groups()].map(([name, versions]) => groupDoc(name, versions));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** APIGroup for /apis/<group>, or undefined when the group is not served. */
export function groupDocFor(registry: ResourceRegistry, group: string): JsonMap | undefined {
  const versions = registry.groups().get(group);
  return versions ? { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(group, versions) } : undefined;
}

function resourceRows(t: ResourceType, version: string): JsonMap[] {
  const row: JsonMap = {
    name: t.plural,
    singularName: t.singular,
    namespaced: t.namespaced,
    kind: t.kind,
    verbs: t.verbs,
  };
  if (t.shortNames.length) row['shortNames'] = t.shortNames;
  if (t.categories.length) row['categories'] = t.categories;
  const rows = [row];
  if (hasStatus(t, version)) {
    rows.push({
      name: `${t.plural}/status`,
      singularName: '',
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: ['get', 'patch', 'update'],
    });
  }
  if (hasScale(t, version)) {
    rows.push({
      name: `${t.plural}/scale`,
      singularName: '',
      namespaced: t.namespaced,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
  }
  return rows;
}

/** APIResourceList for a group/version, or undefined when nothing is served there. */
export function resourceListDoc(
  registry: ResourceRegistry,
  group: string,
  version: string,
): JsonMap | undefined {
  const types = registry.typesAt(group, version);
  if (types.length === 0 && !(group === '' && version === 'v1')) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf(group, version),
    resources: types.flatMap((t) => resourceRows(t, version)),
  };
}
