/**
 * Where Argo CD's repository credentials come from (src/source/repositories.ts reads them):
 * - `--repositories-file FILE` (repeatable): Secrets labelled `argocd.argoproj.io/secret-type: repository`
 *   or `repo-creds`, and the `argocd-ssh-known-hosts-cm` ConfigMap, as YAML/JSON (multi-document, List or
 *   SecretList, e.g. `kubectl get secret -n argocd -l argocd.argoproj.io/secret-type -o yaml`). Other
 *   objects are skipped; a file holding none of these is an error naming it.
 * - `--from-cluster`: the same objects of the live Argo CD namespace, one LIST of Secrets with the label
 *   selector `argocd.argoproj.io/secret-type in (repository,repo-creds)` and one GET of the ConfigMap
 *   (absent: ssh's own known_hosts files apply). Files come first, then the live objects. A read refused by
 *   RBAC (403) is a warning, not an error (as the cluster Secrets' live read): public repositories still
 *   work, and a private one fails naming its URL.
 * Each object carries its origin ("file.yaml (document 2)", "secret argocd/repo-x") for messages; values
 * are never part of one.
 */
import { GitopsError, oneLine, UsageError } from '../common/index.js';
import { describeSource, readKubeObjects, type KubeObject } from '../util/yaml-docs.js';
import { withLiveConnection } from './cluster.js';

const SECRET_TYPE_LABEL = 'argocd.argoproj.io/secret-type';
const KNOWN_HOSTS_CM = 'argocd-ssh-known-hosts-cm';

export interface RepositorySourceObject {
  object: KubeObject;
  origin: string;
}

function isRepositoryInput(object: KubeObject): boolean {
  if (object.kind === 'ConfigMap') return object.metadata?.name === KNOWN_HOSTS_CM;
  const type = object.metadata?.labels?.[SECRET_TYPE_LABEL];
  return object.kind === 'Secret' && (type === 'repository' || type === 'repo-creds');
}

/** A repository Secret without `url` matches no repository: worth a warning naming it. */
function warnWithoutURL(objects: RepositorySourceObject[], onWarning?: (message: string) => void): void {
  for (const { object, origin } of objects) {
    if (object.kind !== 'Secret') continue;
    const data = object['data'] as Record<string, unknown> | undefined;
    const stringData = object['stringData'] as Record<string, unknown> | undefined;
    if (!data?.['url'] && !stringData?.['url'])
      onWarning?.(`${origin}: repository Secret without url: it matches no repository`);
  }
}

/** The repository Secrets and known-hosts ConfigMap of `files`. */
export async function loadRepositoryFiles(
  files: readonly string[],
  onWarning?: (message: string) => void,
): Promise<RepositorySourceObject[]> {
  const out: RepositorySourceObject[] = [];
  for (const file of files) {
    const found = (await readKubeObjects(file)).filter((s) => isRepositoryInput(s.object));
    if (found.length === 0)
      throw new UsageError(
        `failed to read repositories: no Secret labelled ${SECRET_TYPE_LABEL}: repository or repo-creds, and no ${KNOWN_HOSTS_CM}`,
        { subject: file },
      );
    for (const s of found) out.push({ object: s.object, origin: describeSource(s) });
  }
  warnWithoutURL(out, onWarning);
  return out;
}

export interface LiveRepositoriesOptions {
  namespace: string;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  requestTimeoutMs?: number | undefined;
  /** A refused read (403). */
  onWarning?: (message: string) => void;
}

/** The repository Secrets and known-hosts ConfigMap of the live Argo CD namespace. */
export async function readLiveRepositories(
  options: LiveRepositoriesOptions,
): Promise<RepositorySourceObject[]> {
  const subject = `namespace ${options.namespace}`;
  const secrets = {
    group: '',
    version: 'v1',
    kind: 'Secret',
    plural: 'secrets',
    namespaced: true,
    verbs: ['list'],
  };
  const configMaps = { ...secrets, kind: 'ConfigMap', plural: 'configmaps', verbs: ['get'] };
  try {
    return await withLiveConnection(options, async (conn, cluster) => {
      const forbidden = (err: unknown, what: string): boolean => {
        if (!(err instanceof cluster.ApiError) || err.code !== 403) return false;
        options.onWarning?.(
          `${subject}: cannot read ${what} (forbidden): private repositories fail without their credentials`,
        );
        return true;
      };
      let items: KubeObject[] = [];
      try {
        items = await conn.client.listAll(secrets, {
          namespace: options.namespace,
          labelSelector: `${SECRET_TYPE_LABEL} in (repository,repo-creds)`,
        });
      } catch (err) {
        if (!forbidden(err, 'repository Secrets')) throw err;
      }
      const out: RepositorySourceObject[] = items.map((item) => ({
        object: { apiVersion: 'v1', kind: 'Secret', ...item },
        origin: `secret ${options.namespace}/${item.metadata?.name ?? '?'}`,
      }));
      try {
        const cm = await conn.client.get(configMaps, options.namespace, KNOWN_HOSTS_CM);
        out.push({
          object: { apiVersion: 'v1', kind: 'ConfigMap', ...cm },
          origin: `configmap ${options.namespace}/${KNOWN_HOSTS_CM}`,
        });
      } catch (err) {
        if (!cluster.isNotFound(err) && !forbidden(err, KNOWN_HOSTS_CM)) throw err;
      }
      warnWithoutURL(out, options.onWarning);
      return out;
    });
  } catch (err) {
    // The API error already names the request and keeps its code (RBAC refusals get their hint).
    if (err instanceof GitopsError) throw err;
    throw new GitopsError(`failed to read repository Secrets: ${oneLine(err)}`, { subject, cause: err });
  }
}
