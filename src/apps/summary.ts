/**
 * `applicationSummary`: Argo CD's `status.summary` (types.go `ApplicationTree.GetSummary`,
 * controller/cache/info.go populateNodeInfo) from the app's live objects.
 *
 * - images: the container and init-container images of Pods. Argo CD reads them from the Pods of the
 *   resource tree (children found through ownerReferences); where the live cache holds no Pods, the Pod
 *   templates of the app's workloads (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob) stand
 *   in for them: the same images once the rollout is done.
 * - externalURLs: `link.argocd.argoproj.io/*` annotations of the objects (the part after "|" must be an
 *   http(s) URL, settings.ValidateExternalURL) and of the Application; Ingress rules' hosts
 *   (`https://` when the Ingress has a TLS entry with a secretName or for that host, else `http://`; the
 *   path with a trailing `*` removed), unless `argocd.argoproj.io/ignore-default-links: "true"`.
 * - isAppOfApps: one of the objects is an argoproj.io Application.
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

const WORKLOAD_TEMPLATE: Record<string, string[]> = {
  'apps/Deployment': ['spec', 'template'],
  'apps/StatefulSet': ['spec', 'template'],
  'apps/DaemonSet': ['spec', 'template'],
  'apps/ReplicaSet': ['spec', 'template'],
  'batch/Job': ['spec', 'template'],
  'batch/CronJob': ['spec', 'jobTemplate', 'spec', 'template'],
};

function groupOf(obj: KubeObject): string {
  const v = obj.apiVersion ?? '';
  return v.includes('/') ? v.slice(0, v.indexOf('/')) : '';
}

function validURL(value: string): boolean {
  const bar = value.indexOf('|');
  const url = bar >= 0 ? value.slice(bar + 1) : value;
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
    .map((c) => at(c, 'image'))
    .filter((i): i is string => typeof i === 'string' && i !== '');
}

function ingressURLs(obj: KubeObject): string[] {
  if (obj.metadata?.annotations?.[IGNORE_DEFAULT_LINKS] === 'true') return [];
  const tls = arr(at(obj, 'spec', 'tls'));
  const lbHost = arr(at(obj, 'status', 'loadBalancer', 'ingress'))
    .map((i) => (at(i, 'hostname') as string | undefined) || (at(i, 'ip') as string | undefined) || '')
    .find((h) => h !== '');
  const urls: string[] = [];
  for (const rule of arr(at(obj, 'spec', 'rules'))) {
    const host = (at(rule, 'host') as string | undefined) || lbHost;
    if (!host) continue;
    let scheme = 'http';
    for (const t of tls) {
      if (at(t, 'secretName')) scheme = 'https';
      if (arr(at(t, 'hosts')).includes(host)) scheme = 'https';
    }
    for (const path of arr(at(rule, 'http', 'paths'))) {
      const p = at(path, 'path');
      urls.push(`${scheme}://${host}${typeof p === 'string' ? p.replace(/\*$/, '') : ''}`);
    }
  }
  return urls;
}

export function applicationSummary(
  objects: readonly KubeObject[],
  appAnnotations: Record<string, string> = {},
): { externalURLs: string[]; images: string[]; isAppOfApps: boolean } {
  const images = new Set<string>();
  const urls = new Set<string>(linkURLs(appAnnotations));
  let isAppOfApps = false;
  for (const obj of objects) {
    const group = groupOf(obj);
    const gk = `${group}/${obj.kind ?? ''}`;
    for (const u of linkURLs(obj.metadata?.annotations)) urls.add(u);
    if (gk === '/Pod') for (const i of podSpecImages(at(obj, 'spec'))) images.add(i);
    const template = WORKLOAD_TEMPLATE[gk];
    if (template) for (const i of podSpecImages(at(obj, ...template, 'spec'))) images.add(i);
    if ((group === 'networking.k8s.io' || group === 'extensions') && obj.kind === 'Ingress')
      for (const u of ingressURLs(obj)) urls.add(u);
    if (group === 'argoproj.io' && obj.kind === 'Application') isAppOfApps = true;
  }
  return { externalURLs: [...urls].sort(), images: [...images].sort(), isAppOfApps };
}
