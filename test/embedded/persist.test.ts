/**
 * `--data` persistence (state saved on close and loaded at start, CRDs first) and the
 * `embedded-cluster` command (kubeconfig written, serves until SIGTERM, saves state on exit).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import EmbeddedClusterCommand from '../../src/commands/embedded-cluster.js';
import { startEmbeddedCluster } from '../../src/embedded/index.js';
import { GitopsError } from '../../src/common/index.js';
import { APPLICATION_CRD } from '../support/argocd.js';
import { api } from '../support/embedded.js';
import { repoRoot } from '../support/paths.js';

const crd = APPLICATION_CRD;

describe('--data persistence', () => {
  it('saves state on close and restores it, CRD kinds included, with resourceVersions kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-data-'));
    const dataFile = join(dir, 'state.json');
    try {
      const first = await startEmbeddedCluster({ dataFile });
      await api(first, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      const app = await api(first, 'POST', '/apis/argoproj.io/v1alpha1/namespaces/default/applications', {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name: 'guestbook' },
        spec: { project: 'default', destination: { server: 'https://kubernetes.default.svc' } },
      });
      assert.equal(app.status, 201, JSON.stringify(app.body));
      const rv = (await api(first, 'GET', '/api/v1/namespaces')).body.metadata.resourceVersion;
      await first.close();
      assert.ok(existsSync(dataFile));

      const second = await startEmbeddedCluster({ dataFile });
      try {
        const again = await api(
          second,
          'GET',
          '/apis/argoproj.io/v1alpha1/namespaces/default/applications/guestbook',
        );
        assert.equal(again.status, 200);
        assert.equal(again.body.metadata.uid, app.body.metadata.uid);
        assert.equal(again.body.metadata.resourceVersion, app.body.metadata.resourceVersion);
        const list = await api(second, 'GET', '/api/v1/namespaces');
        assert.equal(list.body.metadata.resourceVersion, rv);
        const created = await api(second, 'POST', '/api/v1/namespaces', {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: 'later' },
        });
        assert.ok(Number(created.body.metadata.resourceVersion) > Number(rv));
        const res = await fetch(`${second.url}/api/v1/namespaces?watch=1&resourceVersion=1`);
        const text = await res.text();
        assert.match(text, /"code":410/, 'watches from before the restart must relist');
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a data file that is not a state document', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-data-'));
    try {
      const dataFile = join(dir, 'bad.json');
      writeFileSync(dataFile, '{"hello": 1}');
      await assert.rejects(startEmbeddedCluster({ dataFile }), (err: unknown) => {
        assert.ok(err instanceof GitopsError);
        assert.match(
          err.message,
          /bad\.json: failed to load state: not a kubectl-gitops\/embedded-cluster\/v1 document/,
        );
        return true;
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('embedded-cluster command', () => {
  it('writes a kubeconfig, serves until SIGTERM, and saves --data on exit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kg-cmd-'));
    const kubeconfig = join(dir, 'kc.yaml');
    const data = join(dir, 'state.json');
    const printed: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    const errWrite = process.stderr.write.bind(process.stderr);
    // Capture the command's own lines only: the test reporter writes to the same streams.
    const mine = /embedded cluster serving|kubeconfig written|stopped on/;
    const capture = (pass: typeof write) =>
      ((chunk: string | Uint8Array, ...rest: never[]) => {
        if (typeof chunk === 'string' && mine.test(chunk)) return (printed.push(chunk), true);
        return pass(chunk, ...rest);
      }) as typeof process.stdout.write;
    process.stdout.write = capture(write);
    process.stderr.write = capture(errWrite);
    let running: Promise<unknown> = Promise.resolve();
    try {
      running = EmbeddedClusterCommand.run(
        ['--kubeconfig-out', kubeconfig, '--data', data, '--context', 'dev'],
        repoRoot,
      );
      for (let i = 0; i < 500 && !printed.join('').includes('serving at'); i++)
        await new Promise((r) => setTimeout(r, 10));
      const url = /serving at (http:\/\/127\.0\.0\.1:\d+)/.exec(printed.join(''))?.[1];
      assert.ok(url, printed.join(''));
      const config = parse(readFileSync(kubeconfig, 'utf8')) as {
        'current-context': string;
        clusters: Array<{ name: string; cluster: Record<string, unknown> }>;
      };
      assert.equal(config['current-context'], 'dev');
      assert.deepEqual(config.clusters, [
        { name: 'dev', cluster: { server: url, 'insecure-skip-tls-verify': true } },
      ]);
      const res = await fetch(`${url}/api/v1/namespaces`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kept' } }),
      });
      assert.equal(res.status, 201);
    } finally {
      // Always stop the server, or a failed assertion would leave the test process running.
      // One signal: a second one means "exit now" (130), as a second Ctrl-C does.
      process.emit('SIGTERM', 'SIGTERM');
      await running.catch(() => undefined);
      process.stdout.write = write;
      process.stderr.write = errWrite;
    }
    try {
      const state = JSON.parse(readFileSync(data, 'utf8')) as {
        objects: Array<{ metadata: { name: string } }>;
      };
      assert.ok(state.objects.some((o) => o.metadata.name === 'kept'));
      assert.match(printed.join(''), /stopped on SIGTERM; state saved to /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails with a one-line error when the port is taken', async () => {
    const taken = await startEmbeddedCluster();
    const dir = mkdtempSync(join(tmpdir(), 'kg-cmd-'));
    try {
      const port = new URL(taken.url).port;
      await assert.rejects(
        EmbeddedClusterCommand.run(['--kubeconfig-out', join(dir, 'kc'), '--port', port], repoRoot),
        (err: unknown) => {
          assert.ok(err instanceof GitopsError);
          assert.match(err.message, /^embedded-cluster: failed to start: listen EADDRINUSE/);
          return true;
        },
      );
      assert.equal(existsSync(join(dir, 'kc')), false);
    } finally {
      await taken.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
