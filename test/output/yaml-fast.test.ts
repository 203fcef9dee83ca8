/**
 * The fast YAML printer (src/output/yaml-fast.ts) prints exactly what the `yaml` library prints, or
 * declines: every object of the test fixtures and the examples, and objects built to hit each rule's edge.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { fastObjectYaml } from '../../src/output/yaml-fast.js';
import { YAML_OUT } from '../../src/output/structured.js';
import { fixturesDir, repoRoot } from '../support/paths.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return files(full);
    return /\.(ya?ml|json)$/.test(name) ? [full] : [];
  });
}

/** Every map found in the files, at any depth (so nested objects of every shape are tried on their own). */
function maps(value: unknown, out: Record<string, unknown>[]): void {
  if (Array.isArray(value)) for (const v of value) maps(v, out);
  else if (value && typeof value === 'object') {
    out.push(value as Record<string, unknown>);
    for (const v of Object.values(value)) maps(v, out);
  }
}

function same(value: Record<string, unknown>): boolean {
  const fast = fastObjectYaml(value);
  if (fast === undefined) return false;
  assert.equal(fast, stringify(value, YAML_OUT), JSON.stringify(value).slice(0, 300));
  return true;
}

test('every object of the fixtures and examples: the same text as the library, or no answer', () => {
  const all: Record<string, unknown>[] = [];
  for (const file of [...files(fixturesDir), ...files(join(repoRoot, 'examples'))]) {
    const text = readFileSync(file, 'utf8');
    try {
      for (const doc of parseAllDocuments(text)) if (!doc.errors.length) maps(doc.toJS(), all);
    } catch {
      // not YAML we can read (templates): nothing to compare
    }
  }
  let answered = 0;
  for (const m of all) if (same(m)) answered++;
  assert.ok(all.length > 1000, `objects tried: ${all.length}`);
  assert.ok(answered > all.length / 4, `the fast path answers often enough: ${answered} of ${all.length}`);
});

test('edges: quoting, words, numbers, empty and nested collections', () => {
  const cases: Record<string, unknown>[] = [
    { a: '3', b: '0.5', c: '007', d: '', e: 'plain', f: 'a.b/c-d_e', g: 0, h: -12, i: true, j: null },
    { y: 'y', n: 'No', on: 'ON', t: 'true', nul: 'null', Yes: 1 },
    { list: [], map: {}, seq: [{}, [], 'x', 1, { a: { b: [{ c: 'd', e: [] }] } }] },
    { nested: [['a']], float: 1.5, neg0: -0, big: 2 ** 60, space: 'a b', colon: 'a:b', multi: 'a\nb' },
    { 'app.kubernetes.io/name': 'x', _under: 'x', '0key': 'x', 'with space': 'x', '<<': 'x' },
    { metadata: { annotations: { 'argocd.argoproj.io/sync-wave': '-1', hook: 'PreSync' } } },
  ];
  for (const c of cases) {
    same(c);
    for (const [k, v] of Object.entries(c)) same({ [k]: v });
  }
  assert.equal(fastObjectYaml({ a: '3' }), 'a: "3"\n');
  assert.equal(fastObjectYaml({ a: 'y' }), undefined, 'a YAML 1.1 word goes to the library');
  assert.equal(fastObjectYaml({ a: [['x']] }), undefined);
  assert.equal(fastObjectYaml({ a: undefined }), undefined);
});

test('tracking ids and other values with ":" inside are plain, a trailing ":" is not', () => {
  for (const v of ['app-0:/ConfigMap:ns-0/app-0-0', 'a:b', 'a:', 'a::b', 'http://x', 'x:1', 'a:/b:', 'y:n'])
    same({ v });
  assert.equal(
    fastObjectYaml({ id: 'app-0:/ConfigMap:ns-0/app-0-0' }),
    'id: app-0:/ConfigMap:ns-0/app-0-0\n',
  );
});
