/**
 * The build environment Argo CD's repo-server gives renderers (`reposerver/repository/repository.go newEnv`)
 * and its `${VAR}` substitution (`v1alpha1.Env.Envsubst`: Go's os.Expand over those variables only, unknown
 * ones empty, `$$` for a literal `$`).
 */
import type { RenderRequest } from './types.js';

/** The build environment of a render (repository.go `newEnv`), in Argo CD's order. */
export function buildEnv(
  req: Pick<RenderRequest, 'destNamespace' | 'source' | 'build'>,
): Record<string, string> {
  const revision = req.build.revision;
  return {
    ARGOCD_APP_NAME: req.build.instanceName,
    ARGOCD_APP_NAMESPACE: req.destNamespace,
    ARGOCD_APP_PROJECT_NAME: req.build.project,
    ARGOCD_APP_REVISION: revision,
    ARGOCD_APP_REVISION_SHORT: revision.slice(0, 7),
    ARGOCD_APP_REVISION_SHORT_8: revision.slice(0, 8),
    ARGOCD_APP_SOURCE_REPO_URL: req.source.repoURL,
    ARGOCD_APP_SOURCE_PATH: req.source.path,
    ARGOCD_APP_SOURCE_TARGET_REVISION: req.source.targetRevision,
  };
}

const isNameChar = (c: string) => /[A-Za-z0-9_]/.test(c);
const isSpecial = (c: string) => /[*#$@!?\-0-9]/.test(c);

/** Go's os.Expand(s, lookup) with `$$` -> `$` and unknown names -> "". */
export function envsubst(s: string, env: Readonly<Record<string, string>>): string {
  const lookup = (name: string) => (name === '$' ? '$' : (env[name] ?? ''));
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c !== '$' || i + 1 >= s.length) {
      out += c;
      i++;
      continue;
    }
    const next = s[i + 1]!;
    if (next === '{') {
      const end = s.indexOf('}', i + 2);
      if (end < 0 || end === i + 2) {
        // Go: a bad "${" expansion eats the "${" (and an empty "${}" yields nothing).
        i = end < 0 ? i + 2 : end + 1;
        continue;
      }
      out += lookup(s.slice(i + 2, end));
      i = end + 1;
    } else if (isSpecial(next)) {
      out += lookup(next);
      i += 2;
    } else if (isNameChar(next)) {
      let j = i + 1;
      while (j < s.length && isNameChar(s[j]!)) j++;
      out += lookup(s.slice(i + 1, j));
      i = j;
    } else {
      // "$" followed by anything else stays as it is.
      out += c;
      i++;
    }
  }
  return out;
}

/** Argo CD's parseKubeVersion (apimachinery ParseGeneric, then String()): "v1.29.3+k3s1" -> "1.29.3". */
export function parseKubeVersion(version: string): string {
  if (!version) return '';
  const m = /^\s*v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(version);
  if (!m) throw new Error(`could not parse kubernetes version ${version}`);
  return [m[1], m[2], m[3]]
    .filter((x) => x !== undefined)
    .map((x) => String(Number(x)))
    .join('.');
}

/**
 * The kube version and API versions a Helm or kustomize render gets (repository.go helmTemplate and the
 * kustomize Build call): the source's `helm.kubeVersion`, else `kustomize.kubeVersion`, else the cluster's
 * (`GetKubeVersionOrDefault`), read by `parseKubeVersion`; `helm.apiVersions`, else `kustomize.apiVersions`,
 * else the cluster's (`GetAPIVersionsOrDefault`).
 */
export function kubeFacts(req: Pick<RenderRequest, 'source' | 'build'>): {
  kubeVersion: string;
  apiVersions: readonly string[];
} {
  const s = req.source;
  const kubeVersion = parseKubeVersion(
    s.helm?.kubeVersion || s.kustomize?.kubeVersion || req.build.kubeVersion,
  );
  const apiVersions = s.helm?.apiVersions.length
    ? s.helm.apiVersions
    : s.kustomize?.apiVersions.length
      ? s.kustomize.apiVersions
      : req.build.apiVersions;
  return { kubeVersion, apiVersions };
}
