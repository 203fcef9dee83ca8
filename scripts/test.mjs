// Runs node's test runner over test/**/*.test.ts through tsx (Node 20's --test takes no globs).
// `npm run test:unit -- sharding` runs only the files whose path contains "sharding".
import { readdirSync, statSync } from 'node:fs';
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
const selected = filters.length ? files.filter((f) => filters.some((x) => f.includes(x))) : files;
if (selected.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
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
    '--test-timeout=120000',
    '--test-force-exit',
    ...selected,
  ],
  { cwd: root, stdio: 'inherit' },
);
process.exit(r.status ?? 1);
