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
 * - `pullRequest` and `scmProvider` (GitHub, GitLab; generators/scm.ts) when the context gives SCM access
 *   (the controller does; local previews do not).
 * Unsupported generators (clusterDecisionResource, plugin; scmProvider and pullRequest without SCM access)
 * are errors naming them. `requeueAfterMs(generator)`: when the controller generates again (Argo CD
 * GetRequeueAfter). Output order is stable: directories and files sorted, clusters by name, in-cluster last.
 *
 * Layout: this file runs a generator entry (list, clusters, matrix, merge, selectors); generators/git.ts is
 * the git generator, generators/params.ts what they share, generators/mergo.ts the template merge rules.
 */
import { parseAllDocuments } from 'yaml';
import type { Params } from './template.js';
import { renderString, renderTree, sanitizeName, TemplateError } from './template.js';
import { gitParams } from './generators/git.js';
import { pullRequestParams, SCM_DEFAULT_REQUEUE_MS } from './generators/scm.js';
import { scmProviderParams } from './generators/scm-provider.js';
import { deepMerge } from './generators/mergo.js';
import type { AppSetCluster, Json, GeneratorContext } from './generators/params.js';
import { isMap, appendValues, flattenForSelector, labelSelector } from './generators/params.js';

export type { AppSetCluster, GeneratorContext, ScmAccess } from './generators/params.js';
export { labelSelector } from './generators/params.js';
export { goPathMatch } from './generators/git.js';
export { deepMerge, mergeGeneratorTemplate } from './generators/mergo.js';
export { renderTree };

const UNSUPPORTED = ['scmProvider', 'pullRequest', 'clusterDecisionResource', 'plugin'];
const GIT_DEFAULT_REQUEUE_MS = 3 * 60_000;

/** Parameter sets of one generator entry (`spec.generators[i]` or a matrix/merge child). */
export async function generateParams(gen: Json, ctx: GeneratorContext, where: string): Promise<Params[]> {
  let sets: Params[];
  if (isMap(gen['list'])) sets = listParams(gen['list'], ctx, where);
  else if (isMap(gen['clusters'])) sets = await clusterParams(gen['clusters'], ctx, where);
  else if (isMap(gen['git'])) sets = await gitParams(gen['git'], ctx, where);
  else if (isMap(gen['matrix'])) sets = await matrixParams(gen['matrix'], ctx, where);
  else if (isMap(gen['merge'])) sets = await mergeParams(gen['merge'], ctx, where);
  else if (isMap(gen['pullRequest']) && ctx.scm)
    sets = await pullRequestParams(gen['pullRequest'], ctx, where);
  else if (isMap(gen['scmProvider']) && ctx.scm)
    sets = await scmProviderParams(gen['scmProvider'], ctx, where);
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

/**
 * Annotations of a cluster Secret that are not parameters (cluster.go `excludedClusterAnnotations`): Argo
 * CD's or kubectl's own state, or one-shot triggers; copied into an Application they loop or leak the
 * Secret's data (`kubectl apply`'s last-applied-configuration holds it).
 */
const EXCLUDED_CLUSTER_ANNOTATIONS = new Set([
  'argocd.argoproj.io/refresh',
  'argocd.argoproj.io/refresh-timestamp',
  'argocd.argoproj.io/hydrate',
  'argocd.argoproj.io/hydrate-timestamp',
  'argocd.argoproj.io/tracking-id',
  'argocd.argoproj.io/installation-id',
  'kubectl.kubernetes.io/last-applied-configuration',
]);

async function clusterParams(spec: Json, ctx: GeneratorContext, where: string): Promise<Params[]> {
  const selector = spec['selector'];
  const hasSelector =
    isMap(selector) &&
    ((isMap(selector['matchLabels']) && Object.keys(selector['matchLabels']).length > 0) ||
      (Array.isArray(selector['matchExpressions']) && selector['matchExpressions'].length > 0));
  const matches = hasSelector ? labelSelector(selector, `${where}.clusters.selector`) : () => true;
  // Argo CD (applicationset/generators/cluster.go): the Secrets the selector matches, keyed by data.name
  // (the later one wins), then in-cluster unless there is a selector or one of them has its exact server.
  const byName = new Map<string, AppSetCluster>();
  let inCluster: AppSetCluster | undefined;
  for (const c of await ctx.clusters()) {
    if (c.inCluster) inCluster = c;
    else if (matches(c.labels)) byName.set(c.name, c);
  }
  const clusters = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // In-cluster last, as Argo CD appends it (the Secrets' own order is Go's map order there; sorted here).
  if (inCluster && !hasSelector && !clusters.some((c) => c.server === inCluster.server))
    clusters.push(inCluster);
  const out: Params[] = [];
  for (const c of clusters) {
    const params: Params = {
      name: c.name,
      nameNormalized: c.inCluster ? c.name : sanitizeName(c.name),
      server: c.server,
      project: c.project ?? '',
    };
    if (!c.inCluster) {
      const annotations = Object.fromEntries(
        Object.entries(c.annotations).filter(([k]) => !EXCLUDED_CLUSTER_ANNOTATIONS.has(k)),
      );
      if (ctx.goTemplate) {
        const meta: Json = {};
        // Present whenever the Secret has annotations, even if all were left out (as Argo CD gates it).
        if (Object.keys(c.annotations).length > 0) meta['annotations'] = annotations;
        if (Object.keys(c.labels).length > 0) meta['labels'] = c.labels;
        params['metadata'] = meta;
      } else {
        for (const [k, v] of Object.entries(annotations)) params[`metadata.annotations.${k}`] = v;
        for (const [k, v] of Object.entries(c.labels)) params[`metadata.labels.${k}`] = v;
      }
    }
    appendValues(spec['values'], params, ctx, `${where}.clusters`);
    out.push(params);
  }
  return spec['flatList'] === true ? [{ clusters: out }] : out;
}

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

const seconds = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v * 1000 : undefined;

/**
 * When Argo CD's ApplicationSet controller generates a set again for this generator entry (each
 * generator's GetRequeueAfter; 0 = never, by time): list and clusters 0 (cluster Secret events requeue
 * instead), git `requeueAfterSeconds` or 3 minutes, pullRequest / scmProvider `requeueAfterSeconds` or 30
 * minutes, clusterDecisionResource `requeueAfterSeconds` or 3 minutes, matrix and merge the smallest
 * non-zero of their children.
 */
export function requeueAfterMs(gen: unknown): number {
  if (!isMap(gen)) return 0;
  if (isMap(gen['git'])) return seconds(gen['git']['requeueAfterSeconds']) ?? GIT_DEFAULT_REQUEUE_MS;
  if (isMap(gen['pullRequest']))
    return seconds(gen['pullRequest']['requeueAfterSeconds']) ?? SCM_DEFAULT_REQUEUE_MS;
  if (isMap(gen['scmProvider']))
    return seconds(gen['scmProvider']['requeueAfterSeconds']) ?? SCM_DEFAULT_REQUEUE_MS;
  if (isMap(gen['clusterDecisionResource']))
    return seconds(gen['clusterDecisionResource']['requeueAfterSeconds']) ?? GIT_DEFAULT_REQUEUE_MS;
  if (isMap(gen['plugin'])) return seconds(gen['plugin']['requeueAfterSeconds']) ?? 30 * 60_000;
  for (const k of ['matrix', 'merge']) {
    const inner = gen[k];
    if (!isMap(inner) || !Array.isArray(inner['generators'])) continue;
    let res = 0;
    for (const child of inner['generators']) {
      const t = requeueAfterMs(child);
      if (t !== 0 && (res === 0 || t < res)) res = t;
    }
    return res;
  }
  return 0;
}

/** Whether a generator entry uses the clusters generator (directly or in a matrix / merge): cluster Secret events requeue it. */
export function usesClusters(gen: unknown): boolean {
  if (!isMap(gen)) return false;
  if (isMap(gen['clusters'])) return true;
  for (const k of ['matrix', 'merge']) {
    const inner = gen[k];
    if (isMap(inner) && Array.isArray(inner['generators']) && inner['generators'].some(usesClusters))
      return true;
  }
  return false;
}
