/**
 * `.jsonnet` files in directory sources, evaluated by the real `jsonnet` binary (Debian package `jsonnet`,
 * which `.ci/run` installs when it is missing). Gated on `jsonnet` alone, apart from Helm's real-binary test
 * (test/source/helm.test.ts), so a machine with one renderer still runs that renderer's tests.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { ApplicationSource, DirectoryOptions } from '../../src/apps/types.js';
import { which } from '../../src/source/exec.js';
import { jsonnetArgs } from '../../src/source/render/jsonnet.js';
import { renderSource, type RenderRequest } from '../../src/source/render/index.js';
import { build, tempDir, tools, tree } from '../support/git.js';

const jsonnetInstalled = Boolean(await which('jsonnet'));
const needsJsonnet = { skip: jsonnetInstalled ? false : 'skipped: jsonnet not installed' };

const JSONNET = {
  'app/main.jsonnet':
    'function(prefix="x") [{apiVersion: "v1", kind: "ConfigMap", metadata: {name: prefix + "-" + std.extVar("env")}}]\n',
  'app/plain.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n',
};

function directory(jsonnet: Partial<DirectoryOptions['jsonnet']> = {}): DirectoryOptions {
  return {
    recurse: false,
    include: '',
    exclude: '',
    jsonnet: {
      extVars: [{ name: 'env', value: 'prod', code: false }],
      tlas: [{ name: 'prefix', value: 'cfg', code: false }],
      libs: [],
      ...jsonnet,
    },
  };
}

function request(root: string, dir: DirectoryOptions, path = 'app'): RenderRequest {
  const source: ApplicationSource = { repoURL: 'u', path, targetRevision: 'HEAD', directory: dir };
  return { appName: 'web', destNamespace: 'prod', source, root, refRoots: new Map(), build: build() };
}

describe('jsonnet files in directory sources', () => {
  it('builds jsonnet arguments: source dir first on the import path, libs from the repository root', () => {
    const args = jsonnetArgs(
      '/r/app/main.jsonnet',
      '/r/app',
      '/r',
      directory({ libs: ['vendor'], extVars: [{ name: 'n', value: '2', code: true }] }).jsonnet,
    );
    assert.deepEqual(args, [
      '-J',
      '/r/app',
      '-J',
      '/r/vendor',
      '--ext-code',
      'n=2',
      '--tla-str',
      'prefix=cfg',
      '/r/app/main.jsonnet',
    ]);
  });

  it('without jsonnet on PATH the error says jsonnet is not installed', async () => {
    const root = tree(JSONNET);
    await assert.rejects(
      renderSource(request(root, directory()), tools(tempDir())),
      /failed to render app\/main\.jsonnet: jsonnet is not installed/,
    );
  });

  it('evaluates .jsonnet with extVars and TLAs (real jsonnet)', needsJsonnet, async () => {
    const root = tree(JSONNET);
    const r = await renderSource(request(root, directory()), tools());
    assert.equal(r.tool, 'jsonnet');
    assert.deepEqual(
      r.objects.map((o) => o.metadata?.name),
      ['cfg-prod', 'plain'],
    );
  });

  it(
    'imports from libs relative to the repository root and takes --ext-code values (real jsonnet)',
    needsJsonnet,
    async () => {
      const root = tree({
        'vendor/k.libsonnet':
          '{ cm(name, n):: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: name }, data: { n: std.toString(n) } } }\n',
        'app/main.jsonnet':
          'local k = import "k.libsonnet";\n{ apiVersion: "v1", kind: "List", items: [k.cm("a", std.extVar("n") * 2)] }\n',
      });
      const r = await renderSource(
        request(
          root,
          directory({ libs: ['vendor'], extVars: [{ name: 'n', value: '21', code: true }], tlas: [] }),
        ),
        tools(),
      );
      assert.deepEqual(r.objects, [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { n: '42' } },
      ]);
    },
  );

  it(
    "a jsonnet error names the file and carries jsonnet's message (real jsonnet)",
    needsJsonnet,
    async () => {
      const root = tree({ 'app/main.jsonnet': '{ a: std.extVar("missing") }\n' });
      await assert.rejects(
        renderSource(request(root, directory({ extVars: [], tlas: [] })), tools()),
        /failed to render app\/main\.jsonnet: jsonnet failed: RUNTIME ERROR: undefined external variable: missing/i,
      );
    },
  );
});
