/**
 * Credentials on every request (src/cluster/credentials.ts): a kubeconfig user's static token and basic
 * auth are read once per kubeconfig and context, and still reach the server on every request, beside the
 * request's own headers. A server that records what it was sent stands in for the API server.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, forContext, loadKubeConfig } from '../../src/cluster/index.js';
import { configMaps } from './fake-api.js';

describe('credentials on every request', () => {
  let server: Server;
  let url = '';
  let dir = '';
  const seen: IncomingHttpHeaders[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kg-credentials-'));
    server = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const kubeconfig = (name: string, user: string): string => {
    const file = join(dir, name);
    writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: c',
        '  cluster:',
        `    server: ${url}`,
        '    insecure-skip-tls-verify: true',
        'contexts:',
        '- name: ctx',
        '  context: {cluster: c, user: u}',
        'current-context: ctx',
        'users:',
        '- name: u',
        `  user: ${user}`,
        '',
      ].join('\n'),
    );
    return file;
  };

  it("a static token is sent on each request, beside the request's own headers", async () => {
    seen.length = 0;
    const client = new KubeClient(await loadKubeConfig({ kubeconfig: kubeconfig('token', '{token: t0k}') }));
    try {
      await client.get(configMaps, 'default', 'a');
      await client.get(configMaps, 'default', 'a');
      await client.create(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } });
    } finally {
      client.close();
    }
    assert.deepEqual(
      seen.map((h) => [h['authorization'], h['accept'], h['content-type']]),
      [
        ['Bearer t0k', 'application/json', undefined],
        ['Bearer t0k', 'application/json', undefined],
        ['Bearer t0k', 'application/json', 'application/json'],
      ],
    );
  });

  it('basic auth is sent on each request; two kubeconfigs keep their own credentials', async () => {
    seen.length = 0;
    const basic = new KubeClient(
      await loadKubeConfig({ kubeconfig: kubeconfig('basic', '{username: ann, password: pw}') }),
    );
    const token = new KubeClient(await loadKubeConfig({ kubeconfig: kubeconfig('other', '{token: other}') }));
    try {
      await basic.get(configMaps, 'default', 'a');
      await token.get(configMaps, 'default', 'a');
      await basic.get(configMaps, 'default', 'a');
    } finally {
      basic.close();
      token.close();
    }
    const ann = `Basic ${Buffer.from('ann:pw').toString('base64')}`;
    assert.deepEqual(
      seen.map((h) => h['authorization']),
      [ann, 'Bearer other', ann],
    );
  });

  it('a token file is read again when it changes (a rotated token); a token wins over it', async () => {
    seen.length = 0;
    mkdirSync(join(dir, 'sa'), { recursive: true });
    const tokenPath = join(dir, 'sa', 'token');
    writeFileSync(tokenPath, 'first\n');
    const kc = await loadKubeConfig({ kubeconfig: kubeconfig('token-file', `{token-file: ${tokenPath}}`) });
    const client = new KubeClient(kc);
    // Another context of the same kubeconfig (a second destination cluster) reads the same file.
    const other = new KubeClient(await forContext(kc, 'ctx'));
    try {
      await client.get(configMaps, 'default', 'a');
      await client.get(configMaps, 'default', 'a');
      // Rotated as the kubelet rotates a projected token: a new file moved into place.
      writeFileSync(`${tokenPath}.new`, 'second');
      renameSync(`${tokenPath}.new`, tokenPath);
      await client.get(configMaps, 'default', 'a');
      await other.get(configMaps, 'default', 'a');
    } finally {
      client.close();
      other.close();
    }
    assert.deepEqual(
      seen.map((h) => h['authorization']),
      ['Bearer first', 'Bearer first', 'Bearer second', 'Bearer second'],
    );

    seen.length = 0;
    const both = new KubeClient(
      await loadKubeConfig({
        kubeconfig: kubeconfig('token-and-file', `{token: wins, token-file: ${tokenPath}}`),
      }),
    );
    try {
      await both.get(configMaps, 'default', 'a');
    } finally {
      both.close();
    }
    assert.deepEqual(
      seen.map((h) => h['authorization']),
      ['Bearer wins'],
    );
  });
});
