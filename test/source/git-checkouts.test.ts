/**
 * Leased checkouts (src/source/git.ts `GitRepos.lease`): a continuous loop renders commit after commit for
 * days; each render leases its commit's tree and releases it, and at most `MAX_IDLE_CHECKOUTS` trees no lease
 * holds stay on disk per repository (before, every commit's full tree stayed until the process ended). A
 * leased tree is never removed, a tree given by `checkout` (held by its caller) neither, and a removed
 * commit asked again is checked out again.
 */
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { GitRepos, MAX_IDLE_CHECKOUTS } from '../../src/source/git.js';
import { repoDirName } from '../../src/source/url.js';
import { TestRepo, tempDir } from '../support/git.js';

describe('git: leased checkouts of a stream of commits', () => {
  const repo = new TestRepo();
  const commits = Array.from({ length: MAX_IDLE_CHECKOUTS + 6 }, (_, i) =>
    repo.commit({ 'app/a.yaml': `a: ${i}\n` }, `commit ${i}`),
  );
  after(() => repo.remove());

  it('keeps at most MAX_IDLE_CHECKOUTS released trees, never a leased or a checkout() one', async () => {
    const workDir = tempDir('kg-work-');
    const git = new GitRepos({ cacheDir: tempDir(), workDir });
    const onDisk = (): string[] =>
      readdirSync(join(workDir, repoDirName(repo.url))).filter((n) => !n.endsWith('.index'));
    const pinned = await git.checkout(repo.url, commits[0]!);
    const held = await git.lease(repo.url, commits[1]!);
    for (const sha of commits.slice(2)) {
      const l = await git.lease(repo.url, sha);
      assert.equal(readFileSync(join(l.dir, 'app/a.yaml'), 'utf8'), `a: ${commits.indexOf(sha)}\n`);
      l.release();
      l.release(); // idempotent
    }
    // Removals run in the background: wait until the directories are gone.
    for (let i = 0; i < 100 && onDisk().length > MAX_IDLE_CHECKOUTS + 2; i++)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(git.checkoutCount(repo.url), MAX_IDLE_CHECKOUTS + 2);
    assert.equal(onDisk().length, MAX_IDLE_CHECKOUTS + 2);
    assert.ok(existsSync(join(pinned, 'app/a.yaml')), 'the checkout() tree stays');
    assert.ok(existsSync(join(held.dir, 'app/a.yaml')), 'the leased tree stays');
    // The newest released ones stay, the oldest went; the oldest asked again is checked out again.
    const newest = commits.at(-1)!;
    assert.ok(onDisk().includes(newest));
    assert.ok(!onDisk().includes(commits[2]!));
    const again = await git.lease(repo.url, commits[2]!);
    assert.equal(readFileSync(join(again.dir, 'app/a.yaml'), 'utf8'), 'a: 2\n');
    again.release();
    held.release();
  });
});
