/**
 * What a reconcile checks before writing (applicationset_controller.go): the policy in force
 * (utils.DefaultPolicy) and whether a generated Application's destination resolves (util/argo
 * GetDestinationServer / GetDestinationCluster, with Argo CD's messages).
 */
import type { AppSetCluster } from '../../apps/appset/index.js';
import type { KubeObject } from '../../cluster/index.js';
import type { AppsSyncPolicy } from './types.js';

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** utils.DefaultPolicy and the policy's AllowUpdate / AllowDelete. */
export function effectivePolicy(appset: KubeObject, d: { policy: AppsSyncPolicy; policyOverride: boolean }) {
  const sp = (appset as Json)['spec'] as Json | undefined;
  const own = isMap(sp?.['syncPolicy']) ? (sp['syncPolicy'] as Json)['applicationsSync'] : undefined;
  const p = (typeof own === 'string' && d.policyOverride ? own : d.policy) || 'sync';
  return {
    policy: p,
    update: p === 'sync' || p === 'create-update',
    delete: p === 'sync' || p === 'create-delete',
  };
}

/** GetDestinationCluster's error for a destination, or undefined when it resolves. */
export function destinationError(
  dest: unknown,
  d: { clusters(): AppSetCluster[]; inClusterEnabled: boolean },
): string | undefined {
  const dst = isMap(dest) ? dest : {};
  const name = typeof dst['name'] === 'string' ? dst['name'] : '';
  const server = typeof dst['server'] === 'string' ? dst['server'] : '';
  if (name && server)
    return `application destination can't have both name and server defined: ${name} ${server}`;
  const clusters = d.clusters();
  let url = server.replace(/\/+$/, '');
  if (!server) {
    if (!name) return 'Destination server missing from app spec';
    const urls = clusters.filter((c) => c.name === name).map((c) => c.server);
    if (urls.length === 0) return `there are no clusters with this name: ${name}`;
    if (urls.length > 1) return `there are ${urls.length} clusters with the same name: [${urls.join(' ')}]`;
    url = urls[0]!;
  }
  const where = server ? `error getting cluster by server "${server}"` : 'error getting cluster by URL';
  if (url === 'https://kubernetes.default.svc' && !d.inClusterEnabled)
    return `${where}: rpc error: code = NotFound desc = cluster "${url}" is disabled`;
  if (!clusters.some((c) => c.server.replace(/\/+$/, '') === url))
    return `${where}: rpc error: code = NotFound desc = cluster "${url}" not found`;
  return undefined;
}
