/** Every YAML we print must read back unchanged by YAML 1.1 readers (kubectl, Go): ambiguous strings quoted. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { renderStructured } from '../../src/output/structured.js';
import { renderAppFile } from '../../src/output/render.js';
import { toYaml } from '../../src/diff/unified.js';
import type { RenderedApp } from '../../src/source/index.js';

const data = {
  a: 'yes',
  b: 'on',
  c: 'off',
  d: 'y',
  e: '2026-01-01',
  f: '0755',
  g: 'true',
  h: 'plain',
  n: 5,
  t: true,
};
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data };

function readAs11(text: string): unknown {
  return parse(text, { version: '1.1' });
}

test('structured YAML output reads back the same under YAML 1.1', () => {
  assert.deepEqual(readAs11(renderStructured(configMap, 'yaml')), configMap);
});

test('rendered manifests (render -o yaml, fed to kubectl apply) read back the same under YAML 1.1', () => {
  const app = {
    app: { name: 'x', multiSource: false },
    sources: [{}],
    revision: 'abc',
    objects: [configMap],
    warnings: [],
  };
  const text = renderAppFile(app as unknown as RenderedApp, 'yaml');
  assert.deepEqual(readAs11(text.split('---\n')[1]!), configMap);
});

test('diff YAML quotes YAML 1.1 booleans and timestamps', () => {
  const text = toYaml(configMap);
  assert.match(text, /a: "yes"/);
  assert.match(text, /e: "2026-01-01"/);
  assert.deepEqual(readAs11(text), configMap);
});
