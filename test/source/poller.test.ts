/**
 * The Git poller (src/source/poller.ts) against real repositories: file:// repos for ref moves and the
 * one-ls-remote-per-repository rule, `git http-backend` on loopback for credentials from a repository
 * Secret (and a wrong password: a warning naming the redacted URL, no secret, retried next poll). Time is a
 * FakeClock; git runs for real.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '../../src/common/index.js';
import { createSourceService, type SourceService } from '../../src/source/index.js';
import { RepoPoller, repositoriesToPoll, type RefChange } from '../../src/source/poller.js';
import { GitHttpServer } from '../support/git-http.js';
import { TestRepo, tempDir } from '../support/git.js';
import { repoSecret } from '../support/repositories.js';

/** Resolves with the changes of the next poll that `clock.step(interval)` starts. */
function nextPoll(poller: RepoPoller, clock: FakeClock): Promise<void> {
  const before = poller.polls;
  clock.step(poller.intervalMs);
  return new Promise((resolve) => {
    const wait = () => (poller.polls > before ? resolve() : setTimeout(wait, 5));
    wait();
  });
}

describe('RepoPoller: watched refs of real repositories', () => {
  const repo = new TestRepo();
  const other = new TestRepo();
  let service: SourceService;
  before(() => {
    repo.commit({ 'app/a.yaml': 'a: 1\n' }, 'first');
    repo.tag('v1', { annotated: true });
    repo.branch('release');
    other.commit({ 'x.yaml': 'x: 1\n' });
    service = createSourceService({ cacheRoot: tempDir('kg-cache-') });
  });
  after(async () => {
    await service.close();
    repo.remove();
    other.remove();
  });

  it('records the refs at start, then reports each moved ref once, with one ls-remote per repository per poll', async () => {
    const clock = new FakeClock();
    const calls: string[] = [];
    const changes: RefChange[] = [];
    const poller = new RepoPoller({
      // Two apps' sources on the same repository (spelt with and without .git), one on another.
      repositories: repositoriesToPoll([
        { repoURL: repo.url, targetRevision: 'HEAD', project: 'default' },
        { repoURL: `${repo.url}.git`, targetRevision: 'release', project: 'default' },
        { repoURL: repo.url, targetRevision: 'v1', project: 'default' },
        { repoURL: other.url, targetRevision: '', project: 'default' },
      ]),
      listRefs: (url, project) => {
        calls.push(url);
        return service.listRefs!(url, project);
      },
      intervalMs: 1000,
      clock,
      onChange: (c) => changes.push(c),
    });
    await poller.start();
    assert.deepEqual(calls.sort(), [other.url, repo.url].sort(), 'one ls-remote per repository');
    assert.equal(changes.length, 0, 'the first poll only records');

    const before = repo.head();
    const after = repo.commit({ 'app/a.yaml': 'a: 2\n' }, 'second');
    await nextPoll(poller, clock);
    assert.equal(calls.length, 4, 'again one ls-remote per repository');
    assert.deepEqual(changes, [{ repoURL: repo.url, ref: 'HEAD', from: before, to: after }]);

    // A tag moved (annotated: peeled to the commit), a branch deleted.
    changes.length = 0;
    repo.git('tag', '-f', '-a', '-m', 'v1 again', 'v1', after);
    repo.git('branch', '-D', 'release');
    await nextPoll(poller, clock);
    assert.deepEqual(
      changes.sort((a, b) => a.ref.localeCompare(b.ref)),
      [
        { repoURL: repo.url, ref: 'release', from: before, to: undefined },
        { repoURL: repo.url, ref: 'v1', from: before, to: after },
      ],
    );

    changes.length = 0;
    await nextPoll(poller, clock);
    assert.equal(changes.length, 0, 'nothing moved: nothing reported');
    poller.stop();
    assert.equal(clock.pendingTimers, 0, 'stop clears the timer');
  });

  it('a full SHA and a Helm chart are never polled', () => {
    const sha = 'a'.repeat(40);
    assert.deepEqual(
      repositoriesToPoll([
        { repoURL: repo.url, targetRevision: sha, project: 'default' },
        { repoURL: 'https://charts.example.com', targetRevision: '1.2.*', project: 'default', chart: 'web' },
      ]),
      [],
    );
  });

  it('a failing poll is a warning naming the redacted URL, keeps the last SHAs, and the next poll reports the move', async () => {
    const clock = new FakeClock();
    const warnings: string[] = [];
    const changes: RefChange[] = [];
    let fail = false;
    const url = 'https://alice:hunter2-token@git.example.com/team/app.git';
    const poller = new RepoPoller({
      repositories: [{ url, project: 'default', refs: ['HEAD'] }],
      listRefs: () => {
        if (fail) return Promise.reject(new Error(`fatal: unable to access '${url}': connection refused`));
        return service.listRefs!(repo.url, 'default');
      },
      intervalMs: 5000,
      clock,
      onChange: (c) => changes.push(c),
      onWarning: (m) => warnings.push(m),
    });
    await poller.start();
    const before = repo.head();
    fail = true;
    const after = repo.commit({ 'app/a.yaml': 'a: 3\n' });
    await nextPoll(poller, clock);
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!,
      /^repository https:\/\/git\.example\.com\/team\/app\.git: failed to poll refs: /,
    );
    assert.match(warnings[0]!, /retrying in 5s/);
    assert.ok(!warnings.join('\n').includes('hunter2'), 'no credential in the warning');
    assert.equal(changes.length, 0);
    fail = false;
    await nextPoll(poller, clock);
    assert.deepEqual(changes, [{ repoURL: url, ref: 'HEAD', from: before, to: after }]);
    poller.stop();
  });

  it('the abort signal stops polling', async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const poller = new RepoPoller({
      repositories: [{ url: repo.url, project: 'default', refs: ['HEAD'] }],
      listRefs: (u, p) => service.listRefs!(u, p),
      clock,
      signal: controller.signal,
      onChange: () => assert.fail('no change expected'),
    });
    await poller.start();
    assert.equal(poller.intervalMs, 30_000, 'default interval');
    assert.equal(clock.pendingTimers, 1);
    controller.abort();
    assert.equal(clock.pendingTimers, 0);
  });
});

describe('RepoPoller: credentials from repository Secrets (git http-backend on loopback)', () => {
  const PASSWORD = 'p0ll-Pa55word';
  const root = tempDir('kg-git-http-');
  const server = new GitHttpServer(root, { username: 'alice', password: PASSWORD });
  const repo = new TestRepo();
  before(async () => {
    repo.commit({ 'app/a.yaml': 'a: 1\n' });
    execFileSync('git', ['clone', '-q', '--bare', repo.dir, join(root, 'private.git')]);
    await server.start();
  });
  after(async () => {
    await server.stop();
    repo.remove();
  });

  it('polls with the Secret of the app project, and a wrong password warns without the password', async () => {
    const url = server.url('private.git');
    const bare = join(root, 'private.git');
    const secret = (password: string) => [
      repoSecret('private', 'repository', { url, username: 'alice', password }),
    ];
    const good = createSourceService({
      cacheRoot: tempDir('kg-cache-'),
      repositories: () => Promise.resolve(secret(PASSWORD)),
    });
    const bad = createSourceService({
      cacheRoot: tempDir('kg-cache-'),
      repositories: () => Promise.resolve(secret('Wr0ng-p0ll')),
    });
    try {
      const clock = new FakeClock();
      const changes: RefChange[] = [];
      const warnings: string[] = [];
      const poller = new RepoPoller({
        repositories: repositoriesToPoll([{ repoURL: url, targetRevision: 'main', project: 'default' }]),
        listRefs: (u, p) => good.listRefs!(u, p),
        clock,
        intervalMs: 1000,
        onChange: (c) => changes.push(c),
        onWarning: (m) => warnings.push(m),
      });
      await poller.start();
      const before = repo.head();
      const after = repo.commit({ 'app/a.yaml': 'a: 2\n' });
      execFileSync('git', ['--git-dir', bare, 'fetch', '-q', repo.dir, '+main:main']);
      await nextPoll(poller, clock);
      assert.deepEqual(changes, [{ repoURL: url, ref: 'main', from: before, to: after }]);
      assert.equal(warnings.length, 0);
      poller.stop();

      const failing = new RepoPoller({
        repositories: [{ url, project: 'default', refs: ['main'] }],
        listRefs: (u, p) => bad.listRefs!(u, p),
        clock,
        onChange: () => assert.fail('no change expected'),
        onWarning: (m) => warnings.push(m),
      });
      await failing.start();
      failing.stop();
      assert.equal(warnings.length, 1);
      assert.match(
        warnings[0]!,
        new RegExp(`^repository ${url.replace(/[.]/g, '\\.')}: failed to poll refs: `),
      );
      assert.ok(!warnings[0]!.includes('Wr0ng-p0ll'), 'no password in the warning');
    } finally {
      await good.close();
      await bad.close();
    }
  });
});
