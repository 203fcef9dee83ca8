/**
 * gitops-engine's own diff test data (test/fixtures/gitops-engine-diff/, from argoproj/argo-cd
 * `gitops-engine/pkg/diff/testdata`), each case with the verdict and the predicted/normalized-live facts
 * that `gitops-engine/pkg/diff/diff_test.go` asserts, run through `compareResource`. Modes: `diff` (Argo
 * CD's default three-way/two-way), `structuredMergeDiff` (the ServerSideApply=true strategy) and
 * `serverSideDiff` (the dry-run answer upstream mocks is given as `predictedLive`). Tracking migration
 * (an Argo CD normalizer outside gitops-engine) is off: `trackingMethod: 'label'`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { canonicalQuantity, compareResource } from '../../src/diff/index.js';
import type { KubeObject } from '../../src/cluster/index.js';
import type { CompareInput, IgnoreDifference, Json } from '../../src/diff/index.js';
import { fixturesDir } from '../support/paths.js';

const DIR = join(fixturesDir, 'gitops-engine-diff');

interface Check {
  pointer: string;
  equals?: Json;
  absent?: boolean;
  present?: boolean;
  length?: number;
  quantity?: string;
  contains?: Record<string, Json>;
}

interface PatchOp {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: Json;
}

interface Case {
  name: string;
  upstream: string;
  mode: 'diff' | 'structuredMergeDiff' | 'serverSideDiff';
  config: string;
  live: string;
  predictedLive?: string;
  configPatch?: PatchOp[];
  livePatch?: PatchOp[];
  options?: {
    ignoreAggregatedRoles?: boolean;
    includeMutationWebhook?: boolean;
    ignoreDifferences?: IgnoreDifference[];
  };
  expect: { modified: boolean; predicted?: Check[]; live?: Check[] };
  skip?: string;
}

const vectors = JSON.parse(readFileSync(join(DIR, 'cases.json'), 'utf8')) as { cases: Case[] };

function load(file: string): KubeObject {
  const text = readFileSync(join(DIR, file), 'utf8');
  return (file.endsWith('.json') ? JSON.parse(text) : parse(text)) as KubeObject;
}

function tokens(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function at(value: unknown, pointer: string): unknown {
  let v = value;
  for (const t of tokens(pointer)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[t];
  }
  return v;
}

/** RFC 6902 add/replace/remove on plain data (test data edits the upstream test makes in Go). */
function applyPatch(obj: KubeObject, ops: PatchOp[] = []): KubeObject {
  const out = structuredClone(obj) as unknown as Record<string, unknown>;
  for (const op of ops) {
    const path = tokens(op.path);
    const last = path.pop()!;
    const parent = path.reduce<Record<string, unknown>>((p, t) => p[t] as Record<string, unknown>, out);
    if (op.op === 'remove') {
      assert.ok(Object.hasOwn(parent, last), `patch: ${op.path} must exist to be removed`);
      delete parent[last];
    } else parent[last] = structuredClone(op.value);
  }
  return out as unknown as KubeObject;
}

function check(side: string, obj: unknown, c: Check): void {
  const v = at(obj, c.pointer);
  const where = `${side} ${c.pointer}`;
  if (c.absent) assert.equal(v, undefined, `${where} is absent`);
  if (c.present) assert.notEqual(v, undefined, `${where} is present`);
  if (c.equals !== undefined) assert.deepEqual(v, c.equals, where);
  if (c.length !== undefined) {
    assert.ok(v !== null && typeof v === 'object', `${where} is a list or map`);
    assert.equal(Array.isArray(v) ? v.length : Object.keys(v).length, c.length, `${where} length`);
  }
  if (c.quantity !== undefined) {
    const q = v === undefined ? '0' : canonicalQuantity(v as string | number);
    assert.equal(q, canonicalQuantity(c.quantity), `${where} quantity`);
  }
  if (c.contains) {
    assert.ok(Array.isArray(v), `${where} is a list`);
    const want = c.contains;
    assert.ok(
      v.some((el: Record<string, unknown>) => Object.entries(want).every(([k, x]) => el[k] === x)),
      `${where} has an element with ${JSON.stringify(want)}: ${JSON.stringify(v)}`,
    );
  }
}

describe('gitops-engine pkg/diff test data (argoproj/argo-cd 37ee0097)', () => {
  it('every testdata file is used by a case (or named as unused in the README)', () => {
    const used = new Set(vectors.cases.flatMap((c) => [c.config, c.live, c.predictedLive ?? '']));
    const readme = readFileSync(join(DIR, 'README.md'), 'utf8');
    for (const file of readdirSync(DIR).filter((f) => f !== 'cases.json' && f !== 'README.md')) {
      assert.ok(used.has(file) || readme.includes(`\`${file}\``), `${file} is used`);
    }
  });

  for (const c of vectors.cases) {
    it(`${c.upstream}: ${c.name}`, c.skip ? { skip: c.skip } : {}, () => {
      const input: CompareInput = {
        target: applyPatch(load(c.config), c.configPatch),
        live: applyPatch(load(c.live), c.livePatch),
        trackingMethod: 'label',
        ignoreAggregatedRoles: c.options?.ignoreAggregatedRoles ?? false,
        ignoreDifferences: c.options?.ignoreDifferences ?? [],
        fieldManagers: ['argocd-controller'],
        structuredMergeDiff: c.mode === 'structuredMergeDiff',
        ...(c.mode === 'serverSideDiff'
          ? {
              predictedLive: load(c.predictedLive!),
              includeMutationWebhook: c.options?.includeMutationWebhook ?? false,
            }
          : {}),
      };
      const r = compareResource(input);
      assert.equal(r.difference === 'modified', c.expect.modified, r.diffText ?? 'no difference');
      for (const x of c.expect.predicted ?? []) check('predicted', r.normalizedTarget, x);
      for (const x of c.expect.live ?? []) check('live', r.normalizedLive, x);
    });
  }
});
