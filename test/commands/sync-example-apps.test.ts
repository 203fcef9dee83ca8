/**
 * Issue 34 section 1, on argocd-example-apps' shapes (test/fixtures/example-apps) and the embedded server
 * with simulated workloads: one app that never becomes Healthy (a `type: LoadBalancer` Service, no load
 * balancer controller) must neither hang `sync` nor hold back the other apps' final refreshes, and every
 * app's final line must be a state observed after its operation ended (never the Missing of before it).
 * `npm test` builds first; run `npm run build` before running this file alone.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { useEmbeddedCluster } from '../support/embedded.js';
import { childrenFile, exampleRepo, jsonnetInstalled, SYNCABLE } from '../support/example-apps.js';
import { tempDir } from '../support/git.js';

interface SyncJson {
  apps: Array<{ name: string; phase: string; message: string; sync: string; health: string }>;
}
interface DiffJson {
  apps: Array<{ name: string; sync: string; health: string; error?: string }>;
}

const byName = <T extends { name: string }>(apps: T[]): Record<string, T> =>
  Object.fromEntries(apps.map((a) => [a.name, a]));

describe('sync of the example apps (embedded cluster, simulated workloads)', () => {
  const fx = useEmbeddedCluster({ simulateWorkloads: true });
  const repo = exampleRepo();
  const dir = tempDir('kg-sync-examples-');
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  const three = ['jsonnet-guestbook', 'pre-post-sync', 'sync-waves'];
  const sync = (file: string, ...more: string[]) =>
    runCli(['sync', '-f', file, '--kubeconfig', fx.kubeconfig, ...more], { env });
  const diffAfter = async (file: string): Promise<Record<string, DiffJson['apps'][number]>> => {
    const r = await runCli(['diff', '-f', file, '--kubeconfig', fx.kubeconfig, '-o', 'json'], { env });
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    return byName((JSON.parse(r.stdout) as DiffJson).apps);
  };

  it('one app that never becomes Healthy holds no other back: each final line is a refresh after its operation', async (t) => {
    if (!jsonnetInstalled) return t.skip('jsonnet not installed (jsonnet-guestbook)');
    const file = childrenFile(repo, three, dir);
    // One refresh worker: the app that stays Progressing must not keep it from the others' final refreshes.
    // The timeout only bounds the old hang (before issue 34 this run never ended); no app needs it now.
    const r = await sync(file, '--status-processors', '1', '--timeout', '90s', '-o', 'json');
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /Warning|MaxListeners/);
    const apps = byName((JSON.parse(r.stdout) as SyncJson).apps);
    const after = await diffAfter(file);
    for (const name of three.map((n) => `example.${n}`)) {
      const a = apps[name]!;
      assert.equal(a.phase, 'Succeeded', `${name}: ${a.message}`);
      // Observed after the operation: what it created is there (a diff right after agrees).
      assert.equal(a.sync, 'Synced', name);
      assert.equal(after[name]!.sync, 'Synced', name);
      assert.notEqual(a.health, 'Missing', name);
    }
    // Argo CD's verdict for a LoadBalancer Service no controller serves; the sync did not wait for it.
    assert.equal(apps['example.jsonnet-guestbook']!.health, 'Progressing');
  });

  it(
    '--health waits in the queue, says what for, and a --timeout ends it with every other app observed',
    { timeout: 240_000 },
    async (t) => {
      if (!jsonnetInstalled) return t.skip('jsonnet not installed (jsonnet-guestbook)');
      const file = childrenFile(repo, three, dir);
      const others = ['example.pre-post-sync', 'example.sync-waves'];
      // The others were refreshed after their operations while it waited (Healthy unless still rolling out).
      const observed = (stdout: string, name: string): boolean =>
        new RegExp(
          `^${name.replace('.', '\\.')}: Succeeded: .*sync Synced, health (Healthy|Progressing)\\)$`,
          'm',
        ).test(stdout);
      // The timeout must leave the others the time to end their operations (hooks, waves) and be refreshed:
      // 10 s are enough on the embedded server, not on a loaded real one. What the test waits for is that
      // state, not a time: a run whose timeout came first shows it itself (another app not observed after
      // its operation) and is run again with three times the time. An app held back by the one never
      // Healthy (the bug this guards) is never observed, and the last run fails.
      let timeout = 10;
      let r = await sync(file, '--health', '--timeout', `${timeout}s`, '--status-processors', '1');
      while (timeout < 90 && !others.every((name) => observed(r.stdout, name))) {
        timeout *= 3;
        t.diagnostic(`the others were not observed within the timeout: run again with ${timeout}s`);
        r = await sync(file, '--health', '--timeout', `${timeout}s`, '--status-processors', '1');
      }
      assert.equal(r.code, 1, r.stderr);
      const svc = 'Service jsonnet-guestbook/jsonnet-guestbook-ui: Progressing: waiting for load balancer';
      assert.ok(r.stderr.includes(`example.jsonnet-guestbook: waiting for health: ${svc}`), r.stderr);
      // The last line says what was still waited for.
      const last = r.stderr.trim().split('\n').at(-1)!;
      assert.ok(
        last.startsWith(`error: failed to sync: timeout ${timeout}s passed, still waiting for `),
        last,
      );
      assert.ok(last.includes(`example.jsonnet-guestbook: ${svc}`), last);
      assert.doesNotMatch(r.stderr, /Warning|MaxListeners/);
      // What was still waited for, at the end.
      assert.match(r.stdout, /^example\.jsonnet-guestbook: Succeeded: .*sync Synced, health Progressing\)$/m);
      assert.ok(r.stdout.includes(`  health: ${svc}`), r.stdout);
      for (const name of others) assert.ok(observed(r.stdout, name), `${name}: ${r.stdout}`);
    },
  );

  it('the example children, no --timeout: ends, every final line true, exit 0 (Progressing is not waited for)', async () => {
    const file = childrenFile(repo, SYNCABLE, dir);
    const r = await sync(file, '-o', 'json');
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /Warning|MaxListeners/);
    const apps = byName((JSON.parse(r.stdout) as SyncJson).apps);
    const after = await diffAfter(file);
    assert.deepEqual(Object.keys(apps).sort(), SYNCABLE.map((n) => `example.${n}`).sort());
    for (const [name, a] of Object.entries(apps)) {
      assert.equal(a.phase, 'Succeeded', `${name}: ${a.message}`);
      assert.equal(a.sync, 'Synced', name);
      assert.equal(after[name]!.sync, 'Synced', name);
      assert.ok(['Healthy', 'Progressing'].includes(a.health), `${name}: ${a.health}`);
    }
    // No load balancer or ingress controller: these stay Progressing, as Argo CD says.
    assert.equal(apps['example.sock-shop']!.health, 'Progressing');
    if (jsonnetInstalled) assert.equal(apps['example.jsonnet-guestbook']!.health, 'Progressing');
  });
});
