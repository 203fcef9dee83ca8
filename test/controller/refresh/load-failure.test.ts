/**
 * A desired state that cannot be loaded (a source that does not render) or compared (an ignoreDifferences
 * rule that does not compile): compared as Argo CD's CompareAppState does with `failedToLoadObjs` (the
 * tracked live objects listed Unknown, health from them, a ComparisonError, sync Unknown), and a sync of
 * such an app refused with nothing written, prune included (conformance c017, c018, c034, c040, c046, c107).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterConnection } from '../../../src/cluster/index.js';
import { api, useEmbeddedCluster } from '../../support/embedded.js';
import { TestRepo } from '../../support/git.js';
import { configMap } from '../manifests.js';
import {
  application,
  applyObjects,
  connectAs,
  createNamespaces,
  newCacheRoot,
  refresh,
  reportOf,
  sync,
  syncRequest,
} from '../setup.js';

describe('controller: a desired state that cannot be loaded or compared', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;

  before(async () => {
    repo.commit({ 'lf/cm.yaml': configMap('settings', { a: '1' }) });
    conn = await connectAs(fx);
    await createNamespaces(conn, ['lf']);
    // The app's live object, tracked by it (as a sync at an earlier revision left it).
    await applyObjects(
      conn,
      [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: 'settings',
            annotations: { 'argocd.argoproj.io/tracking-id': 'lf:/ConfigMap:lf/settings' },
          },
          data: { a: '1' },
        },
      ],
      'lf',
    );
  });

  after(() => {
    conn?.close();
    repo.remove();
  });

  it('a source that does not render: compared with no targets, tracked resources Unknown, health from them', async () => {
    const app = application('lf', repo.url, 'no-such-path', { namespace: 'lf', revision: 'main' });
    const report = reportOf(await refresh(fx, [app], cacheRoot), 'lf');
    const c = report.comparison!;
    assert.equal(c.sync, 'Unknown');
    assert.equal(c.health.status, 'Healthy');
    assert.equal(c.revision, 'main', "the spec's targetRevision, as Argo CD writes it");
    assert.deepEqual(
      c.resources.map((r) => [r.kind, r.name, r.status, r.requiresPruning]),
      [['ConfigMap', 'settings', 'Unknown', true]],
    );
    assert.equal(c.conditions.length, 1);
    assert.equal(c.conditions[0]!.type, 'ComparisonError');
    assert.match(
      c.conditions[0]!.message,
      /^Failed to load target state: failed to generate manifest for source 1 of 1: .*no-such-path/,
    );
    // Still the app's error for a one-shot run (exit 2, the render's words).
    assert.equal(report.error?.exitCode, 2);
    assert.match(report.error!.message, /^app "lf": /);
  });

  it("an annotation that is not a string fails the source, as Argo CD's repo-server cannot stamp it (c156)", async () => {
    // YAML 1.1: `yes` is a boolean, which Argo CD's SetAppInstanceAnnotation cannot read as a string.
    repo.commit({
      'bad-annotation/pvc.yaml':
        'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\n  annotations:\n    pv.kubernetes.io/bind-completed: yes\n' +
        'spec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n',
    });
    const app = application('lf', repo.url, 'bad-annotation', { namespace: 'lf', revision: 'main' });
    const c = reportOf(await refresh(fx, [app], cacheRoot), 'lf').comparison!;
    assert.equal(c.sync, 'Unknown');
    assert.deepEqual(
      c.resources.map((r) => [r.kind, r.name, r.status]),
      [['ConfigMap', 'settings', 'Unknown']],
    );
    assert.match(
      c.conditions[0]!.message,
      /^Failed to load target state: failed to generate manifest for source 1 of 1: .*failed to set app instance tracking info on manifest: failed to get annotations from target object \/v1, Kind=PersistentVolumeClaim \/data: \.metadata\.annotations accessor error: contains non-string value in the map under key "pv\.kubernetes\.io\/bind-completed": true is of the type bool, expected string$/,
    );
  });

  it('a sync of it is refused before anything is written, prune included', async () => {
    const app = application('lf', repo.url, 'no-such-path', { namespace: 'lf' });
    const report = reportOf(await sync(fx, [app], cacheRoot, syncRequest({ prune: true })), 'lf');
    const op = report.operation!;
    assert.equal(op.phase, 'Error');
    assert.match(op.message, /^ComparisonError: Failed to load target state: /);
    assert.deepEqual(op.resources, []);
    assert.deepEqual(op.plan, []);
    assert.equal(report.error?.exitCode, 2);
    const live = await api(fx.cluster, 'GET', '/api/v1/namespaces/lf/configmaps/settings');
    assert.equal(live.status, 200, 'not pruned');
  });

  it('an ignoreDifferences rule that does not compile: resources Unknown, the normalizer error as a condition', async () => {
    const app = application('lf', repo.url, 'lf', {
      namespace: 'lf',
      spec: '  ignoreDifferences:\n    - kind: ConfigMap\n      jqPathExpressions: [".data.[["]\n',
    });
    const report = reportOf(await refresh(fx, [app], cacheRoot), 'lf');
    const c = report.comparison!;
    assert.equal(c.sync, 'Unknown');
    assert.equal(c.health.status, 'Healthy');
    assert.match(c.revision, /^[0-9a-f]{40}$/, 'rendered: the resolved revision');
    assert.deepEqual(
      c.resources.map((r) => [r.kind, r.status, r.requiresPruning]),
      [['ConfigMap', 'Unknown', false]],
    );
    assert.equal(c.conditions[0]!.type, 'ComparisonError');
    assert.match(
      c.conditions[0]!.message,
      /^Failed to compare desired state to live state: failed to create diff normalizer: jqPathExpression "\.data\.\[\[": failed to parse/,
    );
    assert.equal(report.error?.exitCode, 2);

    const synced = reportOf(await sync(fx, [app], cacheRoot, syncRequest()), 'lf');
    assert.equal(synced.operation!.phase, 'Error');
    assert.match(
      synced.operation!.message,
      /^ComparisonError: Failed to compare desired state to live state: /,
    );
  });
});
