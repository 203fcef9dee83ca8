/**
 * `StatusWriter` (src/controller/app-controller/status-writer.ts) against a recording client: what the loop's state says
 * of an app's last render (`AppLoopState.rendered`: each source's revision and type, the summary) is what a
 * `refreshed` event writes as `status.sync.revisions`, `status.sourceTypes` and `status.summary`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseApplication } from '../../../src/apps/index.js';
import type { KubeClient, KubeObject } from '../../../src/cluster/index.js';
import { StatusWriter } from '../../../src/controller/app-controller/status-writer.js';
import type { AppLoopState } from '../../../src/controller/index.js';

const manifest: KubeObject = {
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'multi', namespace: 'argocd', resourceVersion: '1' },
  spec: {
    project: 'default',
    sources: [
      { repoURL: 'https://example.com/a.git', path: 'a', targetRevision: 'main' },
      { repoURL: 'https://charts.example.com', chart: 'web', targetRevision: '1.2.3' },
    ],
    destination: { server: 'https://kubernetes.default.svc', namespace: 'web' },
  },
};

type Status = { sync: { revisions?: string[] }; sourceTypes?: string[]; summary?: unknown };

function writerFor(state: AppLoopState): { writer: StatusWriter; patches: Array<Record<string, unknown>> } {
  const patches: Array<Record<string, unknown>> = [];
  const client = {
    patch: async (_r: unknown, _ns: string, _name: string, patch: Record<string, unknown>) => {
      patches.push(patch);
      return { ...manifest, metadata: { ...manifest.metadata, resourceVersion: String(patches.length + 1) } };
    },
  } as unknown as KubeClient;
  const writer = new StatusWriter({
    client,
    argocdNamespace: 'argocd',
    current: () => manifest,
    state: (key) => (key === state.key ? state : undefined),
    now: () => Date.parse('2026-11-25T00:00:00Z'),
  });
  return { writer, patches };
}

describe('StatusWriter: the last render from the loop state', () => {
  const app = parseApplication(manifest, 'test multi');
  const sha = 'a'.repeat(40);
  const state: AppLoopState = {
    key: 'argocd/multi',
    app,
    selfHealAttempts: 0,
    comparison: {
      revision: sha,
      resources: [],
      sync: 'Synced',
      health: { status: 'Healthy' },
      conditions: [],
    },
    reconciledAt: '2026-11-25T00:00:00Z',
    rendered: {
      sources: [
        { revision: sha, type: 'Kustomize' },
        { revision: '1.2.3', type: 'Helm' },
      ],
      summary: { externalURLs: [], images: ['nginx:1.25'], isAppOfApps: false },
    },
  };

  it('writes each source revision, the source types and the summary the refresh rendered', async () => {
    const { writer, patches } = writerFor(state);
    writer.onEvent({
      type: 'refreshed',
      app: 'multi',
      key: 'argocd/multi',
      reason: 'initial',
      level: 2,
      durationMs: 1,
    });
    await writer.idle();
    assert.equal(patches.length, 1);
    const status = patches[0]!['status'] as Status;
    assert.deepEqual(status.sync.revisions, [sha, '1.2.3']);
    assert.deepEqual(status.sourceTypes, ['Kustomize', 'Helm']);
    assert.deepEqual(status.summary, { images: ['nginx:1.25'] });
  });

  it('without a render recorded, source types are not written', async () => {
    const { rendered: _r, ...bare } = state;
    const { writer, patches } = writerFor(bare);
    writer.onEvent({
      type: 'refreshed',
      app: 'multi',
      key: 'argocd/multi',
      reason: 'initial',
      level: 2,
      durationMs: 1,
    });
    await writer.idle();
    const status = patches[0]!['status'] as Status;
    assert.equal(status.sourceTypes, undefined);
    assert.deepEqual(status.sync.revisions, [sha]);
  });
});
