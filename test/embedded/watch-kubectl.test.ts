/**
 * Watch as the real kubectl sees it (issue 9): `kubectl get -w`, `--watch-only`, `--output-watch-events`
 * print the list and then the changes; `kubectl get --raw` shows the stream itself: BOOKMARK events when
 * allowed (and one 2 s before `timeoutSeconds`, as the apiserver's cacher sends), and a watch from a
 * resourceVersion older than the bounded history gets HTTP 200 with one ERROR event carrying a 410
 * Expired Status (k8s.io/apiserver storage/cacher watch_cache.go, `too old resource version: <rv> (<oldest - 1>)`).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { hasKubectl, kubectl, useEmbeddedCluster } from '../support/embedded.js';
import type { EmbeddedFixture } from '../support/embedded.js';

const running = new Set<() => void>();
after(() => {
  for (const kill of running) kill();
});

/** A running `kubectl` whose output is read as it comes (killed at the end of the file at the latest). */
function start(fx: EmbeddedFixture, args: string[]) {
  const child = spawn('kubectl', args, {
    env: { ...process.env, KUBECONFIG: fx.kubeconfig, KUBECACHEDIR: join(fx.dir, 'kube-cache') },
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<() => void> = [];
  const wake = (): void => {
    for (const w of waiters.splice(0)) w();
  };
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    wake();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const kill = (): void => void child.kill();
  running.add(kill);
  const exited = new Promise<number>((resolve) =>
    child.on('exit', (code) => {
      running.delete(kill);
      resolve(code ?? -1);
    }),
  );
  return {
    exited,
    stop: kill,
    /** Resolves with the output lines once there are at least `n`; fails with the output if kubectl exits first. */
    async lines(n: number): Promise<string[]> {
      let done = false;
      void exited.then(() => {
        done = true;
        wake();
      });
      for (;;) {
        const lines = stdout.split('\n').slice(0, -1).filter(Boolean); // complete lines only
        if (lines.length >= n) return lines.map((l) => l.split(/\s+/).slice(0, 2).join(' '));
        if (done) assert.fail(`kubectl ${args.join(' ')} exited early: ${stdout}${stderr}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

/** Resolves once the server has received `n` more watch requests than `before` (kubectl lists first). */
async function watchesOpened(fx: EmbeddedFixture, before: number, n: number): Promise<void> {
  while (fx.cluster.stats.count('watch') < before + n)
    await new Promise((resolve) => setTimeout(resolve, 10));
}

/** The list's resourceVersion (kubectl get -o jsonpath wraps items in a List without one). */
const listRv = async (fx: EmbeddedFixture): Promise<string> =>
  (
    JSON.parse((await kubectl(fx, ['get', '--raw', '/api/v1/namespaces/wk/configmaps'])).stdout) as {
      metadata: { resourceVersion: string };
    }
  ).metadata.resourceVersion;

const cm = (name: string) => ['create', 'configmap', name, '-n', 'wk', '--from-literal=k=v'];

describe('kubectl get -w against the embedded server', { skip: hasKubectl ? false : 'no kubectl' }, () => {
  const fx = useEmbeddedCluster({ watchHistory: 2 });

  it('--output-watch-events: the list as ADDED, then ADDED, MODIFIED and DELETED as they happen', async () => {
    assert.equal((await kubectl(fx, ['create', 'namespace', 'wk'])).code, 0);
    assert.equal((await kubectl(fx, cm('a'))).code, 0);
    const w = start(fx, ['get', 'configmaps', '-n', 'wk', '-w', '--output-watch-events']);
    assert.deepEqual(await w.lines(2), ['EVENT NAME', 'ADDED a']);
    assert.equal((await kubectl(fx, cm('b'))).code, 0);
    assert.deepEqual((await w.lines(3)).slice(2), ['ADDED b']);
    assert.equal((await kubectl(fx, ['label', 'configmap', 'a', '-n', 'wk', 'x=1'])).code, 0);
    assert.deepEqual((await w.lines(4)).slice(3), ['MODIFIED a']);
    assert.equal((await kubectl(fx, ['delete', 'configmap', 'b', '-n', 'wk'])).code, 0);
    assert.deepEqual((await w.lines(5)).slice(4), ['DELETED b']);
    w.stop();
  });

  it('-w prints the list then changed rows; --watch-only only the changes', async () => {
    const before = fx.cluster.stats.count('watch');
    const all = start(fx, ['get', 'configmaps', '-n', 'wk', '-w']);
    const only = start(fx, ['get', 'configmaps', '-n', 'wk', '-w', '--watch-only']);
    assert.deepEqual(await all.lines(2), ['NAME DATA', 'a 1']);
    // --watch-only prints nothing until a change: make one once both watches are open.
    await watchesOpened(fx, before, 2);
    assert.equal((await kubectl(fx, cm('c'))).code, 0);
    assert.deepEqual((await all.lines(3)).slice(2), ['c 1']);
    assert.deepEqual(await only.lines(2), ['NAME DATA', 'c 1']);
    all.stop();
    only.stop();
  });

  it('a 410 Expired ERROR event ends kubectl get -w, printed as the Status (exit 0, as against a real server)', async () => {
    fx.cluster.faults.goneOnNextWatches(1);
    const w = start(fx, ['get', 'configmaps', '-n', 'wk', '-w']);
    assert.equal(await w.exited, 0);
    const lines = await w.lines(1);
    assert.deepEqual(lines.slice(-2), ['STATUS REASON', 'Failure Expired']);
  });

  it('kubectl get --raw: a resourceVersion older than the bounded history gets one ERROR 410 event and the stream ends', async () => {
    const rv = Number(await listRv(fx));
    for (const name of ['d', 'e', 'f', 'g', 'h']) assert.equal((await kubectl(fx, cm(name))).code, 0);
    const raw = await kubectl(fx, [
      'get',
      '--raw',
      `/api/v1/namespaces/wk/configmaps?watch=1&resourceVersion=${rv}`,
    ]);
    assert.equal(raw.code, 0, raw.stderr);
    const events = raw.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(events.length, 1);
    assert.equal(events[0].type, 'ERROR');
    assert.deepEqual(
      { ...events[0].object, message: undefined },
      {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: undefined,
        reason: 'Expired',
        code: 410,
      },
    );
    assert.match(events[0].object.message, new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`));
  });

  it('the 410 boundary: after compaction at R, a watch from R-1 is expired ("(R)") and one from R is served', async () => {
    fx.cluster.faults.expireWatches();
    const r = Number(await listRv(fx));
    const old = await kubectl(fx, [
      'get',
      '--raw',
      `/api/v1/namespaces/wk/configmaps?watch=1&resourceVersion=${r - 1}`,
    ]);
    assert.equal(JSON.parse(old.stdout).object.message, `too old resource version: ${r - 1} (${r})`);
    const ok = await kubectl(fx, [
      'get',
      '--raw',
      `/api/v1/namespaces/wk/configmaps?watch=1&resourceVersion=${r}&timeoutSeconds=1`,
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, '', 'no events, no error');
  });

  it('kubectl get --raw with allowWatchBookmarks: a BOOKMARK 2 s before timeoutSeconds, carrying only the resourceVersion', async () => {
    const rv = await listRv(fx);
    const path = `/api/v1/namespaces/wk/configmaps?watch=1&resourceVersion=${rv}&timeoutSeconds=3`;
    const [withBookmarks, without] = await Promise.all([
      kubectl(fx, ['get', '--raw', `${path}&allowWatchBookmarks=true`]),
      kubectl(fx, ['get', '--raw', path]),
    ]);
    assert.equal(withBookmarks.code, 0, withBookmarks.stderr);
    assert.deepEqual(
      withBookmarks.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
      [
        {
          type: 'BOOKMARK',
          object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: rv } },
        },
      ],
    );
    assert.equal(without.stdout, '');
  });
});
