/**
 * Progress on stderr, end to end: the built CLI as a process (stderr is a pipe, not a TTY) against the
 * embedded API server with its workload simulation, a real Git repository.
 * - sync prints one plain line per event (waves, tasks, hooks, the operation, the app) in run order;
 * - `-o json` and `--quiet` print no progress: stdout is the JSON report alone, stderr has no ANSI;
 * - diff shows progress only on a TTY: nothing on a pipe.
 * `npm test` builds first; run `npm run build` before running this file alone.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { useEmbeddedCluster } from '../support/embedded.js';
import { appYaml, cm, TestRepo, tempDir } from '../support/git.js';

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[/;

const job = (name: string, hook: string) =>
  `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${name}\n  annotations:\n    argocd.argoproj.io/hook: ${hook}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: main\n        image: busybox\n`;
const waved = (name: string, wave: number) =>
  cm(name).replace('metadata:\n', `metadata:\n  annotations:\n    argocd.argoproj.io/sync-wave: "${wave}"\n`);

describe('progress on stderr (CLI, embedded cluster)', () => {
  const fx = useEmbeddedCluster({ simulateWorkloads: { delayMs: 5 } });
  const repo = new TestRepo();
  const dir = tempDir('kg-progress-cli-');
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  const appFile = join(dir, 'app.yaml');
  const plainFile = join(dir, 'plain.yaml');

  it('sync on a pipe: one plain line per event, hooks and waves in order', async () => {
    repo.commit({
      'hooks/pre.yaml': job('migrate', 'PreSync'),
      'hooks/early.yaml': waved('early', -1),
      'hooks/late.yaml': waved('late', 2),
      'hooks/post.yaml': job('notify', 'PostSync'),
    });
    writeFileSync(
      appFile,
      appYaml('hooks', repo.url, 'hooks', {
        namespace: 'hooks',
        spec: '  syncPolicy:\n    syncOptions: [CreateNamespace=true]\n',
      }),
    );
    const r = await runCli(['sync', '-f', appFile, '--kubeconfig', fx.kubeconfig], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, ANSI);
    const lines = r.stderr.split('\n').filter((l) => l !== '');
    assert.match(lines[0]!, /^cluster embedded: live cache syncing \d+ kinds$/);
    assert.match(lines[1]!, /^cluster embedded: live cache synced: \d+ kinds, \d+ objects?$/);
    // The run's shape: every wave starts, then its tasks report, then it is done; hooks complete.
    const shape = lines
      .filter((l) => l.startsWith('hooks: '))
      .filter((l) => /: (started|done)\b|operation|wave -?\d+ \S+ \S+: (Synced|Running)/.test(l));
    const waves = shape.filter((l) => /wave -?\d+: (started|done)/.test(l) || /operation/.test(l));
    assert.deepEqual(waves, [
      'hooks: operation started: 5 tasks in 4 waves',
      'hooks: PreSync wave 0: started (2 tasks)',
      'hooks: PreSync wave 0: done (2 succeeded, 0 failed)',
      'hooks: Sync wave -1: started (1 task)',
      'hooks: Sync wave -1: done (1 succeeded, 0 failed)',
      'hooks: Sync wave 2: started (1 task)',
      'hooks: Sync wave 2: done (1 succeeded, 0 failed)',
      'hooks: PostSync wave 0: started (1 task)',
      'hooks: PostSync wave 0: done (1 succeeded, 0 failed)',
      'hooks: operation Succeeded: successfully synced (no more tasks)',
    ]);
    const at = (pattern: RegExp): number => {
      const i = lines.findIndex((l) => pattern.test(l));
      assert.ok(i >= 0, `no line matches ${pattern}:\n${r.stderr}`);
      return i;
    };
    const migrateCreated = at(
      /^hooks: PreSync wave 0 batch\/Job hooks\/migrate: Synced \(job\.batch\/migrate created\)$/,
    );
    const migrateDone = at(/^hooks: PreSync wave 0: done/);
    const early = at(/^hooks: Sync wave -1 ConfigMap hooks\/early: Synced \(configmap\/early created\)$/);
    const notify = at(
      /^hooks: PostSync wave 0 batch\/Job hooks\/notify: Synced \(job\.batch\/notify created\)$/,
    );
    assert.ok(migrateCreated < migrateDone && migrateDone < early && early < notify, r.stderr);
    assert.equal(lines.at(-1), 'hooks: done: sync Synced, health Healthy');
    // Each line once: a task moving from Running to Succeeded with the same result prints once.
    const appLines = lines.filter((l) => l.startsWith('hooks: '));
    assert.equal(new Set(appLines).size, appLines.length, r.stderr);
    assert.match(r.stdout, /^hooks: Succeeded: /);
  });

  it('sync -o json and --quiet: no progress, stdout is the report alone, no ANSI', async () => {
    repo.commit({ 'plain/a.yaml': cm('a'), 'plain/b.yaml': cm('b') });
    writeFileSync(
      plainFile,
      appYaml('plain', repo.url, 'plain', {
        namespace: 'plain',
        spec: '  syncPolicy:\n    syncOptions: [CreateNamespace=true]\n',
      }),
    );
    const json = await runCli(['sync', '-f', plainFile, '--kubeconfig', fx.kubeconfig, '-o', 'json'], {
      env,
    });
    assert.equal(json.code, 0, json.stdout);
    const report = JSON.parse(json.stdout) as { apps: Array<{ name: string; phase: string }> };
    assert.deepEqual(
      report.apps.map((a) => `${a.name} ${a.phase}`),
      ['plain Succeeded'],
    );
    assert.equal(json.stderr, '');
    const quiet = await runCli(['sync', '-f', plainFile, '--kubeconfig', fx.kubeconfig, '-q'], { env });
    assert.equal(quiet.code, 0, quiet.stdout);
    assert.equal(quiet.stderr, '');
    assert.match(quiet.stdout, /^plain: Succeeded: /);
  });

  it('render on a pipe, or with -q, shows no progress: stdout is the manifests alone', async () => {
    for (const extra of [[], ['-q'], ['-o', 'json']]) {
      const r = await runCli(['render', '-f', plainFile, ...extra], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '');
      assert.doesNotMatch(r.stdout, ANSI);
    }
  });

  it('diff on a pipe shows no progress: stderr stays empty, no ANSI', async () => {
    const diff = await runCli(['diff', '-f', plainFile, '--kubeconfig', fx.kubeconfig], { env });
    assert.equal(diff.code, 0, diff.stdout + diff.stderr);
    assert.equal(diff.stderr, '');
    const json = await runCli(['diff', '-f', plainFile, '--kubeconfig', fx.kubeconfig, '-o', 'json'], {
      env,
    });
    assert.equal(json.code, 0, json.stderr);
    JSON.parse(json.stdout);
    assert.equal(json.stderr, '');
    assert.doesNotMatch(json.stdout, ANSI);
  });
});
