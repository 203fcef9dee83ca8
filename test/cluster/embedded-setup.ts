/**
 * Shared setup of the cluster module's end-to-end tests on the embedded API server: object builders and
 * `connectTo(fx)`, which connects with a temp discovery cache and fast retries and creates the namespaces
 * alpha, beta and gamma.
 */
import { preserveUnknownFieldsCrd } from '../support/crds.js';
import { join } from 'node:path';
import { connect } from '../../src/cluster/index.js';
import type { ClusterConnection, KubeObject, ResourceInfo } from '../../src/cluster/index.js';
import type { EmbeddedFixture } from '../support/embedded.js';

export const cm = (namespace: string, name: string, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data: { k: name },
  ...extra,
});
export const ns = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
export const tracked = (app: string, namespace: string, name: string): KubeObject =>
  cm(namespace, name, {
    metadata: {
      name,
      namespace,
      annotations: { 'argocd.argoproj.io/tracking-id': `${app}:/ConfigMap:${namespace}/${name}` },
    },
  });

export const crd = (plural: string, kind: string): KubeObject =>
  preserveUnknownFieldsCrd('example.com', kind, plural);

export interface Connected {
  conn: ClusterConnection;
  configMaps: ResourceInfo;
  namespaces: ResourceInfo;
}

export async function connectTo(fx: EmbeddedFixture): Promise<Connected> {
  const conn = await connect({
    kubeconfig: fx.kubeconfig,
    discovery: { cacheDir: join(fx.dir, 'discovery') },
    client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
  });
  const configMaps = await conn.discovery.resolve({ group: '', kind: 'ConfigMap' });
  const namespaces = await conn.discovery.resolve({ group: '', kind: 'Namespace' });
  for (const n of ['alpha', 'beta', 'gamma']) await conn.client.create(namespaces, ns(n));
  return { conn, configMaps, namespaces };
}
