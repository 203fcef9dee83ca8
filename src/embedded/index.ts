/**
 * The embedded Kubernetes API server: an in-memory API server over plain HTTP on 127.0.0.1, the default
 * target of the demo and of every engine test, and the offline target for CI.
 *
 * It follows the real API's documented semantics (see each module's header): discovery with CRDs served
 * as they are created (`discovery.ts`, `resources.ts`, `crd.ts`, `openapi.ts`); CRUD with
 * resourceVersion, uid, generation, status and scale subresources and Status errors (`api.ts`,
 * `scale.ts`, `validate.ts`); label/field selectors and limit/continue (`selectors.ts`, `list.ts`); watch
 * with bookmarks and 410 Gone (`watch.ts`, `store.ts`); merge, JSON and strategic merge patches
 * (`patch.ts`, `strategic-merge-patch.ts`); server-side apply and managedFields (`managed-fields.ts`); defaults of built-in kinds and
 * of custom resources from their CRD schema (`defaults.ts`); schema validation and pruning
 * (`validate.ts`, `field-validation.ts`); deletion with propagation, finalizers and namespaces (`delete.ts`, `namespace-controller.ts`); dry-run; Table
 * responses for kubectl (`table.ts`); kubectl create's protobuf bodies (`protobuf.ts`); `--data` files
 * (`persist.ts`); fault injection and request counters (`faults.ts`); HTTP routing (`server.ts`).
 *
 * Optional: TLS (`tls`: a certificate and key; the URL is then https) and authentication (`auth`, auth.ts:
 * bearer tokens and basic auth, 401 Unauthorized as kube-apiserver answers), so a test can stand for a
 * remote cluster reached only with credentials.
 *
 * Not implemented: authorization (an authenticated user may do everything), client-certificate
 * authentication, admission webhooks, conversion webhooks, CRD validation
 * beyond value types, `enum` and `required` (patterns, bounds, lengths, CEL), protobuf beyond the four kinds kubectl's
 * generators post, PartialObjectMetadata responses, consistent snapshots for paged lists, controllers
 * (nothing creates ReplicaSets or Pods, nothing updates status) unless the opt-in workload simulation
 * (`simulate.ts`, `simulateWorkloads`) stands in for them.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { authenticate, sendUnauthorized } from './auth.js';
import type { EmbeddedAuthOptions } from './auth.js';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { ApiCore } from './api.js';
import { Deleter } from './delete.js';
import { FaultInjector, RequestStats } from './faults.js';
import { loadData, saveData } from './persist.js';
import { ResourceRegistry } from './resources.js';
import { Router } from './server.js';
import { ObjectStore } from './store.js';
import { WatchHub } from './watch.js';
import { WorkloadSimulator } from './simulate.js';
import type { WorkloadSimulatorOptions } from './simulate.js';

export { FaultInjector, RequestStats } from './faults.js';
export type { ErrorRule, StatsSnapshot } from './faults.js';
export type { KObject } from './types.js';
export { DEFAULT_SIMULATION_DELAY_MS, SIMULATE_FAIL_ANNOTATION, SIMULATED_NODE } from './simulate.js';
export type { WorkloadSimulatorOptions } from './simulate.js';
export type { EmbeddedAuthOptions } from './auth.js';

export interface EmbeddedClusterOptions {
  /** TCP port on 127.0.0.1; 0 or undefined picks a free one. */
  port?: number;
  /** State file: loaded at start when it exists, saved by close(). */
  dataFile?: string;
  /** Seed of the fault injector's PRNG (default 1). */
  seed?: number;
  /** Watch event history window, in events (default 1000); older resourceVersions get 410 Gone. */
  watchHistory?: number;
  /**
   * Compaction interval in ms (default 300000: kube-apiserver's `--etcd-compaction-interval` of 5 minutes;
   * 0 turns it off). Each tick compacts the history to the resourceVersion seen at the previous tick, as
   * the apiserver's compactor does (k8s.io/apiserver storage/etcd3/compact.go), so a resourceVersion stays
   * watchable for one to two intervals.
   */
  compactionIntervalMs?: number;
  /**
   * How long a deleted namespace stays Terminating before the namespace controller deletes its contents and
   * removes it (default 2000 ms; a real cluster takes a few seconds). Creates in it meanwhile get 403.
   */
  namespaceDeletionDelayMs?: number;
  /** Interval of BOOKMARK events on watches that allow them (default 30 s). */
  bookmarkIntervalMs?: number;
  /** Namespaces created at start when there is no data file (default: default, kube-system, kube-public, kube-node-lease). */
  namespaces?: string[];
  /**
   * Simulate the workload controllers and the kubelet (`simulate.ts`): Deployments, ReplicaSets,
   * StatefulSets, DaemonSets and Jobs get Pods and rolled-out status. Off by default.
   */
  simulateWorkloads?: boolean | WorkloadSimulatorOptions;
  /** Serve HTTPS with this certificate chain and key (PEM); the URL is then https://127.0.0.1:PORT. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Require credentials (auth.ts): bearer tokens and/or basic auth; unset: every request is let in. */
  auth?: EmbeddedAuthOptions;
}

export interface EmbeddedCluster {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /**
   * Kubeconfig YAML; cluster, context and user are all named `contextName` ('embedded' by default), the
   * context's namespace is "default", the user has no credentials, and the cluster sets
   * insecure-skip-tls-verify (ignored over HTTP, required by @kubernetes/client-node for http:// servers).
   */
  kubeconfig(contextName?: string): string;
  writeKubeconfig(file: string, contextName?: string): Promise<void>;
  readonly faults: FaultInjector;
  readonly stats: RequestStats;
  /** Stops accepting connections, ends open watches, saves `dataFile` if given. Idempotent. */
  close(): Promise<void>;
}

const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export function kubeconfigYaml(url: string, name = 'embedded'): string {
  const q = JSON.stringify(name);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${q}`,
    '  cluster:',
    `    server: ${url}`,
    // Meaningless over plain HTTP, but @kubernetes/client-node refuses http:// servers without it.
    '    insecure-skip-tls-verify: true',
    'contexts:',
    `- name: ${q}`,
    '  context:',
    `    cluster: ${q}`,
    `    user: ${q}`,
    '    namespace: default',
    `current-context: ${q}`,
    'users:',
    `- name: ${q}`,
    '  user: {}',
    'preferences: {}',
    '',
  ].join('\n');
}

export async function startEmbeddedCluster(opts: EmbeddedClusterOptions = {}): Promise<EmbeddedCluster> {
  const registry = new ResourceRegistry();
  const store = new ObjectStore(opts.watchHistory ?? 1000);
  const core = new ApiCore(store, registry);
  const deleter = new Deleter(
    core,
    opts.namespaceDeletionDelayMs !== undefined
      ? { namespaceDeletionDelayMs: opts.namespaceDeletionDelayMs }
      : {},
  );
  const loaded = opts.dataFile ? await loadData(opts.dataFile, store, registry) : false;
  if (!loaded) core.bootstrapNamespaces(opts.namespaces ?? DEFAULT_NAMESPACES);
  deleter.namespaces.resumeTerminating();
  // The watch cache starts from a list of the state at start-up: nothing older can be watched from.
  store.compact();
  const compactionMs = opts.compactionIntervalMs ?? 300_000;
  let compactedAtLastTick = store.resourceVersion;
  const compactor =
    compactionMs > 0
      ? setInterval(() => {
          store.compactTo(compactedAtLastTick);
          compactedAtLastTick = store.resourceVersion;
        }, compactionMs).unref()
      : undefined;
  const simulator = opts.simulateWorkloads
    ? new WorkloadSimulator(core, deleter, opts.simulateWorkloads === true ? {} : opts.simulateWorkloads)
    : undefined;
  simulator?.start();
  const faults = new FaultInjector(opts.seed ?? 1);
  const stats = new RequestStats();
  const watches = new WatchHub(core, faults, { bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 30_000 });
  faults.watchControl = watches;
  let hostPort = '127.0.0.1:0';
  const router = new Router(core, deleter, watches, faults, stats, () => hostPort);
  const auth = opts.auth;
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    stats.recordUserAgent(
      String(req.headers['user-agent'] ?? ''),
      req.method ?? 'GET',
      (req.url ?? '/').split('?')[0]!,
    );
    if (auth && authenticate(req, auth) === undefined) {
      req.resume();
      sendUnauthorized(res);
      return;
    }
    void router.handle(req, res);
  };
  const server = opts.tls
    ? createTlsServer(
        {
          cert: opts.tls.cert,
          key: opts.tls.key,
          // Asked for, never required: a request without one may still bring a token (kube-apiserver).
          ...(auth?.clientCA ? { ca: auth.clientCA, requestCert: true, rejectUnauthorized: false } : {}),
        },
        handler,
      )
    : createServer(handler);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `${opts.tls ? 'https' : 'http'}://${hostPort}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    faults,
    stats,
    kubeconfig: (name) => kubeconfigYaml(url, name),
    writeKubeconfig: (file, name) => writeFile(file, kubeconfigYaml(url, name), { mode: 0o600 }),
    close: () =>
      (closing ??= (async () => {
        const done = new Promise<void>((resolve) => server.close(() => resolve()));
        if (compactor) clearInterval(compactor);
        deleter.namespaces.stop();
        simulator?.stop();
        watches.closeAll();
        server.closeAllConnections();
        await done;
        if (opts.dataFile) await saveData(opts.dataFile, store);
      })()),
  };
}
