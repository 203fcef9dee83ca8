/**
 * Reads Applications from files and folders (`-f/--app-file`).
 *
 * - A file is read as multi-document YAML or JSON (JSON is YAML); `List` documents are flattened.
 * - A folder is walked recursively in name order; only `*.yaml`, `*.yml` and `*.json` files are read and
 *   dot-directories (`.git`) are skipped. Files named explicitly are read whatever their extension.
 * - One pass (`readAppFiles`): every file is read and parsed once, up to 16 files read at a time, and gives
 *   both its Applications and its ApplicationSets (src/apps/appset expands them).
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
import { describeSource, readKubeObjects, type KubeObject, type SourcedObject } from '../util/yaml-docs.js';
import { isApplicationSet } from './appset/expand.js';
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

/** An ApplicationSet document of an app file, with where it came from. */
export interface SourcedAppSet {
  manifest: KubeObject;
  /** "appsets/x.yaml (document 2)". */
  origin: string;
}

/** What one pass over app files found: Applications (validated) and ApplicationSets (as written). */
export interface AppFiles {
  apps: Application[];
  appsets: SourcedAppSet[];
  /** AppProject documents as read (src/apps/project.ts `parseProject` validates them). */
  projects: SourcedObject[];
}

/** Files read at once: reads overlap while earlier files parse (parsing is synchronous). */
const READ_CONCURRENCY = 16;

/** `read(item)` of every item, at most `width` at a time; results (or errors) kept in input order. */
async function readAll<T, R>(
  items: readonly T[],
  width: number,
  read: (item: T) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const out = new Array<PromiseSettledResult<R>>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) {
        try {
          out[i] = { status: 'fulfilled', value: await read(items[i]!) };
        } catch (reason) {
          out[i] = { status: 'rejected', reason };
        }
      }
    }),
  );
  return out;
}

/**
 * Reads every Application and ApplicationSet in `paths` (files or folders) in one pass: each file is read
 * and parsed once, files in parallel; order is file order, then document order, and the first failing file
 * in that order is the error. Skipped documents are reported to `onWarning`, one line per file; with
 * `requireApps`, a path without an Application or ApplicationSet is an error (`diff --base` reads files
 * that may be empty at one revision).
 */
export async function readAppFiles(
  paths: readonly string[],
  options: { onWarning?: ((message: string) => void) | undefined; requireApps?: boolean } = {},
): Promise<AppFiles> {
  const onWarning = options.onWarning;
  const apps: Application[] = [];
  const appsets: SourcedAppSet[] = [];
  const projects: SourcedObject[] = [];
  const listed = await Promise.all(paths.map((path) => listAppFiles([path])));
  const files = listed.flat();
  const read = await readAll(files, READ_CONCURRENCY, (file) => readKubeObjects(file, argoCdStringField));
  let at = 0;
  paths.forEach((path, p) => {
    let found = 0;
    const seen = new Map<string, number>();
    for (const file of listed[p]!) {
      const docs = read[at++]!;
      if (docs.status === 'rejected') throw docs.reason;
      const skipped = new Map<string, number>();
      for (const sourced of docs.value) {
        const kind = sourced.object.kind ?? '(no kind)';
        seen.set(kind, (seen.get(kind) ?? 0) + 1);
        if (kind === 'Application') {
          apps.push(parseApplication(sourced.object, describeSource(sourced), true));
          found++;
        } else if (kind === 'ApplicationSet') {
          if (isApplicationSet(sourced.object))
            appsets.push({ manifest: sourced.object, origin: describeSource(sourced) });
          found++;
        } else if (kind === 'AppProject') {
          projects.push(sourced);
          found++;
        } else skipped.set(kind, (skipped.get(kind) ?? 0) + 1);
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
  });
  return { apps, appsets, projects };
}

/** The Applications of `paths` (`readAppFiles`'s apps). */
export async function loadApplicationFiles(
  paths: readonly string[],
  options: { onWarning?: ((message: string) => void) | undefined; requireApps?: boolean } = {},
): Promise<Application[]> {
  return (await readAppFiles(paths, options)).apps;
}

/** "AppProject, ConfigMap x2": kinds in first-seen order with their counts. */
function kinds(counts: ReadonlyMap<string, number>): string {
  return [...counts].map(([k, n]) => (n === 1 ? k : `${k} x${n}`)).join(', ');
}
