/** Argo CD objects tests install into the embedded API server: the Application CRD and helpers. */

/** The Application CRD (argoproj.io/v1alpha1), enough for the API server to serve Applications. */
export const APPLICATION_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'applications.argoproj.io' },
  spec: {
    group: 'argoproj.io',
    scope: 'Namespaced',
    names: {
      plural: 'applications',
      singular: 'application',
      kind: 'Application',
      listKind: 'ApplicationList',
      shortNames: ['app', 'apps'],
    },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        // As Argo CD's own CRDs (manifests/crds): no status subresource, so the controller writes `status`
        // with patches on the main resource.
        subresources: {},
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
} as const;

/** The AppProject CRD (argoproj.io/v1alpha1), enough for the API server to serve AppProjects. */
export const APP_PROJECT_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'appprojects.argoproj.io' },
  spec: {
    group: 'argoproj.io',
    scope: 'Namespaced',
    names: {
      plural: 'appprojects',
      singular: 'appproject',
      kind: 'AppProject',
      listKind: 'AppProjectList',
      shortNames: ['appproj', 'appprojs'],
    },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        // As Argo CD's own CRDs (manifests/crds): no status subresource, so the controller writes `status`
        // with patches on the main resource.
        subresources: {},
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
} as const;
