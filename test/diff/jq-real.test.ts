/**
 * The jq subset against the real `jq` binary (issue 14): for a table of expressions users write in
 * ignoreDifferences.jqPathExpressions x documents, `del(<expression>)` as Argo CD runs it must leave the same
 * document as `jq -c 'del(<expression>)'`, and an expression jq fails on must fail here too (Argo CD then
 * skips it). Skipped with a reason when jq is not installed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { JqRuntimeError, jqDelete, parseJq } from '../../src/diff/jq.js';
import type { Json } from '../../src/diff/types.js';

const hasJq = spawnSync('jq', ['--version'], { stdio: 'ignore' }).status === 0;

const EXPRESSIONS = [
  '.spec.template.spec.containers[] | select(.name == "app").env',
  '.spec.template.spec.containers[].env[] | select(.name == "FOO").value',
  '.spec.template.spec.containers[] | select(.name | startswith("side")).image',
  '.spec.template.spec.containers[] | select(.name | test("^a.p$")) | .resources',
  '.spec.template.spec.containers[] | select(has("resources") and .name != "app")',
  '.spec.template.spec.containers[] | select((.name == "app" or .name == "x") | not)',
  '.spec.template.spec.containers[]?.env[]? | select(.value // "" | endswith("1"))',
  '.metadata.annotations // .metadata.labels',
  '.metadata.missing // .metadata.labels',
  '.. | select(type == "object" and has("replicas")).replicas',
  '.spec.template.spec.containers[0].image, .spec.template.spec.containers[-1].name',
  '.spec.replicas | select(. > 2)',
  '.metadata.labels["app.kubernetes.io/name"]',
  '.spec.template.spec.containers[] | select(.env | length > 1).env[1]',
  '.spec.template.spec.containers[] | select(.ports[0].containerPort >= 8080).ports',
  '.metadata.name.foo',
  '.spec.template.spec.containers[] | select(.name | contains("car"))',
];

const DOCUMENTS: Json[] = [
  {
    metadata: { name: 'web', labels: { 'app.kubernetes.io/name': 'web', tier: 'front' } },
    spec: {
      replicas: 3,
      template: {
        spec: {
          containers: [
            {
              name: 'app',
              image: 'nginx:1',
              env: [
                { name: 'FOO', value: 'v1' },
                { name: 'BAR', value: 'v2' },
              ],
              ports: [{ containerPort: 8080 }],
              resources: { limits: { cpu: '1' } },
            },
            { name: 'sidecar', image: 'envoy:1', env: [{ name: 'FOO' }], ports: [{ containerPort: 9000 }] },
          ],
        },
      },
    },
  },
  {
    metadata: { name: 'db', annotations: { a: 'b' }, labels: {} },
    spec: { replicas: 1, template: { spec: { containers: [{ name: 'x', image: 'postgres' }] } } },
  },
  { metadata: { name: 'empty' }, spec: {} },
];

function realJq(expression: string, doc: Json): { ok: true; doc: Json } | { ok: false } {
  const r = spawnSync('jq', ['-c', `del(${expression})`], { input: JSON.stringify(doc), encoding: 'utf8' });
  return r.status === 0 ? { ok: true, doc: JSON.parse(r.stdout) as Json } : { ok: false };
}

function ours(expression: string, doc: Json): { ok: true; doc: Json } | { ok: false } {
  const copy = structuredClone(doc);
  try {
    jqDelete(parseJq(expression), copy);
    return { ok: true, doc: copy };
  } catch (err) {
    if (err instanceof JqRuntimeError) return { ok: false };
    throw err;
  }
}

describe('jqPathExpressions against the real jq', { skip: hasJq ? false : 'jq is not installed' }, () => {
  for (const expression of EXPRESSIONS) {
    it(expression, () => {
      DOCUMENTS.forEach((doc, i) => {
        assert.deepEqual(ours(expression, doc), realJq(expression, doc), `document ${i + 1}`);
      });
    });
  }

  it('the table exercises deletions and errors, not only no-ops', () => {
    const results = EXPRESSIONS.flatMap((e) => DOCUMENTS.map((d) => realJq(e, d)));
    assert.ok(
      results.some((r) => !r.ok),
      'some expression fails on some document',
    );
    assert.ok(
      EXPRESSIONS.every((e) =>
        DOCUMENTS.some((d) => {
          const r = realJq(e, d);
          return !r.ok || JSON.stringify(r.doc) !== JSON.stringify(d);
        }),
      ),
      'every expression deletes something (or fails) in some document',
    );
  });
});
