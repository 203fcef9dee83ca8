/**
 * `parseOperation`: an Application's `operation` (what `argocd app sync`, the UI or `kubectl patch` write)
 * as the loop's request, and one-line errors naming the app and the field for bad input.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { operationJson, parseApplication, parseOperation } from '../../src/apps/index.js';
import type { OperationRequest } from '../../src/controller/loop/types.js';

const spec = {
  project: 'default',
  source: { repoURL: 'https://git.example.com/repo.git', path: 'web', targetRevision: 'HEAD' },
  destination: { server: 'https://kubernetes.default.svc', namespace: 'web' },
};
const appWith = (operation: unknown, extra: Record<string, unknown> = {}) =>
  parseApplication(
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: 'web', namespace: 'argocd' },
      spec: { ...structuredClone(spec), ...extra },
      ...(operation === undefined ? {} : { operation }),
    },
    'test',
  );

const defaultRetry = {
  limit: 0,
  backoff: { durationMs: 5000, factor: 2, maxDurationMs: 180000 },
  refresh: false,
};

describe('parseOperation', () => {
  it('no operation: undefined', () => {
    assert.equal(parseOperation(appWith(undefined)), undefined);
    assert.equal(parseOperation(appWith(null)), undefined);
  });

  const ok: Array<[string, unknown, Partial<OperationRequest>]> = [
    [
      'what `argocd app sync --prune` writes',
      {
        sync: { revision: 'HEAD', prune: true, syncStrategy: { hook: {} } },
        initiatedBy: { username: 'admin' },
      },
      {
        revision: 'HEAD',
        prune: true,
        strategy: 'hook',
        initiatedBy: { automated: false, username: 'admin' },
      },
    ],
    [
      'apply strategy with force, sync options, a resource filter',
      {
        sync: {
          syncStrategy: { apply: { force: true } },
          syncOptions: ['ServerSideApply=true', 'CreateNamespace=true'],
          resources: [
            { group: 'apps', kind: 'Deployment', name: 'web' },
            { kind: 'ConfigMap', name: 'c', namespace: 'web' },
          ],
          dryRun: true,
        },
      },
      {
        strategy: 'apply',
        dryRun: true,
        syncOptions: { ServerSideApply: 'true', CreateNamespace: 'true', Force: 'true' },
        resources: [
          { group: 'apps', kind: 'Deployment', name: 'web' },
          { group: '', kind: 'ConfigMap', name: 'c', namespace: 'web' },
        ],
      },
    ],
    [
      'retry with backoff (seconds by default, Go durations)',
      {
        sync: {},
        retry: { limit: 3, backoff: { duration: '10', factor: 3, maxDuration: '2m' }, refresh: true },
      },
      {
        retry: {
          limit: 3,
          backoff: { durationMs: 10_000, factor: 3, maxDurationMs: 120_000 },
          refresh: true,
        },
      },
    ],
    [
      'a source equal to the spec (not a rollback) is accepted',
      { sync: { source: structuredClone(spec.source) } },
      {},
    ],
  ];
  for (const [name, operation, expected] of ok) {
    it(name, () => {
      assert.deepEqual(parseOperation(appWith(operation)), {
        initiatedBy: { automated: false },
        prune: false,
        dryRun: false,
        retry: defaultRetry,
        ...expected,
      });
    });
  }

  const bad: Array<[string, unknown, string]> = [
    ['no sync', { initiatedBy: { username: 'a' } }, 'operation.sync is required (no operation specified)'],
    ['sync not an object', { sync: 'yes' }, 'operation.sync must be an object'],
    ['prune a string', { sync: { prune: 'true' } }, 'operation.sync.prune must be a boolean'],
    [
      'unknown sync option',
      { sync: { syncOptions: ['Turbo=true'] } },
      'operation.sync.syncOptions has unknown option "Turbo=true"',
    ],
    [
      'bad option value',
      { sync: { syncOptions: ['Prune=maybe'] } },
      'operation.sync.syncOptions has "Prune=maybe": Prune takes true, false, confirm',
    ],
    [
      'resource without name',
      { sync: { resources: [{ kind: 'ConfigMap' }] } },
      'operation.sync.resources[0] needs kind and name',
    ],
    [
      'revisions on a single-source app',
      { sync: { revisions: ['a'] } },
      'operation.sync.revisions is only for apps with spec.sources',
    ],
    [
      'bad backoff',
      { sync: {}, retry: { backoff: { duration: 'soon' } } },
      'operation.retry.backoff.duration is not a duration: "soon"',
    ],
    [
      'a rollback',
      {
        sync: { source: { repoURL: 'https://git.example.com/repo.git', path: 'web', targetRevision: 'v1' } },
      },
      'operation.sync.source overrides the spec (a rollback), which this controller does not run',
    ],
    [
      'a local sync',
      { sync: { manifests: ['kind: ConfigMap'] } },
      'operation.sync.manifests (a local sync) is not supported',
    ],
  ];
  for (const [name, operation, message] of bad) {
    it(`refuses ${name} with one line naming the app and field`, () => {
      assert.throws(() => parseOperation(appWith(operation)), {
        message: `app argocd/web: failed to read operation: ${message}`,
      });
    });
  }

  it('round trip: the request written back as Argo CD JSON', () => {
    const operation = {
      sync: {
        revision: 'HEAD',
        prune: true,
        syncStrategy: { apply: { force: true } },
        syncOptions: ['Validate=false'],
      },
      initiatedBy: { username: 'admin' },
      retry: { limit: 2 },
    };
    const app = appWith(operation);
    assert.deepEqual(operationJson(parseOperation(app)!, app), operation);
  });
});
