/**
 * Repository Secrets as Git credentials, against the real `git` and a private repository served over HTTP
 * on loopback by `git http-backend` (test/support/git-http.ts): a repository Secret, a `repo-creds`
 * template, a bearer token, a wrong password (an error naming the URL, without the password, exit 2, the
 * other app still renders), no credentials, and what the secrets never reach (argv, mirror config, cache).
 */
import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { adHocApplication, type Application } from '../../src/apps/index.js';
import { ExitCode } from '../../src/common/index.js';
import { execProcess, type Exec } from '../../src/source/exec.js';
import {
  createSourceService,
  SourceError,
  type RepositoryObject,
  type SourceServiceOptions,
} from '../../src/source/index.js';
import { GitHttpServer } from '../support/git-http.js';
import { repoSecret } from '../support/repositories.js';
import { fakeGitHubApi } from '../support/github-api.js';
import { cm, TestRepo, tempDir } from '../support/git.js';

const PASSWORD = 's3cr3t-Pa55word';
const TOKEN = 'bearer-T0ken-value';

function app(url: string, name = 'web', project = 'default'): Application {
  return { ...adHocApplication({ repo: url, path: 'app', name, destNamespace: 'web' }), project };
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

describe('repository Secrets as Git credentials (git http-backend on loopback)', () => {
  const root = tempDir('kg-git-http-');
  const basic = new GitHttpServer(root, { username: 'alice', password: PASSWORD });
  const bearer = new GitHttpServer(root, { bearer: TOKEN });
  let sha = '';

  before(async () => {
    const repo = new TestRepo();
    sha = repo.commit({ 'app/cm.yaml': cm('private-settings') });
    execFileSync('git', ['clone', '-q', '--bare', repo.dir, join(root, 'team', 'private.git')]);
    repo.remove();
    await basic.start();
    await bearer.start();
  });

  after(async () => {
    await basic.stop();
    await bearer.stop();
  });

  /** Renders `apps` in one service; returns each app's result or error, the argv of every git, the cache. */
  async function render(
    apps: Application[],
    repositories: RepositoryObject[],
    options: Partial<SourceServiceOptions> = {},
  ) {
    const argv: string[][] = [];
    const exec: Exec = (c, a, o) => {
      argv.push([c, ...a]);
      return execProcess(c, a, o);
    };
    const cacheRoot = options.cacheRoot ?? tempDir('kg-cache-');
    const service = createSourceService({
      cacheRoot,
      exec,
      repositories: () => Promise.resolve(repositories),
      ...options,
    });
    try {
      const results = await Promise.all(
        apps.map((a) =>
          service.renderApp(a).then(
            (r) => r,
            (err: unknown) => err as Error,
          ),
        ),
      );
      return { results, argv, cacheRoot };
    } finally {
      await service.close();
    }
  }

  it('fetches through a repository Secret (username/password): nothing secret in argv, the mirror or the cache', async () => {
    const url = basic.url('team/private.git');
    const { results, argv, cacheRoot } = await render(
      [app(url)],
      [repoSecret('private', 'repository', { url, username: 'alice', password: PASSWORD })],
    );
    const r = results[0]!;
    assert.ok(!(r instanceof Error), String(r));
    assert.equal(r.revision, sha);
    assert.deepEqual(
      r.objects.map((o) => o.metadata?.name),
      ['private-settings'],
    );
    const expected = `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}`;
    assert.ok(basic.seen.includes(expected), "git sent the Secret's credentials");
    assert.ok(argv.length >= 2);
    for (const args of argv) assert.ok(!args.join(' ').includes(PASSWORD), `argv: ${args.join(' ')}`);
    const mirrors = join(cacheRoot, 'git');
    for (const file of filesUnder(cacheRoot)) {
      const text = readFileSync(file, 'latin1');
      assert.ok(!text.includes(PASSWORD), `${file} holds the password`);
      assert.ok(!text.includes(expected.slice(6)), `${file} holds the Basic header`);
    }
    const [mirror] = readdirSync(mirrors);
    // No remote (so no remote.origin.url) in the mirror's config: every fetch names the URL instead.
    const config = spawnSync(
      'git',
      ['--git-dir', join(mirrors, mirror!), 'config', '--get-regexp', '^remote\\.'],
      {
        encoding: 'utf8',
      },
    );
    assert.equal(config.status, 1, config.stdout);
    assert.equal(config.stdout, '');
  });

  it('a repo-creds template lends its credentials to every repository under its URL prefix (the longest wins)', async () => {
    const url = basic.url('team/private.git');
    const { results } = await render(
      [app(url)],
      [
        repoSecret('broad', 'repo-creds', { url: basic.url(''), username: 'alice', password: 'wrong' }),
        repoSecret('team', 'repo-creds', { url: basic.url('team'), username: 'alice', password: PASSWORD }),
        // A repository Secret with no credentials still takes them from the template.
        repoSecret('settings-only', 'repository', { url, insecure: 'false' }),
      ],
    );
    const r = results[0]!;
    assert.ok(!(r instanceof Error), String(r));
    assert.equal(r.revision, sha);
  });

  it('a bearer token goes as http.extraHeader through the environment', async () => {
    const url = bearer.url('team/private.git');
    const { results, argv } = await render(
      [app(url)],
      [repoSecret('tok', 'repository', { url, bearerToken: TOKEN })],
    );
    const r = results[0]!;
    assert.ok(!(r instanceof Error), String(r));
    assert.ok(bearer.seen.includes(`Bearer ${TOKEN}`));
    for (const args of argv) assert.ok(!args.join(' ').includes(TOKEN));
  });

  it('a wrong password is an error naming the repository, without the password, exit 2; the other app renders', async () => {
    const url = basic.url('team/private.git');
    const publicRepo = new TestRepo();
    publicRepo.commit({ 'app/cm.yaml': cm('public') });
    try {
      const { results } = await render(
        [app(url, 'private'), app(publicRepo.url, 'public')],
        [repoSecret('private', 'repository', { url, username: 'alice', password: 'Wr0ng-Pa55' })],
      );
      const [failed, ok] = [results[0]!, results[1]!];
      assert.ok(failed instanceof SourceError, String(failed));
      assert.equal(failed.exitCode, ExitCode.USAGE);
      assert.match(
        failed.message,
        /^app "private": failed to list the refs of http:\/\/127\.0\.0\.1:\d+\/team\/private\.git: /,
      );
      assert.match(failed.message, /Authentication failed/);
      assert.ok(!failed.message.includes('Wr0ng-Pa55'), failed.message);
      assert.ok(!(ok instanceof Error), String(ok));
      assert.deepEqual(
        ok.objects.map((o) => o.metadata?.name),
        ['public'],
      );
    } finally {
      publicRepo.remove();
    }
  });

  it('a GitHub App Secret: the installation token from the API is the password of x-access-token', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const gh = await fakeGitHubApi(publicKey, { team: 31 }, '4242');
    const server = new GitHttpServer(root, { username: 'x-access-token', password: 'ghs_token_for_31' });
    await server.start();
    try {
      const url = server.url('team/private.git');
      const secret = repoSecret('app', 'repo-creds', {
        url: server.url(''),
        githubAppID: '4242',
        githubAppPrivateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        githubAppEnterpriseBaseUrl: gh.base,
      });
      const { results } = await render([app(url), app(url, 'again')], [secret]);
      for (const r of results) assert.ok(!(r instanceof Error), String(r));
      // One installation lookup (no githubAppInstallationID: the org of the URL) and one token for the run.
      assert.deepEqual(gh.calls, [
        'GET /api/v3/orgs/team/installation',
        'POST /api/v3/app/installations/31/access_tokens',
      ]);
    } finally {
      await server.stop();
      await gh.close();
    }
  });

  it('no matching Secret: "authentication required", naming the URL', async () => {
    const url = basic.url('team/private.git');
    const { results } = await render(
      [app(url)],
      [repoSecret('other', 'repository', { url: 'https://example.com/x', password: 'p' })],
    );
    const [failed] = results;
    assert.ok(failed instanceof SourceError);
    assert.match(
      failed.message,
      /failed to list the refs of http:\/\/127\.0\.0\.1:\d+\/team\/private\.git: authentication required: no credentials matched this URL/,
    );
  });

  it('git and its askpass get the secret only through the environment; the private directory is removed', async () => {
    const url = basic.url('team/private.git');
    const envs: Record<string, string | undefined>[] = [];
    const seen: { script: string; scriptMode: number; dirMode: number }[] = [];
    const exec: Exec = (c, a, o) => {
      envs.push({ ...o?.env });
      const askpass = o?.env?.['GIT_ASKPASS'];
      if (askpass)
        seen.push({
          script: readFileSync(askpass, 'utf8'),
          scriptMode: statSync(askpass).mode & 0o777,
          dirMode: statSync(join(askpass, '..')).mode & 0o777,
        });
      return execProcess(c, a, o);
    };
    const { results } = await render(
      [app(url)],
      [repoSecret('p', 'repository', { url, username: 'alice', password: PASSWORD })],
      { exec },
    );
    assert.ok(!(results[0] instanceof Error));
    const withAuth = envs.find((e) => e['GIT_ASKPASS']);
    assert.ok(withAuth);
    assert.equal(withAuth['KUBECTL_GITOPS_GIT_PASSWORD'], PASSWORD);
    assert.equal(withAuth['GIT_CONFIG_KEY_0'], 'credential.helper');
    const askpass = withAuth['GIT_ASKPASS']!;
    assert.ok(seen.length > 0);
    for (const s of seen) {
      assert.ok(!s.script.includes(PASSWORD), 'the askpass script holds no secret');
      assert.equal(s.dirMode, 0o700);
      assert.equal(s.scriptMode, 0o700);
    }
    // Removed by close():
    assert.throws(() => statSync(askpass), /ENOENT/);
  });
});
