/**
 * A chart in Git rendered by the real helm: Argo CD 3.6's helm 4.2.4 and the last helm 3.x, both installed
 * by `npm run tools` (test/support/tools.ts: missing binaries fail in CI). Checks what Argo CD users rely on:
 * value precedence (chart values < valueFiles in order < values/valuesObject < parameters), release name and
 * namespace, CRDs, schema validation, tests hooks, capabilities, file parameters, `$ref` value files.
 */
import { strict as assert } from 'node:assert';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ApplicationSource, HelmOptions } from '../../src/apps/types.js';
import { DEFAULT_HELM } from '../../src/source/render/helm.js';
import { RenderError, renderSource } from '../../src/source/render/index.js';
import { build, tempDir, tools, tree } from '../support/git.js';
import { fixtureChart } from '../support/helm-repo.js';
import { realTool } from '../support/tools.js';

// Deep reads of rendered objects: the assertions check the shapes.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = Record<string, any>;

function repoWithChart(): string {
  const root = tempDir('helm-real-');
  cpSync(fixtureChart('web'), join(root, 'charts/web'), { recursive: true });
  return root;
}

async function render(
  helmPath: string,
  root: string,
  helm: Partial<HelmOptions> | undefined,
  refRoots = new Map<string, string>(),
) {
  const source: ApplicationSource = {
    repoURL: 'https://git.example.com/deploy.git',
    path: 'charts/web',
    targetRevision: 'main',
    ...(helm ? { helm: { ...DEFAULT_HELM, ...helm } } : {}),
  };
  return renderSource(
    {
      appName: 'guestbook',
      destNamespace: 'prod',
      source,
      root,
      refRoots,
      build: build({ instanceName: 'guestbook', revision: '0123456789abcdef' }),
    },
    tools(undefined, { helmPath }),
  );
}

const find = (objs: Obj[], kind: string) => objs.find((o) => o['kind'] === kind) as Obj;

for (const tool of ['helm', 'helm3'] as const) {
  const helm = realTool(tool);
  describe(`a chart in Git with the real helm ${helm.version}`, () => {
    it(
      'defaults: app name as release, destination namespace, CRDs included, test hooks kept',
      { skip: helm.skip },
      async () => {
        const r = await render(helm.require(), repoWithChart(), undefined);
        assert.equal(r.type, 'Helm');
        const kinds = r.objects.map((o) => `${o.kind}/${o.metadata?.name}`).sort();
        assert.deepEqual(kinds, [
          'ConfigMap/guestbook-settings',
          'CustomResourceDefinition/widgets.example.com',
          'Deployment/guestbook',
          'Pod/guestbook-test',
        ]);
        const cm = find(r.objects, 'ConfigMap');
        assert.equal(cm.metadata.namespace, 'prod');
        assert.deepEqual(cm.data, {
          replicas: '1',
          message: 'hello',
          list: '[]',
          kubeVersion: cm.data.kubeVersion,
          monitoring: 'false',
        });
        // Without a cluster, helm's own default Kubernetes version (its client-go's): v1.36 for 4.2.4.
        assert.match(cm.data.kubeVersion, /^v1\.\d+\.\d+$/);
      },
    );

    it(
      'value precedence: valueFiles in order < values < parameters; releaseName and namespace',
      { skip: helm.skip },
      async () => {
        const root = repoWithChart();
        const values = tree({ 'envs/prod.yaml': 'message: from the values repo\nimage: nginx:1.28\n' });
        const r = await render(
          helm.require(),
          root,
          {
            releaseName: 'rel',
            namespace: 'other',
            valueFiles: ['values-prod.yaml', '$values/envs/prod.yaml'],
            values: 'replicas: 4\nlist: [a, b]\n',
            parameters: [
              { name: 'replicas', value: '5', forceString: false },
              { name: 'list', value: '{x,y,z}', forceString: false },
              { name: 'message', value: 'a,b and ${ARGOCD_APP_NAME}', forceString: true },
            ],
            fileParameters: [{ name: 'file', path: 'values-prod.yaml' }],
            kubeVersion: '1.29.3',
            apiVersions: ['monitoring.coreos.com/v1'],
          },
          new Map([['values', values]]),
        );
        const cm = find(r.objects, 'ConfigMap');
        assert.equal(cm.metadata.name, 'rel-settings');
        assert.equal(cm.metadata.namespace, 'other');
        assert.deepEqual(cm.data, {
          replicas: '5',
          message: 'a,b and guestbook',
          list: '["x","y","z"]',
          kubeVersion: 'v1.29.3',
          monitoring: 'true',
          file: readFileSync(join(root, 'charts/web/values-prod.yaml'), 'utf8'),
        });
        assert.equal(find(r.objects, 'Deployment').spec.template.spec.containers[0].image, 'nginx:1.28');
      },
    );

    it(
      'skipCrds, skipTests; schema validation unless skipSchemaValidation',
      { skip: helm.skip },
      async () => {
        const root = repoWithChart();
        const r = await render(helm.require(), root, { skipCrds: true, skipTests: true });
        assert.deepEqual(r.objects.map((o) => o.kind).sort(), ['ConfigMap', 'Deployment']);
        await assert.rejects(render(helm.path, root, { values: 'replicas: many\n' }), (err) => {
          assert.ok(err instanceof RenderError);
          assert.equal(err.file, 'charts/web');
          assert.match(err.reason, /helm template failed: .*replicas/);
          // The values temp file is named as Argo CD names it, not by its random path.
          assert.doesNotMatch(err.reason, /helm-values-/);
          return true;
        });
        const skipped = await render(helm.path, root, {
          values: 'replicas: 2\nmessage: 7\n',
          skipSchemaValidation: true,
        });
        assert.equal(find(skipped.objects, 'ConfigMap').data.message, '7');
      },
    );

    it(
      'a missing value file is an error naming it, unless ignoreMissingValueFiles',
      { skip: helm.skip },
      async () => {
        const root = repoWithChart();
        await assert.rejects(
          render(helm.require(), root, { valueFiles: ['nope.yaml'] }),
          /charts\/web\/nope\.yaml: value file not found/,
        );
        const r = await render(helm.path, root, { valueFiles: ['nope.yaml'], ignoreMissingValueFiles: true });
        assert.equal(find(r.objects, 'ConfigMap').data.replicas, '1');
      },
    );
  });
}
