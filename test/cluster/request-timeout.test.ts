import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiError, KubeClient } from '../../src/cluster/index.js';
import { runCli } from '../support/cli.js';

// A server that accepts connections and never answers: without a request timeout every call hangs.
describe('request timeout', () => {
  let server: net.Server;
  const sockets: net.Socket[] = [];
  let url = '';
  before(async () => {
    server = net.createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function client(server = url): KubeClient {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'silent', server, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'silent-ctx', cluster: 'silent', user: 'u' }],
      currentContext: 'silent-ctx',
    });
    return new KubeClient(kc, { requestTimeoutMs: 200, retry: { maxRetries: 0 } });
  }

  /** The first line of the request-timeout error a GET of `path` ends with (it must be one). */
  const timeoutOf = async (c: KubeClient, path: string, subject: string): Promise<string> => {
    const err = await c.request({ method: 'GET', path, verb: 'get', subject }).then(
      () => assert.fail('expected a timeout'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ApiError);
    assert.equal(err.reason, 'Timeout');
    return String(err.message).split('\n')[0]!;
  };

  it('fails a read that gets no answer, naming the server and the context, and does not retry it', async () => {
    const c = client();
    try {
      assert.equal(
        await timeoutOf(c, '/version', 'version'),
        `version: failed to get: no answer from ${url} (context silent-ctx) within 0.2s (--request-timeout)`,
      );
      assert.equal(c.counts().total, 1);
    } finally {
      c.close();
    }
  });

  it('fails a read whose headers arrive but whose body stalls', async () => {
    const stalling = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"kind":"APIVersions",'); // and nothing more
    });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    const stallingUrl = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}`;
    const c = client(stallingUrl);
    try {
      assert.equal(
        await timeoutOf(c, '/api', 'api'),
        `api: failed to get: no answer from ${stallingUrl} (context silent-ctx) within 0.2s (--request-timeout)`,
      );
    } finally {
      c.close();
      stalling.closeAllConnections();
      await new Promise<void>((resolve) => stalling.close(() => resolve()));
    }
  });

  /** A server whose every answer is `status` headers and the start of a body, then nothing. */
  async function stallingServer(status: number): Promise<{ url: string; close(): Promise<void> }> {
    const stalling = http.createServer((_req, res) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.write('{"kind":"Status",'); // and nothing more
    });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(stalling.address() as AddressInfo).port}`,
      close: async () => {
        stalling.closeAllConnections();
        await new Promise<void>((resolve) => stalling.close(() => resolve()));
      },
    };
  }

  const PODS = {
    group: '',
    version: 'v1',
    kind: 'Pod',
    plural: 'pods',
    namespaced: true,
    verbs: ['list', 'watch'],
  };

  it('fails a read whose error status arrives but whose Status body stalls, with the same timeout words', async () => {
    const stalling = await stallingServer(503);
    const c = client(stalling.url);
    try {
      assert.equal(
        await timeoutOf(c, '/api', 'api'),
        `api: failed to get: no answer from ${stalling.url} (context silent-ctx) within 0.2s (--request-timeout)`,
      );
    } finally {
      c.close();
      await stalling.close();
    }
  });

  it('a watch that gets no answer, or a refusal whose body stalls, ends with the request timeout', async () => {
    const stalling = await stallingServer(403);
    for (const server of [url, stalling.url]) {
      const c = client(server);
      try {
        const err = await c.watch(PODS, { namespace: 'default' }).then(
          () => assert.fail('expected a timeout'),
          (e: unknown) => e,
        );
        assert.ok(err instanceof ApiError, String(err));
        assert.equal(err.reason, 'Timeout');
        assert.equal(
          String(err.message).split('\n')[0],
          `/Pod in default: failed to watch: no answer from ${server} (context silent-ctx) within 0.2s (--request-timeout)`,
        );
      } finally {
        c.close();
      }
    }
    await stalling.close();
  });

  describe('--request-timeout on the commands that read a cluster', () => {
    let kubeconfig = '';
    before(() => {
      const dir = mkdtempSync(join(tmpdir(), 'gitops-timeout-'));
      kubeconfig = join(dir, 'kubeconfig');
      writeFileSync(
        kubeconfig,
        [
          'apiVersion: v1',
          'kind: Config',
          'clusters:',
          `- name: silent\n  cluster:\n    server: ${url}`,
          'users:',
          '- name: u\n  user: {}',
          'contexts:',
          '- name: silent-ctx\n  context:\n    cluster: silent\n    user: u',
          'current-context: silent-ctx',
          '',
        ].join('\n'),
      );
    });
    const cases: Array<{ args: string[]; line: RegExp }> = [
      {
        args: ['diff', '--from-cluster'],
        line: /^error: namespace argocd: failed to list Applications: .*no answer from (\S+) \(context silent-ctx\) within 0\.3s \(--request-timeout\)$/,
      },
      {
        args: ['sync', '--from-cluster'],
        line: /^error: namespace argocd: failed to list Applications: .*no answer from (\S+) \(context silent-ctx\) within 0\.3s \(--request-timeout\)$/,
      },
      {
        args: ['render', '--from-cluster'],
        line: /^error: namespace argocd: failed to list Applications: .*no answer from (\S+) \(context silent-ctx\) within 0\.3s \(--request-timeout\)$/,
      },
      {
        args: ['shards', '--replicas', '2'],
        line: /^error: context silent-ctx: failed to .*no answer from (\S+) \(context silent-ctx\) within 0\.3s \(--request-timeout\)$/,
      },
    ];
    for (const { args, line } of cases) {
      it(`${args.join(' ')}: a server that never answers is an error naming server and context (exit 2)`, async () => {
        const r = await runCli([...args, '--kubeconfig', kubeconfig, '--request-timeout', '300ms']);
        assert.equal(r.code, 2, r.stderr);
        const first = r.stderr.split('\n')[0]!;
        assert.match(first, line);
        assert.equal(line.exec(first)![1], url);
        assert.equal(r.stdout, '');
      });
    }

    it('a malformed --request-timeout is a usage error (exit 2), as kubectl words it', async () => {
      const r = await runCli([
        'diff',
        '--from-cluster',
        '--kubeconfig',
        kubeconfig,
        '--request-timeout',
        '5x',
      ]);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(
        r.stderr.split('\n')[0],
        'error: --request-timeout 5x: failed to parse: invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)',
      );
    });
  });
});
