/**
 * The `--local` watcher (src/source/file-watch.ts) on a real temp directory: real inotify events, a short
 * quiet period; each test waits for the report it expects (no timed assertions), and checks what is in it.
 * Editors' rename-on-save is exercised twice on the same file: the case Node 20's recursive fs.watch loses.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { FileWatcher } from '../../src/source/file-watch.js';
import { tree } from '../support/git.js';

/** A watcher whose reports are awaited one by one. */
function watcher(root: string, signal?: AbortSignal) {
  const reports: string[][] = [];
  const waiters: ((paths: string[]) => void)[] = [];
  const w = new FileWatcher({
    root,
    quietMs: 50,
    ...(signal ? { signal } : {}),
    onChange: (paths) => {
      const waiter = waiters.shift();
      if (waiter) waiter(paths);
      else reports.push(paths);
    },
  });
  const next = (): Promise<string[]> =>
    reports.length > 0 ? Promise.resolve(reports.shift()!) : new Promise((r) => waiters.push(r));
  return { w, next, reports };
}

describe('FileWatcher: debounced changes under a directory', () => {
  let close: (() => void) | undefined;
  afterEach(() => close?.());

  it('reports a save once after the quiet period, paths relative and sorted', async () => {
    const root = tree({ 'app/a.yaml': 'a: 1\n', 'app/b.yaml': 'b: 1\n', 'top.yaml': 't\n' });
    const { w, next } = watcher(root);
    close = () => w.close();
    await w.start();
    assert.deepEqual(w.directories, ['.', 'app']);
    writeFileSync(join(root, 'app/b.yaml'), 'b: 2\n');
    writeFileSync(join(root, 'app/a.yaml'), 'a: 2\n');
    writeFileSync(join(root, 'app/a.yaml'), 'a: 3\n');
    assert.deepEqual(await next(), ['app/a.yaml', 'app/b.yaml']);
  });

  it('rename-on-save (write a temp file, rename it over) is seen every time, the temp file is not reported', async () => {
    const root = tree({ 'app/a.yaml': 'a: 1\n' });
    const { w, next } = watcher(root);
    close = () => w.close();
    await w.start();
    for (const value of [2, 3, 4]) {
      writeFileSync(join(root, 'app/.a.yaml.swp'), `a: ${value}\n`);
      renameSync(join(root, 'app/.a.yaml.swp'), join(root, 'app/a.yaml'));
      assert.deepEqual(await next(), ['app/a.yaml'], `save ${value}`);
    }
    // A plain write after the renames is still seen (Node 20's recursive watcher loses this one).
    writeFileSync(join(root, 'app/a.yaml'), 'a: 5\n');
    assert.deepEqual(await next(), ['app/a.yaml']);
  });

  it('a new directory is watched from then on; a deletion is reported; .git is ignored', async () => {
    const root = tree({ 'a.yaml': 'a\n', '.git/HEAD': 'ref: refs/heads/main\n' });
    const { w, next } = watcher(root);
    close = () => w.close();
    await w.start();
    assert.deepEqual(w.directories, ['.'], '.git is not watched');
    mkdirSync(join(root, 'new/deeper'), { recursive: true });
    assert.deepEqual(await next(), ['new']);
    assert.deepEqual(w.directories, ['.', 'new', 'new/deeper']);
    writeFileSync(join(root, 'new/deeper/c.yaml'), 'c\n');
    assert.deepEqual(await next(), ['new/deeper/c.yaml']);
    writeFileSync(join(root, '.git/HEAD'), 'ref: refs/heads/other\n');
    rmSync(join(root, 'a.yaml'));
    assert.deepEqual(await next(), ['a.yaml'], 'the deletion, not the .git change');
    rmSync(join(root, 'new'), { recursive: true });
    assert.deepEqual(await next(), ['new', 'new/deeper', 'new/deeper/c.yaml'], 'each removed entry once');
    assert.deepEqual(w.directories, ['.']);
  });

  it('stops on the signal: no report after it', async () => {
    const root = tree({ 'a.yaml': 'a\n' });
    const controller = new AbortController();
    const { w, reports } = watcher(root, controller.signal);
    close = () => w.close();
    await w.start();
    writeFileSync(join(root, 'a.yaml'), 'b\n');
    controller.abort();
    assert.deepEqual(w.directories, []);
    // Another save after the stop; give inotify and the quiet period every chance to misbehave.
    writeFileSync(join(root, 'a.yaml'), 'c\n');
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(reports, []);
  });

  it('a root that is not a directory is an error naming it', async () => {
    const root = tree({ 'a.yaml': 'a\n' });
    const w = new FileWatcher({ root: join(root, 'a.yaml'), onChange: () => undefined });
    await assert.rejects(w.start(), /a\.yaml: failed to watch: not a directory/);
  });
});
