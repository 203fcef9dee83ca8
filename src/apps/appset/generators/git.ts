/**
 * The git generator (directories and files), after argo-cd `applicationset/generators/git.go`: Go's
 * path.Match globs, `exclude` entries, file contents flattened (the rules: ../generators.ts).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { minimatch } from 'minimatch';
import { parseAllDocuments } from 'yaml';
import type { Params } from '../template.js';
import { posixDir, sanitizeName, TemplateError } from '../template.js';
import type { Json, GeneratorContext } from './params.js';
import { isMap, appendValues, flatten } from './params.js';

export async function gitParams(spec: Json, ctx: GeneratorContext, where: string): Promise<Params[]> {
  const repoURL = spec['repoURL'];
  if (typeof repoURL !== 'string' || repoURL === '')
    throw new TemplateError(`${where}.git.repoURL: is required`);
  const given = spec['revision'];
  // A string in Argo CD's type: the CRD refuses `revision: 1.10` unquoted (YAML reads the number 1.1),
  // so that is an error naming the field, never a silent HEAD.
  if (given !== undefined && given !== null && typeof given !== 'string')
    throw new TemplateError(
      `${where}.git.revision: must be a string, got ${JSON.stringify(given)} (quote it in YAML)`,
    );
  const revision = typeof given === 'string' && given !== '' ? given : 'HEAD';
  const prefix = typeof spec['pathParamPrefix'] === 'string' ? spec['pathParamPrefix'] : '';
  const root = await ctx.checkout(repoURL, revision);
  const items = (key: string): { path: string; exclude: boolean }[] => {
    const raw = spec[key];
    if (raw === undefined) return [];
    if (!Array.isArray(raw)) throw new TemplateError(`${where}.git.${key}: must be a list`);
    return raw.map((r, i) => {
      if (!isMap(r) || typeof r['path'] !== 'string')
        throw new TemplateError(`${where}.git.${key}[${i}].path: is required`);
      return { path: r['path'], exclude: r['exclude'] === true };
    });
  };
  const directories = items('directories');
  const files = items('files');
  if (directories.length === 0 && files.length === 0)
    throw new TemplateError(`${where}.git: needs directories or files`);
  const all = await listTree(root);
  const out: Params[] = [];
  if (directories.length > 0) {
    const dirs = all.dirs.filter((d) => {
      let include = false;
      for (const r of directories) {
        if (!goPathMatch(r.path, d)) continue;
        if (r.exclude) return false;
        include = true;
      }
      return include;
    });
    for (const dir of dirs.sort()) {
      const params: Params = {};
      const segments = dir.split('/');
      if (ctx.goTemplate) {
        const p = { path: dir, basename: base(dir), basenameNormalized: sanitizeName(base(dir)), segments };
        if (prefix) params[prefix] = { path: p };
        else params['path'] = p;
      } else {
        const name = prefix ? `${prefix}.path` : 'path';
        params[name] = dir;
        params[`${name}.basename`] = base(dir);
        params[`${name}.basenameNormalized`] = sanitizeName(base(dir));
        segments.forEach((s, i) => s !== '' && (params[`${name}[${i}]`] = s));
      }
      appendValues(spec['values'], params, ctx, `${where}.git`);
      out.push(params);
    }
  }
  if (files.length > 0) {
    const chosen = new Set<string>();
    for (const r of files.filter((f) => !f.exclude))
      for (const f of all.files) if (minimatch(f, r.path, { dot: true })) chosen.add(f);
    for (const r of files.filter((f) => f.exclude))
      for (const f of [...chosen]) if (minimatch(f, r.path, { dot: true })) chosen.delete(f);
    for (const file of [...chosen].sort()) {
      const text = await readFile(join(root, file), 'utf8');
      let objects: Json[];
      try {
        const docs = parseAllDocuments(text);
        const value = (Array.isArray(docs) ? docs[0] : docs)?.toJS() as unknown;
        objects =
          value === undefined || value === null
            ? [{}]
            : Array.isArray(value)
              ? value.filter(isMap)
              : isMap(value)
                ? [value]
                : [];
        if (!Array.isArray(value) && !isMap(value) && value !== undefined && value !== null)
          throw new Error('not an object or a list');
      } catch (err) {
        throw new TemplateError(
          `${where}.git.files: failed to parse ${file} from ${repoURL}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
        );
      }
      for (const obj of objects) {
        const dir = posixDir(file);
        const filename = base(file);
        const params: Params = {};
        if (ctx.goTemplate) {
          Object.assign(params, obj);
          const p = {
            path: dir,
            basename: base(dir),
            filename,
            basenameNormalized: sanitizeName(base(dir)),
            filenameNormalized: sanitizeName(filename),
            segments: dir.split('/'),
          };
          if (prefix) params[prefix] = { path: p };
          else params['path'] = p;
        } else {
          for (const [k, v] of Object.entries(flatten(obj))) params[k] = v;
          const name = prefix ? `${prefix}.path` : 'path';
          params[name] = dir;
          params[`${name}.basename`] = base(dir);
          params[`${name}.filename`] = filename;
          params[`${name}.basenameNormalized`] = sanitizeName(base(dir));
          params[`${name}.filenameNormalized`] = sanitizeName(filename);
          dir.split('/').forEach((s, i) => s !== '' && (params[`${name}[${i}]`] = s));
        }
        appendValues(spec['values'], params, ctx, `${where}.git`);
        out.push(params);
      }
    }
  }
  return out;
}

export function base(p: string): string {
  const t = p.replace(/\/+$/, '');
  return t === '' ? '.' : t.slice(t.lastIndexOf('/') + 1);
}

/** Every directory and file of a checkout, relative with "/", `.git` and dot-directories excluded. */
export async function listTree(root: string): Promise<{ dirs: string[]; files: string[] }> {
  const dirs: string[] = [];
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const e of entries) {
      const path = join(dir, e.name);
      const rel = relative(root, path).split(sep).join('/');
      if (e.isDirectory()) {
        if (e.name === '.git') continue;
        dirs.push(rel);
        await walk(path);
      } else files.push(rel);
    }
  };
  await walk(root);
  return { dirs, files };
}

/** Go's path.Match: `*` and `?` do not cross "/", `[...]` classes, `\` escapes. */
export function goPathMatch(pattern: string, name: string): boolean {
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const j = pattern.indexOf(']', i + 1);
      if (j < 0) return false;
      let cls = pattern.slice(i + 1, j);
      if (cls.startsWith('^')) cls = `^${cls.slice(1)}`;
      re += `[${cls.replace(/\\/g, '\\\\')}]`;
      i = j;
    } else if (c === '\\' && i + 1 < pattern.length) re += escapeRe(pattern[++i]!);
    else re += escapeRe(c);
  }
  return new RegExp(`${re}$`).test(name);
}

export const escapeRe = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
