/**
 * The resource tree in the continuous loop (src/controller/refresh/tree.ts, loop/live.ts, loop/process.ts
 * `treeRefresh`) on the embedded API server with its workload simulation (Deployment -> ReplicaSet ->
 * Pods, owner references set as the real controllers set them) and a real Git repository:
 * - `status.summary.images` are the live Pods' images, not the Deployment's template (Argo CD's GetSummary
 *   over the tree): a Pod whose image was changed in place shows its own image;
 * - a change of a Pod (a descendant of a managed Deployment by ownerReferences) asks a level-0 refresh that
 *   renders and compares nothing, and updates the summary;
 * - a level-0 request coalesced with a level-1 one is a level-1 refresh (it renders and compares).
 * Every wait follows an event the step under test must produce.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LoopEvent } from '../../../src/controller/index.js';
import { api, useEmbeddedCluster } from '../../support/embedded.js';
import { TestRepo } from '../../support/git.js';
import { application, newCacheRoot } from '../setup.js';
import { opDone, startLoop } from '../loop-setup.js';
import { countingSource, deploymentYaml } from '../tree-setup.js';

const T = { timeout: 60_000 };

describe('the resource tree in the continuous loop', () => {
  const fx = useEmbeddedCluster({ simulateWorkloads: { delayMs: 5 } });
  const repo = new TestRepo();
  const cacheRoot = newCacheRoot();
  after(() => repo.remove());

  it(
    "summary images are the live Pods'; a Pod change is a level-0 refresh that renders nothing",
    T,
    async () => {
      repo.commit({ 'web/deploy.yaml': deploymentYaml('web', 'nginx:1.25') });
      const { source, renders } = countingSource(cacheRoot);
      const run = startLoop(fx, [application('web', repo.url, 'web', { namespace: 'web' })], cacheRoot, {
        source,
        appResyncMs: 0,
      });
      const KEY = 'argocd/web';
      const images = (): string => (run.loop.state(KEY)?.rendered?.summary.images ?? []).join(',');
      const treeRefreshed =
        (want: string) =>
        (e: LoopEvent): boolean =>
          e.type === 'refreshed' && e.app === 'web' && e.level === 0 && images() === want;
      try {
        await run.until(opDone('web'));
        // The simulation creates the ReplicaSet and its Pod after the sync: their events refresh the tree
        // (level 0, or level 1 when the Deployment's status changed in the same batch). Once the
        // Deployment is Healthy its status stops changing: only the Pod's change follows.
        await run.until(
          (e) =>
            e.type === 'refreshed' && e.app === 'web' && e.health === 'Healthy' && images() === 'nginx:1.25',
        );

        // The Pod's image changed in place (a mutable field of a Pod): the template still says 1.25.
        const pods = (await api(fx.cluster, 'GET', '/api/v1/namespaces/web/pods')).body.items;
        assert.equal(pods.length, 1);
        const from = run.events.length;
        const rendered = renders();
        const res = await api(
          fx.cluster,
          'PATCH',
          `/api/v1/namespaces/web/pods/${pods[0].metadata.name}`,
          { spec: { containers: [{ name: 'main', image: 'nginx:1.26' }] } },
          'application/strategic-merge-patch+json',
        );
        assert.equal(res.status, 200, JSON.stringify(res.body));
        await run.until(treeRefreshed('nginx:1.26'), from);
        assert.equal(renders(), rendered, 'a level-0 refresh renders nothing');
        assert.ok(
          !run.events.slice(from).some((e) => e.type === 'compare-done' || e.type === 'render-start'),
          'nor compares',
        );
        assert.equal(run.loop.state(KEY)?.comparison?.sync, 'Synced', 'the Deployment itself did not change');

        // A level-0 request alone: no render. Coalesced with a level-1 one: level 1, one render.
        let mark = run.events.length;
        run.loop.requestRefresh(KEY, 0, 'requested');
        const alone = await run.until((e) => e.type === 'refreshed' && e.app === 'web', mark);
        assert.equal(alone.type === 'refreshed' && alone.level, 0);
        assert.equal(renders(), rendered);
        mark = run.events.length;
        run.loop.requestRefresh(KEY, 0, 'requested');
        run.loop.requestRefresh(KEY, 1, 'requested');
        run.loop.requestRefresh(KEY, 0, 'requested');
        const both = await run.until((e) => e.type === 'refreshed' && e.app === 'web', mark);
        assert.equal(both.type === 'refreshed' && both.level, 1);
        assert.equal(renders(), rendered + 1);
        assert.equal(images(), 'nginx:1.26', 'a full refresh reads the same tree');
      } finally {
        await run.stop();
      }
    },
  );
});
