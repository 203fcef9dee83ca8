/** Small file-system helpers. */
import { stat } from 'node:fs/promises';

/** Whether anything exists at `path` (file, directory or other); false on any error. */
export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
