/**
 * `applicationSummary`: Argo CD's `status.summary` (pkg/apis/application/v1alpha1/types.go
 * `ApplicationTree.GetSummary`) from the nodes of the app's resource tree (its managed live objects and
 * their descendants by ownerReferences: src/cluster resource-tree.ts), reading of each node what
 * controller/cache/info.go `populateNodeInfo` reads:
 * - images: the init-container and container images of the Pods among the nodes (`populatePodInfo`).
 *   Only live Pods count: Argo CD reads no Pod template, so an app whose workloads have no Pods has none,
 *   and during a rollout both the old and the new Pods' images are listed.
 * - externalURLs: every node's `link.argocd.argoproj.io/*` annotations whose URL (the part after "|", if
 *   any) is empty or http(s) (`settings.ValidateExternalURL`); the Application's own link annotations as
 *   they are (GetSummary does not check them); Ingress rules' hosts (a rule without host takes the first
 *   load balancer hostname or IP), one URL per path: `https://` when any TLS entry has a `secretName`,
 *   else `http://` (populateIngressInfo compares the rule's host to a TLS entry's `hosts` through a type
 *   that never matches a list, so only `secretName` counts), the path with a trailing `*` removed; none
 *   when `argocd.argoproj.io/ignore-default-links` parses as true (Go's strconv.ParseBool). Services add
 *   only their link annotations. Gateway API Gateways (`populateGatewayInfo`): per listener, its
 *   hostname (unless empty or `*`; then each `status.addresses` value of type Hostname, IPAddress or
 *   none), `https://` for protocol HTTPS or TLS, else `http://`, with `:port` unless 80 / 443; the same
 *   ignore annotation.
 * - isAppOfApps: one of the nodes is an argoproj.io Application.
 * Lists are deduplicated and sorted.
 */
import type { KubeObject } from '../util/yaml-docs.js';

export const LINK_ANNOTATION_PREFIX = 'link.argocd.argoproj.io/';
const IGNORE_DEFAULT_LINKS = 'argocd.argoproj.io/ignore-default-links';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const at = (o: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((v, k) => (isObj(v) ? v[k] : undefined), o);

function groupOf(obj: KubeObject): string {
  const v = obj.apiVersion ?? '';
  return v.includes('/') ? v.slice(0, v.indexOf('/')) : '';
}

/** Go's strconv.ParseBool: undefined when the value is not one of its spellings. */
function parseBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

function validURL(value: string): boolean {
  const bar = value.indexOf('|');
  const url = bar >= 0 ? value.slice(bar + 1) : value;
  if (url === '') return true;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

function linkURLs(annotations: Record<string, string> | undefined): string[] {
  return Object.entries(annotations ?? {})
    .filter(([k, v]) => k.startsWith(LINK_ANNOTATION_PREFIX) && validURL(v))
    .map(([, v]) => v);
}

function podSpecImages(podSpec: unknown): string[] {
  return [...arr(at(podSpec, 'initContainers')), ...arr(at(podSpec, 'containers'))]
    .map((c) => at(c, 'image') ?? '')
    .filter((i): i is string => typeof i === 'string');
}

function ingressURLs(obj: KubeObject): string[] {
  const ignore = obj.metadata?.annotations?.[IGNORE_DEFAULT_LINKS];
  if (ignore !== undefined && parseBool(ignore) === true) return [];
  const tls = arr(at(obj, 'spec', 'tls'));
  const lbHost = arr(at(obj, 'status', 'loadBalancer', 'ingress'))
    .map((i) => (at(i, 'hostname') as string | undefined) || (at(i, 'ip') as string | undefined) || '')
    .find((h) => h !== '');
  const urls: string[] = [];
  for (const rule of arr(at(obj, 'spec', 'rules'))) {
    const host = (at(rule, 'host') as string | undefined) || lbHost;
    if (!host) continue;
    const scheme = tls.some((t) => at(t, 'secretName') != null) ? 'https' : 'http';
    for (const path of arr(at(rule, 'http', 'paths'))) {
      const p = at(path, 'path');
      urls.push(`${scheme}://${host}${typeof p === 'string' ? p.replace(/\*$/, '') : ''}`);
    }
  }
  return urls;
}

/** Gateway API Gateway: a URL per listener host and address (populateGatewayInfo, generateGatewayURLs). */
function gatewayURLs(obj: KubeObject): string[] {
  const ignore = obj.metadata?.annotations?.[IGNORE_DEFAULT_LINKS];
  if (ignore !== undefined && parseBool(ignore) === true) return [];
  const addresses: string[] = [];
  for (const a of arr(at(obj, 'status', 'addresses'))) {
    const type = at(a, 'type') ?? '';
    const value = at(a, 'value');
    if (typeof value !== 'string' || value === '') continue;
    if (type === 'Hostname' || type === 'IPAddress' || type === '') addresses.push(value);
  }
  const urls: string[] = [];
  for (const listener of arr(at(obj, 'spec', 'listeners'))) {
    if (!isObj(listener)) continue;
    const hostname = typeof listener['hostname'] === 'string' ? listener['hostname'] : '';
    const protocol = listener['protocol'];
    const port = typeof listener['port'] === 'number' ? Math.trunc(listener['port']) : 0;
    const scheme = protocol === 'HTTPS' || protocol === 'TLS' ? 'https' : 'http';
    const hosts = hostname !== '' && hostname !== '*' ? [hostname] : addresses;
    for (const host of hosts) {
      let url = `${scheme}://${host}`;
      if ((scheme === 'http' && port !== 80) || (scheme === 'https' && port !== 443)) url += `:${port}`;
      if (validURL(url)) urls.push(url);
    }
  }
  return urls;
}

/** The summary of the tree's `nodes` and the Application's annotations (see the header). */
export function applicationSummary(
  nodes: readonly KubeObject[],
  appAnnotations: Record<string, string> = {},
): { externalURLs: string[]; images: string[]; isAppOfApps: boolean } {
  const images = new Set<string>();
  const urls = new Set<string>(
    Object.entries(appAnnotations)
      .filter(([k]) => k.startsWith(LINK_ANNOTATION_PREFIX))
      .map(([, v]) => v),
  );
  let isAppOfApps = false;
  for (const obj of nodes) {
    const group = groupOf(obj);
    const gk = `${group}/${obj.kind ?? ''}`;
    for (const u of linkURLs(obj.metadata?.annotations)) urls.add(u);
    if (gk === '/Pod') for (const i of podSpecImages(at(obj, 'spec'))) images.add(i);
    if ((group === 'networking.k8s.io' || group === 'extensions') && obj.kind === 'Ingress')
      for (const u of ingressURLs(obj)) urls.add(u);
    if (group === 'gateway.networking.k8s.io' && obj.kind === 'Gateway')
      for (const u of gatewayURLs(obj)) urls.add(u);
    if (group === 'argoproj.io' && obj.kind === 'Application') isAppOfApps = true;
  }
  return { externalURLs: [...urls].sort(), images: [...images].sort(), isAppOfApps };
}
