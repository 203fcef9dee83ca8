// Runs node's test runner over test/**/*.test.ts through tsx (Node 20's --test takes no globs).
// `npm run test:unit -- sharding` runs only the files whose path contains "sharding".
// With KG_TEST_SERVER set (a kube-only rig's rig.json, or `real`: test/support/test-server.ts), it runs the
// integration tests against that real kube-apiserver: the files using the embedded-server fixture
// (test/support/embedded.ts), one at a time (they share the server; each cleans up after itself); the
// embedded server's own tests (test/embedded/) are listed as skipped, and the unit tests without a server
// are not run (they would be the same run again).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const filters = process.argv.slice(2);
const files = [];
(function walk(dir) {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path);
    else if (entry.endsWith('.test.ts')) files.push(relative(root, path));
  }
})(join(root, 'test'));
const real = !['', 'embedded'].includes(process.env.KG_TEST_SERVER ?? '');
let selected = filters.length ? files.filter((f) => filters.some((x) => f.includes(x))) : files;
if (real) {
  const usesFixture = (f) => readFileSync(join(root, f), 'utf8').includes('support/embedded.js');
  const internals = selected.filter((f) => f.startsWith('test/embedded/'));
  if (internals.length)
    console.log(
      `# skip: ${internals.length} files of test/embedded/: embedded server internals (embedded server only)`,
    );
  selected = selected.filter((f) => !f.startsWith('test/embedded/') && usesFixture(f));
  console.log(
    `# real server (KG_TEST_SERVER=${process.env.KG_TEST_SERVER}): ${selected.length} test files, one at a time`,
  );
}
if (selected.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}
const concurrency = real ? '1' : (process.env.TEST_CONCURRENCY ?? '2');
const reporter = process.env.TEST_REPORTER ?? 'spec';
const r = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    `--test-reporter=${reporter}`,
    // A hung test (a server left open, a watch never ended) fails after 2 minutes instead of stalling CI,
    // and a file whose tests are done exits even if something still holds the event loop.
    // On the real server each file also waits for its clean-up (namespaces, CRDs gone): 5 minutes.
    `--test-timeout=${real ? 300000 : 120000}`,
    '--test-force-exit',
    ...selected,
  ],
  { cwd: root, stdio: 'inherit' },
);
process.exit(r.status ?? 1);
