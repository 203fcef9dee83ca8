/**
 * Kinds the refresh never caches or compares, as Argo CD's `ResourcesFilter.IsExcludedResource` decides
 * (argo-cd `util/settings/resources_filter.go`, `filtered_resource.go`):
 * 1. excluded when a core exclusion (always on) or an argocd-cm `resource.exclusions` entry matches;
 * 2. else kept when a `resource.inclusions` entry matches;
 * 3. else excluded when some inclusion entry applies to this cluster (inclusions replace "everything");
 * 4. else kept.
 * An entry matches when its apiGroups (globs), kinds (exact or `*`) and clusters (globs on the cluster's
 * server URL) each match; an empty list matches anything. With no argocd-cm at all, `resource.exclusions`
 * is the list Argo CD's install manifests ship (`manifests/base/config/argocd-cm.yaml`); an argocd-cm
 * that lacks the key has only the core exclusions, as in Argo CD. A target of an excluded kind is dropped
 * with an ExcludedResourceWarning condition (targets.ts).
 */
import { globMatch } from '../../common/index.js';
import type { FilteredResource } from '../../apps/index.js';

export type { FilteredResource } from '../../apps/index.js';

/** Argo CD's `Exclusion` shorthand: groups and kinds (clusters: any). */
export interface Exclusion {
  groups: readonly string[];
  kinds: readonly string[];
}

const entry = (groups: readonly string[], kinds: readonly string[] = []): FilteredResource => ({
  apiGroups: [...groups],
  kinds: [...kinds],
  clusters: [],
});

/** `coreExcludedResources`: always excluded, whatever argocd-cm says. */
export const CORE_EXCLUSIONS: readonly FilteredResource[] = [
  entry(['events.k8s.io', 'metrics.k8s.io']),
  entry([''], ['Event']),
  entry(['coordination.k8s.io'], ['Lease']),
];

/** The `resource.exclusions` of Argo CD's shipped argocd-cm (used when no argocd-cm is read). */
export const SHIPPED_EXCLUSIONS: readonly FilteredResource[] = [
  // Created by the control plane; huge event volume.
  entry(['', 'discovery.k8s.io'], ['Endpoints', 'EndpointSlice']),
  entry(['coordination.k8s.io'], ['Lease']),
  entry(
    ['authentication.k8s.io', 'authorization.k8s.io'],
    [
      'SelfSubjectReview',
      'TokenReview',
      'LocalSubjectAccessReview',
      'SelfSubjectAccessReview',
      'SelfSubjectRulesReview',
      'SubjectAccessReview',
    ],
  ),
  entry(['certificates.k8s.io'], ['CertificateSigningRequest']),
  entry(['cert-manager.io'], ['CertificateRequest']),
  entry(['cilium.io'], ['CiliumIdentity', 'CiliumEndpoint', 'CiliumEndpointSlice']),
  entry(
    ['kyverno.io', 'reports.kyverno.io', 'wgpolicyk8s.io'],
    [
      'PolicyReport',
      'ClusterPolicyReport',
      'EphemeralReport',
      'ClusterEphemeralReport',
      'AdmissionReport',
      'ClusterAdmissionReport',
      'BackgroundScanReport',
      'ClusterBackgroundScanReport',
      'UpdateRequest',
    ],
  ),
];

/** Core plus shipped exclusions: what a run with no argocd-cm excludes. */
export const DEFAULT_EXCLUSIONS: readonly Exclusion[] = [...CORE_EXCLUSIONS, ...SHIPPED_EXCLUSIONS].map(
  (e) => ({ groups: e.apiGroups, kinds: e.kinds.length > 0 ? e.kinds : ['*'] }),
);

function matchEntry(e: FilteredResource, group: string, kind: string, cluster: string): boolean {
  const groupOk = e.apiGroups.length === 0 || e.apiGroups.some((g) => globMatch(g, group));
  const kindOk = e.kinds.length === 0 || e.kinds.some((k) => k === '*' || k === kind);
  return groupOk && kindOk && matchCluster(e, cluster);
}

function matchCluster(e: FilteredResource, cluster: string): boolean {
  return e.clusters.length === 0 || e.clusters.some((c) => globMatch(c, cluster));
}

export class ResourceFilter {
  readonly #exclusions: readonly FilteredResource[];
  readonly #inclusions: readonly FilteredResource[];

  /** `settings` undefined: no argocd-cm was read (shipped exclusions, no inclusions). */
  constructor(settings?: { exclusions?: FilteredResource[]; inclusions?: FilteredResource[] }) {
    this.#exclusions = [...CORE_EXCLUSIONS, ...(settings ? (settings.exclusions ?? []) : SHIPPED_EXCLUSIONS)];
    this.#inclusions = [...(settings?.inclusions ?? [])];
  }

  /** Answers by cluster, group and kind: the filter never changes, every target of a run asks. */
  readonly #answers = new Map<string, boolean>();

  /** `IsExcludedResource(group, kind, cluster)`; `cluster` is the destination's server URL. */
  isExcluded(gk: { group: string; kind: string }, cluster = ''): boolean {
    const { group, kind } = gk;
    const id = `${cluster}\0${group}\0${kind}`;
    let answer = this.#answers.get(id);
    if (answer === undefined) {
      if (this.#exclusions.some((e) => matchEntry(e, group, kind, cluster))) answer = true;
      else if (this.#inclusions.some((e) => matchEntry(e, group, kind, cluster))) answer = false;
      else answer = this.#inclusions.some((e) => matchCluster(e, cluster));
      this.#answers.set(id, answer);
    }
    return answer;
  }
}

const DEFAULT_FILTER = new ResourceFilter();

/** Excluded with no argocd-cm (core + shipped exclusions). */
export function isExcluded(gk: { group: string; kind: string }): boolean {
  return DEFAULT_FILTER.isExcluded(gk);
}
