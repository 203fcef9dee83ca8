/**
 * Test fixture for the embedded API server: `useEmbeddedCluster()` inside a `describe` starts a server in
 * `before`, writes its kubeconfig to a temp dir, and closes both in `after`. The returned holder's fields
 * are filled in by `before`, so read them inside tests only.
 *
 * With `KG_TEST_SERVER` set (test/support/test-server.ts) the fixture uses the real kube-apiserver of a
 * kube-only conformance rig instead: `kubeconfig` reaches it (context "embedded", namespace default), `api()`
 * and `waitForObject()` talk to it, `after` removes what the tests made, and `cluster.faults`, `.stats` and
 * `.close()` (the in-process server's own) throw: such tests are marked `embeddedOnly(...)`. Options that
 * configure the embedded server (`simulateWorkloads`, `namespaces`...) have no meaning there: the real
 * rig always runs kube-controller-manager and the kubelet stand-in.
 *
 * Helpers: `api()` sends raw HTTP requests (for asserting exact server answers), `kubectl()` runs the
 * real kubectl against the server (tests that need it check `hasKubectl` and skip without it).
 */
import { after, before } from 'node:test';
import type { TestContext } from 'node:test';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedCluster } from '../../src/embedded/index.js';
import type { EmbeddedCluster, EmbeddedClusterOptions } from '../../src/embedded/index.js';
import {
  cleanUpCluster,
  headersOf,
  openRequest,
  readAll,
  realKubeconfig,
  realServer,
  snapshotCluster,
} from './test-server.js';
import type { ClusterSnapshot, RealServer } from './test-server.js';
import { embeddedOnly } from './test-server.js';
import { writeFileSync } from 'node:fs';

export { embeddedOnly, realServer } from './test-server.js';

/**
 * First line of a test that needs the in-process server: `if (needsEmbedded(t, 'request counts
 * (cluster.stats)')) return;` skips it, its reason printed, on the real server (KG_TEST_SERVER).
 */
export function needsEmbedded(t: TestContext, reason: string): boolean {
  const skip = embeddedOnly(reason);
  if (skip) t.skip(skip);
  return skip !== false;
}

/**
 * For the part of a test that needs the in-process server (the rest holds on any server):
 * `if (onEmbedded(t, 'request counts (cluster.stats)')) { ... }` runs it on the embedded server; on the
 * real one it is left out, its reason printed as the test's diagnostic.
 */
export function onEmbedded(t: TestContext, reason: string): boolean {
  const skip = embeddedOnly(reason);
  if (skip) t.diagnostic(`part not checked: ${skip}`);
  return skip === false;
}

export interface EmbeddedFixture {
  cluster: EmbeddedCluster;
  /** Temp dir, removed in `after`. */
  dir: string;
  /** Path of the kubeconfig written for the cluster (context "embedded"). */
  kubeconfig: string;
  /**
   * Has the fixture's `after` call `stop` (a controller a harness started) before it closes the server or
   * cleans the real one up: a file's own `after` hooks run after the fixture's, and a controller still
   * writing (an ApplicationSet's Applications made again) races the clean-up. `stop` may run again later.
   */
  stopFirst(stop: () => Promise<void>): void;
}

const REAL = Symbol('real server');

/** The fixture's `cluster` on the real server: its URL; the in-process server's parts throw. */
function realHandle(server: RealServer): EmbeddedCluster {
  const internal = (what: string): never => {
    throw new Error(
      `cluster.${what}: the embedded server's own; on the real server mark the test embeddedOnly(...)`,
    );
  };
  return {
    [REAL]: server,
    url: server.url,
    kubeconfig: (name?: string) => realKubeconfig(server, name),
    writeKubeconfig: async (file: string, name?: string) => writeFileSync(file, realKubeconfig(server, name)),
    get faults() {
      return internal('faults');
    },
    get stats() {
      return internal('stats');
    },
    close: async () => undefined,
  } as EmbeddedCluster;
}

const realOf = (cluster: EmbeddedCluster): RealServer | undefined =>
  (cluster as unknown as { [REAL]?: RealServer })[REAL];

/**
 * `alwaysEmbedded`: the second cluster of a two-cluster test stays an embedded server on the real server
 * too (the rig is one cluster); the test's first fixture gets the real one.
 */
export function useEmbeddedCluster(
  opts: EmbeddedClusterOptions = {},
  { alwaysEmbedded = false }: { alwaysEmbedded?: boolean } = {},
): EmbeddedFixture {
  const stops: Array<() => Promise<void>> = [];
  const fx = { stopFirst: (stop) => void stops.push(stop) } as EmbeddedFixture;
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.splice(0)) await stop();
  };
  if (realServer && !alwaysEmbedded) {
    const server = realServer;
    let snapshot: ClusterSnapshot | undefined;
    before(async () => {
      fx.dir = mkdtempSync(join(tmpdir(), 'kg-real-'));
      fx.kubeconfig = join(fx.dir, 'kubeconfig');
      fx.cluster = realHandle(server);
      await fx.cluster.writeKubeconfig(fx.kubeconfig);
      snapshot = await snapshotCluster(server);
      // The namespaces an embedded server would start with (the rig has the four defaults already).
      for (const name of opts.namespaces ?? []) {
        const made = await api(fx.cluster, 'POST', '/api/v1/namespaces', { metadata: { name } });
        if (made.status !== 201 && made.status !== 409)
          throw new Error(
            `namespace ${name}: failed to create: HTTP ${made.status} ${JSON.stringify(made.body)}`,
          );
      }
    });
    after(async () => {
      await stopAll();
      if (snapshot) await cleanUpCluster(server, snapshot);
      if (fx.dir) rmSync(fx.dir, { recursive: true, force: true });
    });
    return fx;
  }
  before(async () => {
    fx.dir = mkdtempSync(join(tmpdir(), 'kg-embedded-'));
    fx.kubeconfig = join(fx.dir, 'kubeconfig');
    fx.cluster = await startEmbeddedCluster(opts);
    await fx.cluster.writeKubeconfig(fx.kubeconfig);
  });
  after(async () => {
    await stopAll();
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
  const real = realOf(cluster);
  if (real) {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const res = await openRequest(real, method, path, payload, { 'Content-Type': contentType, ...headers });
    const text = await readAll(res);
    return { status: res.statusCode ?? 0, headers: headersOf(res), body: parseBody(text) };
  }
  const res = await fetch(`${cluster.url}${path}`, {
    method,
    headers: { 'Content-Type': contentType, ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: parseBody(await res.text()) };
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // not JSON: keep the text
  }
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
  const signal = AbortSignal.timeout(limitMs);
  const watchPath = `${path.slice(0, slash)}?${query}`;
  const real = realOf(cluster);
  const stream = real
    ? await openRequest(real, 'GET', watchPath, undefined, {}, signal)
    : ((await fetch(`${cluster.url}${watchPath}`, { signal })).body as unknown as AsyncIterable<Uint8Array>);
  const cancel = async (): Promise<void> => {
    if ('destroy' in stream) (stream as { destroy(): void }).destroy();
    else await (stream as unknown as ReadableStream).cancel().catch(() => undefined);
  };
  let last: unknown = first.body;
  let buffered = '';
  const decoder = new TextDecoder();
  try {
    for await (const chunk of stream as AsyncIterable<Uint8Array>) {
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
          await cancel();
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

interface Crd {
  metadata: { name: string };
  spec: { group: string; names: { plural: string }; versions?: Array<{ name: string; served: boolean }> };
  status?: { conditions?: Array<{ type: string; status: string }> };
}

/**
 * Resolves once every CustomResourceDefinition is Established and its kind is in discovery. The embedded
 * server serves a CRD's kind as soon as it is created; kube-apiserver takes a moment (its
 * establishing controller, then discovery), so a test that creates a CRD and at once uses its kind waits
 * here, as `kubectl wait --for=condition=Established` would.
 */
export async function crdsEstablished(fx: EmbeddedFixture, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const list = await api(fx.cluster, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
    const items = (list.body?.items ?? []) as Crd[];
    let pending = '';
    for (const crd of items) {
      const established = (crd.status?.conditions ?? []).some(
        (c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True',
      );
      let served = established;
      // Every served version, each in discovery.
      for (const v of crd.spec.versions ?? []) {
        if (!served || !v.served) continue;
        const path = `/apis/${crd.spec.group}/${v.name}`;
        served = ((await api(fx.cluster, 'GET', path)).body?.resources ?? []).some(
          (r: { name: string }) => r.name === crd.spec.names.plural,
        );
      }
      if (!served) pending = crd.metadata.name;
    }
    if (!pending) return;
    if (Date.now() > deadline) throw new Error(`CRD ${pending}: not established within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
