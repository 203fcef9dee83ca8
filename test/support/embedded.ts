/**
 * Test fixture for the embedded API server: `useEmbeddedCluster()` inside a `describe` starts a server in
 * `before`, writes its kubeconfig to a temp dir, and closes both in `after`. The returned holder's fields
 * are filled in by `before`, so read them inside tests only.
 *
 * Helpers: `api()` sends raw HTTP requests (for asserting exact server answers), `kubectl()` runs the
 * real kubectl against the server (tests that need it check `hasKubectl` and skip without it).
 */
import { after, before } from 'node:test';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedCluster } from '../../src/embedded/index.js';
import type { EmbeddedCluster, EmbeddedClusterOptions } from '../../src/embedded/index.js';

export interface EmbeddedFixture {
  cluster: EmbeddedCluster;
  /** Temp dir, removed in `after`. */
  dir: string;
  /** Path of the kubeconfig written for the cluster (context "embedded"). */
  kubeconfig: string;
}

export function useEmbeddedCluster(opts: EmbeddedClusterOptions = {}): EmbeddedFixture {
  const fx = {} as EmbeddedFixture;
  before(async () => {
    fx.dir = mkdtempSync(join(tmpdir(), 'kg-embedded-'));
    fx.kubeconfig = join(fx.dir, 'kubeconfig');
    fx.cluster = await startEmbeddedCluster(opts);
    await fx.cluster.writeKubeconfig(fx.kubeconfig);
  });
  after(async () => {
    await fx.cluster?.close();
    if (fx.dir) rmSync(fx.dir, { recursive: true, force: true });
  });
  return fx;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** One HTTP request to the server; `body` objects are sent as JSON unless `contentType` says otherwise. */
export async function api(
  cluster: EmbeddedCluster,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
  headers: Record<string, string> = {},
): Promise<ApiAnswer> {
  const res = await fetch(`${cluster.url}${path}`, {
    method,
    headers: { 'Content-Type': contentType, ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

export const hasKubectl = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl against the fixture's cluster (never fails: check `code`). */
export function kubectl(fx: EmbeddedFixture, args: string[], input?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(
      'kubectl',
      args,
      {
        env: { ...process.env, KUBECONFIG: fx.kubeconfig, KUBECACHEDIR: join(fx.dir, 'kube-cache') },
        timeout: 30_000,
      },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
    else child.stdin?.end();
  });
}
