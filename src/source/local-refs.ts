/**
 * Branch and HEAD lookups in a repository on this machine (a `file://` URL or an absolute path) by reading
 * its ref files, so a run whose manifests all come from the cache starts no `git` process.
 *
 * What `git ls-remote <path>` would print for the same name, read from the same files git reads:
 * `HEAD` and loose refs are files under the git directory (a symbolic ref holds `ref: <name>`, followed
 * to its end); other refs are lines of `packed-refs` (`<sha> <name>`), and a loose ref wins over a packed
 * one (git's files backend, `refs/files-backend.c`). The git directory is `<path>/.git` (a directory, or a
 * file `gitdir: <dir>` for worktrees and submodules, whose `commondir` names the shared one), or `<path>`
 * itself for a bare repository.
 *
 * Only branches and HEAD are answered: a tag may be annotated, and peeling it means reading the object
 * database. Every case this reader is not sure of (a tag, a short SHA, an unknown name, the reftable
 * backend, an unreadable file, a URL that is not local) answers undefined, and the caller asks git
 * (`git ls-remote`) as before. The answer is exact, not cached: it is the repository's state at the moment
 * of the read, as ls-remote's would be.
 */
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const SAFE_REF = /^[A-Za-z0-9._/+@-]+$/;

/** The repository directory a local URL names, or undefined for a network URL. */
export function localRepoPath(url: string): string | undefined {
  if (url.startsWith('file://')) {
    try {
      return fileURLToPath(url);
    } catch {
      return undefined;
    }
  }
  return isAbsolute(url) && !url.includes('://') ? url : undefined;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

interface GitDirs {
  /** Where HEAD and per-worktree refs live. */
  gitDir: string;
  /** Where refs/ and packed-refs live (the same directory except in linked worktrees). */
  commonDir: string;
}

function gitDirs(repo: string): GitDirs | undefined {
  let gitDir: string | undefined;
  const dotGit = join(repo, '.git');
  if (isDir(dotGit)) gitDir = dotGit;
  else {
    const pointer = readText(dotGit);
    const m = pointer ? /^gitdir: (.+)$/m.exec(pointer) : null;
    if (m) gitDir = resolve(repo, m[1]!.trim());
    else if (readText(join(repo, 'HEAD')) !== undefined && isDir(join(repo, 'refs'))) gitDir = repo;
  }
  if (!gitDir) return undefined;
  const common = readText(join(gitDir, 'commondir'))?.trim();
  const commonDir = common ? resolve(gitDir, common) : gitDir;
  // The reftable backend keeps refs in binary tables: leave those to git.
  if (isDir(join(commonDir, 'reftable'))) return undefined;
  if (/refstorage\s*=\s*reftable/i.test(readText(join(commonDir, 'config')) ?? '')) return undefined;
  return { gitDir, commonDir };
}

/** The SHA a ref name points to (symbolic refs followed), or undefined when unknown here. */
function readRef(dirs: GitDirs, name: string, depth = 0): string | undefined {
  if (depth > 5 || !SAFE_REF.test(name) || name.split('/').includes('..')) return undefined;
  // HEAD and other pseudo-refs live in the worktree's git directory; refs/ in the common one.
  const loose = readText(join(name.startsWith('refs/') ? dirs.commonDir : dirs.gitDir, name));
  if (loose !== undefined) {
    const text = loose.trim();
    if (text.startsWith('ref: ')) return readRef(dirs, text.slice(5).trim(), depth + 1);
    return SHA.test(text) ? text : undefined;
  }
  const packed = readText(join(dirs.commonDir, 'packed-refs'));
  if (packed === undefined) return undefined;
  for (const line of packed.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0 && line.slice(space + 1).trim() === name) {
      const sha = line.slice(0, space);
      return SHA.test(sha) ? sha : undefined;
    }
  }
  return undefined;
}

/**
 * The commit `revision` names in the local repository at `url`, when it is HEAD or a branch (short or
 * `refs/heads/...`); undefined in every other case (ask git).
 */
export function resolveLocalBranch(url: string, revision: string): string | undefined {
  const path = localRepoPath(url);
  if (!path) return undefined;
  const dirs = gitDirs(path);
  if (!dirs) return undefined;
  if (revision === 'HEAD') return readRef(dirs, 'HEAD');
  if (revision.startsWith('refs/'))
    return revision.startsWith('refs/heads/') ? readRef(dirs, revision) : undefined;
  // ls-remote order (git.ts): a name that is itself a listed ref (only HEAD is), then the branch; a tag of
  // the same name comes after the branch, so a branch found here is the answer ls-remote would give.
  return readRef(dirs, `refs/heads/${revision}`);
}
