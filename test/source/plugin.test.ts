import { strict as assert } from 'node:assert';
import { chmodSync, cpSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { parseApplication, parsePluginConfig, type PluginConfig } from '../../src/apps/index.js';
import type { KubeObject } from '../../src/common/index.js';
import { createSourceService } from '../../src/source/index.js';
import type { ApplicationSource, PluginOptions } from '../../src/apps/types.js';
import { renderSource, RenderError, type RenderRequest } from '../../src/source/render/index.js';
import {
  detectPlugin,
  discoveryOrder,
  goGlob,
  zglobMatches,
} from '../../src/source/render/plugin-discover.js';
import { pluginTimeoutMs } from '../../src/source/render/plugin.js';
import { build, TestRepo, tempDir, tools, tree } from '../support/git.js';
import { repoRoot } from '../support/paths.js';
import { realTool } from '../support/tools.js';

const SHA = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';

/** A ConfigManagementPlugin from YAML text (validated as loaded from a file). */
const config = (yaml: string, origin = 'plugin.yaml'): PluginConfig => parsePluginConfig(parse(yaml), origin);

/** A plugin whose generate is a shell script. */
const shellPlugin = (name: string, script: string, spec = ''): PluginConfig =>
  config(`apiVersion: argoproj.io/v1alpha1
kind: ConfigManagementPlugin
metadata: {name: ${name}}
spec:
  generate:
    command: [sh, -c]
    args:
      - ${JSON.stringify(script)}
${spec}`);

function request(root: string, path: string, plugin?: Partial<PluginOptions>): RenderRequest {
  const source: ApplicationSource = {
    repoURL: 'https://git.example.com/apps.git',
    path,
    targetRevision: 'main',
    ...(plugin ? { plugin: { name: '', env: [], parameters: [], ...plugin } } : {}),
  };
  return {
    appName: 'web',
    destNamespace: 'prod',
    source,
    root,
    refRoots: new Map(),
    build: build({ instanceName: 'web', project: 'team', revision: SHA }),
  };
}

const withPlugins = (plugins: PluginConfig[], notes: string[] = []) => ({
  ...tools(),
  plugins: async () => ({ plugins, notes }),
});

async function renderError(
  req: RenderRequest,
  plugins: PluginConfig[],
  notes: string[] = [],
): Promise<RenderError> {
  const err = await renderSource(req, withPlugins(plugins, notes)).then(
    () => assert.fail('expected an error'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof RenderError, String(err));
  return err;
}

/** Prints a ConfigMap named after the app whose data holds every variable the plugin got. */
const ENV_DUMP = `printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: %s\\ndata:\\n' "$ARGOCD_APP_NAME"
env | grep -E '^(ARGOCD_|KUBE_|PARAM_)' | sort | while IFS='=' read -r k v; do printf '  %s: %s\\n' "$k" "'$v'"; done`;

describe('config management plugins: discovery', () => {
  it('fileName is a Go filepath.Glob joined to the source directory (one segment per *, dot files too)', () => {
    const root = tree({ 'app/subdir/s1.yaml': '', 'app/.hidden.yaml': '', 'app/deep/x/s2.yaml': '' });
    assert.deepEqual(goGlob(join(root, 'app', './subdir/s*.yaml')), [join(root, 'app/subdir/s1.yaml')]);
    assert.equal(goGlob(join(root, 'app', '*.yaml')).length, 1); // .hidden.yaml: Go matches dot files
    assert.equal(goGlob(join(root, 'app', '*/s*.yaml')).length, 1); // * stays in its segment
    assert.equal(goGlob(join(root, 'app', 'subdir/s[0-9].yaml')).length, 1);
    assert.equal(goGlob(join(root, 'app', 'subdir/s[^0-9].yaml')).length, 0);
    assert.equal(goGlob(join(root, 'app', 'subdir/s?.yaml')).length, 1);
    assert.equal(goGlob(join(root, 'app', 'subdir')).length, 1); // no pattern: the path exists
  });

  it('find.glob is read as go-zglob: **/ crosses directories (zero of them too), ? is a plain character', () => {
    const root = tree({ 'app/deep/x/Chart.yaml': '', 'app/values.yaml': '', 'app/a?b': '' });
    assert.equal(zglobMatches(join(root, 'app', '**/Chart.yaml')), true);
    assert.equal(zglobMatches(join(root, 'app', '*/Chart.yaml')), false);
    assert.equal(zglobMatches(join(root, 'app', '**/values.yaml')), true);
    assert.equal(zglobMatches(join(root, 'app', '{values,other}.yaml')), true);
    assert.equal(zglobMatches(join(root, 'app', '*.json')), false);
    assert.equal(zglobMatches(join(root, 'app', 'a?b')), true); // no * or {: the literal path exists
    assert.equal(zglobMatches(join(root, 'app', 'a?*')), true);
    assert.equal(zglobMatches(join(root, 'app', 'v?lues.*')), false);
  });

  it('tries plugins with discovery rules in socket-file order; a named plugin is found by <name>-<version>', async () => {
    const b = shellPlugin('b', 'true', '  discover: {find: {glob: "*.yaml"}}');
    const a2 = shellPlugin('a', 'true', '  version: v2\n  discover: {fileName: "*.yaml"}');
    const plain = shellPlugin('plain', 'true');
    assert.deepEqual(
      discoveryOrder([b, plain, a2]).map((p) => p.id),
      ['a-v2', 'b'],
    );
    const root = tree({ 'app/x.yaml': '' });
    const never = async () => assert.fail('no find command here');
    assert.equal(
      ((await detectPlugin([b, a2, plain], '', join(root, 'app'), never)) as PluginConfig).id,
      'a-v2',
    );
    // Named: the version is part of the name; a plugin without discovery rules is used as is.
    assert.equal(
      ((await detectPlugin([b, a2, plain], 'plain', join(root, 'app'), never)) as PluginConfig).id,
      'plain',
    );
    assert.deepEqual(await detectPlugin([b, a2], 'a', join(root, 'app'), never), {
      missing: 'no plugin is named "a"',
    });
    // Named with discovery rules that do not match: refused, as Argo CD's cmpSupports does.
    const empty = tree({ 'app/x.txt': '' });
    assert.match(
      JSON.stringify(await detectPlugin([b], 'b', join(empty, 'app'), never)),
      /does not match this source by its discover rules/,
    );
  });
});

describe('config management plugins: rendering', () => {
  it('runs init then generate in the source directory of a copy, with the environment Argo CD sets', async () => {
    const root = tree({ 'apps/web/values.txt': 'v1\n' });
    const plugin = shellPlugin(
      'dump',
      `test -f init.done && ${ENV_DUMP}`,
      `  version: v1.0\n  init:\n    command: [sh, -c, 'touch init.done; echo Initializing...']`,
    );
    const req = request(root, 'apps/web', {
      name: 'dump-v1.0',
      env: [{ name: 'FOO', value: 'rev-$ARGOCD_APP_REVISION_SHORT' }],
      parameters: [{ name: 'image.tag', string: 'v2' }],
    });
    const result = await renderSource(req, withPlugins([plugin]));
    assert.equal(result.type, 'Plugin');
    assert.equal(result.objects.length, 1);
    const data = result.objects[0]!['data'] as Record<string, string>;
    assert.equal(result.objects[0]!.metadata?.name, 'web');
    assert.equal(data['ARGOCD_APP_NAMESPACE'], 'prod');
    assert.equal(data['ARGOCD_APP_PROJECT_NAME'], 'team');
    assert.equal(data['ARGOCD_APP_REVISION'], SHA);
    assert.equal(data['ARGOCD_APP_REVISION_SHORT'], 'a1b2c3d');
    assert.equal(data['ARGOCD_APP_SOURCE_PATH'], 'apps/web');
    assert.equal(data['ARGOCD_APP_SOURCE_REPO_URL'], 'https://git.example.com/apps.git');
    assert.equal(data['ARGOCD_APP_SOURCE_TARGET_REVISION'], 'main');
    assert.equal(data['ARGOCD_ENV_FOO'], 'rev-a1b2c3d');
    assert.equal(data['PARAM_IMAGE_TAG'], 'v2');
    assert.equal(data['ARGOCD_APP_PARAMETERS'], '[{"name":"image.tag","string":"v2"}]');
    assert.equal(data['KUBE_VERSION'], '');
    // The user's tree is never written to.
    assert.equal(existsSync(join(root, 'apps/web/init.done')), false);
  });

  it('a plugin discovered by a file renders a source of no explicit type, before kustomize detection', async () => {
    const root = tree({
      'apps/web/kustomization.yaml': 'resources: []\n',
      'apps/web/.sops.yaml': 'creation_rules: []\n',
      'apps/other/kustomization.yaml': 'resources: [cm.yaml]\n',
      'apps/other/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n',
    });
    const sops = shellPlugin(
      'sops',
      `printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"from-sops"}}'`,
      '  discover: {fileName: ".sops.yaml"}',
    );
    const web = await renderSource(request(root, 'apps/web'), withPlugins([sops]));
    assert.equal(web.type, 'Plugin');
    assert.deepEqual(
      web.objects.map((o) => o.metadata?.name),
      ['from-sops'],
    );
    // No match: the built-in detection goes on (kustomize here).
    const other = await renderSource(request(root, 'apps/other'), withPlugins([sops]));
    assert.equal(other.type, 'Kustomize');
  });

  it('a find command matches when it exits 0 and prints something; a failing one does not match', async () => {
    const root = tree({ 'apps/web/env.yaml': 'x: 1\n' });
    const find = (name: string, command: string) =>
      shellPlugin(
        name,
        `printf 'kind: ConfigMap\\napiVersion: v1\\nmetadata: {name: %s}\\n' ${name}`,
        `  discover:\n    find:\n      command: [sh, -c, ${JSON.stringify(command)}]`,
      );
    const plugins = [
      find('a-fails', 'exit 3'),
      find('b-silent', 'true'),
      find('c-finds', 'find . -name env.yaml'),
    ];
    const result = await renderSource(request(root, 'apps/web', {}), withPlugins(plugins));
    assert.deepEqual(
      result.objects.map((o) => o.metadata?.name),
      ['c-finds'],
    );
    // Nothing matches a `plugin: {}` source: the error says what was tried and the last command's failure.
    const err = await renderError(request(root, 'apps/web', {}), plugins.slice(0, 2));
    assert.match(
      err.reason,
      /no plugin matches this source by its discover rules; plugin "a-fails": discover command "sh" failed with exit code 3/,
    );
    assert.match(err.reason, /pass its plugin\.yaml with --plugin-config/);
  });

  it('a named plugin that is not configured: the error names the plugin, the flag and what was read', async () => {
    const root = tree({ 'apps/web/x.yaml': '' });
    const err = await renderError(
      request(root, 'apps/web', { name: 'kustomized-helm' }),
      [shellPlugin('other', 'true')],
      [
        'deployment argocd/argocd-repo-server container avp: its plugin.yaml is not mounted from a ConfigMap (in its image?)',
      ],
    );
    assert.equal(err.file, 'apps/web');
    assert.equal(
      err.reason,
      'config management plugin "kustomized-helm" is needed: no plugin is named "kustomized-helm" (configured: other); pass its plugin.yaml with --plugin-config; deployment argocd/argocd-repo-server container avp: its plugin.yaml is not mounted from a ConfigMap (in its image?)',
    );
  });

  it('parses the output as Argo CD: YAML or JSON stream, Lists flattened, anything else is an error', async () => {
    const root = tree({ 'app/x': '' });
    const yaml = shellPlugin(
      'y',
      `printf -- '---\\n# nothing\\n---\\napiVersion: v1\\nkind: ConfigMapList\\nitems:\\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\\n---\\n{"apiVersion":"v1","kind":"Secret","metadata":{"name":"b"}}\\n'`,
    );
    const ok = await renderSource(request(root, 'app', { name: 'y' }), withPlugins([yaml]));
    assert.deepEqual(
      ok.objects.map((o) => `${o.kind}/${o.metadata?.name}`),
      ['ConfigMap/a', 'Secret/b'],
    );
    const chatty = shellPlugin(
      'chatty',
      `echo Rendering...; printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: a}\\n'`,
    );
    const err = await renderError(request(root, 'app', { name: 'chatty' }), [chatty]);
    assert.match(err.reason, /^plugin "chatty" output: invalid YAML at line 1/);
    const scalar = shellPlugin(
      'scalar',
      `echo Rendering...; echo ---; printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: a}\\n'`,
    );
    const err2 = await renderError(request(root, 'app', { name: 'scalar' }), [scalar]);
    assert.match(err2.reason, /^plugin "scalar" output: document 1: not a Kubernetes object/);
    const empty = await renderSource(
      request(root, 'app', { name: 'y' }),
      withPlugins([shellPlugin('y', 'true')]),
    );
    assert.deepEqual(empty.objects, []);
  });

  it('resets file modes unless preserveFileMode, as the cmp-server unpacks the repository', async () => {
    const root = tree({
      'app/gen.sh': `#!/bin/sh\nprintf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: gen}\\n'\n`,
    });
    chmodSync(join(root, 'app/gen.sh'), 0o755);
    const run = (spec: string) => shellPlugin('gen', './gen.sh', spec);
    const err = await renderError(request(root, 'app', { name: 'gen' }), [run('')]);
    assert.match(
      err.reason,
      /plugin "gen": generate command "sh" failed with exit code 126: .*Permission denied/,
    );
    const ok = await renderSource(
      request(root, 'app', { name: 'gen' }),
      withPlugins([run('  preserveFileMode: true')]),
    );
    assert.equal(ok.objects[0]!.metadata?.name, 'gen');
  });

  it('never prints plugin env values: stderr that echoes them is masked', async () => {
    const root = tree({ 'app/x': '' });
    const leaky = shellPlugin('leaky', 'echo "vault token is $ARGOCD_ENV_VAULT_TOKEN" >&2; exit 1');
    const err = await renderError(
      request(root, 'app', { name: 'leaky', env: [{ name: 'VAULT_TOKEN', value: 's3cr3t-t0ken' }] }),
      [leaky],
    );
    assert.equal(
      err.reason,
      'plugin "leaky": generate command "sh" failed with exit code 1: vault token is ***',
    );
  });

  it('kills the whole process group after the timeout (ARGOCD_EXEC_TIMEOUT, else the render timeout)', async () => {
    assert.equal(pluginTimeoutMs(90_000, {}), 90_000);
    assert.equal(pluginTimeoutMs(90_000, { ARGOCD_EXEC_TIMEOUT: '2m30s' }), 150_000);
    assert.equal(pluginTimeoutMs(90_000, { ARGOCD_EXEC_TIMEOUT: 'soon' }), 90_000);
    const root = tree({ 'app/x': '' });
    const marker = join(tempDir(), 'child-alive');
    // The shell's child keeps running after its parent is killed unless the group is signalled.
    const slow = shellPlugin('slow', `(sleep 2; touch ${marker}) & wait`);
    const err = await renderSource(request(root, 'app', { name: 'slow' }), {
      ...withPlugins([slow]),
      timeoutMs: 300,
    }).then(
      () => assert.fail('expected a timeout'),
      (e: unknown) => e as RenderError,
    );
    assert.match(
      err.reason,
      /^plugin "slow": generate command "sh" timed out after 300 ms \(ARGOCD_EXEC_TIMEOUT\)$/,
    );
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(existsSync(marker), false);
  });
});

/** kustomized-helm (test/fixtures/plugins): helm template into all.yaml, then kustomize build. */
const FIXTURES = join(repoRoot, 'test', 'fixtures', 'plugins');
const fixturePlugin = (name: string) =>
  parsePluginConfig(parse(readFileSync(join(FIXTURES, 'config', name), 'utf8')), name);

/** The fixture repository's files, copied into a fresh tree. */
function fixtureTree(): string {
  const root = tempDir('kg-cmp-repo-');
  cpSync(join(FIXTURES, 'repo'), root, { recursive: true });
  return root;
}

// The plugin runs `helm` and `kustomize` from PATH, as a cmp sidecar does: the ones `npm run tools` installs
// go first on this process's PATH. Missing ones skip these tests on a developer machine and fail them in CI
// (test/support/tools.ts): never a silent skip because PATH lacks them.
const realHelm = realTool('helm');
const realKustomize = realTool('kustomize');
process.env['PATH'] = [dirname(realHelm.path), dirname(realKustomize.path), process.env['PATH']].join(':');

describe('config management plugins: kustomized-helm (helm, then kustomize)', () => {
  for (const [what, file, tools] of [
    ['the real helm', 'kustomized-helm.yaml', [realHelm, realKustomize]],
    ['a plain-shell helm stand-in', 'kustomized-helm-shell.yaml', [realKustomize]],
  ] as const) {
    const skip = tools.map((t) => t.skip).find(Boolean) ?? false;
    it(`discovered by **/Chart.yaml, with ${what} and kustomize`, { skip }, async () => {
      for (const t of tools) t.require();
      const root = fixtureTree();
      const result = await renderSource(
        request(root, 'plugins/kustomized-helm', {}),
        withPlugins([fixturePlugin(file)]),
      );
      assert.equal(result.type, 'Plugin');
      assert.deepEqual(
        result.objects.map(
          (o) => `${o.kind}/${o.metadata?.name}/${(o['data'] as { replicas: string }).replicas}`,
        ),
        ['ConfigMap/web-ui/3'],
      );
      assert.equal(existsSync(join(root, 'plugins/kustomized-helm/all.yaml')), false);
    });
  }
});

describe('config management plugins: the manifest cache', () => {
  it('keys plugin renders by the plugin configurations and the plugin block; a hit runs nothing', async () => {
    const repo = new TestRepo();
    const sha = repo.commit({ 'app/x.txt': 'x\n' });
    const runs = join(tempDir(), 'runs');
    const counting = (value: string) =>
      shellPlugin(
        'count',
        `echo run >> ${runs}; printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata: {name: %s}\\n' "${value}-$ARGOCD_ENV_X"`,
      );
    const application = (x: string) =>
      parseApplication(
        parse(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: web}
spec:
  source: {repoURL: ${repo.url}, path: app, plugin: {name: count, env: [{name: X, value: ${x}}]}}
  destination: {namespace: web}
`) as KubeObject,
        'apps.yaml',
      );
    const cacheRoot = tempDir();
    const render = async (plugin: PluginConfig, x: string) => {
      const service = createSourceService({
        cacheRoot,
        plugins: async () => ({ plugins: [plugin], notes: [] }),
      });
      try {
        const r = await service.renderApp(application(x));
        return {
          names: r.objects.map((o) => o.metadata?.name),
          cached: r.sources[0]!.cached,
          type: r.sources[0]!.type,
        };
      } finally {
        await service.close();
      }
    };
    const count = () => (existsSync(runs) ? readFileSync(runs, 'utf8').split('\n').length - 1 : 0);
    assert.deepEqual(await render(counting('a'), '1'), { names: ['a-1'], cached: false, type: 'Plugin' });
    assert.deepEqual(await render(counting('a'), '1'), { names: ['a-1'], cached: true, type: 'Plugin' });
    assert.equal(count(), 1);
    // Another plugin configuration, or another env value: rendered again.
    assert.deepEqual(await render(counting('b'), '1'), { names: ['b-1'], cached: false, type: 'Plugin' });
    assert.deepEqual(await render(counting('b'), '2'), { names: ['b-2'], cached: false, type: 'Plugin' });
    assert.equal(count(), 3);
    assert.ok(sha);
  });
});
