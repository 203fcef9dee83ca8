/**
 * `kubectl gitops sync` end to end: the built CLI as a process against the embedded API server, a real Git
 * repository; then `diff` (and the real kubectl, when installed) see what sync wrote.
 * `npm test` builds first; run `npm run build` before running this file alone.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { runCli } from '../support/cli.js';
import { launcher } from '../support/paths.js';
import { connectAs } from '../controller/setup.js';
import { hasKubectl, kubectl, useEmbeddedCluster } from '../support/embedded.js';
import { appYaml, cm, TestRepo, tempDir } from '../support/git.js';

describe('kubectl gitops sync (CLI, embedded cluster)', () => {
  const fx = useEmbeddedCluster();
  const repo = new TestRepo();
  const dir = tempDir('kg-sync-cli-');
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  const appFile = join(dir, 'app.yaml');
  const args = (...more: string[]) => ['sync', '-f', appFile, '--kubeconfig', fx.kubeconfig, ...more];

  it('syncs, reports -o json, and diff then finds nothing; a drift is synced back', async () => {
    repo.commit({ 'web/a.yaml': cm('a'), 'web/b.yaml': cm('b') });
    writeFileSync(
      appFile,
      appYaml('web', repo.url, 'web', {
        namespace: 'web',
        spec: '  syncPolicy:\n    syncOptions: [CreateNamespace=true]\n',
      }),
    );
    const first = await runCli(args('-o', 'json'), { env });
    assert.equal(first.code, 0, first.stderr);
    const report = JSON.parse(first.stdout) as {
      apps: Array<{
        name: string;
        phase: string;
        sync: string;
        health: string;
        resources: Array<{ kind: string; name: string; status: string; syncPhase: string }>;
      }>;
    };
    assert.equal(report.apps[0]!.phase, 'Succeeded');
    assert.equal(report.apps[0]!.sync, 'Synced');
    assert.deepEqual(
      report.apps[0]!.resources.map((r) => `${r.syncPhase} ${r.kind}/${r.name} ${r.status}`),
      ['PreSync Namespace/web Synced', 'Sync ConfigMap/a Synced', 'Sync ConfigMap/b Synced'],
    );
    const diff = await runCli(['diff', '-f', appFile, '--kubeconfig', fx.kubeconfig], { env });
    assert.equal(diff.code, 0, diff.stdout + diff.stderr);

    if (hasKubectl) {
      const edit = await kubectl(fx, [
        '-n',
        'web',
        'patch',
        'configmap',
        'a',
        '--type=merge',
        '-p',
        '{"data":{"key":"drifted"}}',
      ]);
      assert.equal(edit.code, 0, edit.stderr);
      const drift = await runCli(['diff', '-f', appFile, '--kubeconfig', fx.kubeconfig], { env });
      assert.equal(drift.code, 1);
      assert.match(drift.stdout, /-\s+key: drifted/);
      const again = await runCli(args(), { env });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /web: Succeeded: .*sync Synced, health Healthy/);
      assert.match(again.stdout, /ConfigMap web\/a\s+configmap\/a configured/);
      // Not a TTY: one plain progress line per visible change of a task, never the same line twice.
      const lines = again.stderr.split('\n').filter((l) => l.startsWith('web: '));
      assert.ok(
        lines.some((l) => /ConfigMap web\/a: Synced \(configmap\/a configured\)/.test(l)),
        again.stderr,
      );
      assert.equal(new Set(lines).size, lines.length, again.stderr);
      const got = await kubectl(fx, ['-n', 'web', 'get', 'configmap', 'a', '-o', 'jsonpath={.data.key}']);
      assert.equal(got.stdout, 'a');
    }
  });

  it('--dry-run prints the plan and changes nothing; bad flags exit 2', async () => {
    repo.commit({ 'web/c.yaml': cm('c') });
    const dry = await runCli(args('--dry-run'), { env });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /web: dry run Succeeded/);
    assert.match(dry.stdout, /Sync\s+wave\s+0\s+create\s+ConfigMap web\/c/);
    if (hasKubectl) {
      const got = await kubectl(fx, ['-n', 'web', 'get', 'configmap', 'c']);
      assert.notEqual(got.code, 0);
    }
    const bad = await runCli(args('--resource', 'nonsense'), { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--resource nonsense: failed to parse resource filter/);
    const timeout = await runCli(args('--timeout', 'soon'), { env });
    assert.equal(timeout.code, 2);
    assert.match(timeout.stderr, /--timeout: failed to parse duration "soon"/);
  });

  // The hook Jobs below are suspended: no Pod runs, so nobody completes them on a real cluster either.
  it('--timeout stops a sync that waits on a hook nobody completes: exit 1, saying what still ran', async () => {
    repo.commit({
      'slow/pre.yaml':
        'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    argocd.argoproj.io/hook: PreSync\nspec:\n  suspend: true\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: main\n        image: busybox\n',
      'slow/cm.yaml': cm('after'),
    });
    const slowApp = join(dir, 'slow.yaml');
    writeFileSync(
      slowApp,
      appYaml('slow', repo.url, 'slow', {
        namespace: 'slow',
        spec: '  syncPolicy:\n    syncOptions: [CreateNamespace=true]\n',
      }),
    );
    // 5 s, not less: on 2 busy cores, rendering and the cache sync alone can take a couple of seconds, and
    // the timeout must fall while the hook runs, not before it is written.
    const r = await runCli(['sync', '-f', slowApp, '--kubeconfig', fx.kubeconfig, '--timeout', '5s'], {
      env,
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stdout,
      /slow: Failed: operation terminated: timeout 5s passed; still running: batch\/Job\/slow\/migrate; 1 task\(s\) not started/,
    );
    assert.match(r.stderr, /error: failed to sync: timeout 5s passed/);
  });

  it('Ctrl-C mid-sync: stops starting tasks, says what was and was not applied, exits 130 (a second Ctrl-C: test/common/interrupt.test.ts)', async () => {
    // One app per run (its own namespace): the hook Job of the first run stays behind, uncompleted.
    const appFor = (name: string): string => {
      repo.commit({
        [`${name}/pre.yaml`]:
          'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    argocd.argoproj.io/hook: PreSync\nspec:\n  suspend: true\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: main\n        image: busybox\n',
        [`${name}/cm.yaml`]: cm('after'),
      });
      const file = join(dir, `${name}.yaml`);
      writeFileSync(
        file,
        appYaml(name, repo.url, name, {
          namespace: name,
          spec: '  syncPolicy:\n    syncOptions: [CreateNamespace=true]\n',
        }),
      );
      return file;
    };
    const conn = await connectAs(fx);
    try {
      // Interrupt once the sync says it waits for the PreSync hook (nobody completes it): it created the Job
      // and its wave waits on it. (The server's watch event of the Job came before the sync had the answer
      // to its create on a loaded real server: the create was then cut short, the Namespace still running.)
      const interrupted = async (name: string) => {
        const appFile = appFor(name);
        const child = spawn(launcher, ['sync', '-f', appFile, '--kubeconfig', fx.kubeconfig], {
          env: { ...process.env, NO_COLOR: '1', ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        const waiting = `${name}: waiting for batch/Job ${name}/migrate`;
        child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
        child.stderr.setEncoding('utf8').on('data', (d: string) => {
          const before = stderr.includes(waiting);
          stderr += d;
          if (!before && stderr.includes(waiting)) child.kill('SIGINT');
        });
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        return { code, stdout, stderr };
      };
      const once = await interrupted('stop');
      assert.equal(once.code, 130, once.stderr);
      // The hook still ran (the Namespace of the same wave too, if the live cache had not seen it yet).
      assert.match(
        once.stdout,
        /stop: Failed: operation terminated: interrupted.*; still running: (?:[^;]*, )?batch\/Job\/stop\/migrate; 1 task\(s\) not started/,
      );
      assert.match(once.stderr.trim().split('\n').at(-1) ?? '', /^error: .*interrupted/);
      const notApplied = await conn.client
        .request({
          verb: 'get',
          method: 'GET',
          path: '/api/v1/namespaces/stop/configmaps/after',
          subject: 'configmap after',
          groupKind: '/ConfigMap',
        })
        .then(
          () => 'found',
          (err: unknown) => String(err),
        );
      assert.match(notApplied, /not found/i, 'the Sync-phase ConfigMap was never written');
    } finally {
      conn.close();
    }
  });
});
