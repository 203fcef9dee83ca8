/**
 * `kubectl gitops sync --watch` end to end: the built CLI as a long-running process against the embedded
 * API server and a real Git repository (file://), read as `-o json` lines. Each step waits for the JSON line
 * it expects (never for a time); the file's overall test timeout bounds a watch that never says it.
 * - a Git commit is picked up within one poll (`--poll-interval 1s`) and synced; a live edit of a tracked
 *   object is healed with `--self-heal`; SIGTERM ends it with exit 0;
 * - without `--self-heal` the edit is reported as drift and left; Ctrl-C (SIGINT) ends it with 130;
 * - SIGTERM while an operation waits for a Deployment that never becomes healthy: the operation gets
 *   `--shutdown-timeout`, then the process exits 0.
 * `npm test` builds first; run `npm run build` before running this file alone.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launcher } from '../support/paths.js';
import { api, useEmbeddedCluster } from '../support/embedded.js';
import { appYaml, cm, TestRepo, tempDir } from '../support/git.js';

type Line = Record<string, unknown> & { event: string; app?: string };

/** The CLI as a child process whose stdout JSON lines can be awaited one predicate at a time. */
class WatchProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: Line[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  #waiters: { match: (l: Line) => boolean; from: number; resolve: (l: Line) => void }[] = [];

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(launcher, args, { env: { ...process.env, NO_COLOR: '1', ...env } });
    let buffer = '';
    this.child.stdout.setEncoding('utf8').on('data', (d: string) => {
      buffer += d;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const text = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (!text.trim()) continue;
        const line = JSON.parse(text) as Line;
        this.lines.push(line);
        this.#check();
      }
    });
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.child.stdin.end();
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code)));
  }

  /** The first line from now on (or from `from`) matching; rejects if the process ends first. */
  next(match: (l: Line) => boolean, from = this.lines.length): Promise<Line> {
    return new Promise((resolve, reject) => {
      this.#waiters.push({ match, from, resolve });
      this.#check();
      void this.exited.then(() =>
        reject(
          new Error(
            `the watch ended first:\n${this.lines.map((l) => JSON.stringify(l)).join('\n')}\n${this.stderr}`,
          ),
        ),
      );
    });
  }

  #check(): void {
    for (const w of [...this.#waiters]) {
      const found = this.lines.slice(w.from).find(w.match);
      if (found) {
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        w.resolve(found);
      }
    }
  }
}

const done =
  (app: string, phase = 'Succeeded') =>
  (l: Line) =>
    l.event === 'operation-done' && l.app === app && l.phase === phase;

describe('kubectl gitops sync --watch (CLI, embedded cluster, real Git)', () => {
  const fx = useEmbeddedCluster();
  const dir = tempDir('kg-watch-cli-');
  const env = { XDG_CACHE_HOME: join(dir, 'cache') };
  const repos: TestRepo[] = [];
  const children: WatchProcess[] = [];
  after(() => {
    for (const c of children) if (c.child.exitCode === null) c.child.kill('SIGKILL');
    for (const r of repos) r.remove();
  });

  const setUp = (name: string, files: Record<string, string>) => {
    const repo = new TestRepo();
    repos.push(repo);
    repo.commit(files);
    const appFile = join(dir, `${name}.yaml`);
    writeFileSync(
      appFile,
      appYaml(name, repo.url, 'app', {
        namespace: name,
        spec: '  syncPolicy:\n    syncOptions: [CreateNamespace=true]\n',
      }),
    );
    return { repo, appFile };
  };
  const watch = (appFile: string, ...more: string[]) => {
    const p = new WatchProcess(
      ['sync', '-f', appFile, '--kubeconfig', fx.kubeconfig, '--watch', '-o', 'json', ...more],
      env,
    );
    children.push(p);
    return p;
  };
  const configValue = async (ns: string, name: string): Promise<unknown> =>
    (await api(fx.cluster, 'GET', `/api/v1/namespaces/${ns}/configmaps/${name}`)).body?.data?.key;
  const edit = (ns: string, name: string) =>
    api(
      fx.cluster,
      'PATCH',
      `/api/v1/namespaces/${ns}/configmaps/${name}`,
      { data: { key: 'edited-by-hand' } },
      'application/merge-patch+json',
    );

  it('syncs a new commit within one poll, heals a live edit with --self-heal, exits 0 on SIGTERM', async () => {
    const { repo, appFile } = setUp('heal', { 'app/a.yaml': cm('a') });
    const p = watch(appFile, '--self-heal', '--self-heal-timeout', '1s', '--poll-interval', '1s');
    // The watch starts with a manual sync of every app ("sync now"); later revisions are auto-synced.
    const first = await p.next(done('heal'));
    assert.equal(first['operation'], 'sync');
    await p.next((l) => l.event === 'watch-start', 0);
    assert.equal(await configValue('heal', 'a'), 'a');

    // A commit: seen by the next poll, refreshed, synced at the new revision.
    const sha = repo.commit({ 'app/a.yaml': cm('a').replace('key: a', 'key: second') });
    const moved = await p.next((l) => l.event === 'ref-moved');
    assert.equal(moved['to'], sha);
    assert.deepEqual(moved['apps'], ['heal']);
    const synced = await p.next((l) => done('heal')(l) && l.revision === sha);
    assert.equal(synced['operation'], 'auto-sync');
    assert.equal(await configValue('heal', 'a'), 'second');

    // A live edit (what `kubectl edit` sends): drift, healed back to Git.
    const from = p.lines.length;
    assert.equal((await edit('heal', 'a')).status, 200);
    const drift = await p.next((l) => l.event === 'drift' && l.app === 'heal', from);
    assert.equal(drift['healing'], true);
    const healed = await p.next(done('heal'), from);
    assert.equal(healed['operation'], 'self-heal');
    assert.equal(await configValue('heal', 'a'), 'second');

    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0, p.stderr);
    const stopped = p.lines.at(-1)!;
    assert.equal(stopped.event, 'watch-stopped');
    assert.equal(stopped['reason'], 'SIGTERM');
    // Every line is one event with the app's status and a time.
    for (const l of p.lines) {
      assert.match(String(l['time']), /^\d{4}-\d\d-\d\dT/);
      if (l.app)
        assert.ok(typeof l['sync'] === 'string' && typeof l['health'] === 'string', JSON.stringify(l));
    }
  });

  it('without --self-heal a live edit is reported as drift and left; SIGINT exits 130', async () => {
    const { appFile } = setUp('report', { 'app/a.yaml': cm('a') });
    const p = watch(appFile, '--poll-interval', '1m');
    await p.next(done('report'));
    await p.next((l) => l.event === 'watch-start', 0);
    const from = p.lines.length;
    assert.equal((await edit('report', 'a')).status, 200);
    const drift = await p.next((l) => l.event === 'drift' && l.app === 'report', from);
    assert.equal(drift['healing'], false);
    const refreshed = await p.next(
      (l) => l.event === 'refreshed' && l.app === 'report' && l.sync === 'OutOfSync',
      from,
    );
    assert.equal(refreshed['reason'], 'drift');
    p.child.kill('SIGINT');
    assert.equal(await p.exited, 130, p.stderr);
    assert.equal(await configValue('report', 'a'), 'edited-by-hand', 'not healed');
    assert.ok(
      !p.lines.slice(from).some((l) => l.event === 'operation-start'),
      'no operation after the drift without --self-heal',
    );
  });

  it('--local: a saved manifest is rendered and synced (no Git poll), rename-on-save included', async () => {
    const { appFile } = setUp('files', { 'app/a.yaml': cm('a') });
    const work = tempDir('kg-watch-local-');
    mkdirSync(join(work, 'app'));
    writeFileSync(join(work, 'app/a.yaml'), cm('a'));
    const p = watch(appFile, '--local', work);
    await p.next(done('files'));
    const start = await p.next((l) => l.event === 'watch-start', 0);
    assert.deepEqual(start['repositories'], [], 'nothing polled with --local');
    assert.equal(start['local'], work);
    // An editor's save: write a temporary file, rename it over the manifest.
    const from = p.lines.length;
    writeFileSync(join(work, 'app/.a.yaml.swp'), cm('a').replace('key: a', 'key: saved'));
    renameSync(join(work, 'app/.a.yaml.swp'), join(work, 'app/a.yaml'));
    const changed = await p.next((l) => l.event === 'files-changed', from);
    assert.deepEqual(changed['paths'], ['app/a.yaml']);
    await p.next(done('files'), from);
    assert.equal(await configValue('files', 'a'), 'saved');
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0, p.stderr);
  });

  it('SIGTERM while an operation runs: it gets --shutdown-timeout, then exit 0', async () => {
    // Wave 0: a paused Deployment (health Suspended on any server, the real one's controllers included):
    // the operation waits for its health before wave 1.
    const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: slow
spec:
  paused: true
  replicas: 1
  selector: {matchLabels: {app: slow}}
  template:
    metadata: {labels: {app: slow}}
    spec: {containers: [{name: c, image: registry.example/slow:1}]}
`;
    const later = cm('later').replace(
      'metadata:\n',
      'metadata:\n  annotations: {argocd.argoproj.io/sync-wave: "1"}\n',
    );
    const { appFile } = setUp('slow', { 'app/deploy.yaml': deployment, 'app/later.yaml': later });
    const p = watch(appFile, '--shutdown-timeout', '1s', '--poll-interval', '1m');
    await p.next((l) => l.event === 'operation-start' && l.app === 'slow');
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0, p.stderr);
    const stopped = p.lines.at(-1)!;
    assert.equal(stopped.event, 'watch-stopped');
    assert.equal(stopped['reason'], 'SIGTERM');
    // The Deployment never becomes Healthy: the operation was still waiting, and was ended by the timeout.
    assert.deepEqual(stopped['cutOff'], ['slow'], JSON.stringify(p.lines));
    const ended = p.lines.find((l) => l.event === 'operation-done' && l.app === 'slow');
    assert.notEqual(ended?.['phase'], 'Succeeded', JSON.stringify(ended));
  });
});
