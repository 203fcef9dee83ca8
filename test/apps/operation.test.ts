/**
 * `parseOperation`: an Application's `operation` (what `argocd app sync`, the UI or `kubectl patch` write)
 * as the loop's request, and one-line errors naming the app and the field for bad input.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import {
  OperationRefusal,
  operationJson,
  operationStateJson,
  parseApplication,
  parseOperation,
} from '../../src/apps/index.js';
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
      "Force=true among syncOptions: ignored, as Argo CD's controller (force comes from syncStrategy)",
      { sync: { syncStrategy: { hook: {} }, syncOptions: ['Force=true', 'Replace=true'] } },
      { strategy: 'hook', syncOptions: { Replace: 'true' } },
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
          written: { duration: '10', factor: 3, maxDuration: '2m' },
          refresh: true,
        },
      },
    ],
    [
      'a source equal to the spec (what `argocd app sync` writes) is kept, not an override',
      { sync: { source: structuredClone(spec.source) } },
      { source: structuredClone(spec.source) },
    ],
    [
      "a rollback: the history entry's source, parsed as the spec's would be",
      { sync: { revision: 'a'.repeat(40), source: { ...structuredClone(spec.source), path: 'old' } } },
      {
        revision: 'a'.repeat(40),
        source: { ...structuredClone(spec.source), path: 'old' },
        overrideSources: [
          { repoURL: 'https://git.example.com/repo.git', path: 'old', targetRevision: 'HEAD' },
        ],
      },
    ],
    [
      'a local sync: each manifest one object in JSON ("" and "null" are none), as the CLI sends them',
      {
        sync: {
          manifests: ['{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}', '', 'null'],
        },
      },
      {
        manifests: ['{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}', '', 'null'],
        localObjects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }],
      },
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
      'a rollback to a source that is not one',
      { sync: { source: { path: 'web' } } },
      'operation.sync.source is not a valid source: spec.source.repoURL is required',
    ],
    [
      'a local sync of something that is not an object',
      { sync: { manifests: ['{"kind":"ConfigMap"}'] } },
      'operation.sync.manifests[0] is not a Kubernetes object (apiVersion and kind)',
    ],
  ];
  for (const [name, operation, message] of bad) {
    it(`refuses ${name} with one line naming the app and field`, () => {
      const full = `app argocd/web: failed to read operation: ${message}`;
      const escaped = full.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      // A message ending ": " is followed by the YAML parser's own words.
      assert.throws(() => parseOperation(appWith(operation)), {
        message: new RegExp(`^${escaped}${message.endsWith(': ') ? '' : '$'}`),
      });
    });
  }

  // Argo CD's API server refuses these (server/application Rollback, Sync); the controller answers them.
  const automated = { syncPolicy: { automated: {} } };
  for (const [name, operation, reason] of [
    [
      'a rollback',
      { sync: { source: { ...spec.source, path: 'old' } } },
      'rollback cannot be initiated when auto-sync is enabled',
    ],
    [
      'a local sync',
      { sync: { manifests: ['{"apiVersion":"v1","kind":"ConfigMap"}'] } },
      'cannot use local sync when Automatic Sync Policy is enabled unless for dry run',
    ],
  ] as const) {
    it(`refuses ${name} while auto-sync is enabled, with Argo CD's words`, () => {
      assert.throws(
        () => parseOperation(appWith(operation, automated)),
        (err: unknown) => {
          assert.ok(err instanceof OperationRefusal);
          assert.equal(err.reason, reason);
          assert.equal(err.message, `app argocd/web: failed to run operation: ${reason}`);
          return true;
        },
      );
    });
  }

  // controller/state.go unmarshalManifests is json.Unmarshal: YAML fails the comparison (ComparisonError).
  for (const [text, cause] of [
    ['apiVersion: v1\nkind: ConfigMap', "invalid character 'a' looking for beginning of value"],
    ['  ', 'unexpected end of JSON input'],
  ] as const) {
    it(`refuses local manifests that are not JSON as Argo CD does (${JSON.stringify(text)})`, () => {
      assert.throws(
        () => parseOperation(appWith({ sync: { manifests: [text] } })),
        (err: unknown) => {
          assert.ok(err instanceof OperationRefusal);
          assert.equal(err.reason, `ComparisonError: Failed to load local manifests: ${cause}`);
          return true;
        },
      );
    });
  }

  it('a retry backoff is written back as given (a Go struct copy: 2m stays 2m)', () => {
    const operation = {
      sync: { syncStrategy: { hook: {} } },
      initiatedBy: { username: 'admin' },
      retry: { limit: 3, backoff: { duration: '2m', maxDuration: '5m' } },
    };
    const app = appWith(operation);
    assert.deepEqual(operationJson(parseOperation(app)!, app), operation);
  });

  it('a dry-run local sync is allowed with auto-sync (as Argo CD allows it)', () => {
    const op = { sync: { dryRun: true, manifests: ['{"apiVersion":"v1","kind":"ConfigMap"}'] } };
    assert.equal(parseOperation(appWith(op, automated))?.dryRun, true);
  });

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

describe('operationStateJson', () => {
  it("writes each result's images after syncPhase, as Argo CD 3.6's ResourceResult (none: no key)", () => {
    const app = appWith({ sync: {} });
    const result = (name: string, images?: string[]) => ({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      namespace: 'web',
      name,
      status: 'Synced',
      message: `deployment.apps/${name} created`,
      hookType: '',
      hookPhase: 'Running',
      syncPhase: 'Sync',
      ...(images ? { images } : {}),
    });
    const json = operationStateJson(
      parseOperation(app)!,
      {
        phase: 'Succeeded',
        message: 'successfully synced (all tasks run)',
        revision: 'a'.repeat(40),
        startedAt: '2026-11-28T10:00:00Z',
        finishedAt: '2026-11-28T10:00:01Z',
        dryRun: false,
        retries: 0,
        resources: [result('web', ['registry.example/app:1.0', 'sidecar:2']), result('bare')],
      },
      app,
    ) as { syncResult: { resources: Array<Record<string, unknown>> } };
    const [web, bare] = json.syncResult.resources;
    assert.deepEqual(Object.keys(web!).slice(-2), ['syncPhase', 'images']);
    assert.deepEqual(web!['images'], ['registry.example/app:1.0', 'sidecar:2']);
    assert.equal('images' in bare!, false);
  });
});
