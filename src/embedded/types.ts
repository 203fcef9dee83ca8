/**
 * Shared types of the embedded API server (a leaf module: everything else imports from here).
 *
 * Objects are plain JSON values (`KObject`). Stored objects are never mutated in place: every write builds a
 * new object and swaps it into the store, so a reference handed to a watcher or a list stays a consistent
 * snapshot of that resourceVersion.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonMap = { [key: string]: Json };

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: ManagedFieldsEntry[];
  [key: string]: Json | OwnerReference[] | ManagedFieldsEntry[] | undefined;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
  [key: string]: Json | undefined;
}

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonMap;
  subresource?: string;
  [key: string]: Json | undefined;
}

/** A Kubernetes object as JSON. `metadata` is always present on stored objects. */
export interface KObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: Json | ObjectMeta | undefined;
}

/** One served resource type (a row of discovery). Objects are stored per (group, plural). */
export interface ResourceType {
  group: string;
  /** Versions this resource is served at; the first is the preferred one. */
  versions: string[];
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  /**
   * The versions at which the status subresource is served (built-in kinds: their version; a CRD decides
   * per version, `spec.versions[].subresources.status`). There, writes to the main resource keep the old
   * status and `/status` writes change only status; see `hasStatus`.
   */
  statusVersions: string[];
  /** The `scale` subresource (autoscaling/v1 Scale over spec.replicas) is served (built-in kinds). */
  scaleSubresource?: boolean;
  /** A CRD's `scale` subresource per served version that declares one (`subresources.scale`). */
  scaleByVersion?: Record<string, ScalePaths>;
  /** `metadata.generation` is maintained (set to 1, bumped when anything but metadata/status changes). */
  generation: boolean;
  /** Strategic merge patch is accepted (built-in kinds only, as on a real server). */
  strategicMerge: boolean;
  /** Name of the CustomResourceDefinition that serves this type (undefined for built-ins). */
  crd?: string;
  /** A CRD's storage version: custom resources are stored with this apiVersion (as etcd holds them). */
  storageVersion?: string;
  /** CRD additionalPrinterColumns per served version, used in Table responses. */
  printerColumns?: Record<string, PrinterColumn[]>;
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  format?: string;
  description?: string;
  priority?: number;
}

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** Where a custom resource's Scale reads and writes (`.spec.replicas` style JSON paths). */
export interface ScalePaths {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** Whether `t` serves the scale subresource at `version` (CRDs: per version, as status). */
export function hasScale(
  t: Pick<ResourceType, 'scaleSubresource' | 'scaleByVersion'>,
  version: string,
): boolean {
  return t.scaleSubresource === true || t.scaleByVersion?.[version] !== undefined;
}

/**
 * Whether `t` serves the status subresource at `version` (apiextensions-apiserver
 * customresource_handler.go: `GetSubresourcesForVersion` for routes, strategy and discovery).
 */
export function hasStatus(t: Pick<ResourceType, 'statusVersions'>, version: string): boolean {
  return t.statusVersions.includes(version);
}

/** Key of a resource type in the store: "apps/deployments", "/configmaps" for the core group. */
export function typeKey(t: Pick<ResourceType, 'group' | 'plural'>): string {
  return `${t.group}/${t.plural}`;
}

/** "deployments.apps" / "configmaps": how the real server names a resource in messages. */
export function qualifiedResource(t: Pick<ResourceType, 'group' | 'plural'>): string {
  return t.group ? `${t.plural}.${t.group}` : t.plural;
}

export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export function isMap(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep copy of a JSON value (objects from the store must be copied before they are changed). */
export function clone<T>(v: T): T {
  return structuredClone(v);
}
