/**
 * The one switch that moves our integration tests from the embedded API server to a real kube-apiserver
 * (docs/conformance.md, "Our tests on the real server"): `KG_TEST_SERVER=<rig.json>` (or `real`: the rig.json
 * in `$CONFORMANCE_WORK`, default `conformance/.work`) of a rig started with
 * `npm run conformance -- up --kube-only`. Unset (or `embedded`): every test runs on the embedded server.
 *
 * On the real server every `useEmbeddedCluster()` fixture (test/support/embedded.ts) gets the rig's
 * kube-apiserver instead of a fresh embedded one. A fresh server per fixture isolated tests by construction;
 * on the shared server, `scripts/test.mjs` runs the files one at a time and each fixture removes what its
 * tests made: `snapshotCluster()` before, `cleanUpCluster()` after (new namespaces, CRDs and every other new
 * object with no owner, waiting until namespaces and CRDs are gone so the next file may reuse their names).
 * That is why the rig must be kube-only (no Argo CD, no other user): a full rig is refused.
 *
 * A test or suite that needs the in-process server itself (fault injection, request statistics, its
 * options) says so with `{ skip: embeddedOnly('why') }`, which skips it on the real server with the reason
 * printed, and is a no-op on the embedded one.
 */
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { kubeconfigYaml } from '../../src/embedded/index.js';
import { repoRoot } from './paths.js';

export interface RealServer {
  /** The rig.json read. */
  rigFile: string;
  /** https://127.0.0.1:PORT */
  url: string;
  ca: string;
  cert: string;
  key: string;
}

interface KubeconfigDoc {
  clusters?: Array<{ cluster?: { server?: string; 'certificate-authority-data'?: string } }>;
  users?: Array<{ user?: { 'client-certificate-data'?: string; 'client-key-data'?: string } }>;
}

function loadRealServer(): RealServer | undefined {
  const setting = process.env['KG_TEST_SERVER'] ?? '';
  if (setting === '' || setting === 'embedded') return undefined;
  const rigFile =
    setting === 'real'
      ? join(process.env['CONFORMANCE_WORK'] || join(repoRoot, 'conformance', '.work'), 'rig.json')
      : resolve(setting);
  const fail = (cause: string): never => {
    throw new Error(`KG_TEST_SERVER ${rigFile}: failed to use the real server: ${cause}`);
  };
  let rig: { kubeOnly?: boolean; kubeconfig?: string; server?: string };
  try {
    rig = JSON.parse(readFileSync(rigFile, 'utf8')) as typeof rig;
  } catch (err) {
    return fail(`${(err as Error).message} (start one: npm run conformance -- up --kube-only)`);
  }
  if (rig.kubeOnly !== true)
    fail(
      'not a kube-only rig: the tests create and delete namespaces, CRDs and cluster roles, so they need a ' +
        'server of their own (npm run conformance -- up --kube-only, with its own CONFORMANCE_WORK)',
    );
  const kc = parse(
    readFileSync(rig.kubeconfig ?? fail('rig.json has no kubeconfig'), 'utf8'),
  ) as KubeconfigDoc;
  const cluster = kc.clusters?.[0]?.cluster;
  const user = kc.users?.[0]?.user;
  const b64 = (v: string | undefined, what: string): string =>
    Buffer.from(v ?? fail(`kubeconfig ${rig.kubeconfig} has no ${what}`), 'base64').toString('utf8');
  return {
    rigFile,
    url: cluster?.server ?? rig.server ?? fail('no server'),
    ca: b64(cluster?.['certificate-authority-data'], 'certificate-authority-data'),
    cert: b64(user?.['client-certificate-data'], 'client-certificate-data'),
    key: b64(user?.['client-key-data'], 'client-key-data'),
  };
}

/** The real server the tests run against, or undefined on the embedded server. */
export const realServer: RealServer | undefined = loadRealServer();

/** `{ skip: embeddedOnly(reason) }`: skipped, reason printed, on the real server; runs on the embedded one. */
export function embeddedOnly(reason: string): string | false {
  return realServer ? `embedded server only: ${reason}` : false;
}

/** A kubeconfig for the real server whose cluster, context and user are named `name` (as the embedded one's). */
export function realKubeconfig(server: RealServer, name = 'embedded'): string {
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  // The embedded server's kubeconfig, with the rig's CA and client certificate in place of no credentials.
  const doc = parse(kubeconfigYaml(server.url, name)) as {
    clusters: Array<{ cluster: Record<string, unknown> }>;
    users: Array<{ user: Record<string, unknown> }>;
  };
  doc.clusters[0]!.cluster = { server: server.url, 'certificate-authority-data': b64(server.ca) };
  doc.users[0]!.user = { 'client-certificate-data': b64(server.cert), 'client-key-data': b64(server.key) };
  return stringify(doc);
}

/** One request to the real server; the response is returned unread (a stream). */
export function openRequest(
  server: RealServer,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<IncomingMessage> {
  return new Promise((done, fail) => {
    const req = httpsRequest(
      new URL(path, server.url),
      {
        method,
        headers:
          body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        ca: server.ca,
        cert: server.cert,
        key: server.key,
        ...(signal ? { signal } : {}),
      },
      done,
    );
    req.on('error', fail);
    req.end(body);
  });
}

export async function readAll(res: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of res) text += (chunk as Buffer).toString('utf8');
  return text;
}

/** Headers of a node response as fetch's Headers. */
export function headersOf(res: IncomingMessage): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers))
    if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
  return h;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function getJson(server: RealServer, path: string): Promise<any> {
  const res = await openRequest(server, 'GET', path, undefined, { Accept: 'application/json' });
  const text = await readAll(res);
  if (res.statusCode !== 200) throw new Error(`GET ${path}: HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

interface Listable {
  /** e.g. /apis/apps/v1 */
  base: string;
  resource: string;
  namespaced: boolean;
}

/** Every resource the server can list and delete, in each group's preferred version. */
async function listables(server: RealServer): Promise<Listable[]> {
  const bases = ['/api/v1'];
  const groups = (await getJson(server, '/apis')) as {
    groups: Array<{ preferredVersion: { groupVersion: string } }>;
  };
  for (const g of groups.groups) bases.push(`/apis/${g.preferredVersion.groupVersion}`);
  const out: Listable[] = [];
  for (const base of bases) {
    const list = (await getJson(server, base).catch(() => ({ resources: [] }))) as {
      resources: Array<{ name: string; namespaced: boolean; verbs: string[] }>;
    };
    for (const r of list.resources)
      if (!r.name.includes('/') && r.verbs.includes('list') && r.verbs.includes('delete'))
        out.push({ base, resource: r.name, namespaced: r.namespaced });
  }
  return out;
}

interface Seen {
  path: string;
  uid: string;
  namespace: string;
  resource: string;
  owned: boolean;
  finalizers: boolean;
}

async function everything(server: RealServer): Promise<Seen[]> {
  const seen: Seen[] = [];
  for (const l of await listables(server)) {
    // A kind whose CRD is being deleted may answer 404 or 503 for a moment: it holds nothing to keep.
    const list = (await getJson(server, `${l.base}/${l.resource}`).catch(() => ({ items: [] }))) as {
      items: Array<{
        metadata: {
          name: string;
          namespace?: string;
          uid: string;
          ownerReferences?: unknown[];
          finalizers?: string[];
        };
      }>;
    };
    for (const { metadata: m } of list.items) {
      const ns = l.namespaced ? (m.namespace ?? '') : '';
      seen.push({
        path: `${l.base}/${ns ? `namespaces/${ns}/` : ''}${l.resource}/${m.name}`,
        uid: m.uid,
        namespace: ns,
        resource: `${l.base}/${l.resource}`,
        owned: (m.ownerReferences ?? []).length > 0,
        finalizers: (m.finalizers ?? []).length > 0,
      });
    }
  }
  return seen;
}

export interface ClusterSnapshot {
  uids: Set<string>;
  namespaces: Set<string>;
}

/** What exists before a fixture's tests run (uids of every object). */
export async function snapshotCluster(server: RealServer): Promise<ClusterSnapshot> {
  const all = await everything(server);
  return {
    uids: new Set(all.map((s) => s.uid)),
    namespaces: new Set(
      all.filter((s) => s.resource === '/api/v1/namespaces').map((s) => s.path.split('/').pop()!),
    ),
  };
}

// Written by the server and the controllers for objects that go away with their subjects.
const KEEP = new Set([
  '/api/v1/events',
  '/apis/events.k8s.io/v1/events',
  '/apis/coordination.k8s.io/v1/leases',
]);

/** Whether `s` is an object of the kind the CRD at `crdPath` (…/customresourcedefinitions/<plural>.<group>) serves. */
function ofCrd(s: Seen, crdPath: string): boolean {
  const [plural, ...group] = crdPath.split('/').pop()!.split('.');
  const m = /^\/apis\/([^/]+)\/[^/]+\/([^/]+)$/.exec(s.resource);
  return m?.[1] === group.join('.') && m?.[2] === plural;
}

/**
 * Removes every object made since `before`: finalizers of new objects dropped (a test's own finalizer has
 * nobody to remove it), new namespaces deleted, new objects without owners in older namespaces and new
 * cluster-scoped ones deleted (owned ones go with their owners: the garbage collector); deletes what is
 * left of the new CRDs' kinds, then the CRDs once no object of theirs is left; waits until the namespaces
 * and CRDs are gone. CRDs go after their objects: deleted at once with the namespaces,
 * kube-apiserver's clean-up of a CRD's objects missed one a test's controller (still running: a file's
 * own `after` runs after the fixture's) had made 44 ms before, which stayed in etcd and came back with the
 * CRD in a later file, being deleted.
 */
export async function cleanUpCluster(server: RealServer, before: ClusterSnapshot): Promise<void> {
  const isNew = (s: Seen): boolean => !before.uids.has(s.uid) && !KEEP.has(s.resource);
  const fresh = (await everything(server)).filter(isNew);
  const send = async (
    method: string,
    path: string,
    body?: unknown,
    type = 'application/json',
  ): Promise<void> => {
    const res = await openRequest(
      server,
      method,
      path,
      body === undefined ? undefined : JSON.stringify(body),
      {
        'Content-Type': type,
      },
    );
    const text = await readAll(res);
    if (
      res.statusCode !== undefined &&
      res.statusCode >= 300 &&
      res.statusCode !== 404 &&
      res.statusCode !== 409
    )
      throw new Error(`clean-up: ${method} ${path}: HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
  };
  const remove = (path: string): Promise<void> =>
    send('DELETE', path, { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
  const dropFinalizers = async (objects: Seen[]): Promise<void> => {
    for (const s of objects)
      if (s.finalizers)
        await send('PATCH', s.path, { metadata: { finalizers: null } }, 'application/merge-patch+json');
  };
  const deadline = Date.now() + 90_000;
  const overdue = (what: string): void => {
    if (Date.now() > deadline)
      throw new Error(`clean-up: ${what} still exists 90 s after its deletion (see the rig's logs)`);
  };
  const pause = (): Promise<void> => new Promise((r) => setTimeout(r, 250));
  /** Waits until every path is gone; objects made meanwhile have their finalizers dropped every 2 s. */
  const waitGone = async (paths: string[]): Promise<void> => {
    let sweep = Date.now() + 2_000;
    for (const path of paths) {
      for (;;) {
        const res = await openRequest(server, 'GET', path);
        await readAll(res);
        if (res.statusCode === 404) break;
        // Objects made after the first pass (a controller of the test still writing, an ApplicationSet's
        // Applications made again) hold their finalizers too.
        if (Date.now() > sweep) {
          await dropFinalizers((await everything(server)).filter(isNew));
          sweep = Date.now() + 2_000;
        }
        overdue(path);
        await pause();
      }
    }
  };
  await dropFinalizers(fresh);
  const namespaces: string[] = [];
  const crds: string[] = [];
  for (const s of fresh) {
    const isNamespace = s.resource === '/api/v1/namespaces';
    const inNewNamespace = s.namespace !== '' && !before.namespaces.has(s.namespace);
    if (!isNamespace && (s.owned || inNewNamespace)) continue;
    if (
      isNamespace &&
      ['default', 'kube-system', 'kube-public', 'kube-node-lease'].includes(s.path.split('/').pop()!)
    )
      continue;
    if (s.resource.endsWith('/customresourcedefinitions')) {
      crds.push(s.path);
      continue;
    }
    await remove(s.path);
    if (isNamespace) namespaces.push(s.path);
  }
  // The namespaces' objects go first (their namespace controller deletes them; new ones are refused once a
  // namespace is Terminating), then the CRDs, while the namespaces finish.
  for (;;) {
    const left = (await everything(server)).filter((s) => isNew(s) && crds.some((c) => ofCrd(s, c)));
    if (left.length === 0) break;
    await dropFinalizers(left);
    for (const s of left) await remove(s.path);
    overdue(`${left[0]!.path} (an object of a new CRD)`);
    await pause();
  }
  for (const path of crds) await remove(path);
  await waitGone([...namespaces, ...crds]);
}
