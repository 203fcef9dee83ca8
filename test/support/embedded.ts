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

/**
 * Reads the object at `path` (e.g. /apis/apps/v1/namespaces/default/deployments/web) and, until `done`
 * says yes, follows it through a watch (no polling); `done` gets `undefined` while the object does not
 * exist (so `(o) => o === undefined` waits for a deletion). Fails after `limitMs` with the last state seen.
 */
export async function waitForObject(
  cluster: EmbeddedCluster,
  path: string,
  done: (obj: any) => boolean, // eslint-disable-line @typescript-eslint/no-explicit-any
  limitMs = 15_000,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<any> {
  const first = await api(cluster, 'GET', path);
  if (done(first.status === 200 ? first.body : undefined))
    return first.status === 200 ? first.body : undefined;
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  const rv = first.status === 200 ? String(first.body.metadata.resourceVersion) : '0';
  const query = new URLSearchParams({
    watch: '1',
    fieldSelector: `metadata.name=${name}`,
    resourceVersion: rv,
  });
  const res = await fetch(`${cluster.url}${path.slice(0, slash)}?${query}`, {
    signal: AbortSignal.timeout(limitMs),
  });
  let last: unknown = first.body;
  let buffered = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (!line) continue;
        const event = JSON.parse(line) as { type: string; object: unknown };
        if (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED') continue;
        last = event.object;
        const current = event.type === 'DELETED' ? undefined : event.object;
        if (done(current)) {
          await res.body?.cancel().catch(() => undefined);
          return current;
        }
      }
    }
  } catch (err) {
    throw new Error(
      `${path}: not reached within ${limitMs} ms (${(err as Error).message}); last seen: ${JSON.stringify(last)}`,
    );
  }
  throw new Error(`${path}: watch ended; last seen: ${JSON.stringify(last)}`);
}

/** Resolves when the object at `path` is gone (waitForObject: a watch, no polling). */
export async function waitForDeletion(cluster: EmbeddedCluster, path: string): Promise<void> {
  await waitForObject(cluster, path, (o) => o === undefined);
}

/** Resolves when the object at `path` exists and `done` holds for it (waitForObject). */
export async function waitForModification(
  cluster: EmbeddedCluster,
  path: string,
  done: (obj: any) => boolean, // eslint-disable-line @typescript-eslint/no-explicit-any
): Promise<void> {
  await waitForObject(cluster, path, (o) => o !== undefined && done(o));
}
