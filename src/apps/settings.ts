/**
 * Argo CD's settings as `argocd-cm` holds them (argo-cd `util/settings/settings.go`), parsed once into plain
 * data the controller, the diff and the health checks read. The one reader of `argocd-cm` for `diff` and
 * `sync`: from a file (`--argocd-cm FILE`, `-` for stdin) or from the live Argo CD namespace (with
 * `--from-cluster`); see docs/argocd-cm.md for each key and its upstream source.
 *
 * Keys read:
 * - `application.resourceTrackingMethod`, `application.instanceLabelKey` (tracking; flags win), `installationID`.
 * - `resource.customizations` (one YAML map of `<group>/<Kind>` | `<Kind>` | glob -> override) and the split
 *   keys `resource.customizations.<type>.<group>_<Kind>` (`<Kind>` alone for the core group, `all` for
 *   every kind), types `health`, `useOpenLibs`, `ignoreDifferences`, `ignoreResourceUpdates`, `actions`,
 *   `knownTypeFields` (read by `knownTypeFieldsOf` into the diff's schema lookup); any other type is an
 *   error, as in Argo CD. Split keys override the map's fields.
 * - `resource.exclusions`, `resource.inclusions` (YAML lists of {apiGroups, kinds, clusters}).
 * - `resource.compareoptions` (ignoreAggregatedRoles, ignoreResourceStatusField, ignoreDifferencesOnResourceUpdates).
 * - `resource.sensitive.mask.annotations` (comma-separated annotation keys, spaces removed).
 * Bad values are a UsageError naming the origin and key; nothing is half-read.
 */
import { parse } from 'yaml';
import { TRACKING_METHODS, UsageError, oneLine } from '../common/index.js';
import type { KubeObject, TrackingMethod } from '../common/index.js';
import { validateIgnoreDifferences } from '../diff/index.js';
import type { IgnoreDifference, StatusFieldMode } from '../diff/index.js';
import { readKubeObjects } from '../util/yaml-docs.js';
import { builtinCatalog, knownTypeSchema } from '../schema/index.js';
import type { KnownTypeField } from '../schema/index.js';

/** The ConfigMap's name (argo-cd `common.ArgoCDConfigMapName`). */
export const ARGOCD_CM = 'argocd-cm';

/** Argo CD's `OverrideIgnoreDiff`. */
export interface OverrideIgnoreDiff {
  jsonPointers: string[];
  jqPathExpressions: string[];
  managedFieldsManagers: string[];
}

/** Argo CD's `ResourceOverride`, the parts this tool reads. */
export interface ResourceOverride {
  /** `health.lua`: a Lua health script; '' = none. */
  healthLua: string;
  /** `health.lua.useOpenLibs`: the script gets Lua's standard libraries. */
  useOpenLibs: boolean;
  ignoreDifferences: OverrideIgnoreDiff;
  /**
   * `knownTypeFields`: fields of this (custom) kind that hold a built-in type, `type` as Argo CD names it
   * (`core/v1/PodSpec`, `core/Quantity`, `meta/v1/Duration`); entries of a type Argo CD does not know are
   * dropped with a warning, as Argo CD logs and skips them.
   */
  knownTypeFields: Array<{ field: string; type: string }>;
}

/** Argo CD's `FilteredResource`: globs on API group and cluster URL, exact (or `*`) kinds; empty = any. */
export interface FilteredResource {
  apiGroups: string[];
  kinds: string[];
  clusters: string[];
}

/** Argo CD's `ArgoCDDiffOptions` (`resource.compareoptions`). */
export interface CompareSettings {
  ignoreAggregatedRoles: boolean;
  ignoreResourceStatusField: StatusFieldMode;
  /** Read for completeness: it only changes which watch events refresh an app, which a one-shot run has none of. */
  ignoreDifferencesOnResourceUpdates: boolean;
}

export interface ArgoCdSettings {
  /** Where the settings came from, e.g. "configmap argocd/argocd-cm" or "file cm.yaml". */
  origin: string;
  trackingMethod?: TrackingMethod;
  instanceLabelKey?: string;
  /** `installationID`: this Argo CD's id, stamped on and required of tracked objects (annotation methods). */
  installationId?: string;
  /** Keyed `<group>/<Kind>`, `<Kind>` (core group) or a glob such as `*.crossplane.io/*`; `all` is `*\/*`. */
  overrides: Record<string, ResourceOverride>;
  /** `resource.exclusions`; undefined when the key is absent. */
  exclusions?: FilteredResource[];
  /** `resource.inclusions`; undefined when the key is absent. */
  inclusions?: FilteredResource[];
  compare: CompareSettings;
  sensitiveAnnotations: string[];
  /**
   * `cluster.inClusterEnabled`: false only when the key is exactly "false" (absent = true): apps on the
   * in-cluster server then fail as Argo CD's GetCluster ("cluster ... is disabled"); src/controller/refresh/scoped.ts.
   */
  inClusterEnabled?: boolean;
  /**
   * `kustomize.buildOptions` and the registered versions `kustomize.path.<version>` /
   * `kustomize.version.<version>` (util/settings GetKustomizeSettings): which kustomize renders a source
   * with `kustomize.version`, and the options of `kustomize build`.
   */
  kustomize: { buildOptions: string; versions: Record<string, string> };
  /** Values read but not fully honoured (the caller prints them as warnings). */
  warnings: string[];
}

const TRACKING_METHOD_KEY = 'application.resourceTrackingMethod';
const INSTANCE_LABEL_KEY = 'application.instanceLabelKey';
const INSTALLATION_ID_KEY = 'installationID';
const CUSTOMIZATIONS_KEY = 'resource.customizations';
const EXCLUSIONS_KEY = 'resource.exclusions';
const INCLUSIONS_KEY = 'resource.inclusions';
const COMPARE_OPTIONS_KEY = 'resource.compareoptions';
const SENSITIVE_ANNOTATIONS_KEY = 'resource.sensitive.mask.annotations';
const IN_CLUSTER_ENABLED_KEY = 'cluster.inClusterEnabled';

/**
 * argocd-cm `cluster.inClusterEnabled`: on unless exactly "false" (argo-cd util/settings/settings.go
 * `IsInClusterEnabled`). Read by `shards` (the in-cluster entry of the cluster list); it takes the ConfigMap's
 * data alone, so that an argocd-cm whose other keys this tool rejects still gives `shards` its answer.
 */
export function inClusterEnabled(data: Readonly<Record<string, unknown>>): boolean {
  return data[IN_CLUSTER_ENABLED_KEY] !== 'false';
}

/** Every key this tool reads (docs/usage/argocd-cm.md and docs/argocd-cm.md list the same). */
export const ARGOCD_CM_KEYS: readonly string[] = [
  TRACKING_METHOD_KEY,
  INSTANCE_LABEL_KEY,
  INSTALLATION_ID_KEY,
  CUSTOMIZATIONS_KEY,
  `${CUSTOMIZATIONS_KEY}.<type>.<group_kind>`,
  EXCLUSIONS_KEY,
  INCLUSIONS_KEY,
  COMPARE_OPTIONS_KEY,
  SENSITIVE_ANNOTATIONS_KEY,
  IN_CLUSTER_ENABLED_KEY,
];

/** `GetDefaultDiffOptions`: status ignored for all kinds, aggregated roles compared. */
export const DEFAULT_COMPARE_SETTINGS: CompareSettings = {
  ignoreAggregatedRoles: false,
  ignoreResourceStatusField: 'all',
  ignoreDifferencesOnResourceUpdates: true,
};

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function emptyOverride(): ResourceOverride {
  return {
    healthLua: '',
    useOpenLibs: false,
    ignoreDifferences: { jsonPointers: [], jqPathExpressions: [], managedFieldsManagers: [] },
    knownTypeFields: [],
  };
}

class SettingsReader {
  constructor(readonly origin: string) {}

  fail(key: string, message: string): never {
    throw new UsageError(`failed to read ${key}: ${message}`, { subject: this.origin });
  }

  yaml(key: string, text: string): unknown {
    try {
      return parse(text, { uniqueKeys: false });
    } catch (err) {
      return this.fail(key, oneLine(err).split(' at line')[0] ?? 'invalid YAML');
    }
  }

  strings(key: string, value: unknown, field: string): string[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value) || value.some((x) => typeof x !== 'string'))
      return this.fail(key, `${field} must be a list of strings`);
    return value as string[];
  }

  /** `OverrideIgnoreDiff` from YAML text (Argo CD unmarshals the string as YAML). */
  ignoreDiff(key: string, text: unknown): OverrideIgnoreDiff {
    if (text === undefined || text === null || text === '')
      return { jsonPointers: [], jqPathExpressions: [], managedFieldsManagers: [] };
    if (typeof text !== 'string') return this.fail(key, 'expected a YAML string');
    const value = this.yaml(key, text);
    if (value === null || value === undefined)
      return { jsonPointers: [], jqPathExpressions: [], managedFieldsManagers: [] };
    if (!isMap(value))
      return this.fail(key, 'expected a map with jsonPointers, jqPathExpressions or managedFieldsManagers');
    return {
      jsonPointers: this.strings(key, value['jsonPointers'], 'jsonPointers'),
      jqPathExpressions: this.strings(key, value['jqPathExpressions'], 'jqPathExpressions'),
      managedFieldsManagers: this.strings(key, value['managedFieldsManagers'], 'managedFieldsManagers'),
    };
  }

  /**
   * `[]KnownTypeField` (a YAML list of {field, type}; in the split key, YAML text of one). A type Argo CD
   * does not know (`knownTypes` in util/argo/normalizers/knowntypes_normalizer.go) is a warning and the
   * entry is dropped, as Argo CD's `addKnownField` logs "type '...' is not supported" and goes on.
   */
  knownTypeFields(key: string, raw: unknown, warnings: string[]): Array<{ field: string; type: string }> {
    const value = typeof raw === 'string' ? this.yaml(key, raw) : raw;
    if (value === null || value === undefined) return [];
    if (!Array.isArray(value)) return this.fail(key, 'knownTypeFields must be a list of {field, type}');
    const out: Array<{ field: string; type: string }> = [];
    value.forEach((entry: unknown, i) => {
      if (!isMap(entry) || typeof entry['field'] !== 'string' || typeof entry['type'] !== 'string')
        this.fail(key, `knownTypeFields entry ${i + 1} must have string field and type`);
      const field = entry['field'] as string;
      const type = entry['type'] as string;
      if (!knownTypeSchema(builtinCatalog(), type)) {
        warnings.push(
          `${this.origin}: ${key}: type '${type}' is not supported (field ${field} is not normalized)`,
        );
      } else out.push({ field, type });
    });
    return out;
  }

  filters(key: string, text: string): FilteredResource[] {
    const value = this.yaml(key, text);
    if (value === null || value === undefined) return [];
    if (!Array.isArray(value)) return this.fail(key, 'expected a list of {apiGroups, kinds, clusters}');
    return value.map((entry: unknown, i) => {
      if (!isMap(entry)) return this.fail(key, `entry ${i + 1} is not a map`);
      return {
        apiGroups: this.strings(key, entry['apiGroups'], `entry ${i + 1} apiGroups`),
        kinds: this.strings(key, entry['kinds'], `entry ${i + 1} kinds`),
        clusters: this.strings(key, entry['clusters'], `entry ${i + 1} clusters`),
      };
    });
  }
}

/** `convertToOverrideKey`: `group_Kind` -> `group/Kind`; `Kind` stays; `all` -> `*\/*`. */
function overrideKeyOf(reader: SettingsReader, key: string, groupKind: string): string {
  const parts = groupKind.split('_');
  if (parts.length === 2) return `${parts[0]}/${parts[1]}`;
  if (parts.length === 1 && groupKind !== '') return groupKind === 'all' ? '*/*' : groupKind;
  return reader.fail(key, `group kind should be <group>_<kind> or <kind>, got '${groupKind}'`);
}

function parseBool(reader: SettingsReader, key: string, text: string): boolean {
  // Go's strconv.ParseBool.
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return reader.fail(key, `invalid boolean ${JSON.stringify(text)}`);
}

function parseOverrides(reader: SettingsReader, data: Record<string, string>, warnings: string[]) {
  const overrides: Record<string, ResourceOverride> = {};
  const combined = data[CUSTOMIZATIONS_KEY];
  if (combined) {
    const value = reader.yaml(CUSTOMIZATIONS_KEY, combined);
    if (value !== null && value !== undefined && !isMap(value))
      reader.fail(CUSTOMIZATIONS_KEY, 'expected a map of <group>/<Kind> to overrides');
    for (const [gk, raw] of Object.entries(isMap(value) ? value : {})) {
      const where = `${CUSTOMIZATIONS_KEY} ${gk}`;
      if (raw === null) continue;
      if (!isMap(raw)) reader.fail(where, 'expected a map');
      const o = emptyOverride();
      const lua = raw['health.lua'];
      if (lua !== undefined && lua !== null && typeof lua !== 'string')
        reader.fail(where, 'health.lua must be a string');
      o.healthLua = typeof lua === 'string' ? lua : '';
      const open = raw['health.lua.useOpenLibs'];
      if (open !== undefined && open !== null && typeof open !== 'boolean')
        reader.fail(where, 'health.lua.useOpenLibs must be a boolean');
      o.useOpenLibs = open === true;
      o.ignoreDifferences = reader.ignoreDiff(`${where} ignoreDifferences`, raw['ignoreDifferences']);
      o.knownTypeFields = reader.knownTypeFields(
        `${where} knownTypeFields`,
        raw['knownTypeFields'],
        warnings,
      );
      overrides[gk] = o;
    }
  }
  for (const [key, value] of Object.entries(data)) {
    if (!key.startsWith(CUSTOMIZATIONS_KEY)) continue;
    const parts = splitN(key, '.', 4);
    if (parts.length < 4) continue;
    const type = parts[2]!;
    const gk = overrideKeyOf(reader, key, parts[3]!);
    const o = overrides[gk] ?? emptyOverride();
    switch (type) {
      case 'health':
        o.healthLua = value;
        break;
      case 'useOpenLibs':
        o.useOpenLibs = parseBool(reader, key, value);
        break;
      case 'ignoreDifferences':
        o.ignoreDifferences = reader.ignoreDiff(key, value);
        break;
      case 'ignoreResourceUpdates':
        reader.ignoreDiff(key, value); // checked; a one-shot run has no watch events to ignore
        break;
      case 'actions':
        break; // resource actions are an API server feature; nothing here runs them
      case 'knownTypeFields':
        o.knownTypeFields = reader.knownTypeFields(key, value, warnings);
        break;
      default:
        reader.fail(key, `resource customization type ${type} not supported`);
    }
    overrides[gk] = o;
  }
  return overrides;
}

/** Go's strings.SplitN. */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

function parseCompare(reader: SettingsReader, text: string | undefined, warnings: string[]): CompareSettings {
  const compare = { ...DEFAULT_COMPARE_SETTINGS };
  if (text === undefined) return compare;
  const value = reader.yaml(COMPARE_OPTIONS_KEY, text);
  if (value === null || value === undefined) return compare;
  if (!isMap(value)) return reader.fail(COMPARE_OPTIONS_KEY, 'expected a map');
  const bool = (field: keyof CompareSettings): void => {
    const v = value[field];
    if (v === undefined || v === null) return;
    if (typeof v !== 'boolean') reader.fail(COMPARE_OPTIONS_KEY, `${field} must be a boolean`);
    (compare as Record<string, unknown>)[field] = v;
  };
  bool('ignoreAggregatedRoles');
  bool('ignoreDifferencesOnResourceUpdates');
  const status = value['ignoreResourceStatusField'];
  // GetResourceOverrides: "" and "all" ignore status everywhere, "crd" on CRDs, "none"/"off"/"false" nowhere;
  // anything else is "all", with a warning.
  if (status === undefined || status === null || status === '' || status === 'all')
    compare.ignoreResourceStatusField = 'all';
  else if (status === 'crd') compare.ignoreResourceStatusField = 'crd';
  else if (status === 'none' || status === 'off' || status === 'false' || status === false)
    compare.ignoreResourceStatusField = 'none';
  else {
    compare.ignoreResourceStatusField = 'all';
    warnings.push(
      `${reader.origin}: unrecognized ignoreResourceStatusField ${JSON.stringify(status)} in ${COMPARE_OPTIONS_KEY}: status is ignored for all resources, as Argo CD does`,
    );
  }
  return compare;
}

/** argocd-cm's kustomize keys; a version registered twice is an error, as in Argo CD. */
function parseKustomize(reader: SettingsReader, data: Record<string, string>): ArgoCdSettings['kustomize'] {
  const versions: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) {
    const m = /^kustomize\.(path|version)\.(.+)$/.exec(key);
    if (!m) continue;
    if (versions[m[2]!] !== undefined) reader.fail(key, `found duplicate kustomize version: ${m[2]}`);
    versions[m[2]!] = value;
  }
  return { buildOptions: data['kustomize.buildOptions'] ?? '', versions };
}

/** Parses an `argocd-cm` ConfigMap object. `origin` names it in errors ("file cm.yaml"). */
export function parseArgoCdSettings(cm: KubeObject, origin: string): ArgoCdSettings {
  const reader = new SettingsReader(origin);
  const rawData = (cm as { data?: unknown }).data;
  if (rawData !== undefined && rawData !== null && !isMap(rawData)) reader.fail('data', 'expected a map');
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(isMap(rawData) ? rawData : {})) {
    if (v === null || v === undefined) continue;
    // A ConfigMap's data values are strings; YAML may have typed an unquoted `true` or `1`.
    data[k] = typeof v === 'string' ? v : String(v);
  }
  const warnings: string[] = [];
  const settings: ArgoCdSettings = {
    origin,
    overrides: parseOverrides(reader, data, warnings),
    compare: parseCompare(reader, data[COMPARE_OPTIONS_KEY], warnings),
    sensitiveAnnotations: (data[SENSITIVE_ANNOTATIONS_KEY] ?? '')
      .replaceAll(' ', '')
      .split(',')
      .filter((k) => k !== ''),
    kustomize: parseKustomize(reader, data),
    warnings,
  };
  const method = data[TRACKING_METHOD_KEY];
  if (method) {
    if ((TRACKING_METHODS as readonly string[]).includes(method))
      settings.trackingMethod = method as TrackingMethod;
    else {
      // Argo CD's tracking code treats any other value as annotation.
      settings.trackingMethod = 'annotation';
      warnings.push(
        `${origin}: unknown ${TRACKING_METHOD_KEY} ${JSON.stringify(method)}: annotation tracking is used, as Argo CD does`,
      );
    }
  }
  const labelKey = data[INSTANCE_LABEL_KEY];
  if (labelKey) settings.instanceLabelKey = labelKey;
  if (!inClusterEnabled(data)) settings.inClusterEnabled = false;
  const installationId = data[INSTALLATION_ID_KEY];
  if (installationId) settings.installationId = installationId;
  if (data[EXCLUSIONS_KEY] !== undefined)
    settings.exclusions = reader.filters(EXCLUSIONS_KEY, data[EXCLUSIONS_KEY]);
  if (data[INCLUSIONS_KEY] !== undefined)
    settings.inclusions = reader.filters(INCLUSIONS_KEY, data[INCLUSIONS_KEY]);
  // The override rules must compile now, so a bad jq expression names argocd-cm rather than an app.
  try {
    validateIgnoreDifferences(overrideIgnoreRules(settings), `${origin} ${CUSTOMIZATIONS_KEY}`);
  } catch (err) {
    if (err instanceof UsageError && err.message.startsWith(origin)) throw err;
    reader.fail(`${CUSTOMIZATIONS_KEY}.ignoreDifferences`, oneLine(err));
  }
  return settings;
}

/**
 * The overrides' ignoreDifferences as rules, matched as Argo CD matches them:
 * - `jsonPointers`/`jqPathExpressions` (`NewIgnoreNormalizer`, `getGroupKindForOverrideKey`): key
 *   `<group>/<Kind>`, or `<Kind>` for the core group, both globs;
 * - `managedFieldsManagers` (`IgnoreDiffConfig.HasIgnoreDifference`): only the exact key
 *   `"<group>/<Kind>"` (so a core kind only as `_<Kind>`, i.e. `/<Kind>`) and `*\/*`; a glob key or a
 *   bare `<Kind>` never reaches them there, so here neither.
 * Only overrides with something to ignore give a rule.
 */
export function overrideIgnoreRules(settings: Pick<ArgoCdSettings, 'overrides'>): IgnoreDifference[] {
  const rules: IgnoreDifference[] = [];
  for (const [key, o] of Object.entries(settings.overrides)) {
    const d = o.ignoreDifferences;
    const parts = key.split('/');
    if (parts.length > 2) continue; // Argo CD logs "override key must be <group>/<kind> or <kind>" and skips it
    const [group, kind] = parts.length === 2 ? [parts[0]!, parts[1]!] : ['', parts[0]!];
    if (d.jsonPointers.length + d.jqPathExpressions.length > 0) {
      rules.push({
        group,
        kind,
        ...(d.jsonPointers.length ? { jsonPointers: d.jsonPointers } : {}),
        ...(d.jqPathExpressions.length ? { jqPathExpressions: d.jqPathExpressions } : {}),
      });
    }
    const exact = key === '*/*' || (parts.length === 2 && !/[*?[\]{}\\]/.test(key));
    if (d.managedFieldsManagers.length > 0 && exact)
      rules.push({ group, kind, managedFieldsManagers: d.managedFieldsManagers });
  }
  return rules;
}

/**
 * Reads `--argocd-cm FILE` (`-` = stdin): the ConfigMap named argocd-cm, or the file's only ConfigMap.
 */
export async function loadArgoCdSettingsFile(file: string): Promise<ArgoCdSettings> {
  const objects = (await readKubeObjects(file)).filter((s) => s.object.kind === 'ConfigMap');
  const subject = `--argocd-cm ${file}`;
  const named = objects.filter((s) => s.object.metadata?.name === ARGOCD_CM);
  const picked = named.length > 0 ? named : objects;
  if (picked.length !== 1) {
    throw new UsageError(
      picked.length === 0
        ? 'failed to read argocd-cm: no ConfigMap in the file'
        : `failed to read argocd-cm: ${picked.length} ConfigMaps and none named ${ARGOCD_CM}`,
      { subject },
    );
  }
  return parseArgoCdSettings(picked[0]!.object, `file ${file === '-' ? '<stdin>' : file}`);
}

/**
 * The `knownTypeFields` of every override, per group and kind (Argo CD's `NewKnownTypesNormalizer`: the
 * override key split on "/", `Kind` alone for the core group; a glob key names no kind and matches none).
 */
export function knownTypeFieldsOf(settings: ArgoCdSettings | undefined): KnownTypeField[] {
  const out: KnownTypeField[] = [];
  for (const [key, o] of Object.entries(settings?.overrides ?? {})) {
    const slash = key.lastIndexOf('/');
    const group = slash < 0 ? '' : key.slice(0, slash);
    const kind = slash < 0 ? key : key.slice(slash + 1);
    for (const f of o.knownTypeFields) out.push({ group, kind, field: f.field, type: f.type });
  }
  return out;
}
