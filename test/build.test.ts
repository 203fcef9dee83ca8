/**
 * The production bundle (dist/, from `npm run build`): start-up must not pay for heavy modules. Every
 * command lives in dist/commands/index.js; what it imports statically loads on every run, so the
 * Kubernetes client (about 400 ms to import), the refresh engine (only `diff` needs it) and the embedded API
 * server (only `embedded-cluster` needs it) must only ever be reached through dynamic import().
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './support/paths.js';

interface Metafile {
  outputs: Record<string, { imports: { path: string; kind: string }[]; inputs: Record<string, unknown> }>;
}

const metaPath = join(repoRoot, 'dist', 'meta.json');

function staticClosure(meta: Metafile, entry: string): Set<string> {
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length) {
    const out = stack.pop()!;
    if (seen.has(out)) continue;
    seen.add(out);
    for (const imp of meta.outputs[out]?.imports ?? []) {
      if (imp.kind === 'import-statement' && meta.outputs[imp.path]) stack.push(imp.path);
    }
  }
  return seen;
}

test('start-up (launcher + commands module) never statically loads the Kubernetes client, typescript, the controller or the embedded server', () => {
  assert.ok(existsSync(metaPath), 'dist/meta.json is missing: run `npm run build` first');
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as Metafile;
  for (const entry of ['dist/cli.js', 'dist/commands/index.js']) {
    assert.ok(meta.outputs[entry], `${entry} is an output`);
    const inputs = [...staticClosure(meta, entry)].flatMap((o) => Object.keys(meta.outputs[o]!.inputs));
    const heavy = inputs.filter((i) =>
      /node_modules\/(@kubernetes\/client-node|typescript)\/|^src\/(embedded|controller)\//.test(i),
    );
    assert.deepEqual(heavy, [], `${entry} statically reaches heavy modules`);
    assert.ok(
      inputs.some((i) => i.includes('@oclif/core')),
      'the closure walk sees oclif (sanity)',
    );
  }
  const dynamic = Object.values(meta.outputs).some((o) =>
    Object.keys(o.inputs).some((i) => i.includes('node_modules/@kubernetes/client-node/')),
  );
  assert.ok(dynamic, 'the client is still bundled, as a chunk loaded on demand');
});

test("the bundle carries client-node's KubeConfig without its generated API clients and models", () => {
  // scripts/esbuild-client-node.mjs: the generated index (about 14 MB, every API class and model) is cut
  // down to the two names config.js uses; if it came back, the standalone executable would parse it on
  // every start.
  const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as Metafile;
  const inputs = Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs));
  const generated = inputs.filter((i) => /client-node\/dist\/gen\/(apis|models)\//.test(i));
  assert.deepEqual(generated, [], 'generated API clients or models are bundled');
  assert.ok(
    inputs.some((i) => i.endsWith('client-node/dist/config.js')),
    'KubeConfig (config.js) is bundled',
  );
});
