/**
 * The tree of one commit as Git records it (`git ls-tree -r -t -z <commit>`: every file, symlink,
 * submodule and directory with its object id), read once per commit and run. It answers "what did this
 * path hold at that commit" without a checkout: the object id of a directory changes exactly when a file
 * under it changes (its content, name or mode), so two commits whose ids of a path are equal hold the
 * same files under it. The manifest cache keys renders by it (service.ts `treeKey`) and `diff --base`
 * lists an app's files from it.
 */
import { posix } from 'node:path';

export interface TreeEntry {
  /** Git's mode: 040000 directory, 100644/100755 file, 120000 symlink, 160000 submodule. */
  mode: string;
  oid: string;
  /** Repository-relative, "/"-separated. */
  path: string;
}

export const SYMLINK_MODE = '120000';
export const SUBMODULE_MODE = '160000';
export const TREE_MODE = '040000';

export class TreeIndex {
  readonly #entries: TreeEntry[];
  readonly #at = new Map<string, number>();

  /** `listing`: the NUL-separated output of `git ls-tree -r -t -z`. */
  constructor(listing: string) {
    this.#entries = [];
    for (const record of listing.split('\0')) {
      if (!record) continue;
      const tab = record.indexOf('\t');
      const [mode, , oid] = record.slice(0, tab).split(' ');
      if (!mode || !oid) continue;
      this.#at.set(record.slice(tab + 1), this.#entries.length);
      this.#entries.push({ mode, oid, path: record.slice(tab + 1) });
    }
  }

  /** The entry at `path` (repository-relative; "" or "." is the root, which has no entry). */
  get(path: string): TreeEntry | undefined {
    const i = this.#at.get(clean(path));
    return i === undefined ? undefined : this.#entries[i];
  }

  /**
   * Every entry under directory `dir` (files, symlinks, submodules and subdirectories, at any depth), in
   * Git's order; every entry of the commit for the root. Empty when `dir` is not a directory.
   */
  under(dir: string): TreeEntry[] {
    const d = clean(dir);
    if (d === '') return this.#entries;
    const i = this.#at.get(d);
    if (i === undefined || this.#entries[i]!.mode !== TREE_MODE) return [];
    // `ls-tree -r -t` lists a directory's entries right after it, depth first: they are contiguous.
    const out: TreeEntry[] = [];
    const prefix = `${d}/`;
    for (let j = i + 1; j < this.#entries.length && this.#entries[j]!.path.startsWith(prefix); j++)
      out.push(this.#entries[j]!);
    return out;
  }
}

/** A repository-relative path as the index spells it ("" for the root); `..` escapes stay (no entry). */
export function clean(path: string): string {
  const p = posix.normalize(path || '.').replace(/\/+$/, '');
  return p === '.' ? '' : p.replace(/^\.\//, '');
}
