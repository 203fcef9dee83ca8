/**
 * Renders keyed by what they read (src/source/tree-key.ts): a commit that leaves an app's inputs alone
 * finds the render of an earlier commit (no checkout, no render), one that touches them renders again, and
 * sources whose inputs Git cannot tell (Jsonnet, symlinks, kustomize) stay keyed by their commit.
 */
import { strict as assert } from 'node:assert';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { adHocApplication, type Application, type HelmOptions } from '../../src/apps/index.js';
import { TreeIndex } from '../../src/source/git-tree.js';
import { treeKey } from '../../src/source/tree-key.js';
import { cm, renderOnce, TestRepo, tempDir } from '../support/git.js';

function app(url: string, path: string, annotations: Record<string, string> = {}): Application {
  const a = adHocApplication({ repo: url, path, name: 'web', destNamespace: 'web-ns', revision: 'main' });
  return { ...a, annotations: { ...a.annotations, ...annotations } };
}

describe('renders keyed by the tree of what they read', () => {
  it('a directory app: a commit elsewhere reuses its render, a commit under its path renders again', async () => {
    const repo = new TestRepo();
    repo.commit({ 'app/cm.yaml': cm('one'), 'other/cm.yaml': cm('x') });
    const cacheRoot = tempDir();
    const a = app(repo.url, 'app');
    assert.equal((await renderOnce(a, { cacheRoot })).stats.renders, 1);
    const elsewhere = repo.commit({ 'other/cm.yaml': cm('y'), 'README.md': 'hi' });
    const second = await renderOnce(a, { cacheRoot });
    assert.equal(second.rendered.revision, elsewhere, 'reported at the new commit');
    assert.equal(second.stats.renders, 0, 'the render of the first commit');
    assert.equal(second.rendered.sources[0]!.cached, true);
    repo.commit({ 'app/cm.yaml': cm('two') });
    const third = await renderOnce(a, { cacheRoot });
    assert.equal(third.stats.renders, 1);
    assert.deepEqual(
      third.rendered.objects.map((o) => o.metadata?.name),
      ['two'],
    );
    repo.remove();
  });

  it('manifest-generate-paths: the declared paths key the render, whatever else changes', async () => {
    const repo = new TestRepo();
    repo.commit({ 'app/cm.yaml': cm('one'), 'values/a.yaml': 'x: 1\n', 'values/b.yaml': 'x: 1\n' });
    const cacheRoot = tempDir();
    const a = app(repo.url, 'app', { 'argocd.argoproj.io/manifest-generate-paths': '.;/values/a.yaml' });
    assert.equal((await renderOnce(a, { cacheRoot })).stats.renders, 1);
    repo.commit({ 'values/b.yaml': 'x: 2\n' });
    assert.equal((await renderOnce(a, { cacheRoot })).stats.renders, 0, 'an undeclared file changed');
    repo.commit({ 'values/a.yaml': 'x: 2\n' });
    assert.equal((await renderOnce(a, { cacheRoot })).stats.renders, 1, 'a declared file changed');
    repo.remove();
  });

  it('Jsonnet, symlinks and kustomizations keep the commit key', async () => {
    const repo = new TestRepo();
    repo.commit({
      'app/cm.yaml': cm('one'),
      'lib/x.txt': 'x',
      'k/kustomization.yaml': 'resources: [cm.yaml]\n',
      'k/cm.yaml': cm('k'),
    });
    const cacheRoot = tempDir();
    const a = app(repo.url, 'app');
    const listing = (files: Record<string, string | null>) => {
      repo.commit(files);
      return repo.git('ls-tree', '-r', '-t', '-z', '--full-tree', 'HEAD');
    };
    const none = () => Promise.reject(new Error('no blob'));
    const tree = new TreeIndex(listing({ 'app/x.jsonnet': '{}' }));
    assert.equal(await treeKey(a, a.sources[0]!, tree, none), undefined, 'jsonnet');
    symlinkSync('../lib/x.txt', join(repo.dir, 'app/link.yaml'));
    const linked = new TreeIndex(listing({ 'app/x.jsonnet': null }));
    assert.equal(await treeKey(a, a.sources[0]!, linked, none), undefined, 'symlink');
    const k = app(repo.url, 'k');
    assert.equal(await treeKey(k, k.sources[0]!, linked, none), undefined, 'kustomize');
    const plain = app(repo.url, 'lib');
    assert.ok(await treeKey(plain, plain.sources[0]!, linked, none), 'a plain directory has one');
    assert.equal((await renderOnce(k, { cacheRoot })).stats.renders, 1);
    repo.commit({ 'unrelated.txt': 'u' });
    assert.equal(
      (await renderOnce(k, { cacheRoot })).stats.renders,
      1,
      'kustomize: a new commit renders again',
    );
    repo.remove();
  });

  it('Helm charts in Git: the chart, its value files, and file:// dependencies inside the chart', async () => {
    const repo = new TestRepo();
    repo.commit({
      'chart/Chart.yaml': 'apiVersion: v2\nname: c\nversion: 1.0.0\n',
      'chart/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n',
      'values/a.yaml': 'x: 1\n',
    });
    const listing = () => new TreeIndex(repo.git('ls-tree', '-r', '-t', '-z', '--full-tree', 'HEAD'));
    const a = adHocApplication({ repo: repo.url, path: 'chart', name: 'web', destNamespace: 'ns' });
    const source = {
      ...a.sources[0]!,
      helm: { ...emptyHelm(), valueFiles: ['../values/a.yaml', 'missing.yaml'] },
    };
    const blob = (oid: string) => Promise.resolve(repo.git('cat-file', 'blob', oid));
    const first = await treeKey(a, source, listing(), blob);
    assert.ok(first);
    assert.deepEqual(
      (first as { files: string[][] }).files.map((f) => f[0]),
      ['../values/a.yaml', 'missing.yaml'],
    );
    assert.equal((first as { files: string[][] }).files[1]![1], 'none');
    repo.commit({ 'values/a.yaml': 'x: 2\n' });
    assert.notDeepEqual(await treeKey(a, source, listing(), blob), first, 'a value file changed');
    repo.commit({
      'chart/Chart.yaml':
        'apiVersion: v2\nname: c\nversion: 1.0.0\ndependencies:\n- {name: d, repository: "file://../d", version: 1.0.0}\n',
    });
    assert.equal(await treeKey(a, source, listing(), blob), undefined, 'a dependency outside the chart');
    const revision = {
      ...source,
      helm: {
        ...source.helm,
        parameters: [{ name: 'r', value: '$ARGOCD_APP_REVISION', forceString: false }],
      },
    };
    repo.commit({ 'chart/Chart.yaml': 'apiVersion: v2\nname: c\nversion: 1.0.0\n' });
    assert.equal(await treeKey(a, revision, listing(), blob), undefined, 'the revision is an input');
    repo.remove();
  });
});

function emptyHelm(): HelmOptions {
  return {
    valueFiles: [],
    parameters: [],
    fileParameters: [],
    values: '',
    apiVersions: [],
    skipCrds: false,
    skipTests: false,
    skipSchemaValidation: false,
    ignoreMissingValueFiles: false,
    passCredentials: false,
  };
}
