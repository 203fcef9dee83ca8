/**
 * What the ApplicationSet generators share (the rules: ../generators.ts): the generator context and cluster
 * types, `values` rendering, parameter flattening as Go prints it, and label selectors over parameters.
 */
import type { Params } from '../template.js';
import { renderString, TemplateError } from '../template.js';

export type Json = Record<string, unknown>;

export const isMap = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

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

/** What the SCM generators need from their host (the ApplicationSet controller). */
export interface ScmAccess {
  /** The value of `key` of Secret `name` in the ApplicationSet's namespace (Argo CD's wording on errors). */
  secret(name: string, key: string): Promise<string>;
  /**
   * Key `key` of ConfigMap `name` in the ApplicationSet's namespace (GitLab's `caRef`; utils.GetConfigMapData's
   * wording on errors). Without it `caRef` is an error.
   */
  configMap?: ((name: string, key: string) => Promise<string>) | undefined;
  /** `--scm-root-ca-path`'s PEM: the CAs GitLab's API is verified with (in place of the system's). */
  rootCA?: string | undefined;
  /** `--allowed-scm-providers`: the custom API URLs allowed (empty: all). */
  allowedProviders?: readonly string[] | undefined;
  /** Environment tokens (GITHUB_TOKEN, GITLAB_TOKEN); default process.env. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  fetch?: typeof fetch | undefined;
}

export interface GeneratorContext {
  goTemplate: boolean;
  goTemplateOptions: readonly string[];
  /**
   * Cluster Secrets (only called when a clusters generator is used): every one, in list order, unmerged,
   * and the in-cluster entry; the generator picks by selector, keys by name and decides on in-cluster as
   * Argo CD's does.
   */
  clusters(): Promise<AppSetCluster[]>;
  /** A directory holding the tree of `repoURL` at `revision` (the revision being rendered). */
  checkout(repoURL: string, revision: string): Promise<string>;
  /** The pull request and SCM provider generators' access (the controller's); unset: they are errors. */
  scm?: ScmAccess | undefined;
}

/** `values` of a generator, rendered with each set's params (Argo CD appendTemplatedValues). */
export function appendValues(values: unknown, params: Params, ctx: GeneratorContext, where: string): void {
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

/** Flattens nested maps and lists with dots (`a.b`, `list.0`), values printed as Go's %v. */
export function flatten(obj: Json, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isMap(v)) flatten(v, key, out);
    else if (Array.isArray(v))
      v.forEach((x, i) => (isMap(x) ? flatten(x, `${key}.${i}`, out) : (out[`${key}.${i}`] = goValue(x))));
    else out[key] = goValue(v);
  }
  return out;
}

export const goValue = (v: unknown): string => (v === null || v === undefined ? '<nil>' : String(v));

export function flattenForSelector(p: Params, goTemplate: boolean): Record<string, string> {
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
