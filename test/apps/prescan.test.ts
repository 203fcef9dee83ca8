import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readAppFiles, selectApplications, type AppFiles } from '../../src/apps/index.js';
import { mayHold, prescanOf } from '../../src/apps/prescan.js';
import { tempDir } from '../support/git.js';

const SPEC = `spec:
  source: {repoURL: https://example.com/r.git, path: apps/web}
  destination: {server: https://kubernetes.default.svc, namespace: web}
`;
const app = (metadata: string) => `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
${metadata}
${SPEC}`;

/** Files whose names are written in every way YAML and JSON allow (see src/apps/prescan.ts). */
const CORPUS: Record<string, string> = {
  'a-plain.yaml': app('  name: app-7'),
  'b-quoted.yaml': app('  name: "app-70"'),
  'c-multi.yaml': [
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {note: "app-8 lives elsewhere"}\n',
    app("  name: 'app-8'"),
    // An anchor in one place, the alias as the name.
    `apiVersion: argoproj.io/v1alpha1\nkind: Application\nx-names: [&n app-9]\nmetadata:\n  name: *n\n${SPEC}`,
  ].join('---\n'),
  'd-app.json': JSON.stringify({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'app-11' },
    spec: {
      source: { repoURL: 'https://example.com/r.git', path: 'x' },
      destination: { server: 'https://kubernetes.default.svc', namespace: 'web' },
    },
  }),
  // JSON escapes: "app-\u0031\u0032" is app-12, written without the text "app-12".
  'e-escaped.json':
    '{"apiVersion":"argoproj.io/v1alpha1","kind":"Application","metadata":{"name":"app-\\u0031\\u0032"},' +
    '"spec":{"source":{"repoURL":"https://example.com/r.git","path":"x"},' +
    '"destination":{"server":"https://kubernetes.default.svc","namespace":"web"}}}',
  // A double-quoted YAML scalar with an escaped line break: "app-\<newline>  13" is app-13.
  'f-folded.yaml': app('  name: "app-\\\n    13"'),
  'g-block.yaml': app('  name: |-\n    app-14'),
  // A typed list: its items take the kind Application from the list.
  'h-typed-list.yaml': `apiVersion: argoproj.io/v1alpha1\nkind: ApplicationList\nitems:\n- metadata: {name: app-15}\n  spec:\n    source: {repoURL: https://example.com/r.git, path: x}\n    destination: {server: https://kubernetes.default.svc, namespace: web}\n`,
  'i-list.yaml': `apiVersion: v1\nkind: List\nitems:\n- apiVersion: argoproj.io/v1alpha1\n  kind: Application\n  metadata: {name: app-16}\n  spec:\n    source: {repoURL: https://example.com/r.git, path: x}\n    destination: {server: https://kubernetes.default.svc, namespace: web}\n`,
  'j-comment.yaml': `# app-17 moved to k.yaml\n${app('  name: app-99')}`,
  'k-crlf.yaml': app('  name: app-17').replaceAll('\n', '\r\n'),
  'l-flow.yaml':
    '{apiVersion: argoproj.io/v1alpha1, kind: Application, metadata: {name: app-20, namespace: team}, spec: {source: {repoURL: "https://example.com/r.git", path: x}, destination: {server: "https://kubernetes.default.svc", namespace: web}}}\n',
  'm-tagged.yaml': app('  name: !!str app-21'),
  'n-namespaced.yaml': app('  name: app-7\n  namespace: team'),
  // An ApplicationSet generating app-gen-1 and app-gen-2 (never written as such).
  'o-appset.yaml': `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: gen}
spec:
  generators:
  - list:
      elements: [{n: "1"}, {n: "2"}]
  template:
    metadata: {name: 'app-gen-{{n}}'}
${SPEC.replace('spec:\n', '').replace(/^/gm, '  ')}`,
  'p-project.yaml': 'apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: team}\nspec: {}\n',
  'q-other.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app-7}\n',
  'r-sub/s-deep.yml': app('  name: app-22'),
  // A plain twin (another namespace) of every app above: a file the pre-scan wrongly left would change
  // the selection (two apps found with a full read, one with the pre-scan) instead of falling back.
  'z-twins.yaml': ['8', '9', '11', '12', '13', '14', '15', '16', '17', '20', '21', '22']
    .map((n) => app(`  name: app-${n}\n  namespace: twin`))
    .join('---\n'),
};

function write(dir: string, file: string, text: string): string {
  writeFileSync(join(dir, file), text);
  return join(dir, file);
}

function corpus(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

/** What a caller takes from a read for `names`: the selected apps, every ApplicationSet and AppProject. */
function selection(read: AppFiles, names: string[]): unknown {
  let selected: unknown;
  try {
    selected = selectApplications(read.apps, { names }).map((a) => [a.origin, a.namespace, a.name]);
  } catch (err) {
    selected = `error: ${(err as Error).message}`;
  }
  return {
    selected,
    appsets: read.appsets.map((s) => s.origin),
    projects: read.projects.map((p) => [p.file, p.doc]),
  };
}

async function both(
  dir: string,
  names: string[],
): Promise<{ full: unknown; pre: unknown; warnings: string[][] }> {
  const warnings: string[][] = [[], []];
  const full = await readAppFiles([dir], { requireApps: true, onWarning: (m) => warnings[0]!.push(m) });
  const pre = await readAppFiles([dir], {
    requireApps: true,
    prescan: prescanOf(names),
    onWarning: (m) => warnings[1]!.push(m),
  });
  return { full: selection(full, names), pre: selection(pre, names), warnings };
}

describe('the pre-scan of app files (src/apps/prescan.ts)', () => {
  it('selects exactly what a full parse selects, for names written in every way', async () => {
    const dir = corpus(CORPUS);
    const names = [
      ...['app-7', 'app-70', 'app-8', 'app-9', 'app-11', 'app-12', 'app-13', 'app-14', 'app-15', 'app-16'],
      ...['app-17', 'app-99', 'app-20', 'team/app-20', 'app-21', 'team/app-7', 'argocd/app-7', 'app-22'],
      // Generated by the ApplicationSet, a prefix of many, absent, not a Kubernetes name.
      ...['app-gen-1', 'app-1', 'nope', 'App 7'],
    ];
    for (const name of names) {
      const { full, pre } = await both(dir, [name]);
      assert.deepEqual(pre, full, name);
    }
    // The twins are selected beside the originals.
    const twins = await both(dir, ['app-12']);
    assert.equal((twins.pre as { selected: unknown[] }).selected.length, 2);
    const { full, pre } = await both(dir, ['app-7', 'app-15', 'app-22']);
    assert.deepEqual(pre, full);
  });

  it('leaves unparsed a file that cannot hold the named app, and warns once when it reads them all', async () => {
    const dir = corpus({
      'a.yaml': app('  name: app-1'),
      // Broken YAML without the name: a full read fails on it, the pre-scan never parses it.
      'b.yaml': 'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: [unclosed\n',
      'c.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n${app('  name: app-3')}`,
    });
    await assert.rejects(readAppFiles([dir]), /b\.yaml \(document 1\)/);
    const pre = await readAppFiles([dir], { prescan: prescanOf(['app-1']) });
    assert.deepEqual(
      pre.apps.map((a) => a.name),
      ['app-1'],
    );
    // app-3's file holds the name: parsed, with its warning, once.
    const warnings: string[] = [];
    const three = await readAppFiles([join(dir, 'a.yaml'), join(dir, 'c.yaml')], {
      prescan: prescanOf(['app-3']),
      onWarning: (m) => warnings.push(m),
    });
    assert.deepEqual(
      three.apps.map((a) => a.name),
      ['app-3'],
    );
    // A file given alone that mentions no Application is read: the "no Application in" error stands.
    await assert.rejects(
      readAppFiles([join(dir, 'a.yaml'), write(dir, 'cm.yaml', 'kind: ConfigMap\n')], {
        requireApps: true,
        prescan: prescanOf(['app-1']),
      }),
      /no Application in .*cm\.yaml \(ConfigMap\)/,
    );
    assert.equal(warnings.length, 1, warnings.join('\n'));
    // A name in no file: every file is read (the selection's error lists them all), its warning said once.
    // (Each file is a path of its own: a.yaml, left unparsed, counts as holding apps since it mentions them.)
    const missed: string[] = [];
    const all = await readAppFiles([join(dir, 'a.yaml'), join(dir, 'c.yaml')], {
      prescan: prescanOf(['app-9']),
      onWarning: (m) => missed.push(m),
    });
    assert.deepEqual(
      all.apps.map((a) => a.name),
      ['app-1', 'app-3'],
    );
    assert.equal(missed.length, 1, missed.join('\n'));
  });

  it('keeps the per-path "no Application" error', async () => {
    const dir = corpus({ 'apps/a.yaml': app('  name: app-1'), 'other/b.yaml': app('  name: app-2') });
    const empty = corpus({ 'c.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n' });
    for (const prescan of [undefined, prescanOf(['app-1'])])
      await assert.rejects(
        readAppFiles([join(dir, 'apps'), empty], { requireApps: true, prescan }),
        /no Application in .*\(ConfigMap\)/,
      );
    // other/ holds no app-1 but mentions Applications: no error, and its file is left unparsed.
    const read = await readAppFiles([join(dir, 'apps'), join(dir, 'other')], {
      requireApps: true,
      prescan: prescanOf(['app-1']),
    });
    assert.deepEqual(
      read.apps.map((a) => a.name),
      ['app-1'],
    );
  });

  it('mayHold: a superset test on the text', () => {
    const scan = prescanOf(['app-7'])!;
    assert.equal(mayHold('kind: Application\nmetadata: {name: app-7}', scan), true);
    assert.equal(mayHold('kind: Application\nmetadata: {name: app-70}', scan), false);
    assert.equal(mayHold('kind: Application\nmetadata: {name: my-app-7}', scan), false);
    assert.equal(mayHold('kind: Application\nmetadata: {name: "app-\\x37"}', scan), true);
    assert.equal(mayHold('kind: ConfigMap\nmetadata: {name: app-7}', scan), false);
    assert.equal(mayHold('kind: ApplicationSet\nmetadata: {name: x}', scan), true);
    assert.equal(mayHold('kind: AppProject\nmetadata: {name: x}', scan), true);
    assert.equal(prescanOf([]), undefined);
    assert.equal(prescanOf(['Web App']), undefined);
    assert.deepEqual(prescanOf(['ns/web'])?.names, ['web']);
  });
});
