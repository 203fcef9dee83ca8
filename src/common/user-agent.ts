/**
 * The User-Agent of every request to a kube-apiserver, in kubectl's form (client-go rest
 * `DefaultUserAgent`: `<command>/<version> (<GOOS>/<GOARCH>) kubernetes/<commit>`, e.g.
 * `kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9`): `kubectl-gitops/v0.1.0 (linux/amd64)`, so cluster
 * admins find our requests in audit logs. We have no build commit, so that part is left out.
 *
 * The version is the package's, set once by the command (`setClientVersion`, from oclif's config) before
 * it talks to a cluster; until then it is client-go's "unknown" version, v0.0.0. kube-apiserver takes the
 * part before the first "/" as the field manager of a write that names none (`kubectl-gitops`, the same as
 * our default field manager), so the product name must never contain a "/".
 */

/** Go's GOOS for Node's `process.platform` (the ones that differ). */
const GOOS: Record<string, string> = { win32: 'windows', sunos: 'solaris' };
/** Go's GOARCH for Node's `process.arch` (kubectl version prints linux/amd64). */
export const GOARCH: Record<string, string> = {
  x64: 'amd64',
  ia32: '386',
  arm64: 'arm64',
  arm: 'arm',
  ppc64: 'ppc64le',
};

/** The product name, and the default field manager kube-apiserver derives from the User-Agent. */
export const USER_AGENT_PRODUCT = 'kubectl-gitops';

let version = 'v0.0.0';

/** Sets the version the User-Agent carries ("0.1.0" or "v0.1.0"). */
export function setClientVersion(value: string): void {
  version = value.startsWith('v') ? value : `v${value}`;
}

/** `<os>/<arch>` as Go spells them (linux/amd64, darwin/arm64, windows/amd64). */
export function goPlatform(): string {
  return `${GOOS[process.platform] ?? process.platform}/${GOARCH[process.arch] ?? process.arch}`;
}

/** `kubectl-gitops/<version> (<os>/<arch>)`. */
export function userAgent(): string {
  return `${USER_AGENT_PRODUCT}/${version} (${goPlatform()})`;
}
