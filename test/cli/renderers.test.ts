/**
 * The CLI with the real renderers `npm run tools` installs: `render` finds them with no flag (not on PATH:
 * from the tools folder), `--helm-path` picks the last helm 3.x instead, a missing `--kustomize-path` is a
 * one-line error with exit 2. Needs `npm run build`.
 */
import { strict as assert } from 'node:assert';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../support/cli.js';
import { cm, TestRepo, tempDir } from '../support/git.js';
import { fixtureChart } from '../support/helm-repo.js';
import { realTool } from '../support/tools.js';

const helm = realTool('helm');
const helm3 = realTool('helm3');
const kustomize = realTool('kustomize');

function app(name: string, url: string, path: string): string {
  return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ${name}, namespace: argocd}
spec:
  source: {repoURL: "${url}", path: ${path}, targetRevision: main}
  destination: {server: https://kubernetes.default.svc, namespace: demo}
---
`;
}

describe(
  'render with the real helm and kustomize',
  { skip: helm.skip || helm3.skip || kustomize.skip },
  () => {
    it('finds the installed binaries with no flag; --helm-path and --kustomize-path name others', async () => {
      helm.require();
      helm3.require();
      kustomize.require();
      const repo = new TestRepo();
      const tmp = tempDir('kg-cli-renderers-');
      cpSync(fixtureChart('web'), join(repo.dir, 'web'), { recursive: true });
      repo.commit({
        'kust/kustomization.yaml': 'resources: [cm.yaml]\nnamePrefix: k-\n',
        'kust/cm.yaml': cm('settings'),
      });
      const file = join(tmp, 'apps.yaml');
      const { writeFileSync } = await import('node:fs');
      writeFileSync(file, app('web', repo.url, 'web') + app('kust', repo.url, 'kust'));
      // An empty PATH but git's directory: the renderers come from the tools folder.
      const env = {
        PATH: `${process.env['PATH']}`
          .split(':')
          .filter((d) => !/kubectl-gitops\/tools/.test(d))
          .join(':'),
      };
      try {
        const r = await runCli(['render', '-f', file, '-o', 'yaml', '--hard-refresh'], { env });
        assert.equal(r.code, 0, r.stderr);
        const docs = parseAllDocuments(r.stdout).map(
          (d) => d.toJS() as { kind: string; metadata: { name: string } },
        );
        assert.deepEqual(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort(), [
          'ConfigMap/k-settings',
          'ConfigMap/web-settings',
          'CustomResourceDefinition/widgets.example.com',
          'Deployment/web',
          'Pod/web-test',
        ]);
        const v3 = await runCli(
          ['render', '-f', file, '-o', 'yaml', '--hard-refresh', '--helm-path', helm3.path, 'web'],
          { env },
        );
        assert.equal(v3.code, 0, v3.stderr);
        assert.match(v3.stdout, /name: web-settings/);
        const missing = await runCli(
          ['render', '-f', file, '--hard-refresh', '--kustomize-path', '/nonexistent/kustomize', 'kust'],
          { env },
        );
        assert.equal(missing.code, 2);
        assert.match(
          missing.stderr,
          /app "kust": failed to render kust from file:\/\/.*: kustomize not found: --kustomize-path \/nonexistent\/kustomize is not an executable file/,
        );
      } finally {
        repo.remove();
      }
    });
  },
);
