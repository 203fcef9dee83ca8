/**
 * The ad-hoc Application built from flags (`--repo URL --path P --revision R --dest-namespace NS
 * [--dest-server URL] [--name NAME]`), for one-off CI steps without an Application file. It is built as a
 * manifest and validated by `parseApplication`, so it follows exactly the rules of file apps. Defaults:
 * revision HEAD, server https://kubernetes.default.svc, project default, name derived from the path (its
 * last segment, else the repository name) as a DNS label.
 */
import type { KubeObject } from '../util/yaml-docs.js';
import { parseApplication } from './parse.js';
import { APPLICATION_API_VERSION, APPLICATION_KIND, type Application } from './types.js';

export const IN_CLUSTER_SERVER = 'https://kubernetes.default.svc';

export interface AdHocAppOptions {
  repo: string;
  path: string;
  revision?: string;
  destNamespace?: string;
  destServer?: string;
  name?: string;
}

export function adHocApplication(options: AdHocAppOptions): Application {
  const name = options.name ?? defaultName(options.repo, options.path);
  const manifest: KubeObject = {
    apiVersion: APPLICATION_API_VERSION,
    kind: APPLICATION_KIND,
    metadata: { name },
    spec: {
      project: 'default',
      source: { repoURL: options.repo, path: options.path, targetRevision: options.revision ?? 'HEAD' },
      destination: {
        server: options.destServer ?? IN_CLUSTER_SERVER,
        namespace: options.destNamespace ?? '',
      },
    },
  };
  return parseApplication(manifest, 'flags');
}

export function defaultName(repo: string, path: string): string {
  const segments = path.split('/').filter((s) => s && s !== '.');
  let base = segments.at(-1) ?? '';
  if (!base) base = (repo.replace(/\/+$/, '').split(/[/:]/).at(-1) ?? '').replace(/\.git$/, '');
  const label = base
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return label || 'app';
}
