/**
 * The command reference in docs/commands/ is generated from the oclif command definitions (scripts/docs.mjs,
 * `npm run docs`): a committed page that differs from what the generator writes fails here, so `--help` and
 * the docs cannot drift. Needs the build (`npm test` builds first).
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tempDir } from '../support/git.js';
import { repoRoot } from '../support/paths.js';

function docs(...args: string[]) {
  return spawnSync(process.execPath, [join(repoRoot, 'scripts', 'docs.mjs'), ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
}

describe('generated command reference', () => {
  it('docs/commands/ is what `npm run docs` writes (one page per command, and an index)', () => {
    const r = docs('--check');
    assert.equal(r.status, 0, `${r.stderr}${r.stdout}`);
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, unknown>;
    };
    const pages = readdirSync(join(repoRoot, 'docs', 'commands')).sort();
    assert.deepEqual(pages, ['README.md', ...Object.keys(manifest.commands).map((c) => `${c}.md`)].sort());
  });

  it('the check names a page edited by hand, a page for no command and a missing page', () => {
    const dir = tempDir('kg-docs-');
    const written = docs('--out', dir);
    assert.equal(written.status, 0, written.stderr);
    assert.equal(docs('--check', '--out', dir).status, 0);
    appendFileSync(join(dir, 'sync.md'), 'a hand-written line\n');
    writeFileSync(join(dir, 'old.md'), '# gone\n');
    writeFileSync(join(dir, 'shards.md'), '');
    rmSync(join(dir, 'version.md'));
    const r = docs('--check', '--out', dir);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /sync\.md: differs from the command definitions/);
    assert.match(r.stderr, /shards\.md: differs/);
    assert.match(r.stderr, /old\.md: no such command/);
    assert.match(r.stderr, /version\.md: missing/);
    assert.match(r.stderr, /npm run docs/);
  });

  it("each page holds its command's `--help` (usage, every flag, description, examples), laid out alike", () => {
    for (const command of ['diff', 'sync', 'render', 'shards', 'embedded-cluster', 'version']) {
      const help = spawnSync(process.execPath, [join(repoRoot, 'bin', 'kubectl-gitops'), command, '--help'], {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { ...process.env, COLUMNS: '120', OCLIF_COLUMNS: '120', NO_COLOR: '1' },
      });
      assert.equal(help.status, 0, help.stderr);
      // --help starts with the summary, which the page shows as its title instead.
      const body = help.stdout.slice(help.stdout.indexOf('\n\n') + 2).trim();
      const page = readFileSync(join(repoRoot, 'docs', 'commands', `${command}.md`), 'utf8');
      const block = page.split('```\n')[1]?.trim();
      assert.equal(block, body, `docs/commands/${command}.md holds kubectl gitops ${command} --help`);
      assert.ok(page.includes(help.stdout.slice(0, help.stdout.indexOf('\n'))), `${command}: summary`);
    }
  });
});
