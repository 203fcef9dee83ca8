import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { loadPluginConfigFiles, mergePluginConfigs, parsePluginConfig } from '../../src/apps/index.js';
import { cmpServerConfigDir, sidecarConfigMap } from '../../src/apps/plugins.js';
import { UsageError } from '../../src/common/index.js';
import { tempDir } from '../support/git.js';

/** Argo CD's documented example (operator-manual/config-management-plugins.md), trimmed. */
const EXAMPLE = `apiVersion: argoproj.io/v1alpha1
kind: ConfigManagementPlugin
metadata:
  name: my-plugin
spec:
  version: v1.0
  init:
    command: [sh]
    args: [-c, 'echo "Initializing..."']
  generate:
    command: [sh, -c]
    args: ['echo {}']
  discover:
    fileName: "./subdir/s*.yaml"
    find:
      glob: "**/Chart.yaml"
      command: [sh, -c, find . -name env.yaml]
  parameters:
    static:
      - name: string-param
        title: Description of the string param
        required: false
        string: default-string-value
      - name: array-param
        array: [default, items]
        collectionType: array
      - name: map-param
        map: {some: value}
        collectionType: map
    dynamic:
      command: [echo, '[{"name": "example-param", "string": "default-string-value"}]']
  preserveFileMode: false
  provideGitCreds: false
`;

function configError(text: string): string {
  try {
    parsePluginConfig(parse(text), 'p.yaml');
  } catch (err) {
    assert.ok(err instanceof UsageError);
    assert.equal(err.exitCode, 2);
    return err.message;
  }
  return assert.fail('expected an error');
}

describe('ConfigManagementPlugin configurations', () => {
  it("reads Argo CD's documented example; the identity is <name>-<version>", () => {
    const p = parsePluginConfig(parse(EXAMPLE), 'p.yaml');
    assert.equal(p.id, 'my-plugin-v1.0');
    assert.deepEqual(p.init, { command: ['sh'], args: ['-c', 'echo "Initializing..."'] });
    assert.deepEqual(p.generate, { command: ['sh', '-c'], args: ['echo {}'] });
    assert.deepEqual(p.discover, {
      fileName: './subdir/s*.yaml',
      glob: '**/Chart.yaml',
      command: { command: ['sh', '-c', 'find . -name env.yaml'], args: [] },
    });
    assert.deepEqual(
      p.parameters.static.map((a) => a.name),
      ['string-param', 'array-param', 'map-param'],
    );
    assert.deepEqual(p.parameters.static[2]!.map, { some: 'value' });
    assert.equal(p.parameters.dynamic?.command[0], 'echo');
    assert.equal(p.origin, 'p.yaml');
    assert.match(p.digest, /^[0-9a-f]{64}$/);
    // Without a version the identity is the name alone.
    assert.equal(parsePluginConfig(parse(EXAMPLE.replace('  version: v1.0\n', '')), 'p').id, 'my-plugin');
  });

  it("validates as Argo CD's ValidatePluginConfig, in its words; field types as Go's", () => {
    assert.match(
      configError('kind: ConfigManagementPlugin\nmetadata: {}\nspec: {generate: {command: [a]}}'),
      /invalid plugin configuration file\. metadata\.name should be non-empty$/,
    );
    assert.match(
      configError('kind: ConfigMap\nmetadata: {name: x}\nspec: {generate: {command: [a]}}'),
      /invalid plugin configuration file\. kind should be ConfigManagementPlugin, found ConfigMap$/,
    );
    assert.match(
      configError('kind: ConfigManagementPlugin\nmetadata: {name: x}\nspec: {generate: {args: [a]}}'),
      /spec\.generate command should be non-empty$/,
    );
    assert.match(
      configError(
        'kind: ConfigManagementPlugin\nmetadata: {name: x}\nspec: {generate: {command: "sh -c x"}}',
      ),
      /^p\.yaml: failed to read plugin configuration: spec\.generate\.command must be a list of strings$/,
    );
  });

  it('loads files and folders: plugin.yaml documents and ConfigMaps holding them; a path holding none fails', async () => {
    const dir = tempDir('kg-cmp-');
    mkdirSync(join(dir, 'plugins/nested'), { recursive: true });
    writeFileSync(join(dir, 'plugins/nested/plugin.yaml'), EXAMPLE);
    writeFileSync(
      join(dir, 'plugins/argocd-cmp-cm.yaml'),
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: {name: argocd-cmp-cm}',
        'data:',
        '  kh.yaml: |',
        '    apiVersion: argoproj.io/v1alpha1',
        '    kind: ConfigManagementPlugin',
        '    metadata: {name: kustomized-helm}',
        '    spec: {generate: {command: [sh, -c, "kustomize build"]}}',
        '  notes.txt: not a plugin',
        '',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'plugins/readme.md'), '# not read');
    const plugins = await loadPluginConfigFiles([join(dir, 'plugins')]);
    assert.deepEqual(
      plugins.map((p) => [p.id, p.origin.replace(dir, '')]),
      [
        ['kustomized-helm', '/plugins/argocd-cmp-cm.yaml (document 1) key kh.yaml'],
        ['my-plugin-v1.0', '/plugins/nested/plugin.yaml (document 1)'],
      ],
    );
    writeFileSync(
      join(dir, 'other.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\n',
    );
    await assert.rejects(
      loadPluginConfigFiles([join(dir, 'other.yaml')]),
      /other\.yaml: failed to read plugin configuration: no ConfigManagementPlugin, and no ConfigMap holding one/,
    );
    await assert.rejects(
      loadPluginConfigFiles([join(dir, 'missing')]),
      /missing: failed to read plugin configuration/,
    );
  });

  it('the first configuration of an identity wins; the others are noted', () => {
    const a = parsePluginConfig(parse(EXAMPLE), 'file.yaml');
    const b = parsePluginConfig(parse(EXAMPLE), 'configmap argocd/argocd-cmp-cm key p.yaml');
    const merged = mergePluginConfigs({ plugins: [a], notes: [] }, { plugins: [b], notes: ['n'] });
    assert.deepEqual(merged.plugins, [a]);
    assert.deepEqual(merged.notes, [
      'n',
      'configmap argocd/argocd-cmp-cm key p.yaml: plugin "my-plugin-v1.0" is also defined by file.yaml, which is used',
    ]);
  });

  it("finds a sidecar's plugin.yaml ConfigMap as Argo CD's install mounts it", () => {
    const volumes = [
      { name: 'cmp', configMap: { name: 'argocd-cmp-cm' } },
      { name: 'mapped', configMap: { name: 'other', items: [{ key: 'kh.yaml', path: 'plugin.yaml' }] } },
      { name: 'tmp' },
    ];
    const container = (
      mounts: { name: string; mountPath: string; subPath?: string }[],
      args: string[] = [],
    ) => ({
      command: ['/var/run/argocd/argocd-cmp-server'],
      args,
      volumeMounts: mounts,
    });
    const dir = '/home/argocd/cmp-server/config';
    assert.deepEqual(
      sidecarConfigMap(
        container([{ name: 'cmp', mountPath: `${dir}/plugin.yaml`, subPath: 'kh.yaml' }]),
        volumes,
        dir,
      ),
      { configMap: 'argocd-cmp-cm', key: 'kh.yaml' },
    );
    // The whole volume on the config directory: the item mapped to plugin.yaml.
    assert.deepEqual(sidecarConfigMap(container([{ name: 'mapped', mountPath: dir }]), volumes, dir), {
      configMap: 'other',
      key: 'kh.yaml',
    });
    assert.equal(sidecarConfigMap(container([{ name: 'tmp', mountPath: '/tmp' }]), volumes, dir), undefined);
    assert.equal(cmpServerConfigDir(container([])), dir);
    assert.equal(cmpServerConfigDir(container([], ['--config-dir-path', '/etc/cmp/'])), '/etc/cmp');
    assert.equal(cmpServerConfigDir({ command: ['/usr/local/bin/argocd-repo-server'] }), undefined);
  });
});
