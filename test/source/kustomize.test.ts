/**
 * Kustomize sources with the real kustomize Argo CD 3.6 runs (5.8.1, `npm run tools`): the `kustomize edit`
 * commands Argo CD runs for each option, patches, components, argocd-cm build options with Helm inflation,
 * registered versions, and the errors.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ApplicationSource, KustomizeOptions } from '../../src/apps/types.js';
import { envsubst } from '../../src/source/render/env.js';
import { RenderError, renderSource } from '../../src/source/render/index.js';
import { buildArgs, DEFAULT_KUSTOMIZE, editCommands } from '../../src/source/render/kustomize.js';
import { build, cm, tempDir, tools, tree } from '../support/git.js';
import { realTool } from '../support/tools.js';

const kustomize = realTool('kustomize');
const helm = realTool('helm');

const TREE = {
  'base/kustomization.yaml': 'resources: [cm.yaml, deploy.yaml]\n',
  'base/cm.yaml': cm('settings'),
  'base/deploy.yaml':
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx:1.0}]\n',
  'overlay/kustomization.yaml': 'resources: [../base]\nnamePrefix: old-\n',
  'components/extra/kustomization.yaml':
    'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [extra.yaml]\n',
  'components/extra/extra.yaml': cm('extra'),
};

function source(path: string, kustomize?: Partial<KustomizeOptions>): ApplicationSource {
  return {
    repoURL: 'https://git.example.com/r.git',
    path,
    targetRevision: 'main',
    ...(kustomize ? { kustomize: { ...DEFAULT_KUSTOMIZE, ...kustomize } } : {}),
  };
}

async function render(
  root: string,
  src: ApplicationSource,
  t = tools(undefined, { kustomizePath: kustomize.path }),
) {
  return renderSource(
    {
      appName: 'app',
      destNamespace: 'dest',
      source: src,
      root,
      refRoots: new Map(),
      build: build({ revision: '0123456789abcdef0123456789abcdef01234567' }),
    },
    t,
  );
}

// Deep reads of rendered objects: the assertions check the shapes.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = Record<string, any>;

const byKind = (objs: { kind?: string }[], kind: string) => objs.find((o) => o.kind === kind)!;

describe('kustomize: the commands Argo CD runs', () => {
  it('edit commands in Argo CD order, with ${ARGOCD_APP_*} substituted where Argo CD does', () => {
    const env = { ARGOCD_APP_REVISION: 'abc', ARGOCD_APP_NAME: 'app' };
    const commands = editCommands(
      {
        ...DEFAULT_KUSTOMIZE,
        namePrefix: 'p-',
        nameSuffix: '-s',
        images: ['nginx=reg/nginx:${ARGOCD_APP_REVISION}'],
        replicas: [{ name: 'web', count: '3' }],
        commonLabels: { team: '${ARGOCD_APP_NAME}' },
        forceCommonLabels: true,
        labelWithoutSelector: true,
        commonAnnotations: { note: '${ARGOCD_APP_NAME}' },
        namespace: 'ns',
        components: ['../c'],
      },
      env,
    );
    assert.deepEqual(commands, [
      ['edit', 'set', 'nameprefix', '--', 'p-'],
      ['edit', 'set', 'namesuffix', '--', '-s'],
      ['edit', 'set', 'image', 'nginx=reg/nginx:abc'],
      ['edit', 'set', 'replicas', 'web=3'],
      ['edit', 'add', 'label', '--force', '--without-selector', 'team:app'],
      // commonAnnotations are substituted only with commonAnnotationsEnvsubst.
      ['edit', 'add', 'annotation', 'note:${ARGOCD_APP_NAME}'],
      ['edit', 'set', 'namespace', '--', 'ns'],
      ['edit', 'add', 'component', '../c'],
    ]);
  });

  it('build arguments: argocd-cm buildOptions split on spaces; Helm capabilities only with --enable-helm', () => {
    const kube = { kubeVersion: '1.29.0', apiVersions: ['v1', 'apps/v1'] };
    assert.deepEqual(buildArgs('/r/app', '', kube), ['build', '/r/app']);
    assert.deepEqual(buildArgs('/r/app', '--load-restrictor LoadRestrictionsNone', kube), [
      'build',
      '/r/app',
      '--load-restrictor',
      'LoadRestrictionsNone',
    ]);
    assert.deepEqual(buildArgs('/r/app', ' --enable-helm ', kube), [
      'build',
      '/r/app',
      '--enable-helm',
      '--helm-kube-version',
      '1.29.0',
      '--helm-api-versions',
      'v1',
      '--helm-api-versions',
      'apps/v1',
    ]);
  });

  it("envsubst is Go's os.Expand over the build environment", () => {
    const env = { A: 'x', B_2: 'y' };
    assert.equal(envsubst('$A-${B_2}-$$-${C}-$', env), 'x-y-$--$');
    assert.equal(envsubst('${}a${A', env), 'aA');
    assert.equal(envsubst('50% $ off', env), '50% $ off');
  });
});

describe(`kustomize sources (real kustomize ${kustomize.version})`, () => {
  it('builds a kustomization in place when no option is set', { skip: kustomize.skip }, async () => {
    kustomize.require();
    const r = await render(tree(TREE), source('overlay'));
    assert.equal(r.type, 'Kustomize');
    assert.equal(r.tool, kustomize.path);
    assert.deepEqual(r.objects.map((o) => o.metadata?.name).sort(), ['old-settings', 'old-web']);
  });

  it(
    'applies every option with kustomize edit in a temp copy, never in the tree',
    { skip: kustomize.skip },
    async () => {
      kustomize.require();
      const root = tree(TREE);
      const before = readFileSync(join(root, 'overlay/kustomization.yaml'), 'utf8');
      const r = await render(
        root,
        source('overlay', {
          namePrefix: 'new-',
          nameSuffix: '-v2',
          namespace: 'team',
          images: ['nginx=registry.local:5000/nginx:${ARGOCD_APP_REVISION_SHORT}'],
          replicas: [{ name: 'web', count: '4' }],
          commonLabels: { env: 'prod' },
          labelWithoutSelector: true,
          commonAnnotations: { owner: 'me' },
          patches: [
            {
              target: { kind: 'ConfigMap' },
              patch: '- op: add\n  path: /data/patched\n  value: "yes"\n',
            },
          ],
          components: ['../components/extra', '../components/missing'],
          ignoreMissingComponents: true,
        }),
      );
      assert.equal(readFileSync(join(root, 'overlay/kustomization.yaml'), 'utf8'), before);
      const deploy = byKind(r.objects, 'Deployment') as Obj;
      assert.equal(deploy.metadata.name, 'new-web-v2');
      assert.equal(deploy.metadata.namespace, 'team');
      assert.equal(deploy.metadata.labels.env, 'prod');
      // labelWithoutSelector: the selector and the template keep their labels only.
      assert.deepEqual(deploy.spec.selector.matchLabels, { app: 'web' });
      assert.equal(deploy.metadata.annotations.owner, 'me');
      assert.equal(deploy.spec.replicas, 4);
      assert.equal(deploy.spec.template.spec.containers[0].image, 'registry.local:5000/nginx:0123456');
      const names = r.objects.map((o) => o.metadata?.name).sort();
      assert.deepEqual(names, ['new-extra-v2', 'new-settings-v2', 'new-web-v2']);
      const settings = r.objects.find((o) => o.metadata?.name === 'new-settings-v2') as Obj;
      assert.equal(settings.data.patched, 'yes');
    },
  );

  it('a missing component is an error unless ignoreMissingComponents', { skip: kustomize.skip }, async () => {
    kustomize.require();
    await assert.rejects(
      render(tree(TREE), source('overlay', { components: ['../components/missing'] })),
      (err) => {
        assert.ok(err instanceof RenderError);
        assert.equal(err.file, 'overlay');
        assert.match(err.reason, /kustomize edit failed: .*missing/);
        assert.doesNotMatch(err.reason, /\n|kustomize-\d/);
        return true;
      },
    );
  });

  it(
    'a failing build shows kustomize stderr, trimmed, with the source path',
    { skip: kustomize.skip },
    async () => {
      kustomize.require();
      const root = tree({ 'k/kustomization.yaml': 'resources: [missing.yaml]\n' });
      await assert.rejects(render(root, source('k')), (err: Error) => {
        assert.ok(err instanceof RenderError);
        assert.equal(err.file, 'k');
        assert.match(err.reason, /kustomize build failed: .*missing\.yaml/);
        assert.doesNotMatch(err.reason, /\n/);
        return true;
      });
    },
  );

  it(
    'argocd-cm kustomize.buildOptions --enable-helm inflates a chart with the real helm (private helm home)',
    { skip: kustomize.skip || helm.skip },
    async () => {
      kustomize.require();
      helm.require();
      const root = tree({
        'app/kustomization.yaml':
          'helmCharts:\n- name: web\n  releaseName: rel\n  namespace: inflated\n  valuesInline: {replicas: 2}\n',
        'app/charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 0.1.0\n',
        'app/charts/web/values.yaml': 'replicas: 1\n',
        'app/charts/web/templates/cm.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "{{ .Release.Name }}-cm"}\ndata:\n  replicas: "{{ .Values.replicas }}"\n  kube: "{{ .Capabilities.KubeVersion.Version }}"\n',
      });
      const t = tools(undefined, {
        kustomizePath: kustomize.path,
        helmPath: helm.path,
        kustomizeSettings: async () => ({ buildOptions: '--enable-helm', versions: {} }),
      });
      // kustomize finds helm on PATH: the wrapper directory names the real one.
      const r = await renderSource(
        {
          appName: 'app',
          destNamespace: 'dest',
          source: source('app'),
          root,
          refRoots: new Map(),
          build: build({ kubeVersion: '1.31.2' }),
        },
        t,
      );
      const data = (r.objects[0] as Obj).data;
      assert.equal(r.objects[0]!.metadata!.name, 'rel-cm');
      assert.deepEqual(data, { replicas: '2', kube: 'v1.31.2' });
      // Without --enable-helm kustomize refuses helmCharts.
      await assert.rejects(render(root, source('app')), /kustomize build failed: .*enable-helm/);
    },
  );

  it(
    'kustomize.version picks the binary argocd-cm registers; an unregistered one is an error',
    { skip: kustomize.skip },
    async () => {
      kustomize.require();
      const root = tree(TREE);
      const t = tools(tempDir(), {
        kustomizeSettings: async () => ({ buildOptions: '', versions: { v5: kustomize.path } }),
      });
      const r = await render(root, source('overlay', { version: 'v5' }), t);
      assert.equal(r.tool, kustomize.path);
      await assert.rejects(
        render(root, source('overlay', { version: 'v4.5.7' }), t),
        /failed to render overlay: kustomize version v4\.5\.7 is not registered \(argocd-cm kustomize\.path\.v4\.5\.7\)/,
      );
    },
  );
});

describe('kustomize binary lookup', () => {
  it('without kustomize: a clear error naming how to install it (never kubectl kustomize)', async () => {
    const root = tree(TREE);
    await assert.rejects(render(root, source('overlay'), tools(tempDir())), (err: Error) => {
      assert.ok(err instanceof RenderError);
      assert.match(
        err.reason,
        /^kustomize is not installed: not on PATH nor in .* \(install it with `npm run tools`, or name one with --kustomize-path\)$/,
      );
      return true;
    });
    await assert.rejects(
      render(root, source('overlay'), tools(tempDir(), { kustomizePath: '/nonexistent/kustomize' })),
      /kustomize not found: --kustomize-path \/nonexistent\/kustomize is not an executable file/,
    );
  });
});
