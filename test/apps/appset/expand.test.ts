import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import {
  expandApplicationSet,
  generateApplications,
  loadApplicationSetFiles,
  renderGoTemplate,
  replaceFast,
  type AppSetCluster,
  type ExpandContext,
} from '../../../src/apps/appset/index.js';
import { UsageError } from '../../../src/common/index.js';
import { mergeGeneratorTemplate } from '../../../src/apps/appset/generators.js';
import type { KubeObject } from '../../../src/util/yaml-docs.js';
import { tempDir } from '../../support/git.js';

function tree(files: Record<string, string>): string {
  const dir = tempDir('kg-appset-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const CLUSTERS: AppSetCluster[] = [
  {
    name: 'in-cluster',
    server: 'https://kubernetes.default.svc',
    labels: {},
    annotations: {},
    inCluster: true,
  },
  { name: 'Prod-EU', server: 'https://eu.example.com', labels: { env: 'prod' }, annotations: { a: 'x' } },
  {
    name: 'staging',
    server: 'https://stg.example.com',
    labels: { env: 'staging' },
    annotations: {},
    project: 'p1',
  },
];

function ctx(root = tempDir(), checkouts: string[] = []): ExpandContext {
  return {
    defaultNamespace: 'argocd',
    clusters: () => Promise.resolve(CLUSTERS),
    checkout: (url, rev) => {
      checkouts.push(`${url}@${rev}`);
      return Promise.resolve(root);
    },
  };
}

const expand = (yaml: string, c = ctx()) =>
  expandApplicationSet(parse(yaml) as KubeObject, 'set.yaml (document 1)', c);

const TEMPLATE = `  template:
    metadata: {name: '{{name}}-app', labels: {cluster: '{{nameNormalized}}'}}
    spec:
      project: default
      source: {repoURL: https://example.com/r.git, path: 'apps/{{name}}', targetRevision: HEAD}
      destination: {server: '{{server}}', namespace: web}`;

describe('ApplicationSet templates', () => {
  it('fasttemplate replaces known string params and keeps unknown tags as written', () => {
    assert.equal(replaceFast('{{ a }}-{{b}}-{{}}-{{ nope }}', { a: 'x', b: 'y' }), 'x-y-{{}}-{{ nope }}');
  });

  it('Go templates: fields, pipelines, functions, control flow, trimming, missing keys', () => {
    const p = {
      path: { basename: 'Web_App', segments: ['apps', 'web'] },
      n: 3,
      list: ['a', 'b'],
      m: { k: 'v' },
    };
    assert.equal(
      renderGoTemplate('{{ .path.basename | lower | replace "_" "-" }}', p),
      'web_app'.replace('_', '-'),
    );
    assert.equal(renderGoTemplate('{{ index .path.segments 1 }}/{{ index .m "k" }}', p), 'web/v');
    assert.equal(renderGoTemplate('{{ default "dflt" .missing }}|{{ .missing }}', p), 'dflt|<no value>');
    assert.equal(
      renderGoTemplate('{{ normalize .path.basename }}|{{ upper "x" }}|{{ trunc 2 "abcd" }}', p),
      'web-app|X|ab',
    );
    assert.equal(
      renderGoTemplate('{{ toJson .list }}|{{ base "a/b/c.yaml" }}|{{ dir "a/b/c" }}', p),
      '["a","b"]|c.yaml|a/b',
    );
    assert.equal(renderGoTemplate('{{- if eq .n 3 }} three {{- else }}other{{ end -}}', p), ' three');
    assert.equal(renderGoTemplate('{{ range $i, $v := .list }}{{ $i }}={{ $v }};{{ end }}', p), '0=a;1=b;');
    assert.equal(renderGoTemplate('{{ $x := .m.k }}{{ with .m }}{{ .k }}{{ $x }}{{ end }}', p), 'vv');
    assert.throws(
      () => renderGoTemplate('{{ .missing.deeper }}', p, ['missingkey=error']),
      /no entry for key "missing"/,
    );
    assert.throws(() => renderGoTemplate('{{ sha256sum .n }}', p), /function "sha256sum" not defined/);
  });
});

describe("Go template errors in Argo CD's words (the controller's status)", () => {
  const set = (template: Record<string, unknown>, templatePatch?: string): KubeObject =>
    ({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'ApplicationSet',
      metadata: { name: 's', namespace: 'argocd' },
      spec: {
        goTemplate: true,
        goTemplateOptions: ['missingkey=error'],
        generators: [{ list: { elements: [{ env: 'a', m: { x: 1 } }] } }],
        template: { metadata: { name: 'n' }, spec: { project: 'default', ...template } },
        ...(templatePatch ? { templatePatch } : {}),
      },
    }) as KubeObject;
  const ctx = { defaultNamespace: 'argocd', clusters: async () => [], checkout: async () => '' };

  it('a missing key: the template text, base:<line>:<byte column> and the field chain, as text/template prints them', async () => {
    const a = await generateApplications(
      set({ info: [{ name: 'x', value: 'é {{ if .env }}\n  {{ .m.y }}{{ end }}' }] }),
      ctx,
    );
    assert.equal(a.error?.reason, 'RenderTemplateParamsError');
    assert.equal(
      a.error?.message,
      'failed to execute go template é {{ if .env }}\n  {{ .m.y }}{{ end }}: template: base:2:5: executing "base" at <.m.y>: map has no entry for key "y"',
    );
    // Local previews keep the message naming the field and the generator.
    assert.match(
      a.error?.located ?? '',
      /^spec\.template \(spec\.generators\[0\]\): map has no entry for key "y"$/,
    );
    const p = await generateApplications(set({}, 'spec:\n  project: {{ $.nope }}\n'), ctx);
    assert.equal(
      p.error?.message,
      'error replacing values in templatePatch: failed to execute go template spec:\n  project: {{ $.nope }}\n: template: base:2:14: executing "base" at <$.nope>: map has no entry for key "nope"',
    );
  });
});

describe('expanding ApplicationSets', () => {
  it('list generator: flat params and values.*, finalizer, the ApplicationSet namespace', async () => {
    const out = await expand(`apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: set, namespace: team}
spec:
  generators:
  - list:
      elements:
      - {name: a, server: https://a.example.com, values: {tier: gold}}
      - {name: b, server: https://b.example.com, values: {tier: silver}}
${TEMPLATE.replace('namespace: web', "namespace: '{{values.tier}}'")}`);
    assert.deepEqual(
      out.apps.map((a) => [
        a.name,
        a.namespace,
        a.destination.server,
        a.destination.namespace,
        a.sources[0]!.path,
      ]),
      [
        ['a-app', 'team', 'https://a.example.com', 'gold', 'apps/a'],
        ['b-app', 'team', 'https://b.example.com', 'silver', 'apps/b'],
      ],
    );
    assert.deepEqual(out.manifests[0]!.metadata?.['finalizers'], ['resources-finalizer.argocd.argoproj.io']);
  });

  it('clusters generator: every Secret plus in-cluster; a selector drops in-cluster and filters by labels', async () => {
    const all = await expand(`kind: ApplicationSet
apiVersion: argoproj.io/v1alpha1
metadata: {name: c}
spec:
  generators: [{clusters: {}}]
${TEMPLATE}`);
    assert.deepEqual(
      all.apps.map((a) => [a.name, a.labels['cluster'], a.destination.server]),
      // In-cluster last, as Argo CD appends it.
      [
        ['Prod-EU-app', 'prod-eu', 'https://eu.example.com'],
        ['staging-app', 'staging', 'https://stg.example.com'],
        ['in-cluster-app', 'in-cluster', 'https://kubernetes.default.svc'],
      ],
    );
    const prod = await expand(`kind: ApplicationSet
apiVersion: argoproj.io/v1alpha1
metadata: {name: c}
spec:
  generators: [{clusters: {selector: {matchExpressions: [{key: env, operator: In, values: [prod]}]}, values: {label: '{{metadata.labels.env}}-x'}}}]
  template:
    metadata: {name: '{{name}}', annotations: {l: '{{values.label}}', a: '{{metadata.annotations.a}}'}}
    spec:
      source: {repoURL: https://example.com/r.git, path: x}
      destination: {server: '{{server}}', namespace: web}`);
    assert.deepEqual(
      prod.apps.map((a) => [a.name, a.annotations]),
      [['Prod-EU', { l: 'prod-x', a: 'x' }]],
    );
  });

  it("clusters generator: Argo CD's and kubectl's own annotations of a Secret are no parameters", async () => {
    const applied = { name: 'x', server: 'https://x.example.com', labels: {}, inCluster: false };
    const c = ctx();
    c.clusters = () =>
      Promise.resolve<AppSetCluster[]>([
        {
          ...applied,
          annotations: {
            note: 'n',
            'kubectl.kubernetes.io/last-applied-configuration': '{"stringData":{"config":"secret"}}',
            'argocd.argoproj.io/refresh': 'hard',
          },
        },
        { ...applied, name: 'y', annotations: { 'argocd.argoproj.io/tracking-id': 't' } },
      ]);
    const fast = await expand(
      `kind: ApplicationSet
apiVersion: argoproj.io/v1alpha1
metadata: {name: c}
spec:
  generators: [{clusters: {selector: {matchLabels: {}}}}]
  template:
    metadata:
      name: '{{name}}'
      annotations: {a: '{{metadata.annotations.kubectl.kubernetes.io/last-applied-configuration}}', n: '{{metadata.annotations.note}}'}
    spec:
      source: {repoURL: https://example.com/r.git, path: x}
      destination: {server: '{{server}}', namespace: web}`,
      c,
    );
    assert.deepEqual(fast.apps[0]!.annotations, {
      a: '{{metadata.annotations.kubectl.kubernetes.io/last-applied-configuration}}',
      n: 'n',
    });
    const go = await expand(
      `kind: ApplicationSet
apiVersion: argoproj.io/v1alpha1
metadata: {name: c}
spec:
  goTemplate: true
  generators: [{clusters: {selector: {matchLabels: {}}}}]
  template:
    metadata:
      name: '{{ .name }}'
      annotations: {n: '{{ len .metadata.annotations }}'}
    spec:
      source: {repoURL: https://example.com/r.git, path: x}
      destination: {server: '{{ .server }}', namespace: web}`,
      c,
    );
    // The map is there whenever the Secret has annotations, the left-out ones removed.
    assert.deepEqual(
      go.apps.map((a) => [a.name, a.annotations['n']]),
      [
        ['x', '1'],
        ['y', '0'],
      ],
    );
  });

  it('git directories (include/exclude, path params) and files, read at the given revision', async () => {
    const root = tree({
      'apps/web/k.yaml': 'kind: ConfigMap',
      'apps/api/k.yaml': 'kind: ConfigMap',
      'apps/legacy/k.yaml': 'kind: ConfigMap',
      'envs/prod/config.yaml': 'cluster: {name: prod, url: https://p}\nreplicas: 3\n',
      'envs/dev/config.json':
        '[{"cluster": {"name": "dev1", "url": "https://d1"}}, {"cluster": {"name": "dev2", "url": "https://d2"}}]',
    });
    const checkouts: string[] = [];
    const dirs = await expand(
      `kind: ApplicationSet
apiVersion: argoproj.io/v1alpha1
metadata: {name: g}
spec:
  generators:
  - git:
      repoURL: https://example.com/r.git
      revision: feature
      directories: [{path: 'apps/*'}, {path: apps/legacy, exclude: true}]
  template:
    metadata: {name: '{{path.basename}}-{{path[0]}}'}
    spec:
      source: {repoURL: https://example.com/r.git, path: '{{path}}'}
      destination: {server: https://kubernetes.default.svc, namespace: '{{path.basenameNormalized}}'}`,
      ctx(root, checkouts),
    );
    assert.deepEqual(
      dirs.apps.map((a) => [a.name, a.sources[0]!.path]),
      [
        ['api-apps', 'apps/api'],
        ['web-apps', 'apps/web'],
      ],
    );
    assert.deepEqual(checkouts, ['https://example.com/r.git@feature']);
    const files = await expand(
      `kind: ApplicationSet
apiVersion: argoproj.io/v1alpha1
metadata: {name: g}
spec:
  goTemplate: true
  generators:
  - git: {repoURL: https://example.com/r.git, files: [{path: 'envs/**/config.*'}]}
  template:
    metadata: {name: '{{ .cluster.name }}-{{ .path.basename }}'}
    spec:
      source: {repoURL: https://example.com/r.git, path: '{{ .path.path }}'}
      destination: {server: '{{ .cluster.url }}', namespace: '{{ .path.filename | replace "." "-" }}'}`,
      ctx(root),
    );
    assert.deepEqual(
      files.apps.map((a) => [a.name, a.destination.server, a.destination.namespace]),
      [
        ['dev1-dev', 'https://d1', 'config-json'],
        ['dev2-dev', 'https://d2', 'config-json'],
        ['prod-prod', 'https://p', 'config-yaml'],
      ],
    );
  });

  it('matrix (second generator interpolated with the first) and merge (override by merge keys)', async () => {
    const root = tree({ 'apps/web/k.yaml': 'x', 'apps/api/k.yaml': 'x' });
    const m = await expand(
      `kind: ApplicationSet
apiVersion: argoproj.io/v1alpha1
metadata: {name: m}
spec:
  generators:
  - matrix:
      generators:
      - clusters: {selector: {matchLabels: {env: staging}}}
      - list: {elements: [{app: web, ns: '{{name}}-web'}, {app: api, ns: '{{name}}-api'}]}
  template:
    metadata: {name: '{{app}}-{{name}}'}
    spec:
      project: '{{project}}'
      source: {repoURL: https://example.com/r.git, path: 'apps/{{app}}'}
      destination: {server: '{{server}}', namespace: '{{ns}}'}`,
      ctx(root),
    );
    assert.deepEqual(
      m.apps.map((a) => [a.name, a.project, a.destination.namespace]),
      [
        ['web-staging', 'p1', 'staging-web'],
        ['api-staging', 'p1', 'staging-api'],
      ],
    );
    const merged = await expand(`kind: ApplicationSet
apiVersion: argoproj.io/v1alpha1
metadata: {name: m}
spec:
  generators:
  - merge:
      mergeKeys: [name]
      generators:
      - list: {elements: [{name: a, rev: main}, {name: b, rev: main}]}
      - list: {elements: [{name: b, rev: v2}, {name: c, rev: v3}]}
  template:
    metadata: {name: '{{name}}'}
    spec:
      source: {repoURL: https://example.com/r.git, path: x, targetRevision: '{{rev}}'}
      destination: {server: https://kubernetes.default.svc, namespace: web}`);
    assert.deepEqual(
      merged.apps.map((a) => [a.name, a.sources[0]!.targetRevision]),
      [
        ['a', 'main'],
        ['b', 'v2'],
      ],
    );
  });

  it('goTemplate with templatePatch; a generator template overrides the set template', async () => {
    const out = await expand(`kind: ApplicationSet
apiVersion: argoproj.io/v1alpha1
metadata: {name: p}
spec:
  goTemplate: true
  goTemplateOptions: [missingkey=error]
  generators:
  - list:
      elements: [{name: a, auto: true}, {name: b, auto: false}]
      template: {metadata: {labels: {from: generator}}}
  template:
    metadata: {name: '{{ .name }}', labels: {from: set}}
    spec:
      source: {repoURL: https://example.com/r.git, path: 'apps/{{ .name }}'}
      destination: {server: https://kubernetes.default.svc, namespace: web}
  templatePatch: |
    {{- if .auto }}
    spec:
      syncPolicy:
        automated: {prune: true}
    {{- end }}`);
    assert.deepEqual(
      out.apps.map((a) => [a.name, a.labels['from'], Boolean(a.syncPolicy.automated)]),
      [
        ['a', 'generator', true],
        ['b', 'generator', false],
      ],
    );
  });

  it('string fields as written (issue 14): in the set file, a generator template and a rendered templatePatch', async () => {
    const dir = tree({
      'set.yaml': `kind: ApplicationSet
apiVersion: argoproj.io/v1alpha1
metadata: {name: s}
spec:
  goTemplate: true
  generators:
  - list: {elements: [{name: a}, {name: b, patched: true}, {name: c, gen: true}]}
  - list:
      elements: [{name: d}]
      template: {spec: {source: {targetRevision: 3.10}}}
  template:
    metadata: {name: '{{ .name }}'}
    spec:
      source: {repoURL: https://example.com/r.git, path: web, targetRevision: 1.10, chart: 010}
      destination: {server: https://kubernetes.default.svc, namespace: web}
  templatePatch: |
    {{- if .patched }}
    spec:
      source: {targetRevision: 2.10}
    {{- end }}`,
    });
    const [set] = await loadApplicationSetFiles([join(dir, 'set.yaml')]);
    const out = await expandApplicationSet(set!.manifest, set!.origin, ctx());
    assert.deepEqual(
      out.apps.map((a) => [a.name, a.sources[0]!.targetRevision, a.sources[0]!.chart]),
      [
        ['a', '1.10', '010'],
        ['b', '2.10', '010'],
        ['c', '1.10', '010'],
        ['d', '3.10', '010'],
      ],
    );
  });

  it("a generator's own template merges as Argo CD's mergo.Merge: its empty values are filled from the set's", () => {
    const own = {
      metadata: { name: 'own', labels: { team: 'a' } },
      spec: {
        syncPolicy: { automated: { prune: false, enabled: false }, syncOptions: [] },
        revisionHistoryLimit: 0,
      },
    };
    const set = {
      metadata: { name: 'set', labels: { team: 'b', tier: 'web' } },
      spec: {
        project: 'default',
        syncPolicy: { automated: { prune: true, enabled: true }, syncOptions: ['CreateNamespace=true'] },
        revisionHistoryLimit: 10,
      },
    };
    assert.deepEqual(mergeGeneratorTemplate(own, set), {
      metadata: { name: 'own', labels: { team: 'a', tier: 'web' } },
      spec: {
        project: 'default',
        // prune is a bool (false is empty: filled); enabled and revisionHistoryLimit are pointers (kept).
        syncPolicy: { automated: { prune: true, enabled: false }, syncOptions: ['CreateNamespace=true'] },
        revisionHistoryLimit: 0,
      },
    });
  });

  it('clear errors naming the ApplicationSet: unsupported generator, function, duplicate names', async () => {
    const fail = async (yaml: string, re: RegExp) => {
      const err = await expand(yaml).then(
        () => assert.fail('expected an error'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof UsageError, String(err));
      assert.match(
        err.message,
        /^set\.yaml \(document 1\): ApplicationSet "s": failed to generate Applications: /,
      );
      assert.match(err.message, re);
    };
    const head = 'kind: ApplicationSet\napiVersion: argoproj.io/v1alpha1\nmetadata: {name: s}\nspec:\n';
    const tpl = `  template:\n    metadata: {name: x}\n    spec: {source: {repoURL: r, path: p}, destination: {server: s, namespace: n}}\n`;
    await fail(
      `${head}  generators: [{pullRequest: {github: {}}}]\n${tpl}`,
      /spec\.generators\[0\]: the pullRequest generator is not supported/,
    );
    await fail(
      `${head}  goTemplate: true\n  generators: [{list: {elements: [{a: b}]}}]\n  template:\n    metadata: {name: '{{ sha1sum .a }}'}\n    spec: {source: {repoURL: r, path: p}, destination: {server: s, namespace: n}}\n`,
      /spec\.template \(spec\.generators\[0\]\): function "sha1sum" not defined/,
    );
    await fail(
      `${head}  generators: [{list: {elements: [{a: b}, {a: c}]}}]\n${tpl}`,
      /two generated Applications are named "x"/,
    );
    // A revision YAML reads as a number is refused (the CRD types it as a string), never a silent HEAD.
    await fail(
      `${head}  generators: [{git: {repoURL: r, revision: 1.10, directories: [{path: a}]}}]\n${tpl}`,
      /spec\.generators\[0\]\.git\.revision: must be a string, got 1\.1 \(quote it in YAML\)/,
    );
  });
});
