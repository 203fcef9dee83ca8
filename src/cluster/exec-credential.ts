/**
 * An exec credential plugin run as client-go runs one (k8s.io/client-go/plugin/pkg/client/auth/exec,
 * documented in "client-go credential plugins"): used for the `execProviderConfig` and `awsAuthConfig`
 * (through `argocd-k8s-auth`) of Argo CD cluster Secrets (cluster-secret.ts).
 *
 * - `apiVersion` must be client.authentication.k8s.io/v1 or v1beta1 (v1alpha1 was removed in Kubernetes
 *   1.24); the plugin's answer must be an `ExecCredential` of that same apiVersion.
 * - The command runs with our environment plus `KUBERNETES_EXEC_INFO` (an ExecCredential with
 *   `spec.interactive: false`, and `spec.cluster` when `provideClusterInfo`), then the config's `env`;
 *   stdin is not connected (Argo CD sets InteractiveMode Never).
 * - The answer (stdout, JSON) gives `status.token`, or `status.clientCertificateData` with
 *   `status.clientKeyData` (both PEM). It is kept until `status.expirationTimestamp` (for ever when it
 *   has none), and dropped when the server answers 401 (`invalidate`), so the next request runs the plugin
 *   again, as client-go does. Concurrent callers share one run.
 * - Failures are `CredentialsError`s naming the cluster and the command, never the plugin's output (it
 *   holds the credential): a missing executable says so ("not found on PATH") with the config's
 *   `installHint` as the hint; a failing one gives its exit code and the first line of its stderr.
 */
import { spawn as nodeSpawn } from 'node:child_process';
import type https from 'node:https';
import { oneLine } from '../common/index.js';
import { CredentialsError } from './credentials.js';

export const EXEC_API_VERSIONS = [
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
] as const;

export interface ExecConfig {
  command: string;
  args: readonly string[];
  /** Set after our own environment, in order. */
  env: ReadonlyArray<{ name: string; value: string }>;
  apiVersion: string;
  installHint?: string | undefined;
  /** Adds `spec.cluster` (server, CA, TLS settings, `config`) to KUBERNETES_EXEC_INFO. */
  provideClusterInfo?: boolean | undefined;
  cluster?: ExecClusterInfo | undefined;
}

/** client.authentication.k8s.io Cluster: what the plugin learns about the cluster when asked to. */
export interface ExecClusterInfo {
  server: string;
  tlsServerName?: string | undefined;
  insecureSkipTLSVerify?: boolean | undefined;
  /** Base64 PEM. */
  certificateAuthorityData?: string | undefined;
  proxyURL?: string | undefined;
  config?: unknown;
}

export interface ExecCredentialStatus {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  expirationTimestamp?: string;
}

export interface ExecPluginOptions {
  /** What errors name: "cluster <name> (<server>)". */
  subject: string;
  now?: () => number;
  /** Injected process runner (tests); default node:child_process spawn. */
  spawn?: typeof nodeSpawn;
  env?: NodeJS.ProcessEnv;
}

/** Bytes of stdout read at most (an ExecCredential is small; a runaway plugin must not fill memory). */
const MAX_OUTPUT = 1 << 20;

export class ExecCredentialPlugin {
  readonly #config: ExecConfig;
  readonly #o: ExecPluginOptions;
  #cached: { status: ExecCredentialStatus; expires: number } | undefined;
  #running: Promise<ExecCredentialStatus> | undefined;

  constructor(config: ExecConfig, options: ExecPluginOptions) {
    this.#config = config;
    this.#o = options;
  }

  /** The command (never its args or env: they may carry secrets), for messages. */
  get command(): string {
    return this.#config.command;
  }

  /** Puts the credential on a request: `Authorization: Bearer`, or the client certificate and key. */
  async apply(opts: https.RequestOptions): Promise<void> {
    const status = await this.credential();
    if (status.token) opts.headers = { ...(opts.headers ?? {}), Authorization: `Bearer ${status.token}` };
    else {
      opts.cert = status.clientCertificateData;
      opts.key = status.clientKeyData;
    }
  }

  /** The current credential: the cached one until it expires, else a fresh run of the plugin. */
  async credential(): Promise<ExecCredentialStatus> {
    const now = (this.#o.now ?? Date.now)();
    if (this.#cached && now < this.#cached.expires) return this.#cached.status;
    this.#running ??= this.#run().finally(() => (this.#running = undefined));
    return this.#running;
  }

  /** The server refused the credential (401): the next request runs the plugin again. */
  invalidate(): void {
    this.#cached = undefined;
  }

  #error(message: string, hint?: string, cause?: unknown): CredentialsError {
    return new CredentialsError(`failed to get credentials: ${message}`, {
      subject: this.#o.subject,
      ...(hint ? { hint } : {}),
      ...(cause ? { cause } : {}),
    });
  }

  async #run(): Promise<ExecCredentialStatus> {
    const c = this.#config;
    const plugin = `exec plugin "${c.command}"`;
    if (!(EXEC_API_VERSIONS as readonly string[]).includes(c.apiVersion)) {
      throw this.#error(
        `${plugin}: invalid apiVersion "${c.apiVersion}" (want ${EXEC_API_VERSIONS.join(' or ')})`,
      );
    }
    const info = {
      apiVersion: c.apiVersion,
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        ...(c.provideClusterInfo && c.cluster ? { cluster: c.cluster } : {}),
      },
    };
    const env: NodeJS.ProcessEnv = {
      ...(this.#o.env ?? process.env),
      KUBERNETES_EXEC_INFO: JSON.stringify(info),
    };
    for (const e of c.env) env[e.name] = e.value;
    const { code, stdout, stderr, error } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
      error?: NodeJS.ErrnoException;
    }>((resolve) => {
      const child = (this.#o.spawn ?? nodeSpawn)(c.command, [...c.args], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let size = 0;
      let failure: NodeJS.ErrnoException | undefined;
      child.stdout?.on('data', (b: Buffer) => {
        size += b.length;
        if (size <= MAX_OUTPUT) out.push(b);
        else child.kill();
      });
      child.stderr?.on('data', (b: Buffer) => {
        if (err.length < 64) err.push(b);
      });
      child.on('error', (e: NodeJS.ErrnoException) => (failure = e));
      child.on('close', (exitCode) =>
        resolve({
          code: exitCode,
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8'),
          ...(failure ? { error: failure } : {}),
        }),
      );
    });
    if (error) {
      if (error.code === 'ENOENT' || error.code === 'EACCES') {
        const what = error.code === 'ENOENT' ? 'not found on PATH' : 'not executable';
        throw this.#error(
          `${plugin} ${what} (a client-go credential plugin that is not installed)`,
          c.installHint ? oneLine(c.installHint) : `install "${c.command}" and put it on PATH`,
          error,
        );
      }
      throw this.#error(`${plugin} failed to start: ${error.code ?? oneLine(error)}`, undefined, error);
    }
    if (code !== 0) {
      const first = stderr.split('\n').find((l) => l.trim() !== '');
      const why = first ? `: ${truncate(oneLine(first), 200)}` : '';
      throw this.#error(`${plugin} failed with exit code ${code ?? 'signal'}${why}`);
    }
    let cred: { apiVersion?: unknown; kind?: unknown; status?: unknown };
    try {
      cred = JSON.parse(stdout) as typeof cred;
    } catch {
      // Never quote the output: it is (or holds) the credential.
      throw this.#error(`${plugin} printed no valid ExecCredential JSON on stdout`);
    }
    if (cred?.kind !== 'ExecCredential')
      throw this.#error(`${plugin} printed kind ${JSON.stringify(cred?.kind)}, not ExecCredential`);
    if (cred.apiVersion !== c.apiVersion)
      throw this.#error(
        `${plugin} is configured to use API version ${c.apiVersion}, plugin returned version ${String(cred.apiVersion)}`,
      );
    const status = cred.status as ExecCredentialStatus | undefined;
    if (!status || typeof status !== 'object') throw this.#error(`${plugin} didn't return a status field`);
    const hasCert = typeof status.clientCertificateData === 'string' && status.clientCertificateData !== '';
    const hasKey = typeof status.clientKeyData === 'string' && status.clientKeyData !== '';
    if (hasCert !== hasKey) throw this.#error(`${plugin} returned only certificate or key, not both`);
    if (!(typeof status.token === 'string' && status.token !== '') && !hasCert)
      throw this.#error(`${plugin} didn't return a token or cert/key pair`);
    let expires = Number.POSITIVE_INFINITY;
    if (status.expirationTimestamp !== undefined) {
      expires = Date.parse(status.expirationTimestamp);
      if (Number.isNaN(expires))
        throw this.#error(`${plugin} returned an expirationTimestamp that is not RFC 3339`);
    }
    this.#cached = { status, expires };
    return status;
  }
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
