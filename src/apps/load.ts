/**
 * Reads Applications from files and folders (`-f/--app-file`).
 *
 * - A file is read as multi-document YAML or JSON (JSON is YAML); `List` documents are flattened.
 * - A folder is walked recursively in name order; only `*.yaml`, `*.yml` and `*.json` files are read and
 *   dot-directories (`.git`) are skipped. Files named explicitly are read whatever their extension.
 * - Documents that are not `Application`s are skipped, so app folders can hold them too, with one warning
 *   per file saying how many and of which kinds; ApplicationSets and AppProjects are not counted
 *   (src/apps/appset and src/apps/project.ts read them). Every Application is validated by
 *   `parseApplication`.
 * - A path (file or folder, `-` = standard input) holding no Application, ApplicationSet or AppProject is
 *   an error, "no Application in PATH", rather than an empty selection.
 * - Fields Argo CD types as strings keep their text as written (`targetRevision: 1.10` stays "1.10"):
 *   string-fields.ts.
 * - Errors name the file and 1-based document index; a path that does not exist is a UsageError.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { oneLine, UsageError } from '../common/index.js';
import { describeSource, readKubeObjects } from '../util/yaml-docs.js';
import { parseApplication } from './parse.js';
import { argoCdStringField } from './string-fields.js';
import type { Application } from './types.js';

const APP_FILE = /\.(ya?ml|json)$/i;

/** Expands files and folders into the list of files to read, in a stable order. */
export async function listAppFiles(paths: readonly string[], what = 'Applications'): Promise<string[]> {
  const out: string[] = [];
  for (const path of paths) {
    if (path === '-') {
      out.push(path);
      continue;
    }
    let info;
    try {
      info = await stat(path);
    } catch (err) {
      // Only a missing path is "no such file"; permission and other errors say what they are.
      const code = (err as NodeJS.ErrnoException).code;
      const cause = code === 'ENOENT' || code === 'ENOTDIR' ? 'no such file or directory' : oneLine(err);
      throw new UsageError(`failed to read ${what}: ${cause}`, { subject: path, cause: err });
    }
    if (info.isDirectory()) await walk(path, out);
    else out.push(path);
  }
  return out;
}

async function walk(dir: string, out: string[]): Promise<void> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!entry.name.startsWith('.')) await walk(path, out);
    } else if (APP_FILE.test(entry.name)) {
      out.push(path);
    }
  }
}

const displayName = (path: string): string => (path === '-' ? '<stdin>' : path);

/**
 * Reads every Application in `paths` (files or folders). Order: file order, then document order.
 * Skipped documents are reported to `onWarning`, one line per file; with `requireApps`, a path without an
 * Application or ApplicationSet is an error (`diff --base` reads files that may be empty at one revision).
 */
export async function loadApplicationFiles(
  paths: readonly string[],
  options: { onWarning?: ((message: string) => void) | undefined; requireApps?: boolean } = {},
): Promise<Application[]> {
  const onWarning = options.onWarning;
  const apps: Application[] = [];
  for (const path of paths) {
    let found = 0;
    const seen = new Map<string, number>();
    for (const file of await listAppFiles([path])) {
      const skipped = new Map<string, number>();
      for (const sourced of await readKubeObjects(file, argoCdStringField)) {
        const kind = sourced.object.kind ?? '(no kind)';
        seen.set(kind, (seen.get(kind) ?? 0) + 1);
        if (kind === 'Application') {
          apps.push(parseApplication(sourced.object, describeSource(sourced), true));
          found++;
        } else if (kind === 'ApplicationSet' || kind === 'AppProject') found++;
        else skipped.set(kind, (skipped.get(kind) ?? 0) + 1);
      }
      const count = [...skipped.values()].reduce((a, b) => a + b, 0);
      if (count > 0)
        onWarning?.(
          `${displayName(file)}: skipped ${count} document${count === 1 ? '' : 's'} that ${count === 1 ? 'is not an Application' : 'are not Applications'}: ${kinds(skipped)}`,
        );
    }
    if (found === 0 && options.requireApps) {
      const total = [...seen.values()].reduce((a, b) => a + b, 0);
      throw new UsageError(
        `failed to read Applications: no Application in ${displayName(path)}${total === 0 ? ' (no documents)' : ` (${kinds(seen)})`}`,
        { subject: displayName(path) },
      );
    }
  }
  return apps;
}

/** "AppProject, ConfigMap x2": kinds in first-seen order with their counts. */
function kinds(counts: ReadonlyMap<string, number>): string {
  return [...counts].map(([k, n]) => (n === 1 ? k : `${k} x${n}`)).join(', ');
}
