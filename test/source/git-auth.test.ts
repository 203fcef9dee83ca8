/**
 * What git receives for each kind of credentials (src/source/git-auth.ts), and where the secrets are: the
 * private directory (0700) and its files (0600), GIT_SSH_COMMAND run by the real git against a fake ssh
 * (and a real sshd when one is installed), GitHub App tokens from a loopback API that checks the JWT's
 * RS256 signature, and the lookup rules of repository Secrets and templates (src/source/repositories.ts).
 */
import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { execProcess } from '../../src/source/exec.js';
import { GitAuth, scrub } from '../../src/source/git-auth.js';
import { GitHubAppTokens, orgOfRepoURL } from '../../src/source/github-app.js';
import { RepositoryStore, type RepoCredentials } from '../../src/source/repositories.js';
import { adHocApplication } from '../../src/apps/index.js';
import { createSourceService } from '../../src/source/index.js';
import { cm, TestRepo, tempDir } from '../support/git.js';
import { repoSecret } from '../support/repositories.js';
import { fakeGitHubApi } from '../support/github-api.js';

const KEY =
  '-----BEGIN OPENSSH PRIVATE KEY-----\nnot-a-real-key-but-secret\n-----END OPENSSH PRIVATE KEY-----';

function creds(over: Partial<RepoCredentials>): RepoCredentials {
  return {
    ...new RepositoryStore([repoSecret('x', 'repository', { url: 'https://example.com/x' })])
      .repositories[0]!,
    ...over,
  };
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe('repository lookup (util/db/repository_secrets.go)', () => {
  const store = new RepositoryStore([
    repoSecret('exact', 'repository', {
      url: 'https://git.example.com/Org/App.git',
      username: 'u',
      password: 'exact',
    }),
    repoSecret('team', 'repository', {
      url: 'https://git.example.com/org/app',
      project: 'team',
      password: 'team',
    }),
    repoSecret('bare', 'repository', { url: 'https://git.example.com/org/bare', insecure: 'true' }),
    repoSecret('short', 'repo-creds', { url: 'https://git.example.com', password: 'short' }),
    repoSecret('long', 'repo-creds', {
      url: 'https://git.example.com/org',
      password: 'long',
      proxy: 'http://p:3128',
    }),
    repoSecret('ssh', 'repo-creds', { url: 'git@git.example.com:org', sshPrivateKey: KEY }),
  ]);

  it("a repository Secret matches the same URL after normalization; the project's own wins", () => {
    assert.equal(store.lookup('https://git.example.com/org/app', 'default')?.password, 'exact');
    assert.equal(store.lookup('https://GIT.example.com/org/app.git', 'other')?.password, 'exact');
    assert.equal(store.lookup('https://git.example.com/org/app', 'team')?.password, 'team');
  });

  it('templates apply when no repository Secret with credentials matches: the longest prefix wins', () => {
    assert.equal(store.lookup('https://git.example.com/org/other', 'default')?.password, 'long');
    assert.equal(store.lookup('https://git.example.com/elsewhere/x', 'default')?.password, 'short');
    const bare = store.lookup('https://git.example.com/org/bare', 'default')!;
    assert.equal(bare.password, 'long');
    assert.equal(bare.insecure, true, "the repository's own settings stay");
    assert.equal(bare.proxy, 'http://p:3128');
    assert.equal(store.lookup('ssh://git@git.example.com/org/x.git', 'default')?.sshPrivateKey, KEY);
    assert.equal(store.lookup('https://other.example.com/x', 'default'), undefined);
  });

  it('stringData over data, bad booleans name the Secret, other objects are ignored', () => {
    const s = new RepositoryStore([
      {
        origin: 'f.yaml (document 1)',
        object: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'a', labels: { 'argocd.argoproj.io/secret-type': 'repository' } },
          stringData: { url: 'https://h/x', password: 'plain' },
        },
      },
      {
        origin: 'f.yaml (document 2)',
        object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b' } },
      },
      {
        origin: 'f.yaml (document 3)',
        object: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'argocd-ssh-known-hosts-cm' },
          data: { ssh_known_hosts: 'h ssh-ed25519 AAAA' },
        },
      },
    ]);
    assert.equal(s.lookup('https://h/x', 'default')?.password, 'plain');
    assert.equal(s.size, 1);
    assert.equal(s.knownHosts, 'h ssh-ed25519 AAAA');
    assert.throws(
      () => new RepositoryStore([repoSecret('bad', 'repository', { url: 'https://h/x', insecure: 'yes' })]),
      /^UsageError: secret argocd\/bad: failed to read repository Secret: insecure "yes" is not a boolean$/,
    );
  });
});

describe('GitAuth: the environment of git', () => {
  it('HTTPS: askpass script without secrets, 0700 dir, TLS files 0600, insecure, proxy; all removed by close()', async () => {
    const auth = new GitAuth(undefined, { baseEnv: { GIT_CONFIG_COUNT: '2' } });
    const { env, secrets } = await auth.environ(
      creds({
        password: 'pw',
        bearerToken: 'tok-123',
        tlsClientCertData: 'CERT',
        tlsClientCertKey: 'KEY-DATA',
        insecure: true,
        proxy: 'http://pu:pp-secret@proxy:3128',
        noProxy: '.internal',
      }),
    );
    const dir = join(env['GIT_ASKPASS']!, '..');
    assert.equal(mode(dir), 0o700);
    assert.ok(!readFileSync(env['GIT_ASKPASS']!, 'utf8').includes('pw\n'));
    assert.equal(env['KUBECTL_GITOPS_GIT_USERNAME'], 'x-access-token');
    assert.equal(env['GIT_SSL_NO_VERIFY'], 'true');
    assert.equal(mode(env['GIT_SSL_CERT']!), 0o600);
    assert.equal(readFileSync(env['GIT_SSL_KEY']!, 'utf8'), 'KEY-DATA');
    assert.equal(mode(env['GIT_SSL_KEY']!), 0o600);
    // The user's own GIT_CONFIG_COUNT entries stay: ours follow them.
    assert.equal(env['GIT_CONFIG_COUNT'], '4');
    assert.equal(env['GIT_CONFIG_KEY_2'], 'credential.helper');
    assert.equal(env['GIT_CONFIG_KEY_3'], 'http.extraHeader');
    assert.equal(env['GIT_CONFIG_VALUE_3'], 'Authorization: Bearer tok-123');
    assert.equal(env['https_proxy'], 'http://pu:pp-secret@proxy:3128');
    assert.equal(env['no_proxy'], '.internal');
    assert.equal(
      scrub('x pw tok-123 KEY-DATA pp-secret y', secrets),
      'x pw *** *** *** y',
      'secrets of 3 characters and more are scrubbed',
    );
    // A repository Secret with settings only (no credential): still insecure and proxied.
    const settingsOnly = await auth.environ(creds({ insecure: true, proxy: 'http://proxy:3128' }));
    assert.deepEqual(Object.keys(settingsOnly.env).sort(), [
      'GIT_SSL_NO_VERIFY',
      'HTTPS_PROXY',
      'HTTP_PROXY',
      'NO_PROXY',
      'http_proxy',
      'https_proxy',
      'no_proxy',
    ]);
    await auth.close();
    assert.throws(() => statSync(dir), /ENOENT/);
  });

  it('SSH: GIT_SSH_COMMAND with a 0600 key file and the known hosts, run by the real git (fake ssh)', async () => {
    const bin = tempDir('kg-fake-ssh-');
    const fake = join(bin, 'fake-ssh');
    const log = join(bin, 'log');
    // Records its arguments and the mode and contents of the -i file, then fails as an unreachable host.
    writeFileSync(
      fake,
      `#!/bin/sh
[ "$1" = "-G" ] && exit 1
key=""
prev=""
for a in "$@"; do [ "$prev" = "-i" ] && key="$a"; prev="$a"; done
{ echo "ARGS $*"; echo "MODE $(stat -c %a "$key")"; echo "KEY $(cat "$key")"; } >> "${log}"
echo "ssh: connect to host example.invalid: refused" >&2
exit 255
`,
    );
    chmodSync(fake, 0o755);
    const auth = new GitAuth('example.invalid ssh-ed25519 AAAAC3Nza', { ssh: fake });
    const { env, secrets } = await auth.environ(
      creds({ url: 'git@example.invalid:org/repo', sshPrivateKey: KEY }),
    );
    assert.match(
      env['GIT_SSH_COMMAND']!,
      / -o StrictHostKeyChecking=yes -o UserKnownHostsFile='[^']+known_hosts'$/,
    );
    const r = await execProcess('git', ['ls-remote', '--', 'git@example.invalid:org/repo'], { env }).then(
      () => undefined,
      (err: Error) => err,
    );
    assert.ok(r instanceof Error);
    assert.ok(!scrub(r.message, secrets).includes('not-a-real-key'));
    const text = readFileSync(log, 'utf8');
    assert.match(
      text,
      /^ARGS -i \S+ -o IdentitiesOnly=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile=\S+known_hosts .*git@example\.invalid/m,
    );
    assert.match(text, /^MODE 600$/m);
    assert.ok(text.includes(`KEY ${KEY.split('\n')[0]}`));
    const known = /UserKnownHostsFile=(\S+)/.exec(text)![1]!;
    assert.equal(readFileSync(known, 'utf8'), 'example.invalid ssh-ed25519 AAAAC3Nza');
    assert.equal(mode(known), 0o600);
    // insecureIgnoreHostKey: no host key check at all, and nothing written to a known_hosts file.
    const insecure = await auth.environ(creds({ sshPrivateKey: KEY, insecureIgnoreHostKey: true }));
    assert.match(
      insecure.env['GIT_SSH_COMMAND']!,
      / -o StrictHostKeyChecking=no -o UserKnownHostsFile=\/dev\/null$/,
    );
    await auth.close();
    assert.throws(() => statSync(known), /ENOENT/);
  });

  it(
    "SSH against a real sshd on loopback: the Secret's key and known hosts fetch; a wrong key fails naming the URL",
    { skip: sshdSkipReason() },
    async () => {
      const dir = tempDir('kg-sshd-');
      const sshd = sshdPath()!;
      const keygen = (file: string) =>
        spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file], { stdio: 'ignore' });
      keygen(join(dir, 'host'));
      keygen(join(dir, 'client'));
      keygen(join(dir, 'stranger'));
      writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client.pub')));
      const port = await freePort();
      writeFileSync(
        join(dir, 'sshd_config'),
        [
          `Port ${port}`,
          'ListenAddress 127.0.0.1',
          `HostKey ${join(dir, 'host')}`,
          `PidFile ${join(dir, 'sshd.pid')}`,
          `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
          'StrictModes no',
          'UsePAM no',
          'PasswordAuthentication no',
          'KbdInteractiveAuthentication no',
          'PubkeyAuthentication yes',
          '',
        ].join('\n'),
      );
      const daemon = spawn(sshd, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: 'ignore' });
      const repo = new TestRepo();
      repo.commit({ 'app/cm.yaml': cm('over-ssh') });
      try {
        await waitForPort(port);
        const url = `ssh://${userInfo().username}@127.0.0.1:${port}${repo.dir}`;
        const hostKey = readFileSync(join(dir, 'host.pub'), 'utf8').trim().split(' ').slice(0, 2).join(' ');
        const knownHosts = {
          origin: 'cm',
          object: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'argocd-ssh-known-hosts-cm' },
            data: { ssh_known_hosts: `[127.0.0.1]:${port} ${hostKey}\n` },
          },
        };
        const render = async (key: string) => {
          const service = createSourceService({
            cacheRoot: tempDir('kg-cache-'),
            repositories: () =>
              Promise.resolve([repoSecret('ssh', 'repository', { url, sshPrivateKey: key }), knownHosts]),
          });
          try {
            return await service.renderApp(
              adHocApplication({ repo: url, path: 'app', name: 'ssh', destNamespace: 'web' }),
            );
          } finally {
            await service.close();
          }
        };
        const ok = await render(readFileSync(join(dir, 'client'), 'utf8'));
        assert.deepEqual(
          ok.objects.map((o) => o.metadata?.name),
          ['over-ssh'],
        );
        const stranger = readFileSync(join(dir, 'stranger'), 'utf8');
        await assert.rejects(render(stranger), (err: Error) => {
          // The URL is named without its user part (redactURL strips userinfo).
          assert.match(err.message, /failed to list the refs of ssh:\/\/127\.0\.0\.1:\d+\//);
          assert.ok(!err.message.includes(stranger.split('\n')[1]!));
          return true;
        });
      } finally {
        daemon.kill();
        repo.remove();
      }
    },
  );
});

function sshdPath(): string | undefined {
  for (const p of ['/usr/sbin/sshd', '/usr/local/sbin/sshd']) if (existsSync(p)) return p;
  const which = spawnSync('sh', ['-c', 'command -v sshd'], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : undefined;
}

/** Why the real-sshd test cannot run here (undefined: it can). */
function sshdSkipReason(): string | undefined {
  if (!sshdPath())
    return 'sshd is not installed on this machine: the fake-ssh test covers GIT_SSH_COMMAND and the 0600 key file';
  if (spawnSync('ssh-keygen', ['-?'], { stdio: 'ignore' }).error) return 'ssh-keygen is not installed';
  // Debian's sshd refuses to start without its privilege separation directory, which only its service
  // start creates.
  if (!existsSync('/run/sshd'))
    return 'sshd cannot start here: /run/sshd (its privilege separation directory) is missing';
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      }).on('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`sshd did not listen on 127.0.0.1:${port}`);
}

describe('GitHub App credentials', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  const api = (installations: Record<string, number>) => fakeGitHubApi(publicKey, installations);

  it('signs an RS256 JWT, exchanges it for an installation token, caches it until expiry', async () => {
    const gh = await api({ acme: 7 });
    try {
      let now = Date.now();
      const tokens = new GitHubAppTokens({ now: () => now });
      const req = {
        appId: 42,
        installationId: 99,
        privateKey: pem,
        baseUrl: gh.base,
        repoURL: 'https://github.com/acme/x',
      };
      assert.equal(await tokens.token(req), 'ghs_token_for_99');
      assert.equal(await tokens.token(req), 'ghs_token_for_99');
      assert.deepEqual(gh.calls, ['POST /api/v3/app/installations/99/access_tokens']);
      now += 3_600_000; // past expiry (minus a minute): a new token
      await tokens.token(req);
      assert.equal(gh.calls.length, 2);
      // No installation id: found from the organization of the URL.
      assert.equal(
        await tokens.token({ ...req, installationId: 0, repoURL: 'git@github.com:acme/x.git' }),
        'ghs_token_for_7',
      );
      const discoveries = gh.calls.filter((c) => c.startsWith('GET')).length;
      await tokens.token({ ...req, installationId: 0, repoURL: 'https://github.com/acme/y' });
      assert.equal(
        gh.calls.filter((c) => c.startsWith('GET')).length,
        discoveries,
        'the installation id is remembered',
      );
      // A wrong key: the API's refusal names the URL and status, never the key or the JWT.
      const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
      await assert.rejects(tokens.token({ ...req, privateKey: other }), (err: Error) => {
        assert.match(
          err.message,
          /^failed to get a GitHub App token: POST http:\/\/127\.0\.0\.1:\d+\/api\/v3\/app\/installations\/99\/access_tokens answered 401: A JSON web token could not be decoded$/,
        );
        return true;
      });
      await assert.rejects(
        tokens.token({ ...req, privateKey: 'garbage' }),
        /githubAppPrivateKey is not a valid PEM private key/,
      );
    } finally {
      await gh.close();
    }
  });

  it('the token becomes the password of x-access-token for git', async () => {
    const gh = await api({});
    try {
      const auth = new GitAuth(undefined);
      const { env, secrets } = await auth.environ(
        creds({
          githubAppID: 42,
          githubAppInstallationID: 5,
          githubAppPrivateKey: pem,
          githubAppEnterpriseBaseUrl: gh.base,
        }),
      );
      assert.equal(env['KUBECTL_GITOPS_GIT_USERNAME'], 'x-access-token');
      assert.equal(env['KUBECTL_GITOPS_GIT_PASSWORD'], 'ghs_token_for_5');
      assert.ok(secrets.includes('ghs_token_for_5'));
      await auth.close();
    } finally {
      await gh.close();
    }
  });

  it('the organization of a repository URL', () => {
    assert.equal(orgOfRepoURL('https://github.com/acme/x.git'), 'acme');
    assert.equal(orgOfRepoURL('git@github.com:acme/x.git'), 'acme');
    assert.equal(orgOfRepoURL('ssh://git@github.com/acme/x'), 'acme');
  });
});
