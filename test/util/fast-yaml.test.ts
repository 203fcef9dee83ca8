/**
 * The fast YAML path (src/util/fast-yaml.ts) reads exactly what `yaml` reads, or declines: compared with
 * `yaml`'s parseAllDocuments + toJS on every YAML/JSON file of the project's fixtures and docs, and on the
 * scalars, keys and layouts where YAML parsers are known to disagree.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { argoCdStringField } from '../../src/apps/index.js';
import { fastParseAll, fastParseDocuments } from '../../src/util/fast-yaml.js';
import { KUBE_YAML_OPTIONS, parseKubeDocuments } from '../../src/util/yaml-docs.js';
import { parseObjects } from '../../src/source/render/objects.js';

/** `yaml`'s reading (non-empty documents), or undefined when `yaml` reports an error. */
function slow(text: string): unknown[] | undefined {
  const docs = parseAllDocuments(text, { ...KUBE_YAML_OPTIONS, uniqueKeys: false });
  const list = Array.isArray(docs) ? docs : [docs];
  if (list.some((d) => d.errors.length > 0)) return undefined;
  return list
    .map((d) => d.toJS({ maxAliasCount: 1000 }) as unknown)
    .filter((v) => v !== null && v !== undefined);
}

function agree(text: string, where: string): 'fast' | 'declined' {
  const fast = fastParseAll(text);
  if (!fast) return 'declined';
  const want = slow(text);
  assert.ok(want, `${where}: the fast path read text yaml rejects`);
  assert.deepEqual(
    fast.filter((v) => v !== null && v !== undefined),
    want,
    `${where}: the fast path reads it differently`,
  );
  return 'fast';
}

function* yamlFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) yield* yamlFiles(path);
    else if (/\.(ya?ml|json)$/.test(e.name)) yield path;
  }
}

test('fast path: every YAML and JSON file of the fixtures and docs reads as yaml reads it', () => {
  let fast = 0;
  let files = 0;
  for (const dir of ['test/fixtures', 'docs']) {
    for (const file of yamlFiles(dir)) {
      const text = readFileSync(file, 'utf8');
      if (!slow(text)) continue;
      files++;
      if (agree(text, file) === 'fast') fast++;
    }
  }
  assert.ok(files > 100, `only ${files} files found`);
  assert.ok(fast > files / 2, `the fast path read only ${fast} of ${files} files`);
});

test('fast path: scalars resolve as manifests are read (yaml-1.1 schema, no timestamps)', () => {
  const scalars = [
    '010',
    '1.10',
    '0o17',
    '0o19',
    '0x1F',
    '0X1F',
    '+1',
    '-1',
    '-.5',
    '+.5',
    '.5',
    '5.',
    '1e3',
    '1E+3',
    '-1.5e-3',
    '.inf',
    '-.INF',
    '+.Inf',
    '.nan',
    '.NaN',
    'nan',
    'inf',
    'yes',
    'no',
    'on',
    'off',
    'y',
    'n',
    'True',
    'TRUE',
    'tRUE',
    'false',
    'NULL',
    'Null',
    'nULL',
    '~',
    '0b1_0',
    '-0b1',
    '-1_0',
    '0755',
    '-0755',
    '08',
    '0_7',
    '0x_1F',
    '1_0.5',
    '1_0e3',
    '.',
    '-.',
    '+.e1',
    'Yes',
    'yES',
    'ON',
    'oN',
    'Off',
    'Y',
    'N',
    'NO',
    'nO',
    '0b101',
    '1_000',
    '12:30',
    '1:20:30',
    '2001-12-14',
    '2001-12-14t21:59:43.10-05:00',
    '9007199254740993',
    '0',
    '-0',
    '+0',
    '00',
    '0.0',
    '-0.0',
    '1.0',
    '3.14159',
    '"010"',
    "'1.10'",
    '"true"',
    '""',
    "''",
    '"\\u00e9\\x41\\t\\/"',
    "'it''s'",
    'a b c',
    'a: b"',
    '#x',
    'x #c',
    '- a',
    'http://x.y/z?a=b',
    '@x',
    '`x`',
    '%x',
    '|',
    '>',
  ];
  for (const s of scalars) {
    for (const text of [`v: ${s}\n`, `- ${s}\n`, `v: [${s}]\n`, `${s.replace(/^[-|>#%@`]/, 'k')}: x\n`]) {
      agree(text, JSON.stringify(text));
    }
  }
});

test('fast path: layouts, duplicate keys, block scalars and documents', () => {
  const texts = [
    'a: 1\na: 2\n',
    'a:\n  b: 1\n  b: {c: 2}\n',
    'k: |\n  line 1\n\n  line 2\n',
    'k: |-\n  keep\n  \n',
    'k: |+\n  keep\n\n\n',
    'k: >\n  folded\n  text\n\n  para\n',
    'k: >-\n  a\n   indented\n  b\n',
    'k: plain\n  continued\n  lines\n',
    'k: "quoted\n  folded"\n',
    "k: 'single\n\n  para'\n",
    '---\n---\na: 1\n...\n---\n# only a comment\n---\nb: 2\n',
    '[1, 2, {a: b}]\n',
    '{a: [1, {b: c}], d: e}\n',
    'a:\n- 1\n- - 2\n  - 3\n',
    'x: {{ .Values.x }}\n',
    '? a\n: b\n',
    'a: &x 1\nb: *x\n',
    'a: !!str 1\n',
    '<<: {a: 1}\nb: 2\n',
    '~: 1\n',
    ': 1\n',
    '"": 1\n',
    '1: a\ntrue: b\n1.5: c\n',
    '"a:b": 1\n"a #b": 2\n',
    'é: ü\n',
    'a:\tb\n',
    '__proto__: {polluted: 1}\n',
    'a: b: c\n',
    'a:\n  - b\n c: d\n',
    'a: [1, 2\n',
  ];
  for (const t of texts) agree(t, JSON.stringify(t));
  assert.equal(fastParseAll('a: &x 1\nb: *x\n'), undefined, 'aliases are left to yaml');
  assert.equal(fastParseAll('x: {{ .Values.x }}\n'), undefined, 'collection keys are left to yaml');
});

test('parseObjects gives the same objects and the same errors through either path', () => {
  const cm = (i: number) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c${i}\ndata:\n  n: "${i}"\n  v: 1.10\n`;
  const text = [
    cm(1),
    cm(2),
    'kind: List\napiVersion: v1\nitems:\n- kind: Secret\n  metadata: {name: s}\n',
  ].join('---\n');
  assert.ok(fastParseAll(text));
  assert.deepEqual(
    parseObjects(text),
    slow(text)!.flatMap((v) => (v as { items?: unknown[] }).items ?? [v]),
  );
  assert.throws(() => parseObjects(`${cm(1)}---\n- not an object\n`), /document 2: not a Kubernetes object/);
  assert.throws(
    () => parseObjects(`${cm(1)}---\nmetadata: {name: x}\n`),
    /document 2: Object 'Kind' is missing/,
  );
});

test('app files: fields kept as written and document numbers are the same through either path', () => {
  const app = (name: string, rev: string) =>
    `apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: ${name}\nspec:\n  project: default\n  source:\n    repoURL: https://x/y.git\n    targetRevision: ${rev}\n    chart: 010\n    helm:\n      parameters:\n      - name: a\n        value: 1.10\n      - {name: b, value: true}\n    path: 1e3\n  destination: {server: https://kubernetes.default.svc, namespace: 0x1F}\n  syncPolicy:\n    retry: {limit: 5}\n`;
  const texts = [
    app('a', '1.10'),
    `# leading comment\n---\n${app('a', '2')}---\n${app('b', 'true')}`,
    `apiVersion: argoproj.io/v1alpha1\nkind: ApplicationList\nitems:\n- ${app('c', '1.0').trim().split('\n').join('\n  ')}\n`,
    `apiVersion: v1\nkind: List\nitems:\n- ${app('d', '3.10').trim().split('\n').join('\n  ')}\n`,
    `${app('e', '1.10')}---\n---\n${app('f', '1.20')}`,
    `${app('g', '1.10')}...\n---\n${app('h', '1')}`,
  ];
  let fast = 0;
  for (const text of texts) {
    if (fastParseDocuments(text, true)) fast++;
    // A `!` in a comment sends the same data to `yaml`.
    assert.deepEqual(
      parseKubeDocuments(text, 'f.yaml', argoCdStringField),
      parseKubeDocuments(`${text}# !\n`, 'f.yaml', argoCdStringField),
      text,
    );
  }
  assert.ok(fast >= 4, `the fast path read only ${fast} of ${texts.length}`);
  const [first] = parseKubeDocuments(texts[0]!, 'f.yaml', argoCdStringField).objects;
  const spec = first!.object['spec'] as {
    source: Record<string, unknown>;
    syncPolicy: { retry: { limit: unknown } };
  };
  assert.equal(spec.source['targetRevision'], '1.10');
  assert.equal(spec.syncPolicy.retry.limit, 5);
});
