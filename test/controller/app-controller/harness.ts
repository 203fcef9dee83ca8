/**
 * A `kubectl gitops controller` (runController) on an embedded API server with Argo CD's CRDs, for
 * end-to-end suites: its events recorded with `until(match, from)` to wait on them, and helpers to write
 * and read Applications and Jobs as users and Kubernetes' controllers do.
 */
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import type { KubeObject } from '../../../src/cluster/index.js';
import { runController } from '../../../src/controller/index.js';
import type { ControllerEvent, LoopEvent } from '../../../src/controller/index.js';
import { createSourceService } from '../../../src/source/index.js';
import type { SourceService } from '../../../src/source/index.js';
import { APP_PROJECT_CRD, APPLICATION_CRD } from '../../support/argocd.js';
import { api, crdsEstablished } from '../../support/embedded.js';
import { eventRecorder } from '../../support/events.js';
import { finishedJobStatus } from '../../support/jobs.js';
import type { EmbeddedFixture } from '../../support/embedded.js';

export type Event = LoopEvent | ControllerEvent;
export const APPS = '/apis/argoproj.io/v1alpha1/namespaces/argocd/applications';

export interface ControllerHarness {
  events: Event[];
  warnings: string[];
  /** Reloads run (argocd-cm or a Secret changed), with `reload: true`. */
  reloads: number;
  until(match: (e: Event) => boolean, from?: number): Promise<Event>;
  /** POSTs an Application (YAML) into `argocd`, with `extra` top-level fields (operation, metadata). */
  create(yaml: string, extra?: Record<string, unknown>): Promise<void>;
  patchApp(name: string, patch: unknown): Promise<void>;
  getApp(name: string): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Marks a Job Complete (or Failed) through its status, as the Job controller would. */
  finishJob(namespace: string, name: string, type?: 'Complete' | 'Failed'): Promise<void>;
  stop(): Promise<void>;
}

export async function startController(
  fx: EmbeddedFixture,
  cacheRoot: string,
  namespaces: readonly string[],
  options: { reload?: boolean; applicationNamespaces?: string[] } = {},
): Promise<ControllerHarness> {
  for (const crd of [APPLICATION_CRD, APP_PROJECT_CRD]) {
    const res = await api(fx.cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
  await crdsEstablished(fx);
  for (const name of ['argocd', ...namespaces])
    await api(fx.cluster, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name },
    });
  const recorder = eventRecorder<Event>();
  const { events, until } = recorder;
  const warnings: string[] = [];
  const abort = new AbortController();
  const source: SourceService = createSourceService({ cacheRoot });
  const loopOptions = () => ({
    kubeconfig: fx.kubeconfig,
    discovery: { cacheDir: join(fx.dir, 'discovery'), ttlMs: 0 },
    client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
    eventBatchMs: 10,
    appResyncMs: 0,
    diffText: false,
  });
  const harness = { reloads: 0 };
  const done = runController({
    argocdNamespace: 'argocd',
    ...(options.applicationNamespaces ? { applicationNamespaces: options.applicationNamespaces } : {}),
    kubeconfig: fx.kubeconfig,
    client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
    signal: abort.signal,
    finalizerRetryMs: 50,
    loopOptions: { ...loopOptions(), source },
    ...(options.reload
      ? {
          reloadDelayMs: 20,
          reload: async () => {
            harness.reloads++;
            const next = createSourceService({ cacheRoot });
            return { loopOptions: { ...loopOptions(), source: next }, close: () => next.close() };
          },
        }
      : {}),
    onWarning: (m) => warnings.push(m),
    onEvent: (e) => recorder.onEvent(e),
  });
  await until((e) => e.type === 'controller-ready');
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      abort.abort();
      await done;
      await source.close();
    })());
  // Stopped before the fixture cleans up (it writes status and finalizers while it runs).
  fx.stopFirst(stop);
  return {
    events,
    warnings,
    get reloads() {
      return harness.reloads;
    },
    until,
    async create(yaml, extra = {}) {
      const body = { ...(parse(yaml) as KubeObject), ...extra };
      body.metadata = { ...body.metadata, namespace: 'argocd' };
      const res = await api(fx.cluster, 'POST', APPS, body);
      assert.equal(res.status, 201, JSON.stringify(res.body));
    },
    async patchApp(name, patch) {
      const res = await api(fx.cluster, 'PATCH', `${APPS}/${name}`, patch, 'application/merge-patch+json');
      assert.equal(res.status, 200, JSON.stringify(res.body));
    },
    async getApp(name) {
      return (await api(fx.cluster, 'GET', `${APPS}/${name}`)).body;
    },
    async finishJob(namespace, name, type = 'Complete') {
      // As the Job controller finishes a Job: its startTime (a real server's Job controller set it) kept,
      // no Pod active.
      const path = `/apis/batch/v1/namespaces/${namespace}/jobs/${name}`;
      const job = (await api(fx.cluster, 'GET', path)).body as { status?: { startTime?: string } };
      const status = { ...finishedJobStatus(type), active: null, ready: null };
      if (job.status?.startTime) status.startTime = job.status.startTime;
      const res = await api(
        fx.cluster,
        'PATCH',
        `${path}/status`,
        { status },
        'application/merge-patch+json',
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
    },
    stop,
  };
}

/**
 * A Job manifest (YAML) annotated as a hook of `type` with the delete policies given. Parallelism 0, so no
 * Pod runs on any server (a real server's Job controller would finish it on its own) and it stays
 * Progressing (a suspended Job is Suspended, which Argo CD does not wait for): `finishJob` finishes it.
 */
export function hookJob(name: string, type: string, deletePolicy?: string): string {
  return `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  annotations:
    argocd.argoproj.io/hook: ${type}
${deletePolicy ? `    argocd.argoproj.io/hook-delete-policy: ${deletePolicy}\n` : ''}spec:
  parallelism: 0
  completions: 1
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: busybox
          command: ["true"]
`;
}
