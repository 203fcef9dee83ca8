/**
 * `MetricsServer`: `--metrics-addr` parsing, `/healthz`, `/readyz` flipping with its `ready()` callback (and
 * its one-line reason), 404/405, HEAD, a port already taken, and a clean close: by `close()` with a
 * keep-alive connection open, and by the signal.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { UsageError } from '../../src/common/index.js';
import { Metrics, MetricsServer, parseMetricsAddr } from '../../src/metrics/index.js';
import { fakeLoop } from './fixtures.js';

const metrics = new Metrics({ loop: fakeLoop().loop, processMetrics: false });

/** One request on a fresh connection (or on `agent`). */
function get(
  url: string,
  method = 'GET',
  agent?: http.Agent,
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent: agent ?? false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('parseMetricsAddr', () => {
  it('reads host:port, :port (every interface) and [ipv6]:port', () => {
    assert.deepEqual(parseMetricsAddr(':8082'), { host: undefined, port: 8082 });
    assert.deepEqual(parseMetricsAddr('0.0.0.0:8082'), { host: '0.0.0.0', port: 8082 });
    assert.deepEqual(parseMetricsAddr('localhost:0'), { host: 'localhost', port: 0 });
    assert.deepEqual(parseMetricsAddr('[::1]:9090'), { host: '::1', port: 9090 });
  });

  it('refuses anything else with a usage error naming the flag', () => {
    for (const bad of ['8082', 'host', 'host:', 'host:99999', ':-1', '::1:80', 'a:b:c', '']) {
      assert.throws(
        () => parseMetricsAddr(bad),
        (err: unknown) =>
          err instanceof UsageError &&
          err.exitCode === 2 &&
          err.message ===
            `--metrics-addr: failed to parse "${bad}": expected host:port, :port or [ipv6]:port`,
        bad,
      );
    }
  });
});

describe('MetricsServer', () => {
  it('serves /healthz, and /readyz as ready() says, with its reason on one line', async () => {
    let verdict: true | string = 'live caches are syncing:\n2 of 3 clusters';
    const server = new MetricsServer({ addr: '127.0.0.1:0', metrics, ready: () => verdict });
    const { url, port } = await server.listen();
    assert.ok(port > 0);
    try {
      assert.deepEqual(
        [(await get(`${url}/healthz`)).status, (await get(`${url}/healthz`)).body],
        [200, 'ok\n'],
      );
      const notReady = await get(`${url}/readyz`);
      assert.deepEqual([notReady.status, notReady.body], [503, 'live caches are syncing: 2 of 3 clusters\n']);
      verdict = true;
      const ready = await get(`${url}/readyz`);
      assert.deepEqual([ready.status, ready.body], [200, 'ok\n']);
      verdict = 'shard lost';
      assert.equal((await get(`${url}/readyz`)).status, 503, 'readiness flips back');
    } finally {
      await server.close();
    }
  });

  it('a ready() that throws is not ready; unknown paths 404, other methods 405, HEAD has no body', async () => {
    const server = new MetricsServer({
      addr: '127.0.0.1:0',
      metrics,
      ready: async () => {
        throw new Error('shard claim: failed to read: forbidden');
      },
    });
    const { url } = await server.listen();
    try {
      const thrown = await get(`${url}/readyz`);
      assert.deepEqual([thrown.status, thrown.body], [503, 'shard claim: failed to read: forbidden\n']);
      assert.equal((await get(`${url}/nope`)).status, 404);
      const post = await get(`${url}/metrics`, 'POST');
      assert.deepEqual([post.status, post.headers['allow']], [405, 'GET, HEAD']);
      const head = await get(`${url}/metrics`, 'HEAD');
      assert.equal(head.status, 200);
      assert.equal(head.body, '');
      assert.match(String(head.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      assert.ok(Number(head.headers['content-length']) > 0);
    } finally {
      await server.close();
    }
  });

  it('a taken port is a usage error naming the address', async () => {
    const first = new MetricsServer({ addr: '127.0.0.1:0', metrics });
    const { port } = await first.listen();
    try {
      const second = new MetricsServer({ addr: `127.0.0.1:${port}`, metrics });
      await assert.rejects(
        second.listen(),
        (err: unknown) =>
          err instanceof UsageError &&
          err.message.startsWith(`--metrics-addr 127.0.0.1:${port}: failed to listen: `),
      );
    } finally {
      await first.close();
    }
  });

  it('close() ends keep-alive connections and frees the port; the signal closes it too; both idempotent', async () => {
    const server = new MetricsServer({ addr: '127.0.0.1:0', metrics });
    const { url, port } = await server.listen();
    const agent = new http.Agent({ keepAlive: true });
    assert.equal((await get(`${url}/metrics`, 'GET', agent)).status, 200);
    await server.close();
    await server.close();
    await assert.rejects(get(`${url}/healthz`), /ECONNREFUSED/);
    agent.destroy();

    const abort = new AbortController();
    const again = new MetricsServer({ addr: `127.0.0.1:${port}`, metrics, signal: abort.signal });
    const bound = await again.listen();
    assert.equal(bound.port, port, 'the port was freed by close()');
    assert.equal((await get(`${bound.url}/healthz`)).status, 200);
    abort.abort();
    await again.close(); // resolves once the abort's close is done
    await assert.rejects(get(`${bound.url}/healthz`), /ECONNREFUSED/);
  });
});
