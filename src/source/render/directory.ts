/**
 * Plain directories, by Argo CD's rules (`reposerver/repository/repository.go findManifests`):
 * - files are visited in lexical path order; subdirectories only with `directory.recurse`; `.git` never;
 * - only names ending in `.yaml`, `.yml`, `.json` or `.jsonnet` (case-sensitive) are read;
 * - `exclude` then `include` are globs matched against the path relative to the source path; as in Argo
 *   CD (gobwas/glob without separators) `*` also crosses "/", and `{a,b}` alternatives are allowed;
 * - a symlink pointing outside the repository is an error;
 * - `.json`: one object (or List) per file, an error if it is not one;
 * - YAML: multi-document; a file that fails to parse is an error if some of its documents parsed or it
 *   looks like a resource (has `apiVersion:`, `kind:` and `metadata:`), else it is an unrelated YAML file
 *   (values.yaml, CI config) and is skipped;
 * - `.jsonnet` files are evaluated with the `jsonnet` binary (see jsonnet.ts).
 */
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { DirectoryOptions } from '../../apps/index.js';
import type { KubeObject } from '../../util/yaml-docs.js';
import { renderJsonnetFile } from './jsonnet.js';
import { looksLikeManifest, ObjectsError, parseObjects, pushObject } from './objects.js';
import { RenderError, type RenderRequest, type RenderResult, type RenderTools } from './types.js';

const MANIFEST_FILE = /\.(yaml|yml|json|jsonnet)$/;

export const DEFAULT_DIRECTORY: DirectoryOptions = {
  recurse: false,
  include: '',
  exclude: '',
  jsonnet: { extVars: [], tlas: [], libs: [] },
};

/** A gobwas-style glob (no separators) as a RegExp matching the whole string. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let depth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\' && i + 1 < glob.length) re += escape(glob[++i]!);
    else if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        let body = glob.slice(i + 1, end);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else if (c === '{') {
      depth++;
      re += '(?:';
    } else if (c === '}' && depth > 0) {
      depth--;
      re += ')';
    } else if (c === ',' && depth > 0) re += '|';
    else re += escape(c);
  }
  return new RegExp(`^${re}${')'.repeat(depth)}$`);
}

function escape(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

export async function listManifestFiles(
  dir: string,
  root: string,
  options: DirectoryOptions,
): Promise<string[]> {
  const include = options.include ? globToRegExp(options.include) : undefined;
  const exclude = options.exclude ? globToRegExp(options.exclude) : undefined;
  const realRoot = realpathSync.native(root);
  const files: string[] = [];
  const walk = async (current: string): Promise<void> => {
    const entries = readdirSync(current, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        if (options.recurse && entry.name !== '.git') await walk(path);
        continue;
      }
      if (!MANIFEST_FILE.test(entry.name)) continue;
      const rel = relative(dir, path).split(sep).join('/');
      if (exclude?.test(rel)) continue;
      if (include && !include.test(rel)) continue;
      if (entry.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync.native(path);
        } catch {
          throw new RenderError(relative(root, path), 'symlink target does not exist');
        }
        if (target !== realRoot && !target.startsWith(realRoot + sep)) {
          throw new RenderError(relative(root, path), 'symlink points outside the repository');
        }
      }
      files.push(path);
    }
  };
  await walk(dir);
  return files;
}

export async function renderDirectory(
  req: RenderRequest,
  dir: string,
  tools: RenderTools,
): Promise<RenderResult> {
  const options = req.source.directory ?? DEFAULT_DIRECTORY;
  const objects: KubeObject[] = [];
  let usedJsonnet = false;
  for (const path of await listManifestFiles(dir, req.root, options)) {
    const file = relative(req.root, path);
    if (path.endsWith('.jsonnet')) {
      usedJsonnet = true;
      objects.push(...(await renderJsonnetFile(path, dir, req, tools)));
      continue;
    }
    // Read synchronously (as the directory walk): fs/promises' readFile costs a thread-pool round trip
    // per open/stat/read/close, about a millisecond per small file on a busy machine.
    const text = readFileSync(path, 'utf8');
    if (path.endsWith('.json')) {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        throw new RenderError(file, `invalid JSON: ${(err as Error).message}`);
      }
      try {
        pushObject(value, objects);
      } catch (err) {
        throw new RenderError(file, (err as Error).message);
      }
      continue;
    }
    try {
      objects.push(...parseObjects(text));
    } catch (err) {
      if (!(err instanceof ObjectsError)) throw err;
      if (err.parsed > 0 || looksLikeManifest(text)) throw new RenderError(file, err.message);
      // An unrelated YAML file (not a Kubernetes resource): Argo CD ignores it.
    }
  }
  return { type: 'Directory', tool: usedJsonnet ? 'jsonnet' : '', objects, warnings: [] };
}
