/**
 * Types of the diff module (a leaf: imports only the project's KubeObject type).
 * JSON values are plain data: objects, arrays, strings, numbers, booleans and null.
 */
import type { KubeObject } from '../util/yaml-docs.js';
import type { IChange } from 'json-diff-ts';

export type { KubeObject };
export type { IChange };

import type { JsonMap, TrackingMethod } from '../common/index.js';
import type { SchemaLookup } from '../schema/index.js';
export type { Json, JsonMap } from '../common/index.js';

/** One entry of `spec.ignoreDifferences` (Argo CD's ResourceIgnoreDifferences). */
export interface IgnoreDifference {
  /** API group glob; "" or absent = the core group. */
  group?: string;
  /** Kind glob ("*" matches every kind). */
  kind: string;
  /** Exact name; absent or "" = any. */
  name?: string;
  /** Exact namespace; absent or "" = any. */
  namespace?: string;
  /** RFC 6901 pointers, e.g. `/spec/replicas`. */
  jsonPointers?: string[];
  /** jq path expressions (the subset documented in jq.ts), e.g. `.spec.replicas`. */
  jqPathExpressions?: string[];
  /** Field managers whose fields (from live `metadata.managedFields`) are ignored. */
  managedFieldsManagers?: string[];
}

/** Argo CD's `ignoreResourceStatusField` compare option. */
export type StatusFieldMode = 'all' | 'crd' | 'none';

/** How tracking is normalized (spec §1); the same values as argocd-cm `application.resourceTrackingMethod`. */
export type { TrackingMethod } from '../common/index.js';

/** Options of one comparison; every field is optional and defaulted in `resolveOptions` (compare.ts). */
export interface CompareOptions {
  /** App rules plus any extra list (e.g. from `--ignore-differences-file`); matched per resource. */
  ignoreDifferences?: readonly IgnoreDifference[];
  /** Default 'all' (Argo CD 3.x): `status` is never compared. 'crd': only for CustomResourceDefinitions. */
  ignoreResourceStatusField?: StatusFieldMode;
  /** Default 'annotation' (Argo CD's default). 'label' disables the tracking migration normalization. */
  trackingMethod?: TrackingMethod;
  /** Default `app.kubernetes.io/instance`. */
  instanceLabelKey?: string;
  /**
   * Field managers whose managedFields entries are "the fields we applied" in structured-merge diff (their
   * fields absent from the target are removed from the predicted live). Default: `argocd-controller` (the
   * manager Argo CD's server-side apply and diff use, `common.ArgoCDSSAManager`).
   */
  fieldManagers?: readonly string[];
  /**
   * Default false. True for apps with the `ServerSideApply=true` sync option (Argo CD
   * `WithStructuredMergeDiff`): compare as server-side apply would merge. A target annotated
   * `argocd.argoproj.io/sync-options: ServerSideApply=true` selects it for itself.
   */
  structuredMergeDiff?: boolean;
  /**
   * Server-side diff only. Default false: fields of the dry-run answer that no manager of `fieldManagers`
   * owns (added by mutating webhooks) are taken from live instead (Argo CD's default; the app's
   * compare-options `IncludeMutationWebhook=true` sets this).
   */
  includeMutationWebhook?: boolean;
  /** Default false: like Argo CD's `ignoreAggregatedRoles`, ClusterRole rules with an aggregationRule are ignored. */
  ignoreAggregatedRoles?: boolean;
  /** Annotation keys whose values are masked like Secret data (argocd-cm `resource.sensitive.mask.annotations`). */
  sensitiveAnnotations?: readonly string[];
  /** Default true: compute `diffText` (unified diff) for resources that differ. */
  diffText?: boolean;
  /** Lines of context in `diffText`; default 3. */
  context?: number;
  /**
   * The schema facts of the cluster's kinds (built-in and its CRDs, with argocd-cm known type fields):
   * list shapes of structured-merge and the webhook filter, quantity fields, defaults. Default: Kubernetes'
   * published schemas alone (every custom resource list atomic).
   */
  schemas?: SchemaLookup;
}

export interface CompareInput extends CompareOptions {
  /** The desired object (from Git), already namespaced and tracking-stamped by the caller; absent = extra. */
  target?: KubeObject | null;
  /** The live object; absent = missing. */
  live?: KubeObject | null;
  /**
   * Server-side diff: the API server's answer to a dry-run server-side apply of the target (with its
   * managedFields). With target and live present it is the predicted live state, compared with live as it
   * is (no merge); `strategy` is then `server-side`.
   */
  predictedLive?: KubeObject | null;
}

export type SyncStatus = 'Synced' | 'OutOfSync';

/**
 * How the predicted live state was built (gitops-engine `pkg/diff/diff.go Diff`): `server-side` (the
 * dry-run answer, webhook changes removed unless included), `structured-merge`
 * (managedFields of our manager are the original), `three-way` (the last-applied annotation is), `two-way`
 * (the target is its own original: live-only fields are kept).
 */
export type DiffStrategy = 'server-side' | 'structured-merge' | 'three-way' | 'two-way';

/**
 * What kind of difference: none; `modified` (both exist and differ); `missing` (no live object, to be
 * created); `extra` (no target, a prune candidate).
 */
export type Difference = 'none' | 'modified' | 'missing' | 'extra';

/**
 * The unmasked outcome of one pair's comparison (`compareObjects`): the verdict and the normalized pair it
 * was made on, with the real values (sync and health read them; never printed). `reportComparison` makes
 * the printable, masked `CompareResult` from it.
 */
export interface ResourceComparison {
  status: SyncStatus;
  difference: Difference;
  /** Predicted live state after applying Git, normalized (not masked); null when there is no target. */
  normalizedTarget: JsonMap | null;
  /** Live state normalized (not masked); null when there is no live object. */
  normalizedLive: JsonMap | null;
  /** The strategy picked for this pair (meaningful when both sides exist). */
  strategy: DiffStrategy;
  /** "group/Kind namespace/name", the diff text's labels. */
  label: string;
  /** Set when the verdict is one where Argo CD is known to be wrong (quirks.ts): names the upstream issue. */
  note?: string;
}

/** How a comparison is reported (`reportComparison`): the masking and diff-text options of `CompareOptions`. */
export type ReportOptions = Pick<CompareOptions, 'sensitiveAnnotations' | 'diffText' | 'context'>;

export interface CompareResult {
  status: SyncStatus;
  difference: Difference;
  /** Predicted live state after applying Git, normalized and masked; null when there is no target. */
  normalizedTarget: JsonMap | null;
  /** Live state normalized and masked; null when there is no live object. */
  normalizedLive: JsonMap | null;
  /** json-diff-ts changes from normalizedLive to normalizedTarget (masked values only). */
  changes: IChange[];
  /** The strategy picked for this pair (meaningful when both sides exist). */
  strategy: DiffStrategy;
  /** Unified diff, live as "-" and Git as "+"; present when the resource differs (and not disabled). */
  diffText?: string;
  /** Set when the verdict is one where Argo CD is known to be wrong (quirks.ts): names the upstream issue. */
  note?: string;
}
