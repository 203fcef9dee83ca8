/**
 * Argo CD's repository Secrets and credential templates, and which one applies to a repository URL, as
 * Argo CD 3.x decides (util/db/repository.go, util/db/repository_secrets.go,
 * pkg/apis/application/v1alpha1/repository_types.go). Rules (docs/repositories.md):
 * - A Secret labelled `argocd.argoproj.io/secret-type: repository` is one repository (`url` + settings and
 *   credentials); `repo-creds` is a credential template (`url` is a prefix). `repository-write` and
 *   `repo-write-creds` (the commit server's) are ignored. Values come from `data` (base64) with `stringData`
 *   over it, as the API server stores a manifest written by hand.
 * - Repository lookup for (url, project) (secretsRepositoryBackend.getRepositorySecret): the first Secret
 *   whose `url` is the same repository (`normalizeGitURL`, git.SameURL) and whose `project` equals the app's
 *   project; else the last matching Secret without `project`; else a bare repository with no settings.
 * - When that repository carries no credential (Repository.HasCredentials), the template whose normalised
 *   `url` is the longest prefix of the normalised repository URL lends its credentials, proxy and type
 *   (db.enrichCredsToRepo, getRepositoryCredentialIndex, Repository.CopyCredentialsFrom).
 * - The `argocd-ssh-known-hosts-cm` ConfigMap (key `ssh_known_hosts`) among the objects is the known-hosts
 *   list for SSH repositories.
 * Malformed booleans and integers are errors naming the Secret, as Argo CD's boolOrFalse/intOrZero.
 * Nothing here logs or prints a value: `describe` names a Secret by its origin only.
 */
import { GitopsError, UsageError } from '../common/index.js';
import type { KubeObject } from '../util/yaml-docs.js';
import { normalizeGitURL } from './url.js';

export const SECRET_TYPE_LABEL = 'argocd.argoproj.io/secret-type';
export const SSH_KNOWN_HOSTS_CM = 'argocd-ssh-known-hosts-cm';

/** The credential-bearing settings of a repository (Argo CD's Repository / RepoCreds fields we use). */
export interface RepoCredentials {
  /** The repository URL (a prefix for templates). */
  url: string;
  /** "git" (default), "helm" or "oci". */
  type: string;
  /** The repository's `name` (Helm dependencies may name a repository `@name`). */
  name: string;
  project: string;
  username: string;
  password: string;
  bearerToken: string;
  sshPrivateKey: string;
  tlsClientCertData: string;
  tlsClientCertKey: string;
  insecure: boolean;
  insecureIgnoreHostKey: boolean;
  forceHttpBasicAuth: boolean;
  /** Helm: the repository is an OCI registry (`enableOCI`), reached over plain HTTP (`insecureOCIForceHttp`). */
  enableOCI: boolean;
  insecureOCIForceHttp: boolean;
  proxy: string;
  noProxy: string;
  githubAppPrivateKey: string;
  githubAppID: number;
  githubAppInstallationID: number;
  githubAppEnterpriseBaseUrl: string;
  /** Where the settings came from ("secret argocd/repo-x", "file.yaml (document 2)", ...): for messages. */
  origin: string;
  /** The origins of the credentials when they came from a template. */
  inheritedFrom?: string;
}

/** Repository.HasCredentials (the Azure/GCP forms are not supported here: see docs/repositories.md). */
export function hasCredentials(r: RepoCredentials): boolean {
  return Boolean(
    r.username ||
    r.password ||
    r.bearerToken ||
    r.sshPrivateKey ||
    r.tlsClientCertData ||
    r.githubAppPrivateKey,
  );
}

/** A short, secret-free identity of the credentials in effect (keys the per-run git state). */
export function credentialsId(r: RepoCredentials | undefined): string {
  return r ? `${r.origin}${r.inheritedFrom ? ` + ${r.inheritedFrom}` : ''}` : '';
}

/** One input object and where it came from. */
export interface RepositoryObject {
  object: KubeObject;
  origin: string;
}

function decode(secret: KubeObject, origin: string): Record<string, string> {
  const out: Record<string, string> = {};
  const data = (secret['data'] ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(data)) {
    if (v === null || v === undefined) continue;
    if (typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v.replace(/\s+/g, '')))
      throw new UsageError(`failed to read repository Secret: data.${k} is not base64`, { subject: origin });
    out[k] = Buffer.from(v, 'base64').toString('utf8');
  }
  const stringData = (secret['stringData'] ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(stringData)) {
    if (v === null || v === undefined) continue;
    out[k] = String(v);
  }
  return out;
}

function boolOrFalse(d: Record<string, string>, key: string, origin: string): boolean {
  const v = d[key];
  if (v === undefined || v === '') return false;
  // Go's strconv.ParseBool.
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  throw new UsageError(`failed to read repository Secret: ${key} "${v}" is not a boolean`, {
    subject: origin,
  });
}

function intOrZero(d: Record<string, string>, key: string, origin: string): number {
  const v = d[key];
  if (v === undefined || v === '') return 0;
  if (!/^[+-]?\d+$/.test(v))
    throw new UsageError(`failed to read repository Secret: ${key} "${v}" is not an integer`, {
      subject: origin,
    });
  return Number(v);
}

function toCredentials(d: Record<string, string>, origin: string): RepoCredentials {
  return {
    url: d['url'] ?? '',
    type: d['type'] ?? '',
    name: d['name'] ?? '',
    project: d['project'] ?? '',
    username: d['username'] ?? '',
    password: d['password'] ?? '',
    bearerToken: d['bearerToken'] ?? '',
    sshPrivateKey: d['sshPrivateKey'] ?? '',
    tlsClientCertData: d['tlsClientCertData'] ?? '',
    tlsClientCertKey: d['tlsClientCertKey'] ?? '',
    insecure: boolOrFalse(d, 'insecure', origin),
    insecureIgnoreHostKey: boolOrFalse(d, 'insecureIgnoreHostKey', origin),
    forceHttpBasicAuth: boolOrFalse(d, 'forceHttpBasicAuth', origin),
    enableOCI: boolOrFalse(d, 'enableOCI', origin),
    insecureOCIForceHttp: boolOrFalse(d, 'insecureOCIForceHttp', origin),
    proxy: d['proxy'] ?? '',
    noProxy: d['noProxy'] ?? '',
    githubAppPrivateKey: d['githubAppPrivateKey'] ?? '',
    githubAppID: intOrZero(d, 'githubAppID', origin),
    githubAppInstallationID: intOrZero(d, 'githubAppInstallationID', origin),
    githubAppEnterpriseBaseUrl: d['githubAppEnterpriseBaseUrl'] ?? '',
    origin,
  };
}

/** Repository.CopyCredentialsFrom(RepoCreds): fills what the repository leaves empty. */
function inherit(repo: RepoCredentials, creds: RepoCredentials): RepoCredentials {
  const r = { ...repo, inheritedFrom: creds.origin };
  for (const k of [
    'username',
    'password',
    'bearerToken',
    'sshPrivateKey',
    'tlsClientCertData',
    'tlsClientCertKey',
    'githubAppPrivateKey',
    'githubAppEnterpriseBaseUrl',
    'proxy',
    'noProxy',
    'type',
  ] as const)
    if (!r[k]) r[k] = creds[k];
  if (!r.githubAppID) r.githubAppID = creds.githubAppID;
  // RepoCreds' OCI flags (getHelmRepos copies them from the template for a dependency).
  r.enableOCI ||= creds.enableOCI;
  r.insecureOCIForceHttp ||= creds.insecureOCIForceHttp;
  if (!r.githubAppInstallationID) r.githubAppInstallationID = creds.githubAppInstallationID;
  r.forceHttpBasicAuth = creds.forceHttpBasicAuth;
  return r;
}

/** The repositories, credential templates and SSH known hosts of a run. */
export class RepositoryStore {
  readonly repositories: RepoCredentials[] = [];
  readonly templates: RepoCredentials[] = [];
  /** The `ssh_known_hosts` text of argocd-ssh-known-hosts-cm, when given. */
  knownHosts: string | undefined;

  /** Reads the Secrets and ConfigMap among `objects`; other objects are ignored. */
  constructor(objects: readonly RepositoryObject[] = []) {
    for (const { object, origin } of objects) {
      const labels = object.metadata?.labels ?? {};
      if (object.kind === 'ConfigMap' && object.metadata?.name === SSH_KNOWN_HOSTS_CM) {
        const text = (object['data'] as Record<string, unknown> | undefined)?.['ssh_known_hosts'];
        if (typeof text === 'string')
          this.knownHosts = (this.knownHosts ? `${this.knownHosts}\n` : '') + text;
        continue;
      }
      if (object.kind !== 'Secret') continue;
      const type = labels[SECRET_TYPE_LABEL];
      if (type !== 'repository' && type !== 'repo-creds') continue;
      const creds = toCredentials(decode(object, origin), origin);
      // Without url it matches nothing (Argo CD's lookup compares urls); src/apps warns about it.
      if (!creds.url) continue;
      (type === 'repository' ? this.repositories : this.templates).push(creds);
    }
  }

  get size(): number {
    return this.repositories.length + this.templates.length;
  }

  /**
   * The URLs of the repository Secrets scoped to `project` (db.GetProjectRepositories: `repository`
   * Secrets whose `project` is the name; credential templates never are), in Secret order.
   */
  projectRepositories(project: string): string[] {
    return this.repositories.filter((r) => r.project !== '' && r.project === project).map((r) => r.url);
  }

  /**
   * The settings and credentials Argo CD uses for `url` in `project` (db.GetRepository), or undefined when
   * neither a repository Secret nor a template matches.
   */
  lookup(url: string, project: string): RepoCredentials | undefined {
    const want = normalizeGitURL(url);
    let repo: RepoCredentials | undefined;
    let fallback: RepoCredentials | undefined;
    for (const r of this.repositories) {
      if (!want || normalizeGitURL(r.url) !== want) continue;
      if (r.project === project) {
        repo = r;
        break;
      }
      if (!r.project) fallback = r;
    }
    repo ??= fallback;
    if (repo && hasCredentials(repo)) return repo;
    const template = this.template(url);
    if (!template) return repo;
    return inherit(repo ?? { ...toCredentials({ url }, `repository ${url}`), origin: '' }, template);
  }

  /** The repository Secret named `name` (its `name` field) for `project`, as lookup picks among URLs. */
  byName(name: string, project: string): RepoCredentials | undefined {
    const named = this.repositories.filter((r) => r.name === name);
    return named.find((r) => r.project === project) ?? named.findLast((r) => !r.project);
  }

  /** The credential template with the longest matching URL prefix (getRepositoryCredentialIndex). */
  private template(url: string): RepoCredentials | undefined {
    const want = normalizeGitURL(url);
    let best: RepoCredentials | undefined;
    let max = 0;
    for (const t of this.templates) {
      const prefix = normalizeGitURL(t.url);
      if (!want.startsWith(prefix)) continue;
      if (prefix.length > max) {
        max = prefix.length;
        best = t;
      }
    }
    return best;
  }
}

/** Whether an object is one `RepositoryStore` reads (for readers that filter a folder of manifests). */
export function isRepositoryObject(object: KubeObject): boolean {
  if (object.kind === 'ConfigMap') return object.metadata?.name === SSH_KNOWN_HOSTS_CM;
  const type = object.metadata?.labels?.[SECRET_TYPE_LABEL];
  return object.kind === 'Secret' && (type === 'repository' || type === 'repo-creds');
}

/** An error about a repository's credentials: names the repository (no value), exit 2 via SourceError. */
export class CredentialsError extends GitopsError {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'CredentialsError';
  }
}
