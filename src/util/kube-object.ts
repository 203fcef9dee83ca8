/** The one plain-object type for Kubernetes objects that crosses modules (files, API, caches). */

/** A Kubernetes object as JSON, as the API server returns it. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller?: boolean;
    }>;
    managedFields?: unknown[];
    deletionTimestamp?: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}
