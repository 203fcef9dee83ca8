/**
 * The Lua VM against Argo CD's own Lua health scripts and their test vectors
 * (test/fixtures/lua-health-scripts, upstream layout `<group>/<Kind>/health.lua` + `health_test.yaml`):
 * each script runs as a user override would (standard libraries on, as Argo CD runs its built-in scripts)
 * and must give every listed status and message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { findKindCheck, getResourceHealth, loadLuaVm, type Unstructured } from '../../src/health/index.js';
import { fixturesDir } from '../support/paths.js';

interface LuaHealthTest {
  healthStatus: { status: string; message?: string };
  inputPath: string;
}

const { runHealthLua } = await loadLuaVm();
const root = join(fixturesDir, 'lua-health-scripts');
const folders = readdirSync(root, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((group) =>
    readdirSync(join(root, group.name), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((kind) => join(group.name, kind.name)),
  );

test('the script folders hold the five copied kinds', () => {
  assert.equal(folders.length, 5, folders.join(', '));
});

for (const folder of folders) {
  const script = readFileSync(join(root, folder, 'health.lua'), 'utf8');
  const { tests } = parse(readFileSync(join(root, folder, 'health_test.yaml'), 'utf8')) as {
    tests: LuaHealthTest[];
  };
  for (const t of tests) {
    test(`${folder} ${t.inputPath}: ${t.healthStatus.status}`, () => {
      const obj = parse(readFileSync(join(root, folder, t.inputPath), 'utf8')) as Unstructured;
      const got = runHealthLua(script, obj, { useOpenLibs: true });
      assert.ok(got, 'health expected');
      assert.equal(got.status, t.healthStatus.status);
      assert.equal(got.message ?? '', t.healthStatus.message ?? '');
    });
    // The kinds we port to TypeScript must agree with the script, except where Argo CD's own order decides
    // first: an object being deleted is "Pending deletion" before any script runs (gitops-engine
    // GetResourceHealth), which the script's own test cannot show.
    const [group, kind] = folder.split('/') as [string, string];
    if (findKindCheck(group, kind)?.source !== 'lua') continue;
    test(`${folder} ${t.inputPath}: the TypeScript port agrees`, () => {
      const obj = parse(readFileSync(join(root, folder, t.inputPath), 'utf8')) as Unstructured;
      const deleting = (obj['metadata'] as { deletionTimestamp?: string }).deletionTimestamp !== undefined;
      const expected = deleting ? { status: 'Progressing', message: 'Pending deletion' } : t.healthStatus;
      const got = getResourceHealth(obj);
      assert.ok(got, 'health expected');
      assert.deepEqual([got.status, got.message ?? ''], [expected.status, expected.message ?? '']);
    });
  }
}
