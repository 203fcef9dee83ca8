/**
 * Helm sources without a real helm: the `helm template` argument list Argo CD 3.6 builds
 * (`util/helm/cmd.go template`), parameter cleaning, kube versions, value file rules, and the binary lookup.
 * The same charts rendered by the real helm: helm-real.test.ts and helm-repos.test.ts.
 */
import { strict as assert } from 'node:assert';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ApplicationSource, HelmOptions } from '../../src/apps/types.js';
import { cleanSetParameter, DEFAULT_HELM, helmArgs, parseKubeVersion } from '../../src/source/render/helm.js';
import { kubeFacts } from '../../src/source/render/env.js';
import { isMissingDependencyError } from '../../src/source/render/helm-deps.js';
import { renderSource, type RenderRequest } from '../../src/source/render/index.js';
import type { BuildFacts } from '../../src/source/render/types.js';
import { build, tempDir, tools, tree } from '../support/git.js';

const CHART = {
  'chart/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 0.1.0\n',
  'chart/values.yaml': 'replicas: 1\n',
  'chart/values-prod.yaml': 'replicas: 3\n',
  'chart/files/motd.txt': 'hello, world\n',
  'chart/templates/cm.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\ndata:\n  replicas: "{{ .Values.replicas }}"\n',
};

function request(
  root: string,
  helm: Partial<HelmOptions> | undefined,
  refRoots = new Map<string, string>(),
  extra: Partial<BuildFacts> = {},
): RenderRequest {
  const source: ApplicationSource = {
    repoURL: 'file:///x',
    path: 'chart',
    targetRevision: 'HEAD',
    ...(helm ? { helm: { ...DEFAULT_HELM, ...helm } } : {}),
  };
  return {
    appName: 'web',
    destNamespace: 'prod',
    source,
    root,
    refRoots,
    build: build({ instanceName: 'web', revision: 'abcdef1234', ...extra }),
  };
}

describe('helm template arguments (Argo CD 3.6 util/helm/cmd.go)', () => {
  it('every option, in Argo CD order, helm running in the chart directory', async () => {
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
            { name: 'a', value: '1,2', forceString: false },
            { name: 'b', value: '02', forceString: true },
            { name: 'rev', value: '${ARGOCD_APP_REVISION_SHORT}', forceString: false },
            { name: 'a', value: '{x,y}', forceString: false },
          ],
          fileParameters: [{ name: 'motd', path: 'files/motd.txt' }],
          skipCrds: true,
          skipTests: true,
          skipSchemaValidation: true,
          kubeVersion: 'v1.29.3+k3s1',
          apiVersions: ['monitoring.coreos.com/v1'],
        },
        new Map([['vals', values]]),
      ),
      join(root, 'chart'),
      '/tmp/v.yaml',
    );
    assert.deepEqual(args, [
      'template',
      '.',
      '--name-template',
      'rel',
      '--namespace',
      'prod',
      '--kube-version',
      '1.29.3',
      // One per name, the last value wins (Argo CD's map); commas escaped, {a,b} lists kept.
      '--set',
      'a={x,y}',
      '--set',
      'rev=abcdef1',
      '--set-string',
      'b=02',
      '--set-file',
      `motd=${join(root, 'chart/files/motd.txt')}`,
      '--values',
      join(root, 'chart/values-prod.yaml'),
      '--values',
      join(values, 'envs/prod.yaml'),
      '--values',
      '/tmp/v.yaml',
      '--api-versions',
      'monitoring.coreos.com/v1',
      '--skip-schema-validation',
      '--skip-tests',
    ]);
  });

  it('defaults: release = app name, namespace = destination, CRDs included, the cluster version when known', async () => {
    const root = tree(CHART);
    const chart = join(root, 'chart');
    assert.deepEqual(await helmArgs(request(root, undefined), chart, undefined), [
      'template',
      '.',
      '--name-template',
      'web',
      '--namespace',
      'prod',
      '--include-crds',
    ]);
    const onCluster = request(root, undefined, new Map(), {
      kubeVersion: 'v1.31.2',
      apiVersions: ['v1', 'apps/v1/Deployment'],
    });
    assert.deepEqual((await helmArgs(onCluster, chart, undefined)).slice(6), [
      '--kube-version',
      '1.31.2',
      '--api-versions',
      'v1',
      '--api-versions',
      'apps/v1/Deployment',
      '--include-crds',
    ]);
  });

  it('cleanSetParameter and parseKubeVersion as Argo CD', () => {
    assert.equal(cleanSetParameter('a,b'), 'a\\,b');
    assert.equal(cleanSetParameter('a\\,b'), 'a\\,b');
    assert.equal(cleanSetParameter('{a,b}'), '{a,b}');
    assert.equal(parseKubeVersion('1.29'), '1.29');
    assert.equal(parseKubeVersion('v1.28.04-eks-1234'), '1.28.4');
    assert.throws(() => parseKubeVersion('latest'), /could not parse kubernetes version latest/);
    assert.ok(isMissingDependencyError('found in Chart.yaml, but missing in charts/ directory: web'));
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
});

describe('helm binary', () => {
  it('without helm: a clear error saying how to install it', async () => {
    const root = tree(CHART);
    await assert.rejects(
      renderSource(request(root, undefined), tools(tempDir())),
      /failed to render chart: helm is not installed: not on PATH nor in .* \(install it with `npm run tools`, or name one with --helm-path\)/,
    );
  });

  it("helm.version: '', v3 and v4 run the one helm (Argo CD 3.6); others are refused", async () => {
    const root = tree(CHART);
    await assert.rejects(
      renderSource(request(root, { version: 'v2' }), tools(tempDir())),
      /failed to render chart: helm version 'v2' is not supported/,
    );
  });

  it('runs the helm it is given, in the chart directory, with a private helm home', async () => {
    const bin = tempDir();
    const script = join(bin, 'helm');
    writeFileSync(
      script,
      '#!/bin/sh\nprintf -- "---\\napiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: args\\ndata:\\n  args: \\"%s\\"\\n  cwd: \\"$(pwd)\\"\\n  home: \\"$HELM_CONFIG_HOME $XDG_CACHE_HOME\\"\\n" "$*"\n',
    );
    chmodSync(script, 0o755);
    const root = tree(CHART);
    for (const version of ['v3', 'v4', undefined]) {
      const r = await renderSource(
        request(root, { values: 'replicas: 9\n', ...(version ? { version } : {}) }),
        tools(bin),
      );
      assert.equal(r.type, 'Helm');
      assert.equal(r.tool, script);
      const data = r.objects[0]!['data'] as Record<string, string>;
      assert.match(
        data['args']!,
        /^template \. --name-template web --namespace prod --values \S+values\.yaml --include-crds$/,
      );
      assert.equal(data['cwd'], join(root, 'chart'));
      assert.match(data['home']!, /helm-home-[^ ]+\/config \S+helm-home-[^ ]+\/cache$/);
    }
  });
});

describe('the kube version and API versions a render gets (GetKubeVersionOrDefault, GetAPIVersionsOrDefault)', () => {
  it('helm.*, else kustomize.*, else the cluster; the version read by ParseGeneric', () => {
    const cluster = build({ kubeVersion: '1.34.4', apiVersions: ['v1', 'apps/v1/Deployment'] });
    const src = { repoURL: 'file:///x', path: 'k', targetRevision: 'HEAD' };
    assert.deepEqual(kubeFacts({ source: src, build: cluster }), {
      kubeVersion: '1.34.4',
      apiVersions: ['v1', 'apps/v1/Deployment'],
    });
    const kustomize = {
      ...src,
      kustomize: {
        ...({} as NonNullable<ApplicationSource['kustomize']>),
        kubeVersion: 'v1.30.2+k3s1',
        apiVersions: ['x/v1'],
      },
    };
    assert.deepEqual(kubeFacts({ source: kustomize, build: cluster }), {
      kubeVersion: '1.30.2',
      apiVersions: ['x/v1'],
    });
    const helm = { ...kustomize, helm: { ...DEFAULT_HELM, kubeVersion: '1.29', apiVersions: ['y/v1'] } };
    assert.deepEqual(kubeFacts({ source: helm, build: cluster }), {
      kubeVersion: '1.29',
      apiVersions: ['y/v1'],
    });
    assert.deepEqual(kubeFacts({ source: src, build: build() }), { kubeVersion: '', apiVersions: [] });
  });
});
