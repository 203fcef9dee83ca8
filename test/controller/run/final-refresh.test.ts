/**
 * Issue 34: an app's final report is a refresh done after its operation ended, also when the run is
 * stopped (Ctrl-C, --timeout) between the end of its operation and that refresh: the run refreshes it
 * then (against the render it synced, from the live cache, Git no longer asked), never reporting the
 * comparison from before the operation (its Missing resources were created since).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSourceService } from '../../../src/source/index.js';
import { runOperation } from '../../../src/sync/index.js';
import { Run } from '../../../src/controller/index.js';
import { useEmbeddedCluster } from '../../support/embedded.js';
import { cm, TestRepo } from '../../support/git.js';
import { application, newCacheRoot, syncRequest } from '../setup.js';
import { join } from 'node:path';

describe('the refresh after an operation, when the run stops', () => {
  const fx = useEmbeddedCluster();

  it('a stop right after the operation ended still reports the state after it, not the one before', async () => {
    const repo = new TestRepo();
    repo.commit({ 'web/a.yaml': cm('a'), 'web/b.yaml': cm('b') });
    const app = application('web', repo.url, 'web', {
      namespace: 'web',
      spec: '  syncPolicy:\n    syncOptions: [CreateNamespace=true]\n',
    });
    const stop = new AbortController();
    const source = createSourceService({ cacheRoot: newCacheRoot(), signal: stop.signal });
    const events: string[] = [];
    try {
      const report = await new Run({
        apps: [app],
        source,
        kubeconfig: fx.kubeconfig,
        discovery: { cacheDir: join(fx.dir, 'discovery'), ttlMs: 0 },
        client: { retry: { baseDelayMs: 5, maxDelayMs: 20 } },
        signal: stop.signal,
        onEvent: (e) => {
          if (e.type === 'app-done')
            events.push(`${e.app} ${e.sync ?? ''} ${e.health ?? ''} ${e.error ?? ''}`);
        },
        // The run is stopped the moment the operation ends (a --timeout landing there).
        operation: async (a, rec, signal) => {
          const op = await runOperation(
            { name: a.name, syncOptions: a.syncPolicy.options },
            rec,
            syncRequest(),
            signal,
          );
          stop.abort(new Error('timeout 1s passed'));
          return op;
        },
      }).run();
      const r = report.apps[0]!;
      assert.equal(r.operation?.phase, 'Succeeded', r.operation?.message);
      assert.equal(r.error, undefined, r.error?.message);
      // Before the operation: OutOfSync, every ConfigMap missing. After it: what it created, Synced.
      assert.equal(r.comparison?.sync, 'Synced');
      assert.deepEqual(
        r.comparison?.resources.map((x) => `${x.kind}/${x.name} ${x.status}`),
        ['ConfigMap/a Synced', 'ConfigMap/b Synced'],
      );
      assert.deepEqual(events, ['web Synced Healthy ']);
    } finally {
      await source.close();
    }
  });
});
