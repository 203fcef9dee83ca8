/**
 * The reconciliation and its report (`toReport`): a refresh keeps a Secret's real values for sync, and the
 * report made from it for printers and `-o json` holds none of them, anywhere.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterConnection, KubeObject } from '../../../src/cluster/index.js';
import { ClusterState, OWN_FIELD_MANAGERS, StateManager, toReport } from '../../../src/controller/index.js';
import type { Reconciliation } from '../../../src/controller/index.js';
import type { OperationReport } from '../../../src/sync/index.js';
import { createSourceService } from '../../../src/source/index.js';
import { useEmbeddedCluster } from '../../support/embedded.js';
import { TestRepo } from '../../support/git.js';
import {
  application,
  applyObjects,
  connectAs,
  createNamespaces,
  newCacheRoot,
  refresh,
  renderObjects,
  reportOf,
} from '../setup.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');
const GIT_PASSWORD = 'git-password-4711';
const GIT_TOKEN = 'git-token-only-in-git';
const LIVE_PASSWORD = 'live-password-0815';
const LIVE_EXTRA = 'live-only-key-value';
/** Every form a value of the test could take in a report: plain and base64. */
const SECRET_TEXTS = [GIT_PASSWORD, GIT_TOKEN, LIVE_PASSWORD, LIVE_EXTRA].flatMap((v) => [v, b64(v)]);

const secretYaml = `apiVersion: v1
kind: Secret
metadata:
  name: creds
type: Opaque
data:
  password: ${b64(GIT_PASSWORD)}
stringData:
  token: ${GIT_TOKEN}
`;

function leaked(value: unknown): string[] {
  const text = JSON.stringify(value);
  return SECRET_TEXTS.filter((s) => text.includes(s));
}

const dataOf = (obj: unknown): Record<string, unknown> | undefined =>
  (obj as { data?: Record<string, unknown> } | null | undefined)?.data;

describe('reconciliation and report', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;
  const app = () => application('vault', repo.url, 'vault', { namespace: 'vault' });

  before(async () => {
    repo.commit({ 'vault/secret.yaml': secretYaml });
    conn = await connectAs(fx);
    await createNamespaces(conn, ['vault']);
    // Live: the app's Secret with another password and a key Git does not have.
    const [rendered] = await renderObjects(app(), cacheRoot);
    const live: KubeObject = {
      ...rendered!,
      data: { password: b64(LIVE_PASSWORD), extra: b64(LIVE_EXTRA) },
    };
    delete (live as { stringData?: unknown }).stringData;
    await applyObjects(conn, [live], 'vault');
  });

  after(() => {
    conn?.close();
    repo.remove();
  });

  it('the reconciliation keeps the real values; toReport masks them all, once, after the comparison', async () => {
    const state = new ClusterState({
      conn: await connectAs(fx),
      namespaces: ['vault'],
      tracking: {},
      managers: new Set(OWN_FIELD_MANAGERS),
    });
    const source = createSourceService({ cacheRoot });
    const manager = new StateManager({ source, clusterOf: () => Promise.resolve(state) });
    let rec: Reconciliation;
    try {
      rec = await manager.reconcile(app());
    } finally {
      await source.close();
      await state.close();
    }
    const secret = rec.resources.find((r) => r.kind === 'Secret' && r.name === 'creds');
    assert.ok(secret);
    assert.deepEqual([secret.status, secret.difference, secret.outOfSync], ['OutOfSync', 'modified', true]);
    // Real values for sync: the target as it will be applied, the live object, the normalized pair.
    assert.equal(dataOf(secret.target)?.['password'], b64(GIT_PASSWORD));
    assert.equal(dataOf(secret.live)?.['password'], b64(LIVE_PASSWORD));
    assert.deepEqual(dataOf(secret.comparison?.normalizedTarget), {
      password: b64(GIT_PASSWORD),
      token: b64(GIT_TOKEN),
      extra: b64(LIVE_EXTRA),
    });
    assert.deepEqual(dataOf(secret.comparison?.normalizedLive), {
      password: b64(LIVE_PASSWORD),
      extra: b64(LIVE_EXTRA),
    });
    assert.ok(rec.pairs.includes(secret), 'sync is handed the same resource');

    const report = toReport(rec);
    assert.deepEqual(leaked(report), []);
    const row = report.resources.find((r) => r.kind === 'Secret')!;
    assert.deepEqual([row.status, row.difference], ['OutOfSync', 'modified']);
    assert.ok(row.changes.length > 0);
    // The diff still shows which keys changed (each distinct value its own run of "+").
    assert.match(row.diffText ?? '', /^-\s+password: \+{12}$/m);
    assert.match(row.diffText ?? '', /^\+\s+password: \+{8}$/m);
    assert.match(row.diffText ?? '', /^\+\s+token: \+{8}$/m);
    assert.equal(report.sync, 'OutOfSync');
    // Masking worked on copies: the reconciliation still holds the real values.
    assert.equal(dataOf(secret.comparison?.normalizedLive)?.['password'], b64(LIVE_PASSWORD));
    assert.equal(dataOf(secret.comparison?.normalizedTarget)?.['password'], b64(GIT_PASSWORD));
    assert.equal(dataOf(secret.target)?.['password'], b64(GIT_PASSWORD));
  });

  it('a sync run hands the operation the real values and reports them to nobody', async () => {
    let seen: Reconciliation | undefined;
    const report = await refresh(fx, [app()], cacheRoot, {
      operation: async (_app, reconciliation): Promise<OperationReport> => {
        seen = reconciliation;
        return {
          phase: 'Succeeded',
          message: 'recorded',
          dryRun: true,
          resources: [],
          plan: [],
          retries: 0,
          revision: reconciliation.revision,
          startedAt: new Date(0).toISOString(),
          finishedAt: new Date(0).toISOString(),
        };
      },
    });
    const r = reportOf(report, 'vault');
    assert.equal(r.error, undefined);
    assert.equal(r.comparison?.sync, 'OutOfSync');
    assert.deepEqual(leaked(report), []);
    const target = seen?.pairs.find((p) => p.target?.kind === 'Secret')?.target;
    assert.equal(dataOf(target)?.['password'], b64(GIT_PASSWORD));
  });
});
