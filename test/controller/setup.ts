/**
 * Shared setup of the controller's end-to-end tests: Applications from YAML, a source service with a temp
 * cache, apply helpers (server-side apply as Argo CD's controller would: manager argocd-controller) and a
 * `refresh` that runs the controller's one-shot Run against the embedded cluster, and `sync`: the same Run
 * with the sync operation processor.
 */
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseApplication } from '../../src/apps/index.js';
import type { Application } from '../../src/apps/index.js';
import { connect } from '../../src/cluster/index.js';
import type { ClusterConnection, ConnectOptions, KubeObject } from '../../src/cluster/index.js';
import { ClusterState, OWN_FIELD_MANAGERS, Run } from '../../src/controller/index.js';
import type { AppReport, RunOptions, RunReport } from '../../src/controller/index.js';
import { createSourceService } from '../../src/source/index.js';
import { runOperation } from '../../src/sync/index.js';
import type { SyncRequest } from '../../src/sync/index.js';
import type { EmbeddedFixture } from '../support/embedded.js';
import { appYaml, tempDir } from '../support/git.js';

export function application(
  name: string,
  url: string,
  path: string,
  extra: { namespace?: string; spec?: string; revision?: string } = {},
): Application {
  return parseApplication(parse(appYaml(name, url, path, extra)) as KubeObject, `test ${name}`);
}

export async function connectAs(
  fx: EmbeddedFixture,
  fieldManager = 'argocd-controller',
): Promise<ClusterConnection> {
  return connect({
    kubeconfig: fx.kubeconfig,
    discovery: { cacheDir: join(fx.dir, 'discovery'), ttlMs: 0 },
    client: { fieldManager, retry: { baseDelayMs: 5, maxDelayMs: 20 } },
  });
}

/** A live cache of `namespaces` on the embedded cluster, managers and appliers ours, as a run makes it. */
export async function ownClusterState(fx: EmbeddedFixture, namespaces: string[]): Promise<ClusterState> {
  return new ClusterState({
    conn: await connectAs(fx),
    namespaces,
    tracking: {},
    managers: new Set(OWN_FIELD_MANAGERS),
    appliers: new Set(OWN_FIELD_MANAGERS),
  });
}

/** A connection `seenConnect` made: `closed` resolves on its first close, `closes` counts them. */
export interface SeenConnection {
  conn: ClusterConnection;
  closed: Promise<void>;
  closes: number;
}

/** `connect`, recording each connection it makes (in order) in `seen`, and its closes. */
export function seenConnect(seen: SeenConnection[]): (options: ConnectOptions) => Promise<ClusterConnection> {
  return async (options) => {
    const conn = await connect(options);
    let closed!: () => void;
    const s: SeenConnection = { conn, closed: new Promise((resolve) => (closed = resolve)), closes: 0 };
    const close = conn.close.bind(conn);
    conn.close = () => {
      s.closes++;
      closed();
      close();
    };
    seen.push(s);
    return conn;
  };
}

export async function createNamespaces(conn: ClusterConnection, names: string[]): Promise<void> {
  const info = await conn.discovery.resolve({ group: '', kind: 'Namespace' });
  for (const name of names)
    await conn.client.create(info, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

/** Server-side applies `objects` (namespaced ones into `namespace` unless they name one). */
export async function applyObjects(
  conn: ClusterConnection,
  objects: KubeObject[],
  namespace: string,
): Promise<void> {
  for (const obj of objects) {
    const info = await conn.discovery.resolveApiVersionKind(obj.apiVersion ?? '', obj.kind ?? '');
    const body = structuredClone(obj);
    const ns = info.namespaced ? body.metadata?.namespace || namespace : '';
    if (ns) body.metadata = { ...body.metadata, namespace: ns };
    await conn.client.patch(info, ns, body.metadata?.name ?? '', body, 'apply', { force: true });
  }
}

/** Renders `app` as the controller will (tracking-stamped objects). */
export async function renderObjects(app: Application, cacheRoot: string): Promise<KubeObject[]> {
  const service = createSourceService({ cacheRoot });
  try {
    return (await service.renderApp(app)).objects;
  } finally {
    await service.close();
  }
}

export async function refresh(
  fx: EmbeddedFixture,
  apps: Application[],
  cacheRoot: string,
  extra: Partial<RunOptions> = {},
): Promise<RunReport> {
  const source = createSourceService({ cacheRoot });
  try {
    return await new Run({
      apps,
      source,
      kubeconfig: fx.kubeconfig,
      discovery: { cacheDir: join(fx.dir, 'discovery'), ttlMs: 0 },
      client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
      ...extra,
    }).run();
  } finally {
    await source.close();
  }
}

export function reportOf(report: RunReport, name: string): AppReport {
  const r = report.apps.find((a) => a.app.name === name);
  if (!r) throw new Error(`no report for ${name}`);
  return r;
}

export const newCacheRoot = (): string => tempDir('kg-ctl-cache-');

/** A sync request as `kubectl gitops sync` sends it by default (hook strategy, CreateNamespace=true). */
export const syncRequest = (over: Partial<SyncRequest> = {}): SyncRequest => ({
  prune: false,
  dryRun: false,
  allowEmpty: false,
  strategy: 'hook',
  resources: [],
  syncOptions: { CreateNamespace: 'true' },
  ...over,
});

/** `refresh` with the sync operation processor: each app gets an operation running `req`. */
export function sync(
  fx: EmbeddedFixture,
  apps: Application[],
  cacheRoot: string,
  req: SyncRequest,
  extra: Partial<RunOptions> = {},
): Promise<RunReport> {
  return refresh(fx, apps, cacheRoot, {
    operation: (app, rec, signal) =>
      runOperation({ name: app.name, syncOptions: app.syncPolicy.options }, rec, req, signal),
    ...extra,
  });
}
