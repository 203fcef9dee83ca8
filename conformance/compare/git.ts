/**
 * A case's repositories: one bare repository `<gitRoot>/<name>.git` per side and repository, one commit
 * (fixed author and date) on `main`, the HEAD. Written with `git fast-import` (two git processes per
 * repository, whatever the number of files). Returns the commit SHA.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { run } from './kubectl.js';

const WHO = 'conformance <conformance@example.com> 1767225600 +0000';

async function git(args: string[], input?: string): Promise<string> {
  const r = await run('git', args, {
    env: { GIT_CONFIG_NOSYSTEM: '1' },
    ...(input === undefined ? {} : { input }),
  });
  if (r.code !== 0) throw new Error(`git ${args[0]}: failed: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

function data(text: string): string {
  return `data ${Buffer.byteLength(text)}\n${text}\n`;
}

/** The fast-import stream of one commit holding `files` (an empty tree gets a `.keep`). */
export function fastImportStream(name: string, files: Record<string, string>): string {
  const entries = Object.entries(files);
  if (entries.length === 0) entries.push(['.keep', '']);
  let s = '';
  entries.forEach(([, content], i) => (s += `blob\nmark :${i + 1}\n${data(content)}`));
  s += `commit refs/heads/main\nmark :${entries.length + 1}\nauthor ${WHO}\ncommitter ${WHO}\n${data(`case ${name}`)}`;
  entries.forEach(([path], i) => (s += `M 100644 :${i + 1} ${path}\n`));
  return s + 'done\n';
}

export async function makeRepo(
  gitRoot: string,
  name: string,
  files: Record<string, string>,
): Promise<string> {
  const bare = join(gitRoot, `${name}.git`);
  rmSync(bare, { recursive: true, force: true });
  await git(['init', '-q', '--bare', '--initial-branch=main', bare]);
  const marks = join(bare, 'marks');
  await git(
    ['--git-dir', bare, 'fast-import', '--quiet', '--done', `--export-marks=${marks}`],
    fastImportStream(name, files),
  );
  const last = readFileSync(marks, 'utf8').trim().split('\n').pop()!;
  rmSync(marks);
  return last.split(' ')[1]!;
}

/** A new commit on `main` of `<gitRoot>/<name>.git` whose tree is `files` alone; returns its SHA. */
export async function pushCommit(
  gitRoot: string,
  name: string,
  files: Record<string, string>,
  message: string,
): Promise<string> {
  const bare = join(gitRoot, `${name}.git`);
  const parent = await git(['--git-dir', bare, 'rev-parse', 'refs/heads/main']);
  const entries = Object.entries(files);
  let s = '';
  entries.forEach(([, content], i) => (s += `blob\nmark :${i + 1}\n${data(content)}`));
  // A minute after the first commit's date, so the history reads in order.
  const who = WHO.replace(/ (\d+) /, (_m, t: string) => ` ${Number(t) + 60} `);
  s += `commit refs/heads/main\nauthor ${who}\ncommitter ${who}\n${data(message)}from ${parent}\ndeleteall\n`;
  entries.forEach(([path], i) => (s += `M 100644 :${i + 1} ${path}\n`));
  await git(['--git-dir', bare, 'fast-import', '--quiet', '--done'], s + 'done\n');
  return git(['--git-dir', bare, 'rev-parse', 'refs/heads/main']);
}
