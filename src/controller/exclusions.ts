/**
 * Kinds the refresh never caches or compares: Argo CD's default `resource.exclusions` (argocd-cm,
 * `util/settings/resources_filter.go` and the shipped defaults) plus Events, as data (design practice 7).
 * A target of an excluded kind is dropped with an ExcludedResourceWarning condition, as Argo CD does.
 * Keys are API group globs ("*" matches any) and kind globs.
 */
export interface Exclusion {
  groups: readonly string[];
  kinds: readonly string[];
}

export const DEFAULT_EXCLUSIONS: readonly Exclusion[] = [
  // Created by the control plane; huge event volume.
  { groups: ['', 'discovery.k8s.io'], kinds: ['Endpoints', 'EndpointSlice'] },
  { groups: ['apiregistration.k8s.io'], kinds: ['APIService'] },
  { groups: ['coordination.k8s.io'], kinds: ['Lease'] },
  { groups: ['authentication.k8s.io', 'authorization.k8s.io'], kinds: ['*'] },
  { groups: ['certificates.k8s.io'], kinds: ['CertificateSigningRequest'] },
  { groups: ['cert-manager.io'], kinds: ['CertificateRequest'] },
  { groups: ['cilium.io'], kinds: ['CiliumIdentity', 'CiliumEndpoint', 'CiliumEndpointSlice'] },
  {
    groups: ['kyverno.io', 'reports.kyverno.io', 'wgpolicyk8s.io'],
    kinds: ['PolicyReport', 'ClusterPolicyReport', 'EphemeralReport', 'ClusterEphemeralReport'],
  },
  // Never tracked by an app, and the most frequently written kind of any cluster.
  { groups: ['', 'events.k8s.io'], kinds: ['Event'] },
];

function matches(pattern: string, value: string): boolean {
  return pattern === '*' || pattern === value;
}

export function isExcluded(
  gk: { group: string; kind: string },
  exclusions: readonly Exclusion[] = DEFAULT_EXCLUSIONS,
): boolean {
  return exclusions.some(
    (e) => e.groups.some((g) => matches(g, gk.group)) && e.kinds.some((k) => matches(k, gk.kind)),
  );
}
