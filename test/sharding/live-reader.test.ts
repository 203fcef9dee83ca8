/**
 * The live `shards` reader (src/sharding/live-reader.ts) closes its connection when the caller is done:
 * its keep-alive socket to the API server must not stay open after the read.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readClusterSecrets } from '../../src/sharding/index.js';

describe('live shards reader', () => {
  let server: http.Server;
  let kubeconfig = '';
  let requests = 0;
  before(async () => {
    server = http.createServer((_req, res) => {
      requests++;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'SecretList', apiVersion: 'v1', metadata: {}, items: [] }));
    });
    // Keep-alive: the server would hold an idle connection open for as long as the client keeps it.
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    kubeconfig = join(mkdtempSync(join(tmpdir(), 'kg-reader-')), 'kubeconfig');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${url}\n    insecure-skip-tls-verify: true\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n`,
    );
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const openConnections = (): Promise<number> =>
    new Promise((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));

  it('closes its keep-alive connection once the cluster Secrets are read', async () => {
    const list = await readClusterSecrets({
      clustersFiles: [],
      live: { kubeconfig, namespace: 'argocd' },
    });
    assert.equal(requests, 1);
    assert.deepEqual(
      list.clusters.map((c) => c.name),
      ['in-cluster'],
    );
    // The client ended its socket; the server sees it go (a FIN takes a turn of the event loop or two).
    let open = await openConnections();
    for (let i = 0; i < 100 && open > 0; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      open = await openConnections();
    }
    assert.equal(open, 0, 'the reader left its connection open');
  });
});
