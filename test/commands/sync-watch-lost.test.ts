/**
 * A sync whose watches cannot open never hangs (issue 14's "never hang", for sync). A proxy in front of the
 * embedded API server forwards everything except ConfigMap watches, which it accepts and never answers:
 * the ConfigMap is written, the live cache cannot see it, its watch fails to open again and again, and the
 * sync ends with exit 2 naming the resource and the lost watch, its operation still reported. `npm test`
 * builds first; run `npm run build` before running this file alone.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterConnection } from '../../src/cluster/index.js';
import { kubeconfigYaml } from '../../src/embedded/index.js';
import { runCli } from '../support/cli.js';
import { useEmbeddedCluster } from '../support/embedded.js';
import { appYaml, cm, TestRepo, tempDir } from '../support/git.js';
import { connectAs, createNamespaces } from '../controller/setup.js';

describe('sync when the watch of a written kind cannot open (CLI)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const dir = tempDir('kg-watch-lost-');
  let conn: ClusterConnection;
  let proxy: http.Server;
  let kubeconfig = '';
  let appsFile = '';

  before(async () => {
    repo.commit({ 'web/cm.yaml': cm('web') });
    appsFile = join(dir, 'apps.yaml');
    writeFileSync(appsFile, appYaml('web', repo.url, 'web', { namespace: 'web' }));
    conn = await connectAs(fx);
    await createNamespaces(conn, ['web']);
    const upstream = new URL(fx.cluster.url);
    proxy = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://proxy');
      if (url.searchParams.get('watch') === 'true' && url.pathname.endsWith('/configmaps')) return; // silence
      const out = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.flushHeaders(); // a watch's headers come at once, as from kube-apiserver
          answer.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      req.pipe(out);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      kubeconfigYaml(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, 'proxied'),
    );
  });

  after(async () => {
    conn?.close();
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    repo.remove();
  });

  it('exit 2 once the watch is lost: the write is kept and reported, the error names resource and watch', async () => {
    const r = await runCli(
      ['sync', '-f', appsFile, '--kubeconfig', kubeconfig, '--request-timeout', '500ms'],
      {
        env: { XDG_CACHE_HOME: join(dir, 'cache') },
      },
    );
    assert.equal(r.code, 2, r.stderr);
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    assert.equal(errors.length, 1, r.stderr);
    assert.match(
      errors[0]!,
      /^error: app "web": operation Succeeded, but its final state cannot be read: \/ConfigMap\/web\/web: written, but the live cache cannot show it: \/ConfigMap@web: watch failed \d+ times in a row over \d+s \(last: watch failed: \/ConfigMap in web: failed to watch: no answer from http:\/\/127\.0\.0\.1:\d+ \(context proxied\) within 0\.5s \(--request-timeout\)\)$/,
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
