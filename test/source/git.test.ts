import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { GitRepos } from '../../src/source/git.js';
import { redactURL, repoDirName, repoKey } from '../../src/source/url.js';
import { TestRepo, tempDir } from '../support/git.js';

function repos(cacheDir: string): GitRepos {
  return new GitRepos({ cacheDir, workDir: tempDir('kg-work-') });
}

describe('git: resolving targetRevision like Argo CD', () => {
  const repo = new TestRepo();
  const first = repo.commit({ 'app/a.yaml': 'a: 1\n' }, 'first');
  repo.tag('v1');
  repo.tag('v1-annotated', { annotated: true });
  const second = repo.commit({ 'app/a.yaml': 'a: 2\n' }, 'second');
  repo.branch('release', first);
  const cache = tempDir();
  after(() => repo.remove());

  it('HEAD, "" and branch names resolve to the branch tip', async () => {
    const git = repos(cache);
    assert.equal(await git.resolveRevision(repo.url, 'HEAD'), second);
    assert.equal(await git.resolveRevision(repo.url, ''), second);
    assert.equal(await git.resolveRevision(repo.url, 'main'), second);
    assert.equal(await git.resolveRevision(repo.url, 'release'), first);
    assert.equal(await git.resolveRevision(repo.url, 'refs/heads/release'), first);
    // A local repository: HEAD and branches are read from its ref files, no git process at all.
    assert.equal(git.stats.processes, 0, 'no git process for HEAD and branches of a local repository');
    assert.equal(git.stats.lsRemotes, 0);
  });

  it('tags (lightweight and annotated, peeled to the commit)', async () => {
    const git = repos(cache);
    assert.equal(await git.resolveRevision(repo.url, 'v1'), first);
    assert.equal(await git.resolveRevision(repo.url, 'v1-annotated'), first);
    assert.equal(await git.resolveRevision(repo.url, 'refs/tags/v1-annotated'), first);
    assert.equal(git.stats.lsRemotes, 1, 'tags go through one ls-remote per repository per run');
  });

  it('a full SHA is used as is (no git at all), a short SHA is resolved in the mirror', async () => {
    const git = repos(cache);
    assert.equal(await git.resolveRevision(repo.url, first.toUpperCase()), first);
    assert.equal(git.stats.processes, 0);
    assert.equal(await git.resolveRevision(repo.url, first.slice(0, 10)), first);
  });

  it('a missing revision is an error naming repository and revision', async () => {
    const git = repos(cache);
    await assert.rejects(git.resolveRevision(repo.url, 'no-such-branch'), {
      message: `failed to resolve revision "no-such-branch": no such branch, tag or commit in ${repo.url}`,
    });
    await assert.rejects(
      git.checkout(repo.url, '0123456789012345678901234567890123456789'),
      /failed to resolve revision "0123456789012345678901234567890123456789"/,
    );
  });

  it('credentials never appear in errors', async () => {
    const git = new GitRepos({ cacheDir: tempDir(), workDir: tempDir(), timeoutMs: 20_000 });
    const err = await git.resolveRevision('http://alice:s3cret@127.0.0.1:9/org/repo.git', 'main').then(
      () => assert.fail('expected an error'),
      (e: Error) => e,
    );
    assert.doesNotMatch(err.message, /s3cret|alice/);
    assert.match(err.message, /http:\/\/127\.0\.0\.1:9\/org\/repo\.git/);
  });
});

describe('git: mirrors and checkouts', () => {
  it('fetches each repository once per run however many callers share it', async () => {
    const repo = new TestRepo();
    const shas = [
      repo.commit({ 'a.yaml': '1' }),
      repo.commit({ 'a.yaml': '2' }),
      repo.commit({ 'a.yaml': '3' }),
    ];
    const git = repos(tempDir());
    const dirs = await Promise.all([...shas, ...shas].map((sha) => git.checkout(repo.url, sha)));
    assert.deepEqual(git.stats.fetches, { [repo.url]: 1 });
    assert.equal(new Set(dirs).size, 3, 'one checkout per commit');
    assert.equal(readFileSync(join(dirs[0]!, 'a.yaml'), 'utf8'), '1');
    assert.equal(readFileSync(join(dirs[2]!, 'a.yaml'), 'utf8'), '3');
    assert.ok(!existsSync(join(dirs[0]!, '.git')));
    repo.remove();
  });

  it('a moved branch between two runs: the second run sees the new commit, fetching once', async () => {
    const repo = new TestRepo();
    const cache = tempDir();
    const one = repo.commit({ 'app/cm.yaml': 'v: 1\n' });
    const run1 = repos(cache);
    assert.equal(await run1.resolveRevision(repo.url, 'main'), one);
    await run1.checkout(repo.url, one);

    const two = repo.commit({ 'app/cm.yaml': 'v: 2\n', 'app/new.yaml': 'n: 1\n' });
    const run2 = repos(cache);
    assert.equal(await run2.resolveRevision(repo.url, 'main'), two);
    const dir = await run2.checkout(repo.url, two);
    assert.equal(readFileSync(join(dir, 'app/cm.yaml'), 'utf8'), 'v: 2\n');
    assert.ok(existsSync(join(dir, 'app/new.yaml')));
    assert.deepEqual(run2.stats.fetches, { [repo.url]: 1 });

    // Third run at the same commit: the mirror has it, nothing is fetched.
    const run3 = repos(cache);
    await run3.checkout(repo.url, await run3.resolveRevision(repo.url, 'main'));
    assert.deepEqual(run3.stats.fetches, {});
    repo.remove();
  });

  it('mirror directories are keyed without credentials', () => {
    assert.equal(redactURL('https://bob:tok@example.com/x.git'), 'https://example.com/x.git');
    assert.equal(repoKey('https://bob:tok@example.com/x.git/'), 'https://example.com/x');
    assert.equal(
      repoDirName('https://bob:tok@example.com/org/x.git'),
      repoDirName('https://example.com/org/x'),
    );
    assert.doesNotMatch(repoDirName('https://bob:tok@example.com/org/x.git'), /bob|tok/);
    assert.match(repoDirName('https://example.com/org/x.git'), /^org_x-[0-9a-f]{16}$/);
  });
});
