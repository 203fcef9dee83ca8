/** Small file-system helpers. */
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** Whether anything exists at `path` (file, directory or other); false on any error. */
export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Code stamps read in this process (a module's code does not change while it runs). */
const stamps = new Map<string, string>();

/**
 * "url size mtime" of a module file (`import.meta.url`): changes whenever its code does ('' when it cannot
 * be read). Keys of caches whose entries are a function of our code (the parse cache, the comparison memo).
 */
export function codeStamp(url: string): string {
  let stamp = stamps.get(url);
  if (stamp === undefined) {
    try {
      const st = statSync(fileURLToPath(url));
      stamp = `${url} ${st.size} ${st.mtimeMs}`;
    } catch {
      stamp = '';
    }
    stamps.set(url, stamp);
  }
  return stamp;
}
