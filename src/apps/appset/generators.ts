/**
 * ApplicationSet generators, run locally (argo-cd `applicationset/generators/`, see docs/appsets.md).
 * Each returns parameter sets with the controller's names:
 * - `list`: each element as is (goTemplate) or flattened to strings, `values.<k>` for its `values` map.
 * - `clusters`: `name`, `nameNormalized`, `server`, `project`, `metadata.labels.<k>` /
 *   `metadata.annotations.<k>` (goTemplate: `metadata.labels` maps), `values.<k>`; the `in-cluster`
 *   entry when no Secret targets https://kubernetes.default.svc and the selector is empty.
 * - `git` directories: `path`, `path.basename`, `path.basenameNormalized`, `path[n]` (goTemplate:
 *   `path.path`, `path.basename`, `path.basenameNormalized`, `path.segments`); `path` globs match like Go's
 *   path.Match (`*` stays inside one segment), `exclude: true` entries win over every include.
 * - `git` files: the file's YAML/JSON object (or each object of an array) flattened with dots, plus
 *   `path` (the file's directory), `path.basename`, `path.filename`, `*Normalized`, `path[n]`.
 * - `matrix` (exactly two children; the second is interpolated with each parameter set of the first)
 *   and `merge` (`mergeKeys`; later generators override the first's matching sets).
 * Unsupported generators (scmProvider, pullRequest, clusterDecisionResource, plugin) are errors naming
 * them. Output order is stable: directories and files sorted, clusters by name.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { minimatch } from 'minimatch';
import { parseAllDocuments } from 'yaml';
import { posixDir, renderString, renderTree, sanitizeName, TemplateError, type Params } from './template.js';

/** A cluster as the clusters generator sees it (from cluster Secrets, see src/sharding). */
export interface AppSetCluster {
  name: string;
  server: string;
  project?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** The synthesised in-cluster entry (no Secret). */
  inCluster?: boolean;
}

export interface GeneratorContext {
  goTemplate: boolean;
  goTemplateOptions: readonly string[];
  /** Cluster Secrets (only called when a clusters generator is used). */
  clusters(): Promise<AppSetCluster[]>;
  /** A directory holding the tree of `repoURL` at `revision` (the revision being rendered). */
  checkout(repoURL: string, revision: string): Promise<string>;
}

type Json = Record<string, unknown>;

const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const UNSUPPORTED = ['scmProvider', 'pullRequest', 'clusterDecisionResource', 'plugin'];

/** Parameter sets of one generator entry (`spec.generators[i]` or a matrix/merge child). */
export async function generateParams(gen: Json, ctx: GeneratorContext, where: string): Promise<Params[]> {
  let sets: Params[];
  if (isMap(gen['list'])) sets = listParams(gen['list'], ctx, where);
  else if (isMap(gen['clusters'])) sets = await clusterParams(gen['clusters'], ctx, where);
  else if (isMap(gen['git'])) sets = await gitParams(gen['git'], ctx, where);
  else if (isMap(gen['matrix'])) sets = await matrixParams(gen['matrix'], ctx, where);
  else if (isMap(gen['merge'])) sets = await mergeParams(gen['merge'], ctx, where);
  else {
    const kind = Object.keys(gen).find((k) => k !== 'template' && k !== 'selector');
    if (kind && UNSUPPORTED.includes(kind))
      throw new TemplateError(
        `${where}: the ${kind} generator is not supported locally (it needs a remote API)`,
      );
    throw new TemplateError(`${where}: unknown or empty generator${kind ? ` "${kind}"` : ''}`);
  }
  if (gen['selector'] !== undefined) {
    const matches = labelSelector(gen['selector'], `${where}.selector`);
    sets = sets.filter((p) => matches(flattenForSelector(p, ctx.goTemplate)));
  }
  return sets;
}

function listParams(list: Json, ctx: GeneratorContext, where: string): Params[] {
  const elements = list['elements'] ?? [];
  if (!Array.isArray(elements)) throw new TemplateError(`${where}.list.elements: must be a list`);
  const out: Params[] = [];
  elements.forEach((el, i) => {
    if (!isMap(el)) throw new TemplateError(`${where}.list.elements[${i}]: must be an object`);
    if (ctx.goTemplate) {
      out.push({ ...el });
      return;
    }
    const params: Params = {};
    for (const [k, v] of Object.entries(el)) {
      if (k === 'values') {
        if (!isMap(v)) throw new TemplateError(`${where}.list.elements[${i}].values: must be a map`);
        for (const [vk, vv] of Object.entries(v)) {
          if (typeof vv !== 'string')
            throw new TemplateError(`${where}.list.elements[${i}].values.${vk}: must be a string`);
          params[`values.${vk}`] = vv;
        }
      } else {
        if (typeof v !== 'string')
          throw new TemplateError(
            `${where}.list.elements[${i}].${k}: must be a string without goTemplate (Argo CD rejects it)`,
          );
        params[k] = v;
      }
    }
    out.push(params);
  });
  if (typeof list['elementsYaml'] === 'string' && list['elementsYaml'].trim() !== '') {
    const doc = parseAllDocuments(list['elementsYaml']);
    const items = (Array.isArray(doc) ? doc[0] : doc)?.toJS() as unknown;
    if (!Array.isArray(items)) throw new TemplateError(`${where}.list.elementsYaml: must be a YAML list`);
    for (const item of items) if (isMap(item)) out.push(item);
  }
  return out;
}

/** `values` of a generator, rendered with each set's params (Argo CD appendTemplatedValues). */
function appendValues(values: unknown, params: Params, ctx: GeneratorContext, where: string): void {
  if (values === undefined || values === null) return;
  if (!isMap(values)) throw new TemplateError(`${where}.values: must be a map of strings`);
  const rendered: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    rendered[k] = renderString(String(v), params, ctx.goTemplate, ctx.goTemplateOptions);
  }
  if (ctx.goTemplate)
    params['values'] = { ...(isMap(params['values']) ? params['values'] : {}), ...rendered };
  else for (const [k, v] of Object.entries(rendered)) params[`values.${k}`] = v;
}

async function clusterParams(spec: Json, ctx: GeneratorContext, where: string): Promise<Params[]> {
  const selector = spec['selector'];
  const hasSelector =
    isMap(selector) &&
    ((isMap(selector['matchLabels']) && Object.keys(selector['matchLabels']).length > 0) ||
      (Array.isArray(selector['matchExpressions']) && selector['matchExpressions'].length > 0));
  const matches = hasSelector ? labelSelector(selector, `${where}.clusters.selector`) : () => true;
  const clusters = (await ctx.clusters()).filter((c) => (c.inCluster ? !hasSelector : matches(c.labels)));
  clusters.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: Params[] = [];
  for (const c of clusters) {
    const params: Params = {
      name: c.name,
      nameNormalized: c.inCluster ? c.name : sanitizeName(c.name),
      server: c.server,
      project: c.project ?? '',
    };
    if (!c.inCluster) {
      if (ctx.goTemplate) {
        const meta: Json = {};
        if (Object.keys(c.annotations).length > 0) meta['annotations'] = c.annotations;
        if (Object.keys(c.labels).length > 0) meta['labels'] = c.labels;
        params['metadata'] = meta;
      } else {
        for (const [k, v] of Object.entries(c.annotations)) params[`metadata.annotations.${k}`] = v;
        for (const [k, v] of Object.entries(c.labels)) params[`metadata.labels.${k}`] = v;
      }
    }
    appendValues(spec['values'], params, ctx, `${where}.clusters`);
    out.push(params);
  }
  return spec['flatList'] === true ? [{ clusters: out }] : out;
}

async function gitParams(spec: Json, ctx: GeneratorContext, where: string): Promise<Params[]> {
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

function base(p: string): string {
  const t = p.replace(/\/+$/, '');
  return t === '' ? '.' : t.slice(t.lastIndexOf('/') + 1);
}

/** Flattens nested maps and lists with dots (`a.b`, `list.0`), values printed as Go's %v. */
function flatten(obj: Json, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isMap(v)) flatten(v, key, out);
    else if (Array.isArray(v))
      v.forEach((x, i) => (isMap(x) ? flatten(x, `${key}.${i}`, out) : (out[`${key}.${i}`] = goValue(x))));
    else out[key] = goValue(v);
  }
  return out;
}

const goValue = (v: unknown): string => (v === null || v === undefined ? '<nil>' : String(v));

/** Every directory and file of a checkout, relative with "/", `.git` and dot-directories excluded. */
async function listTree(root: string): Promise<{ dirs: string[]; files: string[] }> {
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

const escapeRe = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

async function matrixParams(spec: Json, ctx: GeneratorContext, where: string): Promise<Params[]> {
  const gens = spec['generators'];
  if (!Array.isArray(gens) || gens.length !== 2)
    throw new TemplateError(`${where}.matrix: needs exactly two generators (as Argo CD)`);
  const out: Params[] = [];
  const first = await generateParams(
    childGenerator(gens[0], `${where}.matrix.generators[0]`),
    ctx,
    `${where}.matrix.generators[0]`,
  );
  for (const a of first) {
    const second = interpolateGenerator(childGenerator(gens[1], `${where}.matrix.generators[1]`), a, ctx);
    for (const b of await generateParams(second, ctx, `${where}.matrix.generators[1]`)) {
      if (ctx.goTemplate) out.push(deepMerge(b, a));
      else {
        for (const [k, v] of Object.entries(b)) {
          if (k in a && a[k] !== v)
            throw new TemplateError(
              `${where}.matrix: found duplicate key ${k} with different value, a: ${String(a[k])} ,b: ${String(v)}`,
            );
        }
        out.push({ ...a, ...b });
      }
    }
  }
  return out;
}

async function mergeParams(spec: Json, ctx: GeneratorContext, where: string): Promise<Params[]> {
  const gens = spec['generators'];
  const keys = spec['mergeKeys'];
  if (!Array.isArray(gens) || gens.length < 2)
    throw new TemplateError(`${where}.merge: needs at least two generators`);
  if (!Array.isArray(keys) || keys.length === 0)
    throw new TemplateError(`${where}.merge: mergeKeys is required`);
  const mergeKeys = [...new Set(keys.map(String))].sort();
  const sets = await Promise.all(
    gens.map((g, i) =>
      generateParams(
        childGenerator(g, `${where}.merge.generators[${i}]`),
        ctx,
        `${where}.merge.generators[${i}]`,
      ),
    ),
  );
  const byKey = (list: Params[], i: number): Map<string, Params> => {
    const m = new Map<string, Params>();
    for (const p of list) {
      const key = JSON.stringify(
        Object.fromEntries(mergeKeys.map((k) => [k, lookupKey(p, k, ctx.goTemplate) ?? null])),
      );
      if (m.has(key))
        throw new TemplateError(
          `${where}.merge.generators[${i}]: param set is not unique by merge keys. Duplicate key was ${key}`,
        );
      m.set(key, p);
    }
    return m;
  };
  const base = byKey(sets[0]!, 0);
  for (let i = 1; i < sets.length; i++) {
    const over = byKey(sets[i]!, i);
    for (const [k, p] of base) {
      const o = over.get(k);
      if (o) base.set(k, ctx.goTemplate ? deepMerge(p, o) : { ...p, ...o });
    }
  }
  return [...base.values()];
}

/** A merge key: a flat name, or (goTemplate) a dotted path into the tree. */
function lookupKey(p: Params, key: string, goTemplate: boolean): unknown {
  if (key in p) return p[key];
  if (!goTemplate) return undefined;
  let cur: unknown = p;
  for (const part of key.split('.')) cur = isMap(cur) ? cur[part] : undefined;
  return cur;
}

function childGenerator(g: unknown, where: string): Json {
  if (!isMap(g)) throw new TemplateError(`${where}: must be an object`);
  return g;
}

/** The second matrix generator rendered with the first's params (Argo CD InterpolateGenerator), `values` and `template` excepted. */
function interpolateGenerator(gen: Json, params: Params, ctx: GeneratorContext): Json {
  const walk = (v: unknown, key: string): unknown => {
    if (key === 'values' || key === 'template') return v;
    if (typeof v === 'string') return renderString(v, params, ctx.goTemplate, ctx.goTemplateOptions);
    if (Array.isArray(v)) return v.map((x) => walk(x, ''));
    if (isMap(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(gen, '') as Json;
}

/**
 * Fields of an Application template that are pointers in Argo CD's Go types: set to false or 0 they are
 * not empty, so a generator's own template keeps them (SyncPolicyAutomated.Enabled *bool,
 * ApplicationSpec.RevisionHistoryLimit *int64, Backoff.Factor *int64).
 */
const POINTER_FIELDS = new Set(['enabled', 'revisionHistoryLimit', 'factor']);

/** Go's zero value as mergo's isEmptyValue sees a template field: false, 0, "", null, an empty list or map. */
function isGoEmpty(key: string, v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isMap(v)) return Object.keys(v).length === 0;
  if (POINTER_FIELDS.has(key)) return false;
  return v === false || v === 0;
}

/**
 * Argo CD's mergeGeneratorTemplate: `mergo.Merge(generator's own template, the set's template)` without
 * override, so the generator's template wins where it sets a value, and every field it leaves empty in
 * Go's sense (false, 0, "", an empty list; nested structs and maps field by field) is filled from the
 * set's template. `automated: {prune: false}` in a generator's template over `prune: true` in the set's
 * gives true, as in Argo CD.
 */
export function mergeGeneratorTemplate(own: Json, setTemplate: Json): Json {
  const out: Json = { ...own };
  for (const [k, v] of Object.entries(setTemplate)) {
    const cur = out[k];
    if (isMap(cur) && isMap(v)) out[k] = mergeGeneratorTemplate(cur, v);
    else if (isGoEmpty(k, cur)) out[k] = v;
  }
  return out;
}

/** mergo.Merge(dst, src, WithOverride): maps merged deeply, src's non-empty values win. */
export function deepMerge(dst: Json, src: Json): Json {
  const out: Json = { ...dst };
  for (const [k, v] of Object.entries(src)) {
    const cur = out[k];
    if (isMap(cur) && isMap(v)) out[k] = deepMerge(cur, v);
    else if (v !== undefined && v !== null && v !== '') out[k] = v;
    else if (!(k in out)) out[k] = v;
  }
  return out;
}

function flattenForSelector(p: Params, goTemplate: boolean): Record<string, string> {
  if (!goTemplate) return Object.fromEntries(Object.entries(p).map(([k, v]) => [k, String(v)]));
  return flatten(p);
}

/** A metav1.LabelSelector (matchLabels, matchExpressions In/NotIn/Exists/DoesNotExist) as a predicate. */
export function labelSelector(sel: unknown, where: string): (labels: Record<string, string>) => boolean {
  if (sel === undefined || sel === null) return () => true;
  if (!isMap(sel)) throw new TemplateError(`${where}: must be a label selector`);
  const reqs: ((l: Record<string, string>) => boolean)[] = [];
  if (sel['matchLabels'] !== undefined) {
    if (!isMap(sel['matchLabels'])) throw new TemplateError(`${where}.matchLabels: must be a map`);
    for (const [k, v] of Object.entries(sel['matchLabels'])) reqs.push((l) => l[k] === String(v));
  }
  const exprs = sel['matchExpressions'] ?? [];
  if (!Array.isArray(exprs)) throw new TemplateError(`${where}.matchExpressions: must be a list`);
  exprs.forEach((e, i) => {
    if (!isMap(e) || typeof e['key'] !== 'string')
      throw new TemplateError(`${where}.matchExpressions[${i}]: needs key and operator`);
    const key = e['key'];
    const values = new Set((Array.isArray(e['values']) ? e['values'] : []).map(String));
    switch (e['operator']) {
      case 'In':
        reqs.push((l) => l[key] !== undefined && values.has(l[key]));
        break;
      case 'NotIn':
        reqs.push((l) => l[key] === undefined || !values.has(l[key]));
        break;
      case 'Exists':
        reqs.push((l) => key in l);
        break;
      case 'DoesNotExist':
        reqs.push((l) => !(key in l));
        break;
      default:
        throw new TemplateError(
          `${where}.matchExpressions[${i}]: unknown operator "${String(e['operator'])}"`,
        );
    }
  });
  return (l) => reqs.every((r) => r(l));
}

export { renderTree };
