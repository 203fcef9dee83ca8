/**
 * A private helm home for one render, as Argo CD's `util/helm/cmd.go` gives each helm command one
 * (`XDG_CACHE_HOME`, `XDG_CONFIG_HOME`, `XDG_DATA_HOME`, `HELM_CONFIG_HOME` under a fresh temp directory),
 * so nothing of the user's own helm configuration (repositories, registry logins, plugins) changes a render.
 *
 * Credentials never reach helm's command line (Argo CD passes `--username`/`--password`; we do not):
 * - a Helm repository's username, password, TLS client certificate and key go into the home's
 *   `repositories.yaml` entry (and 0600 key files) — what `helm repo add` writes — and the repository is
 *   then read by name (`helm repo update <name>`, `<name>/<chart>`);
 * - an OCI registry's username and password go into the home's `registry/config.json` — what
 *   `helm registry login` writes.
 * Every file is created 0600 inside a 0700 directory, and `scrub` removes secret values from helm's messages.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HelmRepoSettings, RenderTools } from './types.js';

export class HelmHome {
  private readonly entries: Record<string, unknown>[] = [];
  private readonly auths: Record<string, { auth: string }> = {};
  private readonly secrets: string[] = [];
  private files = 0;

  private constructor(readonly dir: string) {}

  static async create(tools: RenderTools): Promise<HelmHome> {
    const dir = await tools.tempDir('helm-home-');
    for (const sub of ['cache', 'config', 'data']) await mkdir(join(dir, sub), { mode: 0o700 });
    return new HelmHome(dir);
  }

  /** The environment of every helm command of this render (Argo CD's four variables). */
  get env(): Record<string, string> {
    return {
      XDG_CACHE_HOME: join(this.dir, 'cache'),
      XDG_CONFIG_HOME: join(this.dir, 'config'),
      XDG_DATA_HOME: join(this.dir, 'data'),
      HELM_CONFIG_HOME: join(this.dir, 'config'),
    };
  }

  private async privateFile(name: string, content: string): Promise<string> {
    const path = join(this.dir, `${this.files++}-${name}`);
    await writeFile(path, content, { mode: 0o600 });
    return path;
  }

  private remember(...values: string[]): void {
    for (const v of values) if (v) this.secrets.push(v);
  }

  /** TLS client certificate files of `repo` (for `--cert-file`/`--key-file`), when it has them. */
  async certFiles(repo: HelmRepoSettings | undefined): Promise<string[]> {
    if (!repo?.tlsClientCertData) return [];
    this.remember(repo.tlsClientCertKey);
    return [
      '--cert-file',
      await this.privateFile('tls.crt', repo.tlsClientCertData),
      '--key-file',
      await this.privateFile('tls.key', repo.tlsClientCertKey),
    ];
  }

  /** Adds `name` -> `url` with `repo`'s credentials to the home's repositories.yaml (helm repo add). */
  async addRepository(
    name: string,
    url: string,
    repo: HelmRepoSettings | undefined,
    passCredentials: boolean,
  ) {
    const entry: Record<string, unknown> = { name, url, pass_credentials_all: passCredentials };
    if (repo?.username) entry['username'] = repo.username;
    if (repo?.password) entry['password'] = repo.password;
    this.remember(repo?.password ?? '');
    if (repo?.tlsClientCertData) {
      const [, certFile, , keyFile] = await this.certFiles(repo);
      entry['certFile'] = certFile;
      entry['keyFile'] = keyFile;
    }
    if (repo?.insecure) entry['insecure_skip_tls_verify'] = true;
    this.entries.push(entry);
    await writeFile(
      join(this.dir, 'config', 'repositories.yaml'),
      JSON.stringify({ apiVersion: '', generated: '0001-01-01T00:00:00Z', repositories: this.entries }),
      { mode: 0o600 },
    );
  }

  /** Stores `repo`'s username and password for the registry `host` (helm registry login). */
  async registryLogin(host: string, repo: HelmRepoSettings): Promise<void> {
    if (!repo.username || !repo.password) return;
    this.remember(repo.password);
    this.auths[host] = { auth: Buffer.from(`${repo.username}:${repo.password}`).toString('base64') };
    this.remember(this.auths[host].auth);
    await mkdir(join(this.dir, 'config', 'registry'), { recursive: true, mode: 0o700 });
    await writeFile(
      join(this.dir, 'config', 'registry', 'config.json'),
      JSON.stringify({ auths: this.auths }),
      {
        mode: 0o600,
      },
    );
  }

  /** `text` without any secret value this home was given, nor the home's own path. */
  scrub(text: string): string {
    let out = text;
    for (const s of this.secrets) out = out.split(s).join('***');
    return out.split(this.dir).join('<helm home>');
  }
}

export function hasHelmCredentials(r: HelmRepoSettings): boolean {
  return Boolean(r.username || r.password || r.tlsClientCertData);
}

/** helm's "Unable to get an update from the "<name|url>" chart repository (<url>):\n\t<cause>" line. */
export const UNABLE =
  /Unable to get an update from the "([^"]+)" chart repository(?: \([^)\n]*\))?:\s*\n\s*(.+)/;

/** helm's reason a repository could not be read: its "Unable to get an update" line, else its error. */
export function repoCause(message: string, stdout: string): string {
  const line = UNABLE.exec(stdout);
  return line ? line[2]!.trim() : message.replace(/^helm repo failed: /, '');
}

/** The registry host of a scheme-less OCI repository URL (`host[:port]/path`), as Argo CD's getHelmRegistry. */
export function registryHost(repo: string): string {
  const bare = repo.replace(/^oci:\/\//, '');
  return bare.split('/')[0] ?? bare;
}

/** Argo CD's `helm.IsHelmOciRepo`: a scheme-less URL with a host names an OCI registry. */
export function isHelmOciRepo(url: string): boolean {
  if (!url || url.includes('://')) return false;
  try {
    return new URL(`dummy://${url}`).host !== '';
  } catch {
    return false;
  }
}
