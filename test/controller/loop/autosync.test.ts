/**
 * Auto-sync decisions (src/controller/loop/autosync.ts), table-driven against Argo CD's `autoSync`,
 * `alreadyAttemptedSync` and `selfHealRemainingBackoff` (controller/appcontroller.go, Argo CD 3.x): which
 * state syncs, which is skipped with which message, and the self-heal backoff.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Application } from '../../../src/apps/index.js';
import {
  DEFAULT_AUTOMATED_RETRY,
  DEFAULT_SELF_HEAL_BACKOFF,
  decideAutoSync,
  selfHealRemainingMs,
} from '../../../src/controller/index.js';
import type {
  AutoSyncInput,
  AutoSyncMode,
  ComparisonResult,
  LastOperation,
  ResourceStatus,
} from '../../../src/controller/index.js';
import { lastOperationOf, syncRequestOf } from '../../../src/controller/loop/state.js';
import { application } from '../setup.js';

const SHA_A = 'a'.repeat(40);
const SHA_B = 'b'.repeat(40);
const NOW = Date.parse('2026-01-01T12:00:00Z');

const automated = (flags: string): Application =>
  application('app', 'https://example.com/repo.git', 'path', {
    spec: `  syncPolicy:\n    automated:\n${flags}`,
  });

const row = (name: string, over: Partial<ResourceStatus> = {}): ResourceStatus => ({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  namespace: 'default',
  name,
  status: 'OutOfSync',
  difference: 'modified',
  requiresPruning: false,
  changes: [],
  ...over,
});

const comparison = (resources: ResourceStatus[], revision = SHA_A): ComparisonResult => ({
  revision,
  resources,
  sync: resources.some((r) => r.status === 'OutOfSync') ? 'OutOfSync' : 'Synced',
  health: { status: 'Healthy' },
  conditions: [],
});

const last = (app: Application, over: Partial<LastOperation> = {}, revision = SHA_A): LastOperation => ({
  request: { initiatedBy: { automated: true }, prune: false, dryRun: false },
  report: {
    phase: over.phase ?? 'Succeeded',
    message: over.phase === 'Failed' ? 'one or more objects failed to apply' : 'successfully synced',
    revision,
    startedAt: '2026-01-01T11:59:00Z',
    finishedAt: '2026-01-01T11:59:30Z',
    dryRun: false,
    retries: 0,
    resources: [],
    plan: [],
  },
  phase: 'Succeeded',
  finishedAt: '2026-01-01T11:59:30Z',
  sources: JSON.stringify(app.sources),
  ...over,
});

const POLICY: AutoSyncMode = { mode: 'policy' };
const input = (app: Application, over: Partial<AutoSyncInput> = {}): AutoSyncInput => ({
  app,
  mode: POLICY,
  comparison: comparison([row('a')]),
  operationInProgress: false,
  selfHealAttempts: 0,
  now: NOW,
  selfHealBackoff: DEFAULT_SELF_HEAL_BACKOFF,
  ...over,
});

describe('auto-sync decision (Argo CD autoSync)', () => {
  const plain = automated('      prune: false\n');
  const pruning = automated('      prune: true\n');
  const healing = automated('      selfHeal: true\n');
  const manual = application('app', 'https://example.com/repo.git', 'path');

  const cases: Array<{
    name: string;
    input: AutoSyncInput;
    want: 'none' | 'sync' | string;
  }> = [
    { name: 'no automated policy: nothing', input: input(manual), want: 'none' },
    { name: 'mode none: nothing', input: input(plain, { mode: { mode: 'none' } }), want: 'none' },
    {
      name: 'mode all treats an app without policy as automated',
      input: input(manual, { mode: { mode: 'all', prune: false, selfHeal: false, allowEmpty: false } }),
      want: 'sync',
    },
    {
      name: 'Synced: nothing',
      input: input(plain, { comparison: comparison([row('a', { status: 'Synced' })]) }),
      want: 'none',
    },
    {
      name: 'operation in progress: nothing',
      input: input(plain, { operationInProgress: true }),
      want: 'none',
    },
    { name: 'OutOfSync, never synced: sync', input: input(plain), want: 'sync' },
    {
      name: 'only prunes pending, prune off: skipped',
      input: input(plain, {
        comparison: comparison([
          row('a', { status: 'Synced' }),
          row('x', { difference: 'extra', requiresPruning: true }),
        ]),
      }),
      want: 'need to prune extra resources only but automated prune is disabled',
    },
    {
      name: 'only prunes pending, prune on: sync',
      input: input(pruning, {
        comparison: comparison([
          row('a', { status: 'Synced' }),
          row('x', { difference: 'extra', requiresPruning: true }),
        ]),
      }),
      want: 'sync',
    },
    {
      name: 'prune on, allowEmpty off, every resource needs pruning: skipped',
      input: input(pruning, {
        comparison: comparison([row('x', { difference: 'extra', requiresPruning: true })]),
      }),
      want: `Skipping sync attempt to [${SHA_A}]: auto-sync will wipe out all resources`,
    },
    {
      name: 'allowEmpty lets it wipe out',
      input: input(automated('      prune: true\n      allowEmpty: true\n'), {
        comparison: comparison([row('x', { difference: 'extra', requiresPruning: true })]),
      }),
      want: 'sync',
    },
    {
      name: 'same revision already synced, no selfHeal: skipped',
      input: input(plain, { lastOperation: last(plain) }),
      want: `most recent sync already to [${SHA_A}]`,
    },
    {
      name: 'same revision failed: never again (SyncError)',
      input: input(healing, { lastOperation: last(healing, { phase: 'Failed' }) }),
      want: `Failed last sync attempt to [${SHA_A}]: one or more objects failed to apply`,
    },
    {
      name: 'failed at another revision: a new revision syncs',
      input: input(plain, { lastOperation: last(plain, { phase: 'Failed' }, SHA_B) }),
      want: 'sync',
    },
    {
      name: 'same revision, sources changed: sync',
      input: input(plain, { lastOperation: last(plain, { sources: '[]' }) }),
      want: 'sync',
    },
    {
      name: 'ended without a result: attempted whatever the revision',
      input: input(plain, {
        lastOperation: last(
          plain,
          { report: undefined, phase: 'Error', message: 'connection refused' },
          SHA_B,
        ),
      }),
      want: 'Failed last sync attempt to []: connection refused',
    },
    {
      name: 'selfHeal, first attempt: at once',
      input: input(healing, { lastOperation: last(healing) }),
      want: 'sync',
    },
    {
      name: 'sync window refuses: skipped',
      input: input(plain, {
        syncWindowBlocked: 'blocked by sync window: AppProject "default" deny window active',
      }),
      want: 'Sync prevented by sync window: blocked by sync window: AppProject "default" deny window active',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = decideAutoSync(c.input);
      if (c.want === 'none' || c.want === 'sync') assert.equal(d.action, c.want, JSON.stringify(d));
      else {
        assert.equal(d.action, 'skip', JSON.stringify(d));
        assert.equal(d.action === 'skip' && d.reason, c.want);
      }
    });
  }

  it('a sync request: automated, the policy flags, the app sync options, the default retry (limit 5)', () => {
    const d = decideAutoSync(input(pruning));
    assert.equal(d.action, 'sync');
    if (d.action !== 'sync') return;
    assert.deepEqual(d.request.initiatedBy, { automated: true });
    assert.equal(d.request.prune, true);
    assert.equal(d.request.revision, SHA_A);
    assert.equal(d.request.selfHeal, undefined);
    assert.equal(d.request.resources, undefined);
    assert.deepEqual(d.request.retry, DEFAULT_AUTOMATED_RETRY);
    assert.equal(d.selfHealAttempts, 0);
  });

  it("the app's own retry replaces the default", () => {
    const app = automated('      prune: false\n    retry:\n      limit: 2\n');
    const d = decideAutoSync(input(app));
    assert.equal(d.action === 'sync' && d.request.retry?.limit, 2);
  });

  it('a self-heal syncs only the OutOfSync resources and counts the attempt', () => {
    const d = decideAutoSync(
      input(healing, {
        lastOperation: last(healing),
        selfHealAttempts: 0,
        comparison: comparison([row('a', { status: 'Synced' }), row('b')]),
      }),
    );
    assert.equal(d.action, 'sync');
    if (d.action !== 'sync') return;
    assert.equal(d.request.selfHeal, true);
    assert.deepEqual(d.request.resources, [{ group: '', kind: 'ConfigMap', name: 'b' }]);
    assert.equal(d.selfHealAttempts, 1);
  });

  it('a second self-heal at the same revision waits for the backoff, then goes', () => {
    // Finished 30 s before NOW; attempt 3 waits 2 s x 3^2 = 18 s: due. Attempt 4 waits 54 s: 24 s left.
    const due = decideAutoSync(input(healing, { lastOperation: last(healing), selfHealAttempts: 3 }));
    assert.equal(due.action, 'sync');
    const waiting = decideAutoSync(input(healing, { lastOperation: last(healing), selfHealAttempts: 4 }));
    assert.equal(waiting.action, 'skip');
    assert.equal(waiting.action === 'skip' && waiting.retryAfterMs, 24_000);
  });

  it('the flat self-heal timeout when the backoff is off', () => {
    const d = decideAutoSync(
      input(healing, { lastOperation: last(healing), selfHealBackoff: undefined, selfHealTimeoutMs: 45_000 }),
    );
    assert.equal(d.action === 'skip' && d.retryAfterMs, 15_000);
  });
});

describe('self-heal backoff (wait.Backoff steps)', () => {
  it('0, then 2 s x 3^(n-1), capped at 300 s', () => {
    const b = DEFAULT_SELF_HEAL_BACKOFF;
    const delays = [0, 1, 2, 3, 4, 5, 6, 7].map((n) => selfHealRemainingMs(n, undefined, 0, b));
    assert.deepEqual(delays, [0, 2_000, 6_000, 18_000, 54_000, 162_000, 300_000, 300_000]);
  });
  it('counts from the last operation end', () => {
    assert.equal(selfHealRemainingMs(2, 4_000, 0, DEFAULT_SELF_HEAL_BACKOFF), 2_000);
    assert.equal(selfHealRemainingMs(0, 4_000, 10_000, undefined), 6_000);
  });
});

describe("the last operation an Application's status records (after a restart)", () => {
  const withStatus = (status: unknown): Application => {
    const app = automated('      selfHeal: true\n');
    return { ...app, manifest: { ...app.manifest, status } as Application['manifest'] };
  };

  it('a failed sync at the compared revision is not retried by auto-sync', () => {
    const app = withStatus({
      operationState: {
        phase: 'Failed',
        message: 'one or more objects failed to apply (retried 2 times).',
        finishedAt: '2026-01-01T11:00:00Z',
        operation: { initiatedBy: { automated: true }, sync: { revision: SHA_A } },
        syncResult: { revision: SHA_A, source: { repoURL: 'https://example.com/repo.git' } },
      },
    });
    const seeded = lastOperationOf(app);
    assert.equal(seeded?.last.phase, 'Failed');
    assert.equal(seeded?.syncedRevision, undefined);
    const d = decideAutoSync(input(app, { lastOperation: seeded?.last }));
    assert.equal(
      d.action === 'skip' && d.reason,
      `Failed last sync attempt to [${SHA_A}]: one or more objects failed to apply (retried 2 times).`,
    );
  });

  it('a successful one gives the synced revision and the self-heal attempts', () => {
    const app = withStatus({
      operationState: {
        phase: 'Succeeded',
        finishedAt: '2026-01-01T11:00:00Z',
        operation: { initiatedBy: { automated: true }, sync: { selfHealAttemptsCount: 3 } },
        syncResult: { revision: SHA_A, source: {} },
      },
    });
    const seeded = lastOperationOf(app);
    assert.equal(seeded?.syncedRevision, SHA_A);
    assert.equal(seeded?.selfHealAttempts, 3);
  });

  it('no operation state, or one still running: nothing', () => {
    assert.equal(lastOperationOf(withStatus(undefined)), undefined);
    assert.equal(lastOperationOf(withStatus({ operationState: { phase: 'Running' } })), undefined);
  });
});

describe('the sync request of an operation', () => {
  const base = { prune: true, dryRun: false };
  it("a user's operation prunes everything it has to, as Argo CD's SyncAppState; auto-sync's says allowEmpty", () => {
    // A manual sync never refuses to empty an app (only autoSync checks "auto-sync will wipe out all
    // resources", before it asks for the operation).
    assert.equal(
      syncRequestOf({ ...base, initiatedBy: { automated: false, username: 'admin' } }).allowEmpty,
      true,
    );
    assert.equal(syncRequestOf({ ...base, initiatedBy: { automated: true } }).allowEmpty, false);
    assert.equal(
      syncRequestOf({ ...base, initiatedBy: { automated: true }, allowEmpty: true }).allowEmpty,
      true,
    );
  });
});

describe("auto-sync's request never forces", () => {
  it("leaves Force=true of spec.syncPolicy.syncOptions out, as Argo CD (force comes from a strategy, or the resource's annotation)", () => {
    const app = application('app', 'https://example.com/repo.git', 'path', {
      spec: '  syncPolicy:\n    automated: {}\n    syncOptions: [Force=true, Replace=true]\n',
    });
    const decision = decideAutoSync(input(app));
    assert.equal(decision.action, 'sync');
    assert.deepEqual(decision.action === 'sync' ? decision.request.syncOptions : undefined, {
      Replace: 'true',
    });
  });
});
