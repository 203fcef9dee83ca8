/**
 * Reads Applications from files and folders (`-f/--app-file`).
 *
 * - A file is read as multi-document YAML or JSON (JSON is YAML); `List` documents are flattened.
 * - A folder is walked recursively in name order; only `*.yaml`, `*.yml` and `*.json` files are read and
 *   dot-directories (`.git`) are skipped. Files named explicitly are read whatever their extension.
 * - One pass (`readAppFiles`): every file is read and parsed once, in order (synchronous reads, with a turn
 *   of the event loop every few ms so the cluster connection started beforehand progresses), and gives
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
 * - With app names (`prescan`), files that cannot hold them are not parsed (prescan.ts): one pass over the
 *   texts, parsing only what may hold a named app, an ApplicationSet or an AppProject; when that pass cannot
 *   stand (a name not found, a failing file, a path with nothing), a full pass decides, warnings once.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { oneLine, UsageError } from '../common/index.js';
import {
  describeSource,
  parseKubeText,
  readKubeObjects,
  readTextSync,
  type KubeObject,
  type SourcedObject,
} from '../util/yaml-docs.js';
import { isApplicationSet } from './appset/expand.js';
import { parseApplication } from './parse.js';
import { mayHold, mentionsApps, type Prescan } from './prescan.js';
import { matchesName } from './select.js';
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

/** Work done between two yields to the event loop while files are read (ms). */
const SLICE_MS = 8;

/**
 * The objects of each file (undefined: left by the pre-scan), in file order, as an iterator: files are read synchronously (`readTextSync`:
 * a tenth of the cost of promise reads for small files) and parsed one at a time, and every SLICE_MS of
 * that work the event loop gets a turn, so what started before (the kubeconfig, discovery, lists: issue 23)
 * keeps going while apps load. Standard input ("-") is read asynchronously, once.
 */
async function* readInOrder(
  files: readonly string[],
  scan: Prescan | undefined,
): AsyncGenerator<{ file: string; docs: SourcedObject[] | undefined; mentions?: boolean }, void, undefined> {
  let slice = performance.now();
  for (const file of files) {
    if (file === '-') yield { file, docs: await readKubeObjects(file, argoCdStringField) };
    else {
      const text = readTextSync(file);
      // With a pre-scan, a file that cannot hold a named app (nor an ApplicationSet or AppProject) is left,
      // saying whether it mentions Applications at all (prescan.ts `mentionsApps`).
      if (!scan || mayHold(text, scan))
        yield { file, docs: parseKubeText(text, file, argoCdStringField).objects };
      else yield { file, docs: undefined, mentions: mentionsApps(text) };
    }
    if (performance.now() - slice >= SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
  }
}

/** Options of `readAppFiles`. */
export interface ReadAppFilesOptions {
  onWarning?: ((message: string) => void) | undefined;
  /** A path without an Application, ApplicationSet or AppProject is an error. */
  requireApps?: boolean;
  /**
   * The app names the caller selects (prescan.ts): files that cannot hold them (nor an ApplicationSet or
   * AppProject) are not parsed. When one is not found, or a path would hold nothing, or a file fails, every
   * file is read again in full, so what the caller selects from the result, and any error, is a full read's.
   */
  prescan?: Prescan | undefined;
}

/**
 * Reads every Application and ApplicationSet in `paths` (files or folders) in one pass: each file is read
 * and parsed once, in order, and the first failing file in that order is the error. Skipped documents are
 * reported to `onWarning`, one line per file; with `requireApps`, a path without an Application or
 * ApplicationSet is an error (`diff --base` reads files that may be empty at one revision).
 */
export async function readAppFiles(
  paths: readonly string[],
  options: ReadAppFilesOptions = {},
): Promise<AppFiles> {
  const scan = options.prescan;
  if (!scan) return readAll(paths, options);
  // Warnings wait for the pre-scanned pass to stand: a full pass after it says them again.
  const warnings: string[] = [];
  const pass = await readAll(paths, { ...options, onWarning: (m) => warnings.push(m) }, scan).catch(
    () => undefined,
  );
  if (!pass || pass.unsure || !scan.args.every((arg) => pass.apps.some((a) => matchesName(a, arg))))
    return readAll(paths, { ...options, prescan: undefined });
  for (const w of warnings) options.onWarning?.(w);
  return pass;
}

/** The pass of `readAppFiles`; with `scan`, `unsure` says a full read must decide (a path held nothing). */
async function readAll(
  paths: readonly string[],
  options: ReadAppFilesOptions,
  scan?: Prescan,
): Promise<AppFiles & { unsure?: boolean }> {
  const onWarning = options.onWarning;
  const apps: Application[] = [];
  const appsets: SourcedAppSet[] = [];
  const projects: SourcedObject[] = [];
  const listed = await Promise.all(paths.map((path) => listAppFiles([path])));
  const read = readInOrder(listed.flat(), scan);
  let unsure = false;
  for (const [p, path] of paths.entries()) {
    let found = 0;
    let unread = 0;
    const seen = new Map<string, number>();
    for (let i = 0; i < listed[p]!.length; i++) {
      // Files in order: the first bad file in that order is the error.
      const next = (await read.next()).value as {
        file: string;
        docs: SourcedObject[] | undefined;
        mentions?: boolean;
      };
      const { file, docs } = next;
      if (!docs) {
        if (next.mentions) unread++;
        continue;
      }
      const skipped = new Map<string, number>();
      for (const sourced of docs) {
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
    // A path whose unread files mention Applications counts as holding some (the pre-scan reads no
    // further); one that holds none for sure is read again in full, for the error a full read gives.
    if (found === 0 && unread === 0 && scan && options.requireApps) unsure = true;
    else if (found === 0 && unread === 0 && options.requireApps) {
      const total = [...seen.values()].reduce((a, b) => a + b, 0);
      throw new UsageError(
        `failed to read Applications: no Application in ${displayName(path)}${total === 0 ? ' (no documents)' : ` (${kinds(seen)})`}`,
        { subject: displayName(path) },
      );
    }
  }
  return { apps, appsets, projects, ...(unsure ? { unsure } : {}) };
}

/** The Applications of `paths` (`readAppFiles`'s apps). */
export async function loadApplicationFiles(
  paths: readonly string[],
  options: ReadAppFilesOptions = {},
): Promise<Application[]> {
  return (await readAppFiles(paths, options)).apps;
}

/** "AppProject, ConfigMap x2": kinds in first-seen order with their counts. */
function kinds(counts: ReadonlyMap<string, number>): string {
  return [...counts].map(([k, n]) => (n === 1 ? k : `${k} x${n}`)).join(', ');
}
