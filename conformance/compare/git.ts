/**
 * A case's repositories: one bare repository `<gitRoot>/<name>.git` per side and repository, one commit
 * (fixed author and dates), branch `main` as HEAD. Returns the commit SHA.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { run } from './kubectl.js';

const ENV = {
  GIT_AUTHOR_NAME: 'conformance',
  GIT_AUTHOR_EMAIL: 'conformance@example.com',
  GIT_COMMITTER_NAME: 'conformance',
  GIT_COMMITTER_EMAIL: 'conformance@example.com',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1',
};

async function git(args: string[]): Promise<string> {
  const r = await run('git', args, { env: ENV });
  if (r.code !== 0) throw new Error(`git ${args[0]}: failed: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

export async function makeRepo(gitRoot: string, name: string, files: Record<string, string>): Promise<string> {
  const bare = join(gitRoot, `${name}.git`);
  rmSync(bare, { recursive: true, force: true });
  const work = mkdtempSync(join(gitRoot, `.work-${name}-`));
  try {
    await git(['init', '-q', '-b', 'main', work]);
    const entries = Object.entries(files);
    if (entries.length === 0) writeFileSync(join(work, '.keep'), '');
    for (const [path, content] of entries) {
      mkdirSync(dirname(join(work, path)), { recursive: true });
      writeFileSync(join(work, path), content);
    }
    await git(['-C', work, 'add', '-A']);
    await git(['-C', work, 'commit', '-q', '-m', `case ${name}`]);
    const sha = await git(['-C', work, 'rev-parse', 'HEAD']);
    await git(['clone', '-q', '--bare', work, bare]);
    return sha;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
