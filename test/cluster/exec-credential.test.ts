/**
 * A cluster Secret's exec provider run as client-go runs a credential plugin (src/cluster/exec-credential.ts),
 * with the fixture plugin test/fixtures/clusters/exec-credential.mjs: KUBERNETES_EXEC_INFO, env, args, the
 * ExecCredential on stdout, caching until expirationTimestamp (and forgetting on 401), and errors that
 * name the command and the cluster but never the plugin's output.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExecCredentialPlugin } from '../../src/cluster/index.js';
import type { ExecConfig } from '../../src/cluster/index.js';
import { oneLine } from '../../src/common/index.js';
import { fixturesDir } from '../support/paths.js';

const PLUGIN = join(fixturesDir, 'clusters', 'exec-credential.mjs');
const dir = mkdtempSync(join(tmpdir(), 'kg-exec-'));

function plugin(env: Record<string, string>, over: Partial<ExecConfig> = {}, now?: () => number) {
  const runs = join(dir, `runs-${Math.random().toString(36).slice(2)}`);
  writeFileSync(runs, '');
  const p = new ExecCredentialPlugin(
    {
      command: process.execPath,
      args: [PLUGIN],
      env: Object.entries({ FIXTURE_RUNS_FILE: runs, ...env }).map(([name, value]) => ({ name, value })),
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      ...over,
    },
    { subject: 'cluster prod (https://prod.example)', ...(now ? { now } : {}) },
  );
  const count = (): number => readFileSync(runs, 'utf8').split('\n').filter(Boolean).length;
  return { p, count };
}

describe('exec credential plugin', () => {
  it('sends the token; keeps it until expirationTimestamp, runs again after it and after a 401', async () => {
    let now = Date.now();
    const { p, count } = plugin({ FIXTURE_TOKEN: 'tok-1', FIXTURE_TTL_SECONDS: '600' }, {}, () => now);
    const opts: { headers?: Record<string, string> } = {};
    await p.apply(opts);
    assert.equal(opts.headers?.['Authorization'], 'Bearer tok-1');
    await Promise.all([p.credential(), p.credential(), p.credential()]);
    assert.equal(count(), 1);
    now += 3_600_000; // well past the 600 s the plugin gave, however long it took to start
    await p.credential();
    assert.equal(count(), 2);
    p.invalidate();
    await p.credential();
    assert.equal(count(), 3);
  });

  it('concurrent first calls share one run', async () => {
    const { p, count } = plugin({ FIXTURE_TOKEN: 't' });
    await Promise.all([p.credential(), p.credential(), p.credential()]);
    assert.equal(count(), 1);
  });

  it('errors name the cluster and the command, never the output', async () => {
    const failing = plugin({ FIXTURE_FAIL: 'no AWS credentials found' }).p;
    await assert.rejects(failing.credential(), (err: unknown) => {
      assert.equal(
        oneLine(err),
        `cluster prod (https://prod.example): failed to get credentials: exec plugin "${process.execPath}" failed with exit code 3: no AWS credentials found`,
      );
      return true;
    });
    const missing = new ExecCredentialPlugin(
      {
        command: 'argocd-k8s-auth-not-installed',
        args: [],
        env: [],
        apiVersion: 'client.authentication.k8s.io/v1beta1',
      },
      { subject: 'cluster eks' },
    );
    await assert.rejects(
      missing.credential(),
      /cluster eks: failed to get credentials: exec plugin "argocd-k8s-auth-not-installed" not found on PATH/,
    );
    const badVersion = plugin(
      { FIXTURE_TOKEN: 't' },
      { apiVersion: 'client.authentication.k8s.io/v1alpha1' },
    ).p;
    await assert.rejects(
      badVersion.credential(),
      /invalid apiVersion "client.authentication.k8s.io\/v1alpha1"/,
    );
    // The plugin answers in the apiVersion KUBERNETES_EXEC_INFO names; a plugin that answers another is refused.
    const script = join(dir, 'other-version.mjs');
    writeFileSync(
      script,
      `process.stdout.write(JSON.stringify({apiVersion:'client.authentication.k8s.io/v1beta1',kind:'ExecCredential',status:{token:'leaked-token'}}))`,
    );
    const mismatch = new ExecCredentialPlugin(
      { command: process.execPath, args: [script], env: [], apiVersion: 'client.authentication.k8s.io/v1' },
      { subject: 'cluster c' },
    );
    await assert.rejects(mismatch.credential(), (err: unknown) => {
      assert.match(
        oneLine(err),
        /configured to use API version client.authentication.k8s.io\/v1, plugin returned version client.authentication.k8s.io\/v1beta1/,
      );
      assert.ok(!oneLine(err).includes('leaked-token'));
      return true;
    });
    const garbage = join(dir, 'garbage.mjs');
    writeFileSync(garbage, `process.stdout.write('token=leaked-token')`);
    const notJson = new ExecCredentialPlugin(
      { command: process.execPath, args: [garbage], env: [], apiVersion: 'client.authentication.k8s.io/v1' },
      { subject: 'cluster c' },
    );
    await assert.rejects(notJson.credential(), (err: unknown) => {
      assert.match(oneLine(err), /printed no valid ExecCredential JSON on stdout/);
      assert.ok(!oneLine(err).includes('leaked-token'));
      return true;
    });
  });
});
