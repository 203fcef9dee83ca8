/**
 * argocd-cm `installationID` (argo-cd util/argo/resource_tracking.go): targets carry the id beside the
 * tracking-id, and with the annotation methods only live objects carrying the same id belong to the app.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { parseArgoCdSettings } from '../../../src/apps/index.js';
import type { ClusterConnection, KubeObject } from '../../../src/cluster/index.js';
import type { Reconciliation } from '../../../src/controller/index.js';
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
const INSTALLATION = 'argocd.argoproj.io/installation-id';

const tracked = (name: string, installation: string): KubeObject => {
  const obj = parse(configMap(name, { a: '1' })) as KubeObject;
  obj.metadata = {
    ...obj.metadata,
    annotations: { [TRACKING]: `inst:/ConfigMap:inst/${name}`, [INSTALLATION]: installation },
  };
  return obj;
};

describe('controller: argocd-cm installationID', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  let conn: ClusterConnection;
  const app = () => application('inst', repo.url, 'inst', { namespace: 'inst' });
  const settings = parseArgoCdSettings(
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'argocd-cm' }, data: { installationID: 'one' } },
    'test',
  );

  before(async () => {
    repo.commit({ 'inst/a.yaml': configMap('a', { a: '1' }) });
    conn = await connectAs(fx);
    await createNamespaces(conn, ['inst']);
    const [a] = await renderObjects(app(), cacheRoot);
    a!.metadata!.annotations = { ...a!.metadata!.annotations, [INSTALLATION]: 'one' };
    await applyObjects(conn, [a!, tracked('old', 'one'), tracked('foreign', 'two')], 'inst');
  });

  after(() => {
    conn?.close();
    repo.remove();
  });

  it("only objects carrying this installation id are the app's; targets carry it", async () => {
    let seen: Reconciliation | undefined;
    const report = await refresh(fx, [app()], cacheRoot, {
      settings,
      operation: async (_app, reconciliation): Promise<OperationReport> => {
        seen = reconciliation;
        return {
          phase: 'Succeeded',
          message: '',
          dryRun: true,
          resources: [],
          retries: 0,
        } as unknown as OperationReport;
      },
    });
    const cmp = reportOf(report, 'inst').comparison;
    assert.ok(cmp, reportOf(report, 'inst').error?.message);
    assert.deepEqual(
      cmp.resources.map((r) => [r.name, r.status, r.difference, r.requiresPruning]),
      [
        ['a', 'Synced', 'none', false],
        ['old', 'OutOfSync', 'extra', true],
      ],
    );
    const target = seen?.pairs.find((p) => p.target?.metadata?.name === 'a')?.target;
    assert.equal(target?.metadata?.annotations?.[INSTALLATION], 'one');
  });

  it('without installationID every tracked object counts, whatever id it carries', async () => {
    const cmp = reportOf(await refresh(fx, [app()], cacheRoot), 'inst').comparison!;
    assert.deepEqual(
      cmp.resources.filter((r) => r.difference === 'extra').map((r) => r.name),
      ['foreign', 'old'],
    );
  });
});
