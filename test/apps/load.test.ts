import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadApplications, parseDuration, readAppFiles, type SourcedAppSet } from '../../src/apps/index.js';
import { UsageError } from '../../src/common/index.js';
import { tempDir } from '../support/git.js';

const APP = (name: string, spec: string) => `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: ${name}
  labels: {team: web}
spec:
${spec}`;

const SOURCE = `  source: {repoURL: https://example.com/r.git, path: apps/web}
  destination: {server: https://kubernetes.default.svc, namespace: web}
`;

function write(dir: string, file: string, text: string): string {
  const path = join(dir, file);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

async function loadError(text: string): Promise<UsageError> {
  const file = write(tempDir(), 'apps.yaml', text);
  const err = await loadApplications({ files: [file] }).then(
    () => assert.fail('expected an error'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof UsageError, String(err));
  assert.equal(err.exitCode, 2);
  assert.ok(err.message.startsWith(`${file} (document `), err.message);
  return err;
}

describe('loading Applications from files', () => {
  it('normalizes a single-source app with defaults', async () => {
    const file = write(tempDir(), 'a.yaml', APP('web', SOURCE));
    const [app] = await loadApplications({ files: [file] });
    assert.ok(app);
    assert.equal(app.name, 'web');
    assert.equal(app.project, 'default');
    assert.equal(app.multiSource, false);
    assert.deepEqual(app.sources, [
      { repoURL: 'https://example.com/r.git', path: 'apps/web', targetRevision: 'HEAD' },
    ]);
    assert.deepEqual(app.destination, { server: 'https://kubernetes.default.svc', namespace: 'web' });
    assert.deepEqual(app.labels, { team: 'web' });
    assert.deepEqual(app.syncPolicy, { syncOptions: [], options: {} });
    assert.equal(app.origin, `${file} (document 1)`);
  });

  it('reads multi-document YAML, JSON, and folders recursively, skipping other kinds', async () => {
    const dir = tempDir();
    write(
      dir,
      'a.yaml',
      `${APP('one', SOURCE)}---\n---\napiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: p}\n---\n${APP('two', SOURCE)}`,
    );
    const json = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'three' },
      spec: { source: { repoURL: 'u', path: 'p' }, destination: { name: 'prod', namespace: 'x' } },
    };
    write(dir, 'nested/deeper/b.json', JSON.stringify(json));
    write(dir, 'nested/notes.txt', 'not read');
    write(dir, '.hidden/c.yaml', APP('hidden', SOURCE));
    const apps = await loadApplications({ files: [dir] });
    assert.deepEqual(
      apps.map((a) => a.name),
      ['one', 'two', 'three'],
    );
    assert.equal(apps[1]!.origin, `${join(dir, 'a.yaml')} (document 4)`);
    assert.deepEqual(apps[2]!.destination, { name: 'prod', namespace: 'x' });
  });

  it('reads spec.sources with ref sources, helm, kustomize and directory options', async () => {
    const file = write(
      tempDir(),
      'a.yaml',
      APP(
        'multi',
        `  sources:
    - repoURL: https://charts.example.com/r.git
      path: charts/web
      targetRevision: v1.2.0
      helm:
        releaseName: web
        valueFiles: [$values/web/values.yaml]
        valuesObject: {replicas: 3}
        parameters: [{name: image.tag, value: "42", forceString: true}]
        skipCrds: true
    - repoURL: https://example.com/values.git
      targetRevision: main
      ref: values
    - repoURL: https://example.com/k.git
      path: overlays/prod
      kustomize: {namePrefix: p-, images: ["nginx:1.2"], commonLabels: {a: b}}
    - repoURL: https://example.com/d.git
      path: raw
      directory: {recurse: true, include: "*.yaml", jsonnet: {extVars: [{name: x, value: y}]}}
  destination: {server: https://kubernetes.default.svc, namespace: web}
  syncPolicy:
    automated: {prune: true, selfHeal: true}
    syncOptions: [CreateNamespace=true, PrunePropagationPolicy=background]
    retry: {limit: 5, backoff: {duration: 10s, factor: 3, maxDuration: 1h30m}}
  ignoreDifferences:
    - {group: apps, kind: Deployment, jsonPointers: [/spec/replicas]}
`,
      ),
    );
    const [app] = await loadApplications({ files: [file] });
    assert.ok(app);
    assert.equal(app.multiSource, true);
    assert.equal(app.sources.length, 4);
    const [helm, ref, kustomize, directory] = app.sources;
    assert.equal(helm!.helm!.releaseName, 'web');
    assert.equal(helm!.helm!.values, 'replicas: 3\n');
    assert.deepEqual(helm!.helm!.parameters, [{ name: 'image.tag', value: '42', forceString: true }]);
    assert.equal(helm!.helm!.skipCrds, true);
    assert.deepEqual(ref, {
      repoURL: 'https://example.com/values.git',
      path: '',
      targetRevision: 'main',
      ref: 'values',
    });
    assert.equal(kustomize!.kustomize!.namePrefix, 'p-');
    assert.deepEqual(kustomize!.kustomize!.images, ['nginx:1.2']);
    assert.equal(directory!.directory!.recurse, true);
    assert.deepEqual(directory!.directory!.jsonnet.extVars, [{ name: 'x', value: 'y', code: false }]);
    assert.deepEqual(app.syncPolicy.automated, { prune: true, selfHeal: true, allowEmpty: false });
    assert.deepEqual(app.syncPolicy.options, {
      CreateNamespace: 'true',
      PrunePropagationPolicy: 'background',
    });
    assert.deepEqual(app.syncPolicy.retry, {
      limit: 5,
      backoff: { durationMs: 10_000, factor: 3, maxDurationMs: 5_400_000 },
      // as written: operationState.operation.retry copies them (an automated sync's)
      written: { duration: '10s', factor: 3, maxDuration: '1h30m' },
      refresh: false,
    });
    assert.deepEqual(app.ignoreDifferences[0]!.jsonPointers, ['/spec/replicas']);
  });

  // Issue 14: fields Argo CD types as strings keep the text as written; YAML 1.2 would read numbers.
  for (const [written, expected] of [
    ['1.10', '1.10'],
    ['010', '010'],
    ['1e3', '1e3'],
    ['0x1F', '0x1F'],
    ['true', 'true'],
    ['"1.10"', '1.10'],
    ['~', 'HEAD'],
    ['null', 'HEAD'],
  ] as const) {
    it(`targetRevision: ${written} is the revision "${expected}"`, async () => {
      const file = write(
        tempDir(),
        'a.yaml',
        APP(
          'web',
          `  source: {repoURL: https://example.com/r.git, path: apps/web, targetRevision: ${written}}\n  destination: {server: https://kubernetes.default.svc, namespace: web}\n`,
        ),
      );
      const [app] = await loadApplications({ files: [file] });
      assert.equal(app!.sources[0]!.targetRevision, expected);
    });
  }

  it('string fields elsewhere keep their text too; booleans, integers and valuesObject stay typed', async () => {
    const file = write(
      tempDir(),
      'a.yaml',
      `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: web
  labels: {version: 2.0, enabled: true}
spec:
  sources:
    - repoURL: https://charts.example.com
      chart: 007
      targetRevision: 1.20
      helm:
        releaseName: 1e3
        valuesObject: {replicas: 010}
        parameters: [{name: image.tag, value: 1.10, forceString: true}]
        skipCrds: true
  destination: {server: https://kubernetes.default.svc, namespace: 2024}
  syncPolicy:
    retry: {limit: 5, backoff: {duration: 10, factor: 3}}
`,
    );
    const [app] = await loadApplications({ files: [file] });
    const helm = app!.sources[0]!;
    assert.deepEqual(app!.labels, { version: '2.0', enabled: 'true' });
    assert.equal(helm.chart, '007');
    assert.equal(helm.targetRevision, '1.20');
    assert.equal(helm.helm!.releaseName, '1e3');
    // kubectl and Argo CD read YAML 1.1 (go-yaml v2): 010 is octal.
    assert.equal(helm.helm!.values, 'replicas: 8\n');
    assert.deepEqual(helm.helm!.parameters, [{ name: 'image.tag', value: '1.10', forceString: true }]);
    assert.equal(helm.helm!.skipCrds, true);
    assert.equal(app!.destination.namespace, '2024');
    assert.equal(app!.syncPolicy.retry!.limit, 5);
    assert.equal(app!.syncPolicy.retry!.backoff.durationMs, 10_000);
    assert.equal(app!.syncPolicy.retry!.backoff.factor, 3);
  });

  it('applies retry defaults (5s, x2, 3m) and honours automated.enabled=false', async () => {
    const file = write(
      tempDir(),
      'a.yaml',
      APP('r', `${SOURCE}  syncPolicy:\n    automated: {enabled: false}\n    retry: {limit: -1}\n`),
    );
    const [app] = await loadApplications({ files: [file] });
    assert.equal(app!.syncPolicy.automated, undefined);
    assert.deepEqual(app!.syncPolicy.retry, {
      limit: -1,
      backoff: { durationMs: 5000, factor: 2, maxDurationMs: 180_000 },
      refresh: false,
    });
  });
});

describe('Application validation errors name file, document and field', () => {
  it('missing repoURL', async () => {
    const err = await loadError(
      `${APP('ok', SOURCE)}---\n${APP('bad', '  source: {path: x}\n  destination: {namespace: x}\n')}`,
    );
    assert.match(
      err.message,
      /\(document 2\): failed to load Application "bad": spec\.source\.repoURL is required$/,
    );
  });

  it('missing path', async () => {
    const err = await loadError(APP('bad', '  sources:\n    - repoURL: u\n  destination: {namespace: x}\n'));
    assert.match(err.message, /\(document 1\): .*"bad": spec\.sources\[0\]\.path is required$/);
  });

  it('a config management plugin source is read as Argo CD types it (names, env, parameters)', async () => {
    const file = write(
      tempDir(),
      'apps.yaml',
      APP(
        'cmp',
        [
          '  source:',
          '    repoURL: u',
          '    path: p',
          '    plugin:',
          '      name: kustomized-helm-v1.0',
          '      env: [{name: FOO, value: 1.10}, {name: REV, value: r-$ARGOCD_APP_REVISION}]',
          '      parameters:',
          '        - {name: values-files, array: [a.yaml, 010]}',
          '        - {name: helm-parameters, map: {image.tag: 1.10}}',
          '        - {name: mode, string: true}',
          '        - {name: empty, map: {}, array: []}',
          '  destination: {namespace: x}',
          '',
        ].join('\n'),
      ),
    );
    const [app] = await loadApplications({ files: [file] });
    assert.deepEqual(app!.sources[0]!.plugin, {
      name: 'kustomized-helm-v1.0',
      env: [
        { name: 'FOO', value: '1.10' },
        { name: 'REV', value: 'r-$ARGOCD_APP_REVISION' },
      ],
      parameters: [
        { name: 'values-files', array: ['a.yaml', '010'] },
        { name: 'helm-parameters', map: { 'image.tag': '1.10' } },
        { name: 'mode', string: 'true' },
        { name: 'empty', map: {}, array: [] },
      ],
    });
  });

  it('plugin: {} names a plugin source with nothing set (discovery picks the plugin)', async () => {
    const file = write(
      tempDir(),
      'apps.yaml',
      APP('cmp', '  source: {repoURL: u, path: p, plugin: {}}\n  destination: {namespace: x}\n'),
    );
    const [app] = await loadApplications({ files: [file] });
    assert.deepEqual(app!.sources[0]!.plugin, { name: '', env: [], parameters: [] });
  });

  it('plugin beside helm is two source types, refused as Argo CD refuses it', async () => {
    const err = await loadError(
      APP('cmp', '  source: {repoURL: u, path: p, plugin: {}, helm: {}}\n  destination: {namespace: x}\n'),
    );
    assert.match(err.message, /multiple source types set \(helm, plugin\)$/);
  });

  it('an Application name the API server would refuse (path traversal)', async () => {
    const err = await loadError(
      APP('../x', '  source: {repoURL: u, path: p}\n  destination: {namespace: x}\n'),
    );
    assert.match(
      err.message,
      /failed to load Application "\.\.\/x": metadata\.name "\.\.\/x" is not a valid name: /,
    );
  });

  it('both source and sources', async () => {
    const err = await loadError(
      APP(
        'bad',
        '  source: {repoURL: u, path: p}\n  sources: [{repoURL: u, path: p}]\n  destination: {namespace: x}\n',
      ),
    );
    assert.match(err.message, /spec\.source and spec\.sources are both set/);
  });

  it('unknown sync option and bad sync option value', async () => {
    let err = await loadError(
      APP('bad', `${SOURCE}  syncPolicy: {syncOptions: [CreateNamespace=true, Frobnicate=true]}\n`),
    );
    assert.match(err.message, /unknown sync option "Frobnicate=true"/);
    err = await loadError(
      APP('bad', `${SOURCE}  syncPolicy: {syncOptions: [PrunePropagationPolicy=sometimes]}\n`),
    );
    assert.match(
      err.message,
      /"PrunePropagationPolicy=sometimes" must be PrunePropagationPolicy=foreground\|background\|orphan/,
    );
  });

  it('malformed retry durations', async () => {
    let err = await loadError(
      APP('bad', `${SOURCE}  syncPolicy: {retry: {backoff: {duration: 5 seconds}}}\n`),
    );
    assert.match(err.message, /spec\.syncPolicy\.retry\.backoff\.duration "5 seconds" is not a duration/);
    err = await loadError(APP('bad', `${SOURCE}  syncPolicy: {retry: {backoff: {maxDuration: 3x}}}\n`));
    assert.match(err.message, /backoff\.maxDuration "3x" is not a duration/);
  });

  it('duplicate app names, naming both places', async () => {
    const dir = tempDir();
    const a = write(dir, 'a.yaml', APP('web', SOURCE));
    const b = write(dir, 'b.yaml', `${APP('other', SOURCE)}---\n${APP('web', SOURCE)}`);
    const err = await loadApplications({ files: [a, b] }).then(
      () => assert.fail('expected an error'),
      (e: Error) => e,
    );
    assert.equal(
      err.message,
      `${b} (document 2): failed to load Application "web": duplicate name (first defined in ${a} (document 1))`,
    );
  });

  it('missing name, missing destination, unreadable path', async () => {
    let err = await loadError(APP('', SOURCE).replace('  name: \n', ''));
    assert.match(err.message, /metadata\.name is required/);
    err = await loadError(APP('x', '  source: {repoURL: u, path: p}\n'));
    assert.match(err.message, /spec\.destination is required/);
    await assert.rejects(
      loadApplications({ files: ['/no/such/apps'] }),
      /\/no\/such\/apps: failed to read Applications: no such file/,
    );
    await assert.rejects(loadApplications({}), /give -f\/--app-file, --from-cluster or --repo\/--path/);
  });
});

describe('parseDuration (Go syntax, bare integers are seconds)', () => {
  const cases: [string, number | undefined][] = [
    ['5s', 5000],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['300ms', 300],
    ['10', 10_000],
    ['0', 0],
    ['2h45m', 9_900_000],
    ['', undefined],
    ['5', 5000],
    ['s', undefined],
    ['5 s', undefined],
    ['1d', undefined],
  ];
  for (const [text, ms] of cases) it(`"${text}" -> ${ms}`, () => assert.equal(parseDuration(text), ms));
});

describe('loadApplications: unreadable paths', () => {
  it('says "no such file" only for a missing path, and names any other stat error', async () => {
    const missing = await loadApplications({ files: ['/nonexistent/app.yaml'] }).catch((e: unknown) => e);
    assert.ok(missing instanceof UsageError);
    assert.match(
      missing.message,
      /^\/nonexistent\/app\.yaml: failed to read Applications: no such file or directory$/,
    );
    const tooLong = '/tmp/' + 'x'.repeat(5000);
    const err = await loadApplications({ files: [tooLong] }).catch((e: unknown) => e);
    assert.ok(err instanceof UsageError);
    assert.doesNotMatch(err.message, /no such file/);
    assert.match(err.message, /failed to read Applications: ENAMETOOLONG/);
  });
});

describe('one pass over app files (readAppFiles)', () => {
  const APPSET = (name: string) => `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: ${name}}
spec:
  generators: [{list: {elements: [{n: a}]}}]
  template:
    metadata: {name: '{{n}}'}
    spec:
      project: default
${SOURCE.replace(/^/gm, '    ').trimEnd()}
`;

  it('gives Applications and ApplicationSets of many files in file then document order', async () => {
    const dir = tempDir();
    for (let i = 0; i < 40; i++) {
      const n = String(i).padStart(2, '0');
      write(dir, `apps/f${n}.yaml`, `${APP(`app-${n}`, SOURCE)}---\n${APPSET(`set-${n}`)}`);
    }
    const appsets: SourcedAppSet[] = [];
    const apps = await loadApplications({ files: [join(dir, 'apps')], appsets });
    assert.deepEqual(
      apps.map((a) => a.name),
      Array.from({ length: 40 }, (_, i) => `app-${String(i).padStart(2, '0')}`),
    );
    assert.deepEqual(
      appsets.map((s) => s.manifest.metadata?.name),
      Array.from({ length: 40 }, (_, i) => `set-${String(i).padStart(2, '0')}`),
    );
    assert.equal(appsets[3]!.origin, `${join(dir, 'apps', 'f03.yaml')} (document 2)`);
    write(
      dir,
      'apps/zz-project.yaml',
      'apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: team}\n',
    );
    const read = await readAppFiles([join(dir, 'apps')]);
    assert.equal(read.apps.length, 40);
    assert.equal(read.appsets.length, 40);
    assert.deepEqual(
      read.projects.map((p) => [p.object.metadata?.name, p.file]),
      [['team', join(dir, 'apps', 'zz-project.yaml')]],
      'AppProjects from the same pass',
    );
  });

  it('reports the first bad file in file order, whichever read finished first', async () => {
    const dir = tempDir();
    for (let i = 0; i < 30; i++) write(dir, `apps/f${String(i).padStart(2, '0')}.yaml`, APP(`a${i}`, SOURCE));
    write(dir, 'apps/f05.yaml', 'kind: [unclosed\n');
    write(dir, 'apps/f20.yaml', APP('bad', '  project: 7\n'));
    const err = await readAppFiles([join(dir, 'apps')]).then(
      () => assert.fail('expected an error'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof UsageError);
    assert.ok(err.message.startsWith(`${join(dir, 'apps', 'f05.yaml')} (document 1)`), err.message);
  });
});
