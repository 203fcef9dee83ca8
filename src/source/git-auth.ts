/**
 * Credentials of a repository -> the environment of the real `git`, as Argo CD's util/git/creds.go
 * (HTTPSCreds/SSHCreds/GitHubAppCreds.Environ) and util/git/client.go (runCredentialedCmd, runCmdOutput)
 * build it, with one rule of ours: a secret is NEVER on a command line (visible in `ps`) nor in a file
 * anyone but us can read. Which credentials apply (Repository.GetGitCreds): password or bearer token ->
 * HTTPS; else an SSH private key; else a GitHub App (private key + app id); else none.
 * - HTTPS: `GIT_ASKPASS` is a script of ours that prints `$KUBECTL_GITOPS_GIT_USERNAME` or
 *   `..._PASSWORD` (inherited environment; the script itself holds no secret); username defaults to
 *   "x-access-token" as Argo CD's. A bearer token (or, with `forceHttpBasicAuth`, the Basic header) is
 *   `http.extraHeader`, given through `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` (environment-only config).
 *   `credential.helper` is reset the same way, so the user's helpers cannot answer for the Secret.
 * - TLS client certificate (with HTTPS or GitHub App credentials): `GIT_SSL_CERT`/`GIT_SSL_KEY` name files
 *   mode 0600. `insecure` (or `insecureIgnoreHostKey`, Repository.IsInsecure), credentials or not:
 *   `GIT_SSL_NO_VERIFY=true`.
 * - SSH: the key goes to a file mode 0600; `GIT_SSH_COMMAND="ssh -i <key> -o IdentitiesOnly=yes ..."` with
 *   `StrictHostKeyChecking=yes` and, when argocd-ssh-known-hosts-cm was given, `UserKnownHostsFile=<its
 *   copy>` (otherwise ssh's own known_hosts files); `insecureIgnoreHostKey` (or `insecure`):
 *   `StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null`.
 * - GitHub App: an installation token (github-app.ts) as the password of "x-access-token".
 * - `proxy`/`noProxy`: `http_proxy`, `https_proxy`, `no_proxy` (util/proxy UpsertEnv).
 * Files live in ONE private directory per run (mode 0700, under the OS temp dir), removed by `close()`.
 * `secrets` lists every value that must never reach a message: callers scrub git's stderr with them.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitHubAppTokens, type GitHubAppTokensOptions } from './github-app.js';
import type { RepoCredentials } from './repositories.js';

export interface GitEnv {
  env: Record<string, string>;
  /** Values to scrub from any text that may reach the user. */
  secrets: string[];
}

export const ASKPASS_USERNAME = 'KUBECTL_GITOPS_GIT_USERNAME';
export const ASKPASS_PASSWORD = 'KUBECTL_GITOPS_GIT_PASSWORD';

const ASKPASS_SCRIPT = `#!/bin/sh
# kubectl-gitops: answers git's credential prompts from the environment (no secret in this file).
case "$1" in
  Username*|username*) printf '%s\\n' "$${ASKPASS_USERNAME}" ;;
  *) printf '%s\\n' "$${ASKPASS_PASSWORD}" ;;
esac
`;

/** Single-quotes a path for the shell that runs GIT_SSH_COMMAND. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Replaces every secret (and its URL-encoded form) in `text` with "***". */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    if (s.length < 3) continue;
    for (const form of new Set([s, encodeURIComponent(s)])) out = out.split(form).join('***');
  }
  return out;
}

export interface GitAuthOptions extends GitHubAppTokensOptions {
  /** Parent of the private directory (default: the OS temp dir). */
  tempRoot?: string;
  /** The environment GIT_CONFIG_COUNT is read from (default process.env). */
  baseEnv?: Record<string, string | undefined>;
  /** The ssh program of GIT_SSH_COMMAND (default "ssh"). */
  ssh?: string;
}

export class GitAuth {
  private dir: Promise<string> | undefined;
  private files = 0;
  private knownHostsFile: Promise<string> | undefined;
  private readonly tokens: GitHubAppTokens;

  constructor(
    private readonly knownHosts: string | undefined,
    private readonly options: GitAuthOptions = {},
  ) {
    this.tokens = new GitHubAppTokens(options);
  }

  /** The private directory (0700), created on first use. */
  privateDir(): Promise<string> {
    this.dir ??= (async () => {
      const dir = await mkdtemp(join(this.options.tempRoot ?? tmpdir(), 'kubectl-gitops-creds-'));
      await chmod(dir, 0o700);
      return dir;
    })();
    return this.dir;
  }

  /** Writes `content` to a new file mode 0600 in the private directory; returns its path. */
  async writePrivate(name: string, content: string): Promise<string> {
    const path = join(await this.privateDir(), `${this.files++}-${name}`);
    await writeFile(path, content, { mode: 0o600, flag: 'wx' });
    return path;
  }

  private askpass: Promise<string> | undefined;

  private askpassScript(): Promise<string> {
    this.askpass ??= (async () => {
      const path = join(await this.privateDir(), 'askpass.sh');
      await writeFile(path, ASKPASS_SCRIPT, { mode: 0o700, flag: 'wx' });
      return path;
    })();
    return this.askpass;
  }

  /** The environment git needs for `creds` (empty when there are none). */
  async environ(creds: RepoCredentials | undefined): Promise<GitEnv> {
    const env: Record<string, string> = {};
    const secrets: string[] = [];
    if (!creds) return { env, secrets };
    const config: [string, string][] = [];
    const https = async (username: string, password: string) => {
      config.push(['credential.helper', '']);
      env['GIT_ASKPASS'] = await this.askpassScript();
      env[ASKPASS_USERNAME] = username || 'x-access-token';
      env[ASKPASS_PASSWORD] = password;
      if (password) secrets.push(password);
      if (creds.tlsClientCertData) {
        env['GIT_SSL_CERT'] = await this.writePrivate('tls.crt', creds.tlsClientCertData);
        env['GIT_SSL_KEY'] = await this.writePrivate('tls.key', creds.tlsClientCertKey);
        secrets.push(creds.tlsClientCertKey);
      }
    };
    if (creds.password || creds.bearerToken) {
      await https(creds.username, creds.password);
      if (creds.password && creds.forceHttpBasicAuth) {
        const basic = Buffer.from(`${creds.username}:${creds.password}`).toString('base64');
        config.push(['http.extraHeader', `Authorization: Basic ${basic}`]);
        secrets.push(basic);
      } else if (creds.bearerToken) {
        config.push(['http.extraHeader', `Authorization: Bearer ${creds.bearerToken}`]);
        secrets.push(creds.bearerToken);
      }
    } else if (creds.sshPrivateKey) {
      const key = await this.writePrivate('id', `${creds.sshPrivateKey.replace(/\n*$/, '')}\n`);
      secrets.push(creds.sshPrivateKey);
      const args = [this.options.ssh ?? 'ssh', '-i', shellQuote(key), '-o', 'IdentitiesOnly=yes'];
      if (creds.insecureIgnoreHostKey || creds.insecure)
        args.push('-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null');
      else {
        args.push('-o', 'StrictHostKeyChecking=yes');
        if (this.knownHosts !== undefined) {
          this.knownHostsFile ??= this.writePrivate('known_hosts', this.knownHosts);
          args.push('-o', `UserKnownHostsFile=${shellQuote(await this.knownHostsFile)}`);
        }
      }
      env['GIT_SSH_COMMAND'] = args.join(' ');
    } else if (creds.githubAppPrivateKey && creds.githubAppID) {
      secrets.push(creds.githubAppPrivateKey);
      const token = await this.tokens.token({
        appId: creds.githubAppID,
        installationId: creds.githubAppInstallationID,
        privateKey: creds.githubAppPrivateKey,
        baseUrl: creds.githubAppEnterpriseBaseUrl,
        repoURL: creds.url,
      });
      secrets.push(token);
      await https('x-access-token', token);
    }
    // client.go runCmdOutput: an insecure repository (Repository.IsInsecure) skips TLS verification, with
    // or without credentials.
    if (creds.insecure || creds.insecureIgnoreHostKey) env['GIT_SSL_NO_VERIFY'] = 'true';
    if (creds.proxy) {
      env['http_proxy'] = creds.proxy;
      env['https_proxy'] = creds.proxy;
      env['no_proxy'] = creds.noProxy;
      env['HTTP_PROXY'] = creds.proxy;
      env['HTTPS_PROXY'] = creds.proxy;
      env['NO_PROXY'] = creds.noProxy;
      const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^@/]*)@/i.exec(creds.proxy)?.[1];
      if (userinfo) secrets.push(userinfo, decodeURIComponent(userinfo.split(':')[1] ?? ''));
    }
    if (config.length > 0) {
      const base = Number((this.options.baseEnv ?? process.env)['GIT_CONFIG_COUNT'] ?? 0) || 0;
      config.forEach(([k, v], i) => {
        env[`GIT_CONFIG_KEY_${base + i}`] = k;
        env[`GIT_CONFIG_VALUE_${base + i}`] = v;
      });
      env['GIT_CONFIG_COUNT'] = String(base + config.length);
    }
    return { env, secrets: secrets.filter(Boolean) };
  }

  /** Removes the private directory and everything in it. */
  async close(): Promise<void> {
    if (!this.dir) return;
    const dir = await this.dir.catch(() => undefined);
    this.dir = undefined;
    this.askpass = undefined;
    this.knownHostsFile = undefined;
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}
