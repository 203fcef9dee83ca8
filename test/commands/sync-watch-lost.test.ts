/**
 * A sync whose watches cannot open never hangs (issue 14's "never hang", for sync). A proxy in front of the
 * embedded API server forwards everything except ConfigMap watches, which it accepts and never answers:
 * the ConfigMap is written, the live cache cannot see it, its watch fails to open again and again, and the
 * sync ends with exit 2 naming the resource and the lost watch, its operation still reported. `npm test`
 * builds first; run `npm run build` before running this file alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterConnection } from '../../src/cluster/index.js';
import { kubeconfigYaml } from '../../src/embedded/index.js';
import { runCli } from '../support/cli.js';
import { startProxy } from '../support/proxy.js';
import type { TestProxy } from '../support/proxy.js';
import { useEmbeddedCluster } from '../support/embedded.js';
import { appYaml, cm, TestRepo, tempDir } from '../support/git.js';
import { connectAs, createNamespaces } from '../controller/setup.js';

describe('sync when the watch of a written kind cannot open (CLI)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const dir = tempDir('kg-watch-lost-');
  let conn: ClusterConnection;
  let proxy: TestProxy;
  let kubeconfig = '';
  let appsFile = '';

  before(async () => {
    repo.commit({ 'web/cm.yaml': cm('web') });
    appsFile = join(dir, 'apps.yaml');
    writeFileSync(appsFile, appYaml('web', repo.url, 'web', { namespace: 'web' }));
    conn = await connectAs(fx);
    await createNamespaces(conn, ['web']);
    // ConfigMap watches are accepted and never answered.
    proxy = await startProxy(
      fx.cluster.url,
      (_req, _res, url) => url.searchParams.get('watch') === 'true' && url.pathname.endsWith('/configmaps'),
    );
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, kubeconfigYaml(proxy.url, 'proxied'));
  });

  after(async () => {
    conn?.close();
    await proxy?.close();
    repo.remove();
  });

  // Short, so the watch fails fast, yet long enough for the lists of every kind at once on a loaded machine
  // (half a second was not, on the real server nor at times on the embedded one).
  const requestTimeout = '2s';

  it('exit 2 once the watch is lost: the write is kept and reported, the error names resource and watch', async () => {
    const r = await runCli(
      ['sync', '-f', appsFile, '--kubeconfig', kubeconfig, '--request-timeout', requestTimeout],
      {
        env: { XDG_CACHE_HOME: join(dir, 'cache') },
      },
    );
    assert.equal(r.code, 2, r.stderr);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    assert.equal(errors.length, 1, r.stderr);
    assert.match(
      errors[0]!,
      new RegExp(
        '^error: app "web": operation Succeeded, but its final state cannot be read: /ConfigMap/web/web: ' +
          'written, but the live cache cannot show it: /ConfigMap@web: watch failed \\d+ times in a row over ' +
          '\\d+s \\(last: watch failed: /ConfigMap in web: failed to watch: no answer from ' +
          `http://127\\.0\\.0\\.1:\\d+ \\(context proxied\\) within ${requestTimeout} \\(--request-timeout\\)\\)$`,
      ),
    );
    // One warning when the failures start and one when the watch is lost, not one per attempt.
    const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning: /ConfigMap@web:'));
    assert.equal(warnings.length, 2, r.stderr);
    assert.match(warnings[1]!, /live state of this kind is not followed until it opens again$/);
    // The operation is still reported (stdout), and its write happened.
    assert.match(r.stdout, /^web: Succeeded: successfully synced/m);
    assert.match(r.stdout, /ConfigMap web\/web +configmap\/web created/);
    const live = await conn.client.get(
      { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, verbs: ['get'] },
      'web',
      'web',
    );
    assert.equal(live?.metadata?.name, 'web');
  });
});
