/**
 * Helm chart sources on loopback for the real-helm tests:
 * - `ChartRepo`: an HTTP(S) Helm chart repository (a node server serving `index.yaml` and the packaged
 *   charts that the real `helm package` / `helm repo index` wrote), optionally behind Basic auth and/or TLS
 *   with a required client certificate (test/fixtures/clusters' CA and certificates). Every request's
 *   path and whether it was authorised are recorded.
 * - `OciRegistry`: Debian's `docker-registry` (distribution 2.8) on a free loopback port, optionally with
 *   htpasswd Basic auth (`htpasswd -B` from apache2-utils), charts pushed with `helm push --plain-http`.
 * - `closedPort()`: a loopback port nothing listens on (a repository that cannot be reached).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import {
  createServer as createHttp,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttps } from 'node:https';
import { createServer as createTcp, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './git.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const CERTS = join(FIXTURES, 'clusters');

/** A chart folder under test/fixtures/helm/charts. */
export const fixtureChart = (name: string): string => join(FIXTURES, 'helm', 'charts', name);

/** Every file under a chart folder `dir`, keyed `<prefix>/<relative path>` (to commit into a test repository). */
export function chartFiles(dir: string, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) Object.assign(out, chartFiles(path, `${prefix}/${entry.name}`));
    else out[`${prefix}/${entry.name}`] = readFileSync(path, 'utf8');
  }
  return out;
}

/** `helm package <chart> -d <dir>`; returns the archive path. */
export function packageChart(helm: string, chartDir: string, outDir: string): string {
  mkdirSync(outDir, { recursive: true });
  const out = execFileSync(helm, ['package', chartDir, '-d', outDir], {
    encoding: 'utf8',
    env: { ...process.env, HELM_CONFIG_HOME: tempDir('helm-cfg-'), HELM_CACHE_HOME: tempDir('helm-cache-') },
  });
  return out.trim().split(': ').pop()!;
}

export interface ChartRepoOptions {
  basicAuth?: { username: string; password: string };
  /** Serve HTTPS (the fixtures' server certificate); `client-cert` also requires a client certificate. */
  tls?: 'server' | 'client-cert';
  /** A path under the server (`/charts`): the repository URL ends with it. */
  prefix?: string;
}

export class ChartRepo {
  readonly dir = tempDir('chart-repo-');
  readonly requests: Array<{ path: string; authorized: boolean; authorization?: string }> = [];
  private server: Server | undefined;
  url = '';

  constructor(
    private readonly helm: string,
    private readonly options: ChartRepoOptions = {},
  ) {}

  async start(charts: readonly string[]): Promise<this> {
    const handler = (req: IncomingMessage, res: ServerResponse) => this.handle(req, res);
    const clientCert = this.options.tls === 'client-cert';
    this.server = this.options.tls
      ? createHttps(
          {
            cert: readFileSync(join(CERTS, 'server.pem')),
            key: readFileSync(join(CERTS, 'server-key.pem')),
            ca: readFileSync(join(CERTS, 'ca.pem')),
            requestCert: clientCert,
            rejectUnauthorized: clientCert,
          },
          handler,
        )
      : createHttp(handler);
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const port = (this.server.address() as AddressInfo).port;
    this.url = `${this.options.tls ? 'https' : 'http'}://127.0.0.1:${port}${this.options.prefix ?? ''}`;
    for (const chart of charts) packageChart(this.helm, chart, this.dir);
    execFileSync(this.helm, ['repo', 'index', this.dir, '--url', this.url], {
      env: { ...process.env, HELM_CONFIG_HOME: tempDir('helm-cfg-') },
    });
    return this;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const auth = this.options.basicAuth;
    const header = req.headers.authorization;
    const expected = auth
      ? `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`
      : undefined;
    const authorized = !auth || header === expected;
    this.requests.push({ path: req.url ?? '', authorized, ...(header ? { authorization: header } : {}) });
    if (!authorized) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="charts"' }).end('unauthorized');
      return;
    }
    const path = (req.url ?? '/').split('?')[0]!.slice((this.options.prefix ?? '').length);
    const file = join(this.dir, path.replace(/^\/+/, ''));
    if (!file.startsWith(this.dir) || !existsSync(file) || file === this.dir) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200).end(readFileSync(file));
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The fixtures' client certificate and key (signed by the CA the TLS chart repository trusts). */
export const clientCertificate = (): { cert: string; key: string } => ({
  cert: readFileSync(join(CERTS, 'client.pem'), 'utf8'),
  key: readFileSync(join(CERTS, 'client-key.pem'), 'utf8'),
});

/** A loopback port that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createTcp();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const hasRegistry = (() => {
  try {
    execFileSync('docker-registry', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Why the OCI tests cannot run here, or false (CI installs docker-registry: .ci/run). */
export const registrySkip: string | false =
  hasRegistry || process.env['CI'] === 'true'
    ? false
    : "NOT TESTED: Debian's docker-registry is not installed";

export class OciRegistry {
  private child: ChildProcess | undefined;
  host = '';
  private readonly dir = tempDir('oci-registry-');
  private log = '';

  constructor(
    private readonly helm: string,
    private readonly basicAuth?: { username: string; password: string },
  ) {}

  async start(): Promise<this> {
    const port = await closedPort();
    this.host = `127.0.0.1:${port}`;
    let auth = '';
    if (this.basicAuth) {
      const htpasswd = join(this.dir, 'htpasswd');
      execFileSync('htpasswd', ['-Bbc', htpasswd, this.basicAuth.username, this.basicAuth.password], {
        stdio: 'ignore',
      });
      auth = `auth:\n  htpasswd:\n    realm: charts\n    path: ${htpasswd}\n`;
    }
    const config = join(this.dir, 'config.yml');
    writeFileSync(
      config,
      `version: 0.1\nlog: {level: error}\nstorage:\n  filesystem: {rootdirectory: ${join(this.dir, 'data')}}\n  delete: {enabled: true}\nhttp:\n  addr: ${this.host}\n${auth}`,
    );
    this.child = spawn('docker-registry', ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.child.stderr!.on('data', (c: Buffer) => (this.log += c.toString()));
    for (let i = 0; i < 100; i++) {
      const status = await fetch(`http://${this.host}/v2/`).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200 || status === 401) return this;
      if (this.child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`docker-registry did not start on ${this.host}: ${this.log}`);
  }

  /** Pushes a packaged chart to `oci://<host>/<path>` (logging in first when the registry has auth). */
  push(archive: string, path: string): void {
    const config = join(this.dir, 'helm-registry.json');
    if (this.basicAuth) {
      const auth = Buffer.from(`${this.basicAuth.username}:${this.basicAuth.password}`).toString('base64');
      writeFileSync(config, JSON.stringify({ auths: { [this.host]: { auth } } }));
    }
    execFileSync(this.helm, ['push', archive, `oci://${this.host}/${path}`, '--plain-http'], {
      stdio: 'pipe',
      env: { ...process.env, HELM_REGISTRY_CONFIG: config, HELM_CONFIG_HOME: tempDir('helm-cfg-') },
    });
  }

  async close(): Promise<void> {
    if (!this.child || this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child!.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}
