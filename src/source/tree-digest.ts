/** The digest of a local working tree (`--local` sources): the revision its renders are reported and cached at. */
import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/** sha256 over every file under `root` (sorted relative paths, `.git` left out): path, then content. */
export async function treeDigest(root: string): Promise<string> {
  const files: string[] = [];
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      if (e.name === '.git') continue;
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(join(dir, e.name), path);
      else files.push(path);
    }
  };
  await walk(root, '');
  files.sort();
  const hash = createHash('sha256');
  for (const f of files) {
    const full = join(root, f);
    const info = await lstat(full);
    hash.update(`${f}\0`);
    hash.update(info.isSymbolicLink() ? `-> ${await readlink(full)}` : await readFile(full));
    hash.update('\0');
  }
  return hash.digest('hex');
}
