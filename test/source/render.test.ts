import { strict as assert } from 'node:assert';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ApplicationSource } from '../../src/apps/types.js';
import { globToRegExp } from '../../src/source/render/directory.js';
import { RenderError, renderSource } from '../../src/source/render/index.js';
import { build, cm, tools, tree } from '../support/git.js';

function source(path: string, extra: Partial<ApplicationSource> = {}): ApplicationSource {
  return { repoURL: 'file:///x', path, targetRevision: 'HEAD', ...extra };
}

async function render(root: string, src: ApplicationSource, t = tools()) {
  return renderSource(
    { appName: 'app', destNamespace: 'dest', source: src, root, refRoots: new Map(), build: build() },
    t,
  );
}

const names = (objs: { metadata?: { name?: string } }[]) => objs.map((o) => o.metadata?.name);

describe('directory sources (Argo CD rules)', () => {
  const root = tree({
    'app/a.yaml': `${cm('a')}---\n\n---\n# only a comment\n---\n${cm('b')}`,
    'app/b.yml': `apiVersion: v1\nkind: List\nitems:\n- ${cm('c').replace(/\n/g, '\n  ')}\n- ${cm('d').replace(/\n/g, '\n  ')}`,
    'app/c.json': JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e' } }),
    'app/values.yaml': 'replicas: 3\nimage: nginx\n',
    'app/README.md': '# not read',
    'app/Deploy.YAML': 'not: read',
    'app/sub/f.yaml': cm('f'),
    'app/sub/deeper/g.yaml': cm('g'),
    'app/sub/skip.yaml': cm('skip'),
  });

  it('reads YAML/JSON files, multi-doc, List flattened, empty docs and unrelated YAML skipped', async () => {
    const r = await render(root, source('app'));
    assert.equal(r.type, 'Directory');
    assert.deepEqual(names(r.objects), ['a', 'b', 'c', 'd', 'e']);
  });

  it('subdirectories only with recurse; include/exclude globs on the relative path', async () => {
    const all = await render(
      root,
      source('app', {
        directory: { recurse: true, include: '', exclude: '', jsonnet: { extVars: [], tlas: [], libs: [] } },
      }),
    );
    assert.deepEqual(names(all.objects), ['a', 'b', 'c', 'd', 'e', 'g', 'f', 'skip']);
    const some = await render(
      root,
      source('app', {
        directory: {
          recurse: true,
          include: 'sub/*',
          exclude: '{*skip*,nothing}',
          jsonnet: { extVars: [], tlas: [], libs: [] },
        },
      }),
    );
    assert.deepEqual(names(some.objects), ['g', 'f']);
  });

  it('gobwas-style globs: * crosses "/", {a,b} alternatives, [!x] classes', () => {
    assert.ok(globToRegExp('*.yaml').test('sub/x.yaml'));
    assert.ok(globToRegExp('{a,b}.yaml').test('b.yaml'));
    assert.ok(!globToRegExp('{a,b}.yaml').test('c.yaml'));
    assert.ok(globToRegExp('[!x]?.json').test('ab.json'));
    assert.ok(!globToRegExp('[!x]?.json').test('xb.json'));
    assert.ok(!globToRegExp('a.yaml').test('aXyaml'));
  });

  it('a file that looks like a resource but is broken is an error naming the file', async () => {
    const bad = tree({
      'app/ok.yaml': cm('ok'),
      'app/broken.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n',
    });
    await assert.rejects(render(bad, source('app')), (err: Error) => {
      assert.ok(err instanceof RenderError);
      assert.equal(err.file, 'app/broken.yaml');
      assert.match(err.reason, /invalid YAML at line/);
      return true;
    });
    const partly = tree({ 'app/x.yaml': `${cm('ok')}---\nfoo: bar\n` });
    await assert.rejects(
      render(partly, source('app')),
      /failed to render app\/x\.yaml: document 2: Object 'Kind' is missing/,
    );
    const json = tree({ 'app/x.json': '{"foo": 1}' });
    await assert.rejects(
      render(json, source('app')),
      /failed to render app\/x\.json: Object 'Kind' is missing/,
    );
  });

  it('paths outside the repository, missing paths and escaping symlinks are errors', async () => {
    await assert.rejects(
      render(root, source('../etc')),
      /failed to render \.\.\/etc: path is outside the repository/,
    );
    await assert.rejects(
      render(root, source('nope')),
      /failed to render nope: path does not exist in the repository/,
    );
    const outside = tree({ 'secret.yaml': cm('s') });
    const linked = tree({ 'app/ok.yaml': cm('ok') });
    symlinkSync(join(outside, 'secret.yaml'), join(linked, 'app/link.yaml'));
    await assert.rejects(
      render(linked, source('app')),
      /app\/link\.yaml: symlink points outside the repository/,
    );
  });
});

describe('app-of-apps: rendered Applications and ApplicationSets keep string fields as written (issue 14)', () => {
  it('targetRevision: 1.10 in a rendered child Application and ApplicationSet template stays "1.10"', async () => {
    const root = tree({
      'apps/child.yaml': `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: child, labels: {v: 2.0}}
spec:
  project: default
  source: {repoURL: https://example.com/r.git, path: web, targetRevision: 1.10, chart: 010}
  destination: {server: https://kubernetes.default.svc, namespace: 2024}
  syncPolicy: {retry: {limit: 5}}
`,
      'apps/set.yaml': `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: set}
spec:
  generators:
  - list: {elements: [{version: 1.10}]}
  - matrix:
      generators:
      - list:
          elements: [{a: 1}]
          template: {spec: {source: {targetRevision: 2.10}}}
  template:
    metadata: {name: gen}
    spec:
      source: {repoURL: https://example.com/r.git, path: web, targetRevision: 1.10}
      destination: {server: https://kubernetes.default.svc, namespace: web}
`,
      'apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {v: 1.10}\n',
      // Another tool's Application (KubeVela): its numbers and booleans are not Argo CD's strings.
      'apps/vela.yaml': `apiVersion: core.oam.dev/v1beta1
kind: Application
metadata: {name: vela}
spec:
  components:
  - name: web
    type: webservice
    properties: {port: 80, cpu: 0.5}
`,
      'apps/owned.yaml': `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: owned
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: cm, uid: u1, controller: true, blockOwnerDeletion: true}]
spec: {project: default}
`,
    });
    const r = await render(root, source('apps'));
    const byName = new Map(r.objects.map((o) => [o.metadata?.name, o]));
    // Reads a field by its dotted path (numbers index lists).
    const at = (name: string, path: string): unknown =>
      path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], byName.get(name));
    assert.equal(at('child', 'spec.source.targetRevision'), '1.10');
    assert.equal(at('child', 'spec.source.chart'), '010');
    assert.equal(at('child', 'spec.destination.namespace'), '2024');
    assert.deepEqual(at('child', 'metadata.labels'), { v: '2.0' });
    assert.equal(at('child', 'spec.syncPolicy.retry.limit'), 5, 'integers stay integers');
    assert.equal(at('set', 'spec.template.spec.source.targetRevision'), '1.10');
    assert.equal(
      at('set', 'spec.generators.1.matrix.generators.0.list.template.spec.source.targetRevision'),
      '2.10',
    );
    // Generator parameters are raw JSON in Argo CD: YAML's number stays a number there.
    assert.equal(at('set', 'spec.generators.0.list.elements.0.version'), 1.1);
    assert.equal(at('set', 'spec.generators.1.matrix.generators.0.list.elements.0.a'), 1);
    // Other kinds are read as YAML reads them, other tools' Applications too.
    assert.equal(at('cm', 'data.v'), 1.1);
    assert.equal(at('vela', 'spec.components.0.properties.port'), 80);
    assert.equal(at('vela', 'spec.components.0.properties.cpu'), 0.5);
    // An owner reference's booleans are booleans (the API server refuses strings there).
    assert.equal(at('owned', 'metadata.ownerReferences.0.controller'), true);
    assert.equal(at('owned', 'metadata.ownerReferences.0.blockOwnerDeletion'), true);
  });
});
