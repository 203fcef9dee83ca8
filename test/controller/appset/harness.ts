/**
 * The ApplicationSet controller (runAppSetController) on an embedded API server with Argo CD's CRDs, for
 * end-to-end suites: its events recorded with `until(match, from)`, helpers to write ApplicationSets and
 * read what the controller wrote.
 */
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import type { KubeObject } from '../../../src/cluster/index.js';
import { connect, loadKubeConfig } from '../../../src/cluster/index.js';
import { runAppSetController } from '../../../src/controller/index.js';
import type { AppSetControllerOptions, AppSetEvent } from '../../../src/controller/index.js';
import { createSourceService } from '../../../src/source/index.js';
import { APP_PROJECT_CRD, APPLICATION_CRD, APPLICATION_SET_CRD } from '../../support/argocd.js';
import { api, crdsEstablished } from '../../support/embedded.js';
import { eventRecorder } from '../../support/events.js';
import type { EmbeddedFixture } from '../../support/embedded.js';

export const APPS = '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications';
export const SETS = '/apis/argoproj.io/v1alpha1/namespaces/argocd/applicationsets';

type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface AppSetHarness {
  events: AppSetEvent[];
  warnings: string[];
  until(match: (e: AppSetEvent) => boolean, from?: number): Promise<AppSetEvent>;
  /** POSTs an ApplicationSet (YAML) into `argocd`. */
  createSet(yaml: string): Promise<void>;
  patchSet(name: string, patch: unknown): Promise<void>;
  getSet(name: string): Promise<Any>;
  getApp(name: string): Promise<Any>;
  /** The names of the Applications in `argocd`. */
  appNames(): Promise<string[]>;
  /** Stops the controller (once; the fixture's clean-up calls it first). */
  stop(): Promise<void>;
}

/**
 * Argo CD's CRDs, the `argocd` namespace and the `default` AppProject; what exists already (the
 * application controller's harness installs some) is left.
 */
export async function installArgo(fx: EmbeddedFixture, namespaces: readonly string[] = []): Promise<void> {
  for (const crd of [APPLICATION_CRD, APP_PROJECT_CRD, APPLICATION_SET_CRD]) {
    const res = await api(fx.cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    assert.ok(res.status === 201 || res.status === 409, JSON.stringify(res.body));
  }
  await crdsEstablished(fx);
  for (const name of ['argocd', ...namespaces])
    await api(fx.cluster, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    });
  const res = await api(fx.cluster, 'POST', '/apis/argoproj.io/v1alpha1/namespaces/argocd/appprojects', {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'AppProject',
    metadata: { name: 'default', namespace: 'argocd' },
    spec: { sourceRepos: ['*'], destinations: [{ server: '*', namespace: '*' }] },
  });
  assert.ok(res.status === 201 || res.status === 409, JSON.stringify(res.body));
}

export async function startAppSets(
  fx: EmbeddedFixture,
  cacheRoot: string,
  options: Partial<Omit<AppSetControllerOptions, 'client' | 'checkout'>> = {},
): Promise<AppSetHarness> {
  await installArgo(fx);
  const recorder = eventRecorder<AppSetEvent>();
  const { events, until } = recorder;
  const warnings: string[] = [];
  const abort = new AbortController();
  const source = createSourceService({ cacheRoot: join(cacheRoot, 'appsets') });
  const conn = await connect({
    kubeConfig: await loadKubeConfig({ kubeconfig: fx.kubeconfig }),
    client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
  });
  const done = runAppSetController({
    client: conn.client,
    argocdNamespace: 'argocd',
    checkout: (url, rev) => source.checkoutTree(url, rev),
    forgetRevisions: (url) => source.forgetRevisions?.(url),
    signal: abort.signal,
    ...options,
    onWarning: (m) => warnings.push(m),
    onEvent: (e) => recorder.onEvent(e),
  });
  await Promise.race([until((e) => e.type === 'appset-controller-ready'), done]);
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      abort.abort();
      await done;
      conn.close();
      await source.close();
    })());
  // Stopped before the fixture cleans up (it writes Applications while it runs).
  fx.stopFirst(stop);
  return {
    events,
    warnings,
    until,
    async createSet(yaml) {
      const body = parse(yaml) as KubeObject;
      body.metadata = { ...body.metadata, namespace: 'argocd' };
      const res = await api(fx.cluster, 'POST', SETS, body);
      assert.equal(res.status, 201, JSON.stringify(res.body));
    },
    async patchSet(name, patch) {
      const res = await api(fx.cluster, 'PATCH', `${SETS}/${name}`, patch, 'application/merge-patch+json');
      assert.equal(res.status, 200, JSON.stringify(res.body));
    },
    async getSet(name) {
      return (await api(fx.cluster, 'GET', `${SETS}/${name}`)).body;
    },
    async getApp(name) {
      return (await api(fx.cluster, 'GET', `${APPS}/${name}`)).body;
    },
    async appNames() {
      const list = (await api(fx.cluster, 'GET', APPS)).body as { items: KubeObject[] };
      return list.items.map((a) => String(a.metadata?.name)).sort();
    },
    stop,
  };
}
