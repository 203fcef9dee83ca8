/**
 * Family `helm-hooks`: Helm charts whose templates carry Helm's hook annotations, synced, so the sync
 * operation shows how Argo CD maps them (gitops-engine pkg/sync/hook/helm: `pre-install`/`pre-upgrade` ->
 * PreSync, `post-install`/`post-upgrade` -> PostSync, `helm.sh/hook-weight` -> the wave unless
 * `argocd.argoproj.io/sync-wave` is set, `hook-delete-policy` -> the delete policy; any other
 * `helm.sh/hook` value is a hook that never runs, except `crd-install`, which is no hook; an
 * `argocd.argoproj.io/hook` annotation wins over Helm's).
 */
import { join } from 'node:path';
import { chartFiles } from '../../../test/support/helm-repo.js';
import { app, cm, docs, job, type CaseDraft } from './lib.js';

const HP =
  'written for the corpus (Argo CD Helm hooks: docs/user-guide/helm.md "Helm Hooks"; gitops-engine pkg/sync/hook/helm)';

const helmHook = (hook: string, more: Record<string, string> = {}) => ({
  annotations: { 'helm.sh/hook': hook, ...more },
});

export function helmHooks(fixtures: string): CaseDraft[] {
  const needs = ['helm'];
  return [
    {
      name: 'helm-hooks-chart',
      intent:
        'the fixture chart hooks: pre-install ConfigMap and Job by hook-weight, post-install Job, hook-succeeded deletes, a test Pod never run',
      provenance: `${HP}; the chart is test/fixtures/helm/charts/hooks`,
      needs,
      repo: chartFiles(join(fixtures, 'helm', 'charts', 'hooks'), 'chart'),
      app: app({ path: 'chart', helm: {} }),
    },
    {
      name: 'helm-hooks-mapping',
      intent:
        'post-upgrade -> PostSync, hook-failed kept on success, crd-install is no hook, pre-rollback and test-success never run, argocd hook and sync-wave win over Helm',
      provenance: HP,
      needs,
      repo: {
        'chart/Chart.yaml': 'apiVersion: v2\nname: mapping\nversion: 0.1.0\n',
        'chart/templates/all.yaml': docs(
          cm('plain'),
          cm('crd-install', {}, helmHook('crd-install')),
          cm('rollback', {}, helmHook('pre-rollback')),
          cm('argocd-wins', {}, helmHook('pre-install', { 'argocd.argoproj.io/hook': 'Sync' })),
          job('post-upgrade', helmHook('post-upgrade', { 'helm.sh/hook-delete-policy': 'hook-failed' })),
          job(
            'weighted',
            helmHook('pre-install', {
              'helm.sh/hook-weight': '-3',
              'argocd.argoproj.io/sync-wave': '2',
              'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
            }),
          ),
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: 'legacy-test', ...helmHook('test-success') },
            spec: {
              restartPolicy: 'Never',
              containers: [{ name: 'main', image: 'registry.example/test:1.0', command: ['true'] }],
            },
          },
        ),
      },
      app: app({ path: 'chart', helm: {} }),
    },
  ];
}
