/**
 * `unloadableApplication(manifest, origin)`: an Application manifest that failed to load (parse.ts refused
 * it), as the app it names, so the failure can stay that app's own: app-of-apps (src/preview tree.ts)
 * lists such a child with its error, as Argo CD shows a child it cannot render as its own app with a
 * ComparisonError, instead of failing its parent. Only identity is read (name, namespace, project,
 * destination), leniently; it has no source to render (one empty source) and is never rendered, compared
 * or synced. Undefined when the manifest has no name to list it under.
 */
import type { KubeObject } from '../common/index.js';
import type { Application } from './types.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const rec = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export function unloadableApplication(manifest: KubeObject, origin: string): Application | undefined {
  const name = str(manifest.metadata?.name);
  if (!name) return undefined;
  const namespace = str(manifest.metadata?.namespace);
  const spec = rec(manifest['spec']);
  const dest = rec(spec['destination']);
  const strings = (v: unknown): Record<string, string> =>
    Object.fromEntries(Object.entries(rec(v)).filter((e): e is [string, string] => typeof e[1] === 'string'));
  return {
    name,
    ...(namespace ? { namespace } : {}),
    labels: strings(manifest.metadata?.labels),
    annotations: strings(manifest.metadata?.annotations),
    project: str(spec['project']) || 'default',
    sources: [{ repoURL: '', path: '', targetRevision: '' }],
    multiSource: false,
    destination: {
      ...(str(dest['server']) ? { server: str(dest['server']) } : {}),
      ...(str(dest['name']) ? { name: str(dest['name']) } : {}),
      namespace: str(dest['namespace']),
    },
    syncPolicy: { syncOptions: [], options: {} },
    ignoreDifferences: [],
    origin,
    manifest,
  };
}
