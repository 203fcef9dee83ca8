/**
 * The environment a config management plugin's commands get, as Argo CD's repo-server builds it
 * (reposerver/repository/repository.go `newEnv`, `getPluginEnvs`, `getPluginParamEnvs`; the types'
 * `Env.Envsubst` and `ApplicationSourcePluginParameters.Environ` in pkg/apis/application/v1alpha1/types.go):
 * 1. the build environment: ARGOCD_APP_NAME (the app's instance name), ARGOCD_APP_NAMESPACE (destination
 *    namespace), ARGOCD_APP_PROJECT_NAME, ARGOCD_APP_REVISION, ARGOCD_APP_REVISION_SHORT (7 characters),
 *    ARGOCD_APP_REVISION_SHORT_8, ARGOCD_APP_SOURCE_REPO_URL, ARGOCD_APP_SOURCE_PATH,
 *    ARGOCD_APP_SOURCE_TARGET_REVISION; then KUBE_VERSION and KUBE_API_VERSIONS (comma-separated);
 * 2. with a `plugin` block: `ARGOCD_ENV_<name>` per `plugin.env` entry, its value with `$VAR`/`${VAR}`
 *    of step 1 expanded as Go's `os.Expand` does (`$$` is a dollar, unknown names are empty; the process
 *    environment is not consulted); then ARGOCD_APP_PARAMETERS, the parameters as Go's encoding/json writes
 *    them ("null" for none), and `PARAM_<NAME>` for a string, `PARAM_<NAME>_<KEY>` per map entry,
 *    `PARAM_<NAME>_<i>` per array item, names upper-cased with every character outside [A-Z0-9_] made "_".
 * Later entries win over earlier ones and over the process environment (Go's exec keeps the last value).
 */
import type { PluginOptions, PluginParameter } from '../../apps/index.js';
import { buildEnv, envsubst } from './env.js';
import type { RenderRequest } from './types.js';

/** A parameter or map key name as an environment variable name part (types.go `escaped`). */
export function escapeParamName(name: string): string {
  let out = '';
  for (const c of name) {
    // Go upper-cases rune by rune (simple case mapping): a multi-character upper case is no letter here.
    const upper = c.toUpperCase();
    out += upper.length === 1 && /[A-Z0-9_]/.test(upper) ? upper : '_';
  }
  return out;
}

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Go encoding/json text of a value: sorted map keys, and <, >, &, U+2028, U+2029 escaped. */
function goJson(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.keys(v)
          .sort(byBytes)
          .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
      );
    return v;
  };
  return JSON.stringify(sorted(value)).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** ARGOCD_APP_PARAMETERS: each parameter as its MarshalJSON writes it (name, and the values present). */
export function parametersJson(parameters: readonly PluginParameter[]): string {
  if (parameters.length === 0) return 'null'; // an empty list arrives as nil through the repo-server's gRPC
  return goJson(
    parameters.map((p) => ({
      name: p.name,
      ...(p.string !== undefined ? { string: p.string } : {}),
      ...(p.map ? { map: p.map } : {}),
      ...(p.array ? { array: p.array } : {}),
    })),
  );
}

/** The plugin's environment entries (see the header), in Argo CD's order. */
export function pluginEnv(
  req: Pick<RenderRequest, 'destNamespace' | 'source' | 'build'>,
  plugin: PluginOptions | undefined,
): [string, string][] {
  const env = Object.entries(buildEnv(req));
  env.push(['KUBE_VERSION', req.build.kubeVersion], ['KUBE_API_VERSIONS', req.build.apiVersions.join(',')]);
  if (!plugin) return env;
  const vars = Object.fromEntries(env);
  for (const e of plugin.env) env.push([`ARGOCD_ENV_${e.name}`, envsubst(e.value, vars)]);
  env.push(['ARGOCD_APP_PARAMETERS', parametersJson(plugin.parameters)]);
  for (const p of plugin.parameters) {
    const base = `PARAM_${escapeParamName(p.name)}`;
    if (p.string !== undefined) env.push([base, p.string]);
    for (const key of Object.keys(p.map ?? {}).sort(byBytes))
      env.push([`${base}_${escapeParamName(key)}`, p.map![key]!]);
    (p.array ?? []).forEach((v, i) => env.push([`${base}_${i}`, v]));
  }
  return env;
}
