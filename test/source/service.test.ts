import { strict as assert } from 'node:assert';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { adHocApplication, parseApplication } from '../../src/apps/index.js';
import type { Application } from '../../src/apps/index.js';
import {
  createSourceService,
  SourceError,
  TRACKING_ANNOTATION,
  type SourceServiceOptions,
} from '../../src/source/index.js';
import { parse } from 'yaml';
import { cm, TestRepo, tempDir } from '../support/git.js';

function app(
  url: string,
  path: string,
  extra: { name?: string; revision?: string; namespace?: string } = {},
): Application {
  return adHocApplication({
    repo: url,
    path,
    name: extra.name ?? 'web',
    destNamespace: extra.namespace ?? 'web-ns',
    ...(extra.revision ? { revision: extra.revision } : {}),
  });
}

async function renderOnce(a: Application, options: SourceServiceOptions) {
  const service = createSourceService(options);
  try {
    const rendered = await service.renderApp(a);
    return { rendered, stats: service.stats };
  } finally {
    await service.close();
  }
}

function cacheFiles(cacheRoot: string): string[] {
  const dir = join(cacheRoot, 'manifests');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.json'))
    .map((f) => join(dir, f));
}

describe('source service: resolve, render, dedupe, stamp, cache', () => {
  it('renders a Git directory, stamps tracking ids and records the resolved SHA', async () => {
    const repo = new TestRepo();
    const sha = repo.commit({
      'app/cm.yaml': cm('settings'),
      'app/other.yaml': `${cm('pinned', '  namespace: elsewhere\n')}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.com\n`,
    });
    const { rendered } = await renderOnce(app(repo.url, 'app'), { cacheRoot: tempDir() });
    assert.equal(rendered.revision, sha);
    assert.deepEqual(rendered.sources, [
      {
        repoURL: repo.url,
        path: 'app',
        targetRevision: 'HEAD',
        revision: sha,
        type: 'Directory',
        cached: false,
      },
    ]);
    const ids = rendered.objects.map((o) => o.metadata?.annotations?.[TRACKING_ANNOTATION]);
    assert.deepEqual(ids, [
      'web:/ConfigMap:web-ns/settings',
      'web:/ConfigMap:elsewhere/pinned',
      'web:rbac.authorization.k8s.io/ClusterRole:web-ns/reader',
      undefined, // CRDs are never stamped
    ]);
    repo.remove();
  });

  it('an Application outside the control-plane namespace is tracked as <ns>_<name>', async () => {
    const repo = new TestRepo();
    repo.commit({ 'app/cm.yaml': cm('settings') });
    const manifest = { ...app(repo.url, 'app').manifest, metadata: { name: 'web', namespace: 'team-a' } };
    const a = parseApplication(manifest, 'test');
    const { rendered } = await renderOnce(a, { cacheRoot: tempDir() });
    assert.equal(
      rendered.objects[0]!.metadata!.annotations![TRACKING_ANNOTATION],
      'team-a_web:/ConfigMap:web-ns/settings',
    );
    repo.remove();
  });

  it('duplicates keep the last occurrence, with a warning', async () => {
    const repo = new TestRepo();
    repo.commit({
      'app/a.yaml': `${cm('dup', '  labels: {v: first}\n')}---\n${cm('keep')}`,
      'app/b.yaml': `${cm('dup', '  namespace: web-ns\n  labels: {v: last}\n')}`,
    });
    const { rendered } = await renderOnce(app(repo.url, 'app'), { cacheRoot: tempDir() });
    assert.deepEqual(
      rendered.objects.map((o) => [o.metadata?.name, o.metadata?.labels?.['v']]),
      [
        ['keep', undefined],
        ['dup', 'last'],
      ],
    );
    assert.deepEqual(rendered.warnings, [
      'app "web": Resource /ConfigMap/web-ns/dup appeared 2 times among application resources.',
    ]);
    repo.remove();
  });

  it('a second run at the same commit renders and fetches nothing; a moved branch renders again', async () => {
    const repo = new TestRepo();
    repo.commit({ 'app/cm.yaml': cm('one') });
    const cacheRoot = tempDir();
    const a = app(repo.url, 'app', { revision: 'main' });
    const cold = await renderOnce(a, { cacheRoot });
    assert.equal(cold.stats.renders, 1);
    assert.deepEqual(cold.stats.git.fetches, { [repo.url]: 1 });

    const warm = await renderOnce(a, { cacheRoot });
    assert.equal(warm.stats.renders, 0);
    assert.deepEqual(warm.stats.git.fetches, {});
    assert.equal(warm.stats.git.processes, 0, 'a local repository: branch read from its ref files, no git');
    assert.equal(warm.rendered.sources[0]!.cached, true);
    assert.deepEqual(warm.rendered.objects, cold.rendered.objects);

    const moved = repo.commit({ 'app/cm.yaml': cm('two') });
    const third = await renderOnce(a, { cacheRoot });
    assert.equal(third.rendered.revision, moved);
    assert.deepEqual(
      third.rendered.objects.map((o) => o.metadata?.name),
      ['two'],
    );
    assert.equal(third.stats.renders, 1);

    const hard = await renderOnce(a, { cacheRoot, hardRefresh: true });
    assert.equal(hard.stats.renders, 1);
    assert.equal(hard.rendered.sources[0]!.cached, false);
    repo.remove();
  });

  it('corrupt cache entries are ignored and rewritten', async () => {
    const repo = new TestRepo();
    repo.commit({ 'app/cm.yaml': cm('one') });
    const cacheRoot = tempDir();
    const a = app(repo.url, 'app');
    await renderOnce(a, { cacheRoot });
    const [entry] = cacheFiles(cacheRoot);
    for (const garbage of [
      '{"format":1,"objects":"nope"',
      '[]',
      '{"format":1,"type":"Directory","tool":"","toolFingerprint":"","objects":[1]}',
    ]) {
      writeFileSync(entry!, garbage);
      const again = await renderOnce(a, { cacheRoot });
      assert.equal(again.stats.renders, 1, `re-rendered after ${garbage}`);
      assert.deepEqual(
        again.rendered.objects.map((o) => o.metadata?.name),
        ['one'],
      );
      assert.equal((JSON.parse(readFileSync(entry!, 'utf8')) as { objects: unknown[] }).objects.length, 1);
    }
    repo.remove();
  });

  it('multiple sources: $ref value files come from the ref source at its own revision', async () => {
    const charts = new TestRepo();
    charts.commit({
      'chart/Chart.yaml': 'apiVersion: v2\nname: c\nversion: 1.0.0\n',
      'plain/cm.yaml': cm('plain'),
    });
    const values = new TestRepo();
    values.commit({ 'envs/prod.yaml': 'replicas: 3\n' });
    values.branch('prod');
    // A stand-in helm that prints the values file it was given.
    const bin = tempDir();
    writeFileSync(
      join(bin, 'helm'),
      '#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ "$1" = --values ]; then v=$(cat "$2"); fi; shift; done\nprintf "apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: from-helm\\ndata:\\n  values: \\"%s\\"\\n" "$v"\n',
    );
    chmodSync(join(bin, 'helm'), 0o755);
    const a = parseApplication(
      {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name: 'multi' },
        spec: {
          sources: [
            { repoURL: charts.url, path: 'chart', helm: { valueFiles: ['$vals/envs/prod.yaml'] } },
            { repoURL: values.url, targetRevision: 'prod', ref: 'vals' },
            { repoURL: charts.url, path: 'plain' },
          ],
          destination: { namespace: 'm' },
        },
      },
      'test',
    );
    const { rendered, stats } = await renderOnce(a, { cacheRoot: tempDir(), path: bin });
    assert.deepEqual(
      rendered.objects.map((o) => [
        o.metadata?.name,
        (o['data'] as Record<string, string> | undefined)?.['values'],
      ]),
      [
        ['from-helm', 'replicas: 3'],
        ['plain', undefined],
      ],
    );
    assert.deepEqual(
      rendered.sources.map((s) => s.type),
      ['Helm', undefined, 'Directory'],
    );
    assert.deepEqual(stats.git.fetches, { [charts.url]: 1, [values.url]: 1 });
    charts.remove();
    values.remove();
  });

  it('--local renders a working directory: no git, no cache, revision "local"', async () => {
    const repo = new TestRepo();
    repo.commit({ 'app/cm.yaml': cm('committed') });
    writeFileSync(join(repo.dir, 'app/cm.yaml'), cm('uncommitted'));
    const cacheRoot = tempDir();
    const { rendered, stats } = await renderOnce(app('https://example.invalid/unused.git', 'app'), {
      cacheRoot,
      local: repo.dir,
    });
    assert.equal(rendered.revision, 'local');
    assert.deepEqual(
      rendered.objects.map((o) => o.metadata?.name),
      ['uncommitted'],
    );
    assert.equal(stats.git.processes, 0);
    assert.equal(stats.cache.writes, 0);
    repo.remove();
  });

  it('failures name the app, the file or repository, and the reason (exit code 2)', async () => {
    const repo = new TestRepo();
    repo.commit({ 'app/bad.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: [\n' });
    const cacheRoot = tempDir();
    await assert.rejects(renderOnce(app(repo.url, 'app'), { cacheRoot }), (err: Error) => {
      assert.ok(err instanceof SourceError);
      assert.equal(err.exitCode, 2);
      assert.equal(err.app, 'web');
      assert.equal(err.file, 'app/bad.yaml');
      assert.equal(err.repo, repo.url);
      assert.match(
        err.message,
        new RegExp(
          `^app "web": failed to render app/bad\\.yaml from ${repo.url}: invalid YAML at line 4: .*column 1$`,
        ),
      );
      return true;
    });
    await assert.rejects(
      renderOnce(app(repo.url, 'app', { revision: 'nope' }), { cacheRoot }),
      new RegExp(
        `app "web": failed to resolve revision "nope": no such branch, tag or commit in ${repo.url}$`,
      ),
    );
    repo.remove();
  });
});

describe('cache entries are plain JSON of the rendered objects', () => {
  it('are keyed without credentials', async () => {
    const repo = new TestRepo();
    repo.commit({ 'app/cm.yaml': cm('x') });
    const cacheRoot = tempDir();
    await renderOnce(app(repo.url, 'app'), { cacheRoot });
    const text = readFileSync(cacheFiles(cacheRoot)[0]!, 'utf8');
    assert.deepEqual((parse(text) as { objects: unknown[] }).objects, [parse(cm('x'))]);
    repo.remove();
  });
});
