/**
 * Branch and HEAD lookups read from a local repository's ref files (src/source/local-refs.ts) give what
 * `git ls-remote` gives for the same names, in every layout git writes: loose refs, packed refs (a loose
 * ref newer than its packed line), a detached HEAD, a bare repository, a linked worktree; and nothing (ask
 * git) for tags, unknown names and network URLs.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { localRepoPath, resolveLocalBranch } from '../../src/source/local-refs.js';
import { TestRepo, tempDir } from '../support/git.js';

function lsRemote(url: string): Map<string, string> {
  const out = execFileSync('git', ['ls-remote', '--', url], { encoding: 'utf8' });
  return new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [sha, name] = l.split('\t');
        return [name!, sha!];
      }),
  );
}

describe('local refs: the answer ls-remote gives, without git', () => {
  const repo = new TestRepo();
  const first = repo.commit({ 'a.yaml': '1' });
  repo.branch('release', first);
  repo.branch('feature/x', first);
  repo.tag('v1');
  const second = repo.commit({ 'a.yaml': '2' });
  after(() => repo.remove());

  it('loose refs: HEAD, short and full branch names', () => {
    const refs = lsRemote(repo.url);
    assert.equal(resolveLocalBranch(repo.url, 'HEAD'), refs.get('HEAD'));
    assert.equal(resolveLocalBranch(repo.url, 'main'), second);
    assert.equal(resolveLocalBranch(repo.url, 'release'), refs.get('refs/heads/release'));
    assert.equal(resolveLocalBranch(repo.url, 'feature/x'), first);
    assert.equal(resolveLocalBranch(repo.url, 'refs/heads/main'), refs.get('refs/heads/main'));
    assert.equal(resolveLocalBranch(repo.dir, 'main'), second, 'an absolute path works as the file:// URL');
  });

  it('packed refs, and a loose ref that moved after packing wins', () => {
    repo.git('pack-refs', '--all');
    assert.equal(resolveLocalBranch(repo.url, 'release'), first);
    assert.equal(resolveLocalBranch(repo.url, 'main'), second);
    const third = repo.commit({ 'a.yaml': '3' });
    assert.equal(resolveLocalBranch(repo.url, 'main'), third);
    assert.equal(resolveLocalBranch(repo.url, 'main'), lsRemote(repo.url).get('refs/heads/main'));
  });

  it('a detached HEAD', () => {
    repo.checkout(first);
    try {
      assert.equal(resolveLocalBranch(repo.url, 'HEAD'), first);
      assert.equal(resolveLocalBranch(repo.url, 'HEAD'), lsRemote(repo.url).get('HEAD'));
    } finally {
      repo.checkout('main');
    }
  });

  it('a bare repository and a linked worktree', () => {
    const bare = join(tempDir(), 'bare.git');
    execFileSync('git', ['clone', '-q', '--bare', repo.dir, bare]);
    const bareUrl = pathToFileURL(bare).href;
    assert.equal(resolveLocalBranch(bareUrl, 'release'), lsRemote(bareUrl).get('refs/heads/release'));
    assert.equal(resolveLocalBranch(bareUrl, 'HEAD'), lsRemote(bareUrl).get('HEAD'));

    const wt = join(tempDir(), 'wt');
    repo.git('worktree', 'add', '-q', wt, 'release');
    const wtUrl = pathToFileURL(wt).href;
    assert.equal(resolveLocalBranch(wtUrl, 'HEAD'), first, "the worktree's own HEAD");
    assert.equal(resolveLocalBranch(wtUrl, 'HEAD'), lsRemote(wtUrl).get('HEAD'));
    assert.equal(resolveLocalBranch(wtUrl, 'main'), lsRemote(wtUrl).get('refs/heads/main'));
  });

  it('tags, unknown names and network URLs: no answer (git is asked)', () => {
    assert.equal(resolveLocalBranch(repo.url, 'v1'), undefined);
    assert.equal(resolveLocalBranch(repo.url, 'refs/tags/v1'), undefined);
    assert.equal(resolveLocalBranch(repo.url, 'no-such-branch'), undefined);
    assert.equal(resolveLocalBranch(repo.url, '../../etc/passwd'), undefined);
    assert.equal(resolveLocalBranch('https://github.com/org/repo.git', 'main'), undefined);
    assert.equal(localRepoPath('git@github.com:org/repo.git'), undefined);
    assert.equal(resolveLocalBranch(pathToFileURL(tempDir()).href, 'main'), undefined, 'not a repository');
  });
});
