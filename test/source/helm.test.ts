import { strict as assert } from 'node:assert';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ApplicationSource, HelmOptions } from '../../src/apps/types.js';
import { which } from '../../src/source/exec.js';
import { DEFAULT_HELM, helmArgs } from '../../src/source/render/helm.js';
import { renderSource, type RenderRequest } from '../../src/source/render/index.js';
import { tempDir, tools, tree } from '../support/git.js';

const CHART = {
  'chart/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 0.1.0\n',
  'chart/values.yaml': 'replicas: 1\n',
  'chart/values-prod.yaml': 'replicas: 3\n',
  'chart/templates/cm.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\ndata:\n  replicas: "{{ .Values.replicas }}"\n',
};

function request(
  root: string,
  helm: Partial<HelmOptions> | undefined,
  refRoots = new Map<string, string>(),
): RenderRequest {
  const source: ApplicationSource = {
    repoURL: 'file:///x',
    path: 'chart',
    targetRevision: 'HEAD',
    ...(helm ? { helm: { ...DEFAULT_HELM, ...helm } } : {}),
  };
  return { appName: 'web', destNamespace: 'prod', source, root, refRoots };
}

const helmInstalled = Boolean(await which('helm'));

describe('helm sources', () => {
  it('builds helm template arguments as Argo CD does', async () => {
    const root = tree(CHART);
    const values = tree({ 'envs/prod.yaml': 'replicas: 5\n' });
    const args = await helmArgs(
      request(
        root,
        {
          releaseName: 'rel',
          valueFiles: ['values-prod.yaml', '$vals/envs/prod.yaml', 'missing.yaml'],
          ignoreMissingValueFiles: true,
          parameters: [
            { name: 'a', value: '1', forceString: false },
            { name: 'b', value: '02', forceString: true },
          ],
          skipCrds: true,
          skipTests: true,
          kubeVersion: '1.29.0',
          apiVersions: ['monitoring.coreos.com/v1'],
        },
        new Map([['vals', values]]),
      ),
      join(root, 'chart'),
      '/tmp/v.yaml',
    );
    assert.deepEqual(args, [
      'template',
      join(root, 'chart'),
      '--name-template',
      'rel',
      '--namespace',
      'prod',
      '--skip-tests',
      '--kube-version',
      '1.29.0',
      '--api-versions',
      'monitoring.coreos.com/v1',
      '--values',
      join(root, 'chart/values-prod.yaml'),
      '--values',
      join(values, 'envs/prod.yaml'),
      '--values',
      '/tmp/v.yaml',
      '--set',
      'a=1',
      '--set-string',
      'b=02',
    ]);
  });

  it('defaults: release = app name, namespace = destination, CRDs included', async () => {
    const root = tree(CHART);
    const args = await helmArgs(request(root, undefined), join(root, 'chart'), undefined);
    assert.deepEqual(args.slice(2), ['--name-template', 'web', '--namespace', 'prod', '--include-crds']);
  });

  it('value files: missing is an error, escaping the repository is an error, unknown $ref is an error', async () => {
    const root = tree(CHART);
    await assert.rejects(
      helmArgs(request(root, { valueFiles: ['nope.yaml'] }), join(root, 'chart'), undefined),
      /chart\/nope\.yaml: value file not found/,
    );
    await assert.rejects(
      helmArgs(request(root, { valueFiles: ['../../etc/passwd'] }), join(root, 'chart'), undefined),
      /outside the repository/,
    );
    await assert.rejects(
      helmArgs(request(root, { valueFiles: ['$other/x.yaml'] }), join(root, 'chart'), undefined),
      /unknown source ref "other"/,
    );
  });

  it('detects Chart.yaml; without helm on PATH the error says helm is not installed', async () => {
    const root = tree(CHART);
    await assert.rejects(
      renderSource(request(root, undefined), tools(tempDir())),
      /failed to render chart: helm is not installed/,
    );
  });

  it('runs the helm binary it finds and parses its output (a stand-in helm echoing its arguments)', async () => {
    const bin = tempDir();
    const script = join(bin, 'helm');
    writeFileSync(
      script,
      '#!/bin/sh\nprintf -- "---\\n# Source: x\\n---\\napiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: args\\ndata:\\n  args: \\"%s\\"\\n" "$*"\n',
    );
    chmodSync(script, 0o755);
    const root = tree(CHART);
    const r = await renderSource(request(root, { values: 'replicas: 9\n' }), tools(bin));
    assert.equal(r.type, 'Helm');
    assert.equal(r.objects.length, 1);
    const args = String((r.objects[0]!['data'] as Record<string, string>)['args']);
    assert.match(
      args,
      /^template .*\/chart --name-template web --namespace prod --include-crds --values .*values\.yaml$/,
    );
  });

  it(
    'renders a chart with the real helm',
    { skip: helmInstalled ? false : 'skipped: helm not installed' },
    async () => {
      const root = tree(CHART);
      const r = await renderSource(request(root, { valueFiles: ['values-prod.yaml'] }), tools());
      assert.deepEqual(r.objects, [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'web', namespace: 'prod' },
          data: { replicas: '3' },
        },
      ]);
    },
  );
});

describe('helm chart dependencies', () => {
  it('runs helm dependency build in a copy when dependencies are not vendored', async () => {
    const bin = tempDir();
    const log = join(bin, 'calls.log');
    // A stand-in helm logging its calls; `dependency build` creates charts/ where it is told to.
    writeFileSync(
      join(bin, 'helm'),
      `#!/bin/sh\necho "$1 $2" >> ${log}\nif [ "$1" = dependency ]; then mkdir -p "$3/charts"; exit 0; fi\nif [ -d "$2/charts" ]; then n=vendored; else n=bare; fi\nprintf "apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: %s\\n" "$n"\n`,
    );
    chmodSync(join(bin, 'helm'), 0o755);
    const root = tree({
      ...CHART,
      'chart/Chart.yaml':
        'apiVersion: v2\nname: web\nversion: 0.1.0\ndependencies:\n- name: common\n  version: 1.0.0\n  repository: file://../common\n',
      'common/Chart.yaml': 'apiVersion: v2\nname: common\nversion: 1.0.0\n',
    });
    const r = await renderSource(request(root, undefined), tools(bin));
    assert.equal(r.objects[0]!.metadata!.name, 'vendored');
    assert.deepEqual(
      readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ')[0]),
      ['dependency', 'template'],
    );
    assert.equal(existsSync(join(root, 'chart/charts')), false, 'the tree is never modified');
  });
});
