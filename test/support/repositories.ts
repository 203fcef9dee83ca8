/** Argo CD repository Secrets for tests, as Argo CD stores them (values base64 in `data`). */
import type { RepositoryObject } from '../../src/source/index.js';

export function repoSecret(
  name: string,
  type: 'repository' | 'repo-creds',
  values: Record<string, string>,
): RepositoryObject {
  return {
    origin: `secret argocd/${name}`,
    object: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: 'argocd', labels: { 'argocd.argoproj.io/secret-type': type } },
      data: Object.fromEntries(
        Object.entries(values).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
      ),
    },
  };
}
