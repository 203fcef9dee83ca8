/**
 * Resources listed as Argo CD's CompareAppState lists them (embedded API server, real Git): live hooks,
 * `hook: Skip` targets and objects whose tracking id was copied from another object are listed with no sync
 * status, never make the app OutOfSync, are not handed to sync as pairs (never applied or pruned); health
 * counts as controller/health.go counts it (copied-id objects yes, hooks and Skip targets no).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { parseArgoCdSettings } from '../../../src/apps/index.js';
import type { ClusterConnection, KubeObject } from '../../../src/cluster/index.js';
import { HOOK_PRUNING_NOTE } from '../../../src/controller/index.js';
import type { Reconciliation } from '../../../src/controller/index.js';
import { diffDocument, renderDiffText } from '../../../src/output/diff.js';
import type { OperationReport } from '../../../src/sync/index.js';
import { useEmbeddedCluster } from '../../support/embedded.js';
import { TestRepo } from '../../support/git.js';
import { configMap } from '../manifests.js';
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

const TRACKING = 'argocd.argoproj.io/tracking-id';
const HOOK = 'argocd.argoproj.io/hook';

function withAnnotations(yaml: string, annotations: Record<string, string>): KubeObject {
  const obj = parse(yaml) as KubeObject;
  obj.metadata = { ...obj.metadata, annotations: { ...obj.metadata?.annotations, ...annotations } };
  return obj;
}

describe('controller: listed resources with no status (hooks, Skip, copied tracking ids)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;
  const app = () => application('list', repo.url, 'list', { namespace: 'list' });

  before(async () => {
    repo.commit({
      'list/kept.yaml': configMap('kept', { a: '1' }),
      'list/skipped.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: skipped\n  annotations:\n    argocd.argoproj.io/hook: Skip\ndata:\n  a: "git"\n',
      'list/presync.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: presync\n  annotations:\n    argocd.argoproj.io/hook: PreSync\ndata:\n  a: "1"\n',
    });
    conn = await connectAs(fx);
    await createNamespaces(conn, ['list']);
    const rendered = await renderObjects(app(), cacheRoot);
    const kept = rendered.find((o) => o.metadata?.name === 'kept')!;
    const skipped = rendered.find((o) => o.metadata?.name === 'skipped')!;
    await applyObjects(
      conn,
      [
        kept,
        // The Skip target's live object differs from Git and carries the app's tracking id.
        { ...skipped, data: { a: 'live' } },
        // A live hook left by an earlier sync (no delete policy).
        withAnnotations(configMap('old-hook', { a: '1' }), {
          [HOOK]: 'PostSync',
          [TRACKING]: 'list:/ConfigMap:list/old-hook',
        }),
        // An object whose tracking id was copied from "kept" by another controller.
        withAnnotations(configMap('copied', { a: '1' }), {
          [TRACKING]: kept.metadata!.annotations![TRACKING]!,
        }),
        // A real extra: its own tracking id.
        withAnnotations(configMap('orphan', { a: '1' }), { [TRACKING]: 'list:/ConfigMap:list/orphan' }),
      ],
      'list',
    );
  });

  after(() => {
    conn?.close();
    repo.remove();
  });

  it('lists them with status "" (live hooks flagged), never pruned; only the real extra is OutOfSync', async () => {
    const report = await refresh(fx, [app()], cacheRoot);
    const cmp = reportOf(report, 'list').comparison;
    assert.ok(cmp, reportOf(report, 'list').error?.message);
    // requiresPruning as controller/state.go computes it: no target, live, self-referenced. The live hook
    // gets it (Argo CD's verdict, with a note: no sync prunes a hook); the copied-id object is not
    // self-referenced, the Skip target has a target.
    assert.deepEqual(
      cmp.resources.map((r) => [r.name, r.status, r.difference, r.requiresPruning, r.hook ?? false]),
      [
        ['copied', '', 'none', false, false],
        ['kept', 'Synced', 'none', false, false],
        ['old-hook', '', 'none', true, true],
        ['orphan', 'OutOfSync', 'extra', true, false],
        ['skipped', '', 'none', false, false],
      ],
    );
    assert.deepEqual(
      cmp.resources.filter((r) => r.note).map((r) => [r.name, r.note]),
      [['old-hook', HOOK_PRUNING_NOTE]],
    );
    assert.match(HOOK_PRUNING_NOTE, /argo-cd#16895/);
    const json = diffDocument(report).apps[0]!['resources'] as Array<Record<string, unknown>>;
    assert.deepEqual(
      json.filter((r) => r['note']).map((r) => [r['name'], r['requiresPruning'], r['hook'], r['note']]),
      [['old-hook', true, true, HOOK_PRUNING_NOTE]],
    );
    assert.match(
      renderDiffText(report),
      /^note: {8}ConfigMap list\/old-hook \(hook\): requiresPruning as Argo CD reports a live hook.*\(argo-cd#16895\)$/m,
    );
    assert.equal(cmp.sync, 'OutOfSync');
    assert.ok(!cmp.resources.some((r) => r.name === 'presync'), 'rendered hooks are not listed');
  });

  it('the app is Synced when only listed-only rows remain besides synced resources', async () => {
    const info = await conn.discovery.resolve({ group: '', kind: 'ConfigMap' });
    await conn.client.delete(info, 'list', 'orphan');
    const cmp = reportOf(await refresh(fx, [app()], cacheRoot), 'list').comparison!;
    assert.equal(cmp.sync, 'Synced');
    assert.equal(cmp.resources.length, 4);
  });

  it('health: a copied-id object counts, a live hook and a Skip target do not (user Lua check)', async () => {
    const settings = parseArgoCdSettings(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'argocd-cm' },
        data: {
          'resource.customizations.health.ConfigMap':
            'if obj.metadata.name == "kept" then return {status="Healthy"} end\nreturn {status="Degraded", message=obj.metadata.name}',
        },
      },
      'test',
    );
    const cmp = reportOf(await refresh(fx, [app()], cacheRoot, { settings }), 'list').comparison!;
    assert.deepEqual(
      cmp.resources.map((r) => [r.name, r.health?.status ?? null]),
      [
        ['copied', 'Degraded'],
        ['kept', 'Healthy'],
        ['old-hook', null],
        ['skipped', null],
      ],
    );
    assert.deepEqual(cmp.health, { status: 'Degraded', message: 'Caused by ConfigMap:list/copied' });
  });

  it('sync gets only the status-bearing pairs: listed-only rows are never applied or pruned', async () => {
    let seen: Reconciliation | undefined;
    await refresh(fx, [app()], cacheRoot, {
      operation: async (_app, reconciliation): Promise<OperationReport> => {
        seen = reconciliation;
        return {
          phase: 'Succeeded',
          message: 'recorded',
          dryRun: true,
          resources: [],
          retries: 0,
        } as unknown as OperationReport;
      },
    });
    assert.ok(seen);
    assert.deepEqual(
      seen.pairs.map((p) => (p.target ?? p.live)?.metadata?.name),
      ['kept'],
    );
    assert.deepEqual([...seen.liveHooks.keys()], ['/ConfigMap/list/old-hook']);
  });
});
