/**
 * The Application model shared by every module (a leaf: imports nothing from the rest of the project but
 * types). Field names follow Argo CD's `pkg/apis/application/v1alpha1/types.go` (spec 11); values are
 * normalized once by `src/apps/parse.ts`, so consumers never re-check shapes or apply defaults:
 * - `sources` always holds the effective sources: `spec.sources` when non-empty, else `[spec.source]`.
 * - `targetRevision` defaults to "HEAD", `project` to "default".
 * - Durations are milliseconds, sync options are parsed into `Key -> value`.
 */
import type { KubeObject } from '../util/yaml-docs.js';

export const APPLICATION_API_VERSION = 'argoproj.io/v1alpha1';
export const APPLICATION_KIND = 'Application';

export interface HelmParameter {
  name: string;
  value: string;
  forceString: boolean;
}

export interface HelmFileParameter {
  name: string;
  path: string;
}

export interface HelmOptions {
  /** Relative to the chart directory, or `$<ref>/<path>` into a `ref` source's checkout. */
  valueFiles: string[];
  /** `values` (a YAML string) or `valuesObject` (wins when both are set), as YAML text; "" when unset. */
  values: string;
  parameters: HelmParameter[];
  fileParameters: HelmFileParameter[];
  /** Defaults to the Application name (applied by the renderer, not here). */
  releaseName?: string;
  /** Defaults to the destination namespace (applied by the renderer). */
  namespace?: string;
  skipCrds: boolean;
  skipTests: boolean;
  ignoreMissingValueFiles: boolean;
  kubeVersion?: string;
  apiVersions: string[];
  /** `helm.version`: "", "v3" or "v4" (Argo CD 3.6 runs one helm for all three; others are an error). */
  version?: string;
  passCredentials: boolean;
  skipSchemaValidation: boolean;
}

export interface KustomizeOptions {
  namePrefix?: string;
  nameSuffix?: string;
  /** `name[=newName][:tag|@digest]` as `kustomize edit set image` takes them. */
  images: string[];
  /** `kustomize edit set replicas name=count` (count as written: an integer or a numeric string). */
  replicas: Array<{ name: string; count: string }>;
  commonLabels: Record<string, string>;
  commonAnnotations: Record<string, string>;
  forceCommonLabels: boolean;
  forceCommonAnnotations: boolean;
  commonAnnotationsEnvsubst: boolean;
  labelWithoutSelector: boolean;
  labelIncludeTemplates: boolean;
  namespace?: string;
  /** Kustomize patches as written (path/patch/target/options), appended to the kustomization's own. */
  patches: Record<string, unknown>[];
  components: string[];
  ignoreMissingComponents: boolean;
  /** A version registered in argocd-cm (`kustomize.path.<version>`); undefined = the default binary. */
  version?: string;
  kubeVersion?: string;
  apiVersions: string[];
}

export interface JsonnetVar {
  name: string;
  value: string;
  code: boolean;
}

/**
 * One `spec.source.plugin.parameters` entry (Argo CD `ApplicationSourcePluginParameter`): a name and any of
 * a string, a map and an array value (an empty map or array is present, not absent).
 */
export interface PluginParameter {
  name: string;
  string?: string;
  map?: Record<string, string>;
  array?: string[];
}

/** `spec.source.plugin` (Argo CD `ApplicationSourcePlugin`): a config management plugin renders the source. */
export interface PluginOptions {
  /** `<metadata.name>-<spec.version>` (or `<metadata.name>` without a version); "" = discovery picks one. */
  name: string;
  /** Passed to the plugin as `ARGOCD_ENV_<name>`, values with `$VAR` of the build environment expanded. */
  env: { name: string; value: string }[];
  parameters: PluginParameter[];
}

export interface DirectoryOptions {
  recurse: boolean;
  /** A glob on the path relative to the source path ("" = everything); `{a,b}` alternatives allowed. */
  include: string;
  exclude: string;
  jsonnet: { extVars: JsonnetVar[]; tlas: JsonnetVar[]; libs: string[] };
}

export interface ApplicationSource {
  repoURL: string;
  /** Path inside the repository ("" only for ref-only sources and Helm repository charts). */
  path: string;
  targetRevision: string;
  /** Helm chart name: `repoURL` is then a Helm repository, not Git. */
  chart?: string;
  /** Name other sources use as `$<ref>` in Helm value files. */
  ref?: string;
  name?: string;
  directory?: DirectoryOptions;
  kustomize?: KustomizeOptions;
  helm?: HelmOptions;
  /** Set (possibly with no field) when the source names a config management plugin (`plugin: {}` too). */
  plugin?: PluginOptions;
}

export interface RetryStrategy {
  /** Max attempts; < 0 = unlimited; undefined = Argo CD's default for the sync kind. */
  limit?: number;
  backoff: { durationMs: number; factor: number; maxDurationMs: number };
  /**
   * `backoff` as written (its `duration`, `factor`, `maxDuration` that are set): Argo CD copies the
   * strategy into `operationState.operation` as a Go struct, so `2m` stays `2m`, never `2m0s`.
   */
  written?: { duration?: string; factor?: number; maxDuration?: string } | undefined;
  /** Use the latest revision on retry instead of the initial one. */
  refresh: boolean;
}

export interface SyncPolicy {
  /** Present when `automated` is set and not disabled with `enabled: false`. */
  automated?: { prune: boolean; selfHeal: boolean; allowEmpty: boolean };
  /** As written, e.g. ["CreateNamespace=true"]. */
  syncOptions: string[];
  /** Parsed `syncOptions`: key -> value. */
  options: Record<string, string>;
  retry?: RetryStrategy;
  managedNamespaceMetadata?: { labels: Record<string, string>; annotations: Record<string, string> };
}

export interface IgnoreDifference {
  group: string;
  kind: string;
  name?: string;
  namespace?: string;
  jsonPointers: string[];
  jqPathExpressions: string[];
  managedFieldsManagers: string[];
}

export interface Application {
  name: string;
  /** metadata.namespace; undefined when the manifest has none (then the control-plane namespace). */
  namespace?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  project: string;
  /** Effective sources (never empty). */
  sources: ApplicationSource[];
  /** True when the manifest used `spec.sources`. */
  multiSource: boolean;
  destination: { server?: string; name?: string; namespace: string };
  syncPolicy: SyncPolicy;
  ignoreDifferences: IgnoreDifference[];
  /** Where it was read: "apps/x.yaml (document 2)", "cluster argocd/x" or "flags". */
  origin: string;
  /** The manifest as read (for printers and the controller; never mutated). */
  manifest: KubeObject;
}
