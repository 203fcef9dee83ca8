import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { parseApplication } from '../../src/apps/index.js';
import { buildAppTree, clusterSource } from '../../src/preview/index.js';
import { createSourceService } from '../../src/source/index.js';
import type { KubeObject } from '../../src/util/yaml-docs.js';
import { runCli } from '../support/cli.js';
import { TestRepo, tempDir } from '../support/git.js';

const app = (url: string, name: string, path: string) => `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ${name}, namespace: argocd}
spec:
  source: {repoURL: ${url}, path: ${path}}
  destination: {server: https://kubernetes.default.svc, namespace: argocd}
`;
const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\n`;

function rootApp(url: string, path: string) {
  return parseApplication(parseAllDocuments(app(url, 'root', path))[0]!.toJS() as KubeObject, 'root.yaml');
}

describe('app tree: app-of-apps and ApplicationSets', () => {
  const repo = new TestRepo();
  repo.commit({
    'root/a.yaml': app(repo.url, 'a', 'a'),
    'a/b.yaml': app(repo.url, 'b', 'b'),
    'b/cm.yaml': cm('leaf'),
    // A loop: loop1 renders loop2, which renders loop1.
    'loop1/x.yaml': app(repo.url, 'loop2', 'loop2'),
    'loop2/x.yaml': app(repo.url, 'loop1', 'loop1'),
    'sets/set.yaml': `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: s}
spec:
  generators: [{git: {repoURL: ${repo.url}, revision: main, directories: [{path: 'svc/*'}]}}]
  template:
    metadata: {name: 'svc-{{path.basename}}'}
    spec:
      source: {repoURL: ${repo.url}, path: '{{path}}'}
      destination: {server: https://kubernetes.default.svc, namespace: '{{path.basename}}'}
`,
    // Issue 14: Applications of a render keep their string fields as written (1.10 is not 1.1).
    'pinned/child.yaml': app(repo.url, 'pinned', 'b').replace('path: b}', 'path: b, targetRevision: 1.10}'),
    'pinned/list.yaml': `apiVersion: v1
kind: List
items:
  - apiVersion: argoproj.io/v1alpha1
    kind: Application
    metadata: {name: listed, namespace: argocd}
    spec:
      source: {repoURL: ${repo.url}, path: b, targetRevision: 4.10}
      destination: {server: https://kubernetes.default.svc, namespace: argocd}
`,
    'pinned/set.yaml': `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: pinned-set, namespace: argocd}
spec:
  goTemplate: true
  # (not "n": YAML 1.1, as Kubernetes reads it, makes that key false)
  generators:
    - list: {elements: [{v: plain}]}
    - list: {elements: [{v: patched}]}
  template:
    metadata: {name: 'set-{{.v}}'}
    spec:
      source: {repoURL: ${repo.url}, path: b, targetRevision: 2.10}
      destination: {server: https://kubernetes.default.svc, namespace: argocd}
  templatePatch: |
    {{- if eq .v "patched" }}
    spec:
      source: {targetRevision: 3.10}
    {{- end }}
`,
    'svc/one/cm.yaml': cm('one'),
    'svc/two/cm.yaml': cm('two'),
  });
  const cache = tempDir('kg-cache-');

  async function build(path: string, maxDepth = 5, recursive = true) {
    const service = createSourceService({ cacheRoot: cache });
    try {
      return await buildAppTree([rootApp(repo.url, path)], [], {
        service,
        argocdNamespace: 'argocd',
        recursive,
        maxDepth,
        clusters: clusterSource({ clustersFiles: [] }),
      });
    } finally {
      await service.close();
    }
  }

  it('renders children recursively, each from its parent render', async () => {
    const tree = await build('root');
    assert.deepEqual(
      tree.nodes.map((n) => [
        n.app.name,
        n.depth,
        n.chain.join('>'),
        n.rendered?.objects.length,
        n.error?.message,
      ]),
      [
        ['root', 0, '', 1, undefined],
        ['a', 1, 'argocd/root', 1, undefined],
        ['b', 2, 'argocd/root>argocd/a', 1, undefined],
      ],
    );
  });

  it('--max-depth and --no-recursive stop the walk', async () => {
    const shallow = await build('root', 1);
    assert.equal(shallow.nodes.length, 3);
    assert.match(
      shallow.nodes[2]!.error!.message,
      /app "b": failed to render child apps: deeper than --max-depth 1 \(root -> a -> b\)/,
    );
    const flat = await build('root', 5, false);
    assert.deepEqual(
      flat.nodes.map((n) => [n.app.name, n.rendered]),
      [['root', undefined]],
    );
  });

  it('children and ApplicationSet Applications from a render keep string fields as written (1.10)', async () => {
    const tree = await build('pinned');
    assert.deepEqual(tree.nodes.map((n) => [n.app.name, n.app.sources[0]!.targetRevision]).sort(), [
      ['listed', '4.10'],
      ['pinned', '1.10'],
      ['root', 'HEAD'],
      ['set-patched', '3.10'],
      ['set-plain', '2.10'],
    ]);
  });

  it('a cycle is an error naming the loop', async () => {
    const tree = await build('loop1');
    const errors = tree.nodes.flatMap((n) => (n.error ? [n.error.message] : []));
    // root renders loop2, loop2 renders loop1, loop1 renders loop2 again.
    assert.deepEqual(errors, ['app "loop2": failed to render child apps: cycle loop2 -> loop1 -> loop2']);
  });

  it('render: ApplicationSets in -f files expand (git directories), --appsets-only prints the Applications', async () => {
    const files = tempDir();
    writeFileSync(join(files, 'set.yaml'), repo.git('show', 'HEAD:sets/set.yaml'));
    const env = { XDG_CACHE_HOME: cache };
    const only = await runCli(['render', '-f', files, '--appsets-only'], { env });
    assert.equal(only.code, 0, only.stderr);
    const docs = parseAllDocuments(only.stdout).map((d) => d.toJS() as KubeObject);
    assert.deepEqual(
      docs.map((d) => [d.kind, d.metadata?.name, d.metadata?.namespace]),
      [
        ['Application', 'svc-one', 'argocd'],
        ['Application', 'svc-two', 'argocd'],
      ],
    );
    const rendered = await runCli(['render', '-f', files, '-o', 'json', 'svc-two'], { env });
    assert.equal(rendered.code, 0, rendered.stderr);
    const out = JSON.parse(rendered.stdout) as { apps: { name: string; objects: KubeObject[] }[] };
    assert.deepEqual(
      out.apps.map((a) => [a.name, a.objects.map((o) => o.metadata?.name)]),
      [['svc-two', ['two']]],
    );
  });

  it('render --appsets-only: clusters generator from --clusters-file (label selector, in-cluster)', async () => {
    const files = tempDir();
    const secret = (name: string, server: string, env: string) =>
      `apiVersion: v1\nkind: Secret\nmetadata: {name: ${name}, labels: {argocd.argoproj.io/secret-type: cluster, env: ${env}}}\nstringData: {name: ${name}, server: '${server}'}\n`;
    writeFileSync(
      join(files, 'clusters.yaml'),
      [
        secret('prod-1', 'https://p1.example.com', 'prod'),
        secret('dev-1', 'https://d1.example.com', 'dev'),
      ].join('---\n'),
    );
    const set = (selector: string) => `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: c}
spec:
  generators: [{clusters: {${selector}}}]
  template:
    metadata: {name: 'web-{{name}}'}
    spec:
      source: {repoURL: ${repo.url}, path: svc/one}
      destination: {server: '{{server}}', namespace: web}
`;
    mkdirSync(join(files, 'all'));
    mkdirSync(join(files, 'prod'));
    writeFileSync(join(files, 'all', 'set.yaml'), set(''));
    writeFileSync(join(files, 'prod', 'set.yaml'), set('selector: {matchLabels: {env: prod}}'));
    const env = { XDG_CACHE_HOME: cache };
    const names = async (dir: string) => {
      const r = await runCli(
        ['render', '-f', join(files, dir), '--appsets-only', '--clusters-file', join(files, 'clusters.yaml')],
        { env },
      );
      assert.equal(r.code, 0, r.stderr);
      return parseAllDocuments(r.stdout).map((d) => (d.toJS() as KubeObject).metadata?.name);
    };
    // The Secrets by name, the in-cluster entry last (as Argo CD appends it).
    assert.deepEqual(await names('all'), ['web-dev-1', 'web-prod-1', 'web-in-cluster']);
    assert.deepEqual(await names('prod'), ['web-prod-1']);
  });

  it('render follows app-of-apps by default; --no-recursive renders only the given app', async () => {
    const files = tempDir();
    writeFileSync(join(files, 'root.yaml'), app(repo.url, 'root', 'root'));
    const env = { XDG_CACHE_HOME: cache };
    const names = async (...extra: string[]) => {
      const r = await runCli(['render', '-f', files, '-o', 'json', ...extra], { env });
      assert.equal(r.code, 0, r.stderr);
      return (JSON.parse(r.stdout) as { apps: { name: string }[] }).apps.map((a) => a.name);
    };
    assert.deepEqual(await names(), ['root', 'a', 'b']);
    assert.deepEqual(await names('--no-recursive'), ['root']);
    const shallow = await runCli(['render', '-f', files, '-o', 'json', '--max-depth', '1'], { env });
    assert.equal(shallow.code, 2);
    assert.match(
      shallow.stderr,
      /app "b": failed to render child apps: deeper than --max-depth 1 \(root -> a -> b\)/,
    );
    // The child too deep is listed in its place with its own error (issue 34).
    assert.deepEqual(
      (JSON.parse(shallow.stdout) as { apps: { name: string; error?: string }[] }).apps.map((a) => [
        a.name,
        /deeper than --max-depth 1/.test(a.error ?? ''),
      ]),
      [
        ['root', false],
        ['a', false],
        ['b', true],
      ],
    );
  });
});
