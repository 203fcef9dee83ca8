/**
 * Resource scope without a cluster: where the rendered desired state would land when Argo CD applies it.
 *
 * Argo CD sets the destination namespace on every target object that has none and whose kind is
 * namespaced, or whose scope it cannot tell (controller/state.go `CompareAppState` through gitops-engine's
 * `kubeutil.IsNamespacedOrUnknown`), and applies cluster-scoped objects without a namespace. With no
 * discovery at hand (`render`, `diff --base`), the scope comes from:
 * 1. the built-in cluster-scoped kinds of Kubernetes 1.32 (`kubectl api-resources --namespaced=false`),
 *    keyed by group and kind so that a custom kind of the same name elsewhere is not mistaken for one;
 * 2. the CustomResourceDefinitions among the rendered objects (`spec.scope`);
 * 3. anything else is namespaced, as Argo CD treats a kind of unknown scope.
 * With a cluster, the controller decides from discovery instead (src/controller/refresh/targets.ts).
 */
import type { KubeObject } from '../util/yaml-docs.js';
import { groupOf } from './tracking.js';

/** Built-in cluster-scoped kinds by `group/kind` (core group: empty). Kubernetes 1.32, alpha APIs included. */
const BUILTIN_CLUSTER_SCOPED = new Set([
  '/Namespace',
  '/Node',
  '/PersistentVolume',
  '/ComponentStatus',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'admissionregistration.k8s.io/MutatingAdmissionPolicy',
  'admissionregistration.k8s.io/MutatingAdmissionPolicyBinding',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'apiregistration.k8s.io/APIService',
  'authentication.k8s.io/TokenReview',
  'authentication.k8s.io/SelfSubjectReview',
  'authorization.k8s.io/SelfSubjectAccessReview',
  'authorization.k8s.io/SelfSubjectRulesReview',
  'authorization.k8s.io/SubjectAccessReview',
  'certificates.k8s.io/CertificateSigningRequest',
  'certificates.k8s.io/ClusterTrustBundle',
  'flowcontrol.apiserver.k8s.io/FlowSchema',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
  'internal.apiserver.k8s.io/StorageVersion',
  'networking.k8s.io/IngressClass',
  'networking.k8s.io/IPAddress',
  'networking.k8s.io/ServiceCIDR',
  'node.k8s.io/RuntimeClass',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'resource.k8s.io/DeviceClass',
  'resource.k8s.io/ResourceSlice',
  'scheduling.k8s.io/PriorityClass',
  'storage.k8s.io/CSIDriver',
  'storage.k8s.io/CSINode',
  'storage.k8s.io/StorageClass',
  'storage.k8s.io/VolumeAttachment',
  'storage.k8s.io/VolumeAttributesClass',
  'storagemigration.k8s.io/StorageVersionMigration',
]);

/** Answers "is group/kind cluster-scoped?" from the built-in table and the given CRDs. */
export class OfflineScope {
  private readonly clusterScoped = new Set(BUILTIN_CLUSTER_SCOPED);
  private readonly namespaced = new Set<string>();

  /** Learns the scope of the kinds each CustomResourceDefinition among `objects` defines. */
  constructor(objects: Iterable<KubeObject> = []) {
    for (const obj of objects) {
      if (obj.kind !== 'CustomResourceDefinition' || groupOf(obj) !== 'apiextensions.k8s.io') continue;
      const spec = (obj as { spec?: { group?: unknown; scope?: unknown; names?: { kind?: unknown } } }).spec;
      if (typeof spec?.group !== 'string' || typeof spec.names?.kind !== 'string') continue;
      const key = `${spec.group}/${spec.names.kind}`;
      if (spec.scope === 'Cluster') this.clusterScoped.add(key);
      else if (spec.scope === 'Namespaced') this.namespaced.add(key);
    }
  }

  /** False only for kinds known to be cluster-scoped: unknown kinds count as namespaced, as in Argo CD. */
  isNamespaced(obj: KubeObject): boolean {
    const key = `${groupOf(obj)}/${obj.kind ?? ''}`;
    return this.namespaced.has(key) || !this.clusterScoped.has(key);
  }
}

/**
 * The objects as Argo CD applies them: namespaced (and unknown) kinds without a namespace get
 * `destNamespace` (when there is one), cluster-scoped kinds lose any namespace. Copies; never mutates.
 */
export function placeInDestination(
  objects: readonly KubeObject[],
  destNamespace: string,
  scope: OfflineScope = new OfflineScope(objects),
): KubeObject[] {
  return objects.map((obj) => {
    const current = obj.metadata?.namespace;
    if (scope.isNamespaced(obj)) {
      if (current || !destNamespace) return obj;
      // Right after the name, where kubectl and Argo CD print it.
      const { name, ...rest } = obj.metadata ?? {};
      const metadata =
        name === undefined
          ? { namespace: destNamespace, ...rest }
          : { name, namespace: destNamespace, ...rest };
      return { ...obj, metadata };
    }
    if (current === undefined) return obj;
    const { namespace: _dropped, ...metadata } = obj.metadata ?? {};
    return { ...obj, metadata };
  });
}
