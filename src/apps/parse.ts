// Over 400 lines: one reader, an Application manifest into the model; grown this round by other work, next cut: the source readers (readSource, readHelm, readKustomize, ...) into parse-source.ts.
/**
 * Turns one Application manifest (argoproj.io/v1alpha1) into the normalized `Application` model, or throws a
 * UsageError whose subject is where it came from ("apps.yaml (document 2)") and whose message names the
 * field: "failed to load Application "web": spec.source.repoURL is required".
 *
 * Rules checked (Argo CD's own validation plus what a one-shot run needs):
 * - metadata.name required; exactly one of `spec.source` / non-empty `spec.sources`;
 * - every source: repoURL required; path required unless it is a Helm repository chart (`chart`) or a
 *   ref-only source (`ref` without path); at most one of directory/kustomize/helm;
 * - `spec.destination.namespace` may be empty; `server` and `name` are mutually exclusive;
 * - sync options must be known `Key=Value` pairs (SYNC_OPTIONS below); retry durations must parse
 *   (`parseDuration`), factor and limit must be integers.
 */
import type { KubeObject } from '../util/yaml-docs.js';
import { UsageError } from '../common/index.js';
import { parseDuration } from './duration.js';
import type {
  Application,
  ApplicationSource,
  DirectoryOptions,
  HelmOptions,
  IgnoreDifference,
  JsonnetVar,
  KustomizeOptions,
  PluginOptions,
  PluginParameter,
  RetryStrategy,
  SyncPolicy,
} from './types.js';
import { stringify } from 'yaml';

/** Sync options Argo CD understands (spec 6): key -> accepted values. */
export const SYNC_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  Prune: ['true', 'false', 'confirm'],
  Delete: ['true', 'false', 'confirm'],
  Validate: ['true', 'false'],
  SkipDryRunOnMissingResource: ['true', 'false'],
  CreateNamespace: ['true', 'false'],
  ServerSideApply: ['true', 'false'],
  Replace: ['true', 'false'],
  Force: ['true', 'false'],
  PruneLast: ['true', 'false'],
  ApplyOutOfSyncOnly: ['true', 'false'],
  PrunePropagationPolicy: ['foreground', 'background', 'orphan'],
  RespectIgnoreDifferences: ['true', 'false'],
  FailOnSharedResource: ['true', 'false'],
  ClientSideApplyMigration: ['true', 'false'],
};

export const RETRY_DEFAULTS = { durationMs: 5_000, factor: 2, maxDurationMs: 180_000 } as const;

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Field readers bound to one manifest: every failure names the field path. */
class Reader {
  constructor(
    private readonly fail: (why: string) => never,
    readonly path: string,
    private readonly obj: Obj,
  ) {}

  static of(fail: (why: string) => never, path: string, value: unknown): Reader | undefined {
    if (value === undefined || value === null) return undefined;
    if (!isObj(value)) fail(`${path} must be an object`);
    return new Reader(fail, path, value);
  }

  has(key: string): boolean {
    return this.obj[key] !== undefined && this.obj[key] !== null;
  }

  child(key: string): Reader | undefined {
    return Reader.of(this.fail, `${this.path}.${key}`, this.obj[key]);
  }

  str(key: string): string | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (typeof v !== 'string') this.fail(`${this.path}.${key} must be a string`);
    return v;
  }

  bool(key: string): boolean {
    const v = this.obj[key];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') this.fail(`${this.path}.${key} must be true or false`);
    return v;
  }

  int(key: string): number | undefined {
    const v = this.obj[key];
    if (v === undefined || v === null) return undefined;
    const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n)) this.fail(`${this.path}.${key} must be an integer`);
    return n;
  }

  strings(key: string): string[] {
    const v = this.obj[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
      this.fail(`${this.path}.${key} must be a list of strings`);
    }
    return v as string[];
  }

  map(key: string): Record<string, string> {
    const v = this.obj[key];
    if (v === undefined || v === null) return {};
    if (!isObj(v)) this.fail(`${this.path}.${key} must be a map of strings`);
    const out: Record<string, string> = {};
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === 'object' && x !== null) this.fail(`${this.path}.${key}.${k} must be a string`);
      out[k] = x === null || x === undefined ? '' : String(x);
    }
    return out;
  }

  list(key: string): Reader[] {
    const v = this.obj[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(`${this.path}.${key} must be a list`);
    return v.map((item, i) => Reader.of(this.fail, `${this.path}.${key}[${i}]`, item) ?? this.failAt(key, i));
  }

  raw(key: string): unknown {
    return this.obj[key];
  }

  /** Fails naming this object's path. */
  invalid(why: string): never {
    return this.fail(`${this.path}: ${why}`);
  }

  private failAt(key: string, i: number): never {
    return this.fail(`${this.path}.${key}[${i}] must be an object`);
  }
}

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_LABEL}(\\.${DNS1123_LABEL})*$`);

/**
 * Why `name` is not a valid Application name, or undefined. The API server accepts an Application only when
 * its name is a DNS-1123 subdomain (apimachinery validation.IsDNS1123Subdomain via
 * ValidateObjectMeta/NameIsDNSSubdomain for custom resources): at most 253 characters of lower-case
 * alphanumerics, '-' and '.', starting and ending alphanumeric. Argo CD never sees any other name, and
 * names become file names (render --output-dir), so "../x" must never get through.
 */
export function dns1123SubdomainProblem(name: string): string | undefined {
  if (name.length > 253) return `"${name.slice(0, 40)}..." is longer than 253 characters`;
  if (!DNS1123_SUBDOMAIN.test(name)) {
    return `"${name}" is not a valid name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`;
  }
  return undefined;
}

/** Why `ns` is not a valid namespace name (a DNS-1123 label, apimachinery ValidateNamespaceName), or undefined. */
export function dns1123LabelProblem(ns: string): string | undefined {
  if (ns.length > 63 || !new RegExp(`^${DNS1123_LABEL}$`).test(ns)) {
    return "is not a valid namespace: a lowercase RFC 1123 label of at most 63 characters (lower case alphanumerics and '-')";
  }
  return undefined;
}

/**
 * Parses and validates one Application. `origin` is the error subject ("apps.yaml (document 2)").
 * `strictNames` checks metadata.name/namespace as the API server does (Applications the user wrote);
 * ApplicationSet output is left to the ApplicationSet rules.
 */
export function parseApplication(manifest: KubeObject, origin: string, strictNames = false): Application {
  const name = typeof manifest.metadata?.name === 'string' ? manifest.metadata.name : '';
  const fail = (why: string): never => {
    throw new UsageError(`failed to load Application${name ? ` "${name}"` : ''}: ${why}`, {
      subject: origin,
    });
  };
  if (manifest.kind !== 'Application' || !String(manifest.apiVersion ?? '').startsWith('argoproj.io/')) {
    fail(
      `not an argoproj.io Application (apiVersion "${manifest.apiVersion ?? ''}", kind "${manifest.kind ?? ''}")`,
    );
  }
  if (!name) fail('metadata.name is required');
  if (strictNames) {
    const nameProblem = dns1123SubdomainProblem(name);
    if (nameProblem) fail(`metadata.name ${nameProblem}`);
    const namespace = manifest.metadata?.namespace;
    if (typeof namespace === 'string' && namespace !== '') {
      const nsProblem = dns1123LabelProblem(namespace);
      if (nsProblem) fail(`metadata.namespace "${namespace}" ${nsProblem}`);
    }
  }
  const meta = Reader.of(fail, 'metadata', manifest.metadata)!;
  const spec = Reader.of(fail, 'spec', manifest['spec']) ?? fail('spec is required');

  const sourceList = spec.list('sources');
  const hasSource = spec.has('source');
  if (hasSource && sourceList.length > 0) fail('spec.source and spec.sources are both set (use one)');
  if (!hasSource && sourceList.length === 0) fail('spec.source or spec.sources is required');
  const sources = hasSource
    ? [readSource(spec.child('source')!, fail)]
    : sourceList.map((s) => readSource(s, fail));
  const refs = new Set<string>();
  for (const s of sources) {
    if (s.ref === undefined) continue;
    if (refs.has(s.ref)) fail(`spec.sources: ref "${s.ref}" is used twice`);
    refs.add(s.ref);
  }

  const dest = spec.child('destination') ?? fail('spec.destination is required');
  const server = dest.str('server') || undefined;
  const destName = dest.str('name') || undefined;
  if (server && destName) fail('spec.destination: server and name are both set (use one)');

  return {
    name,
    ...(manifest.metadata?.namespace ? { namespace: manifest.metadata.namespace } : {}),
    labels: meta.map('labels'),
    annotations: meta.map('annotations'),
    project: spec.str('project') || 'default',
    sources,
    multiSource: !hasSource,
    destination: {
      ...(server ? { server } : {}),
      ...(destName ? { name: destName } : {}),
      namespace: dest.str('namespace') ?? '',
    },
    syncPolicy: readSyncPolicy(spec.child('syncPolicy'), fail),
    ignoreDifferences: spec.list('ignoreDifferences').map(readIgnoreDifference),
    origin,
    manifest,
  };
}

function readSource(r: Reader, fail: (why: string) => never): ApplicationSource {
  const repoURL = r.str('repoURL') ?? '';
  if (!repoURL) fail(`${r.path}.repoURL is required`);
  const chart = r.str('chart') || undefined;
  const ref = r.str('ref') || undefined;
  const path = (r.str('path') ?? '').replace(/^\.\/?$/, '.');
  if (!path && !chart && !ref) fail(`${r.path}.path is required`);
  if (ref !== undefined && !/^[A-Za-z0-9_-]+$/.test(ref)) fail(`${r.path}.ref "${ref}" must be alphanumeric`);
  const kinds = ['directory', 'kustomize', 'helm', 'plugin'].filter((k) => r.has(k));
  if (kinds.length > 1) fail(`${r.path}: multiple source types set (${kinds.join(', ')})`);
  const name = r.str('name') || undefined;
  const directory = r.child('directory');
  const kustomize = r.child('kustomize');
  const helm = r.child('helm');
  const plugin = r.child('plugin');
  return {
    repoURL,
    path,
    targetRevision: r.str('targetRevision') || 'HEAD',
    ...(chart ? { chart } : {}),
    ...(ref ? { ref } : {}),
    ...(name ? { name } : {}),
    ...(directory ? { directory: readDirectory(directory) } : {}),
    ...(kustomize ? { kustomize: readKustomize(kustomize) } : {}),
    ...(helm ? { helm: readHelm(helm) } : {}),
    ...(plugin ? { plugin: readPlugin(plugin) } : {}),
  };
}

/**
 * `plugin` as Argo CD's ApplicationSourcePlugin, unvalidated as Argo CD leaves it: an env entry is a name
 * and a value, a parameter a name and any of `string`, `map`, `array`.
 */
function readPlugin(r: Reader): PluginOptions {
  const env = r.list('env').map((e) => ({ name: e.str('name') ?? '', value: e.str('value') ?? '' }));
  const parameters = r.list('parameters').map((p): PluginParameter => {
    const string = p.str('string');
    return {
      name: p.str('name') ?? '',
      ...(string !== undefined ? { string } : {}),
      ...(p.has('map') ? { map: p.map('map') } : {}),
      ...(p.has('array') ? { array: p.strings('array') } : {}),
    };
  });
  return { name: r.str('name') ?? '', env, parameters };
}

function readDirectory(r: Reader): DirectoryOptions {
  const j = r.child('jsonnet');
  const vars = (key: string): JsonnetVar[] =>
    (j?.list(key) ?? []).map((v) => ({
      name: v.str('name') ?? '',
      value: v.str('value') ?? '',
      code: v.bool('code'),
    }));
  return {
    recurse: r.bool('recurse'),
    include: r.str('include') ?? '',
    exclude: r.str('exclude') ?? '',
    jsonnet: { extVars: vars('extVars'), tlas: vars('tlas'), libs: j?.strings('libs') ?? [] },
  };
}

function readKustomize(r: Reader): KustomizeOptions {
  const namePrefix = r.str('namePrefix');
  const nameSuffix = r.str('nameSuffix');
  const namespace = r.str('namespace');
  const version = r.str('version');
  const kubeVersion = r.str('kubeVersion');
  const patches = r.raw('patches');
  return {
    ...(namePrefix ? { namePrefix } : {}),
    ...(nameSuffix ? { nameSuffix } : {}),
    images: r.strings('images'),
    replicas: r.list('replicas').map((p) => {
      const count = p.raw('count');
      // IntOrString: an integer, or a string holding one (KustomizeReplica.GetIntCount).
      if (typeof count === 'number' ? !Number.isInteger(count) : !/^-?\d+$/.test(String(count ?? '')))
        p.invalid(`count ${JSON.stringify(count)} is not an integer`);
      return { name: p.str('name') ?? '', count: String(count) };
    }),
    commonLabels: r.map('commonLabels'),
    commonAnnotations: r.map('commonAnnotations'),
    forceCommonLabels: r.bool('forceCommonLabels'),
    forceCommonAnnotations: r.bool('forceCommonAnnotations'),
    commonAnnotationsEnvsubst: r.bool('commonAnnotationsEnvsubst'),
    labelWithoutSelector: r.bool('labelWithoutSelector'),
    labelIncludeTemplates: r.bool('labelIncludeTemplates'),
    ...(namespace ? { namespace } : {}),
    patches: Array.isArray(patches)
      ? patches.filter((p): p is Record<string, unknown> => p !== null && typeof p === 'object')
      : [],
    components: r.strings('components'),
    ignoreMissingComponents: r.bool('ignoreMissingComponents'),
    ...(version ? { version } : {}),
    ...(kubeVersion ? { kubeVersion } : {}),
    apiVersions: r.strings('apiVersions'),
  };
}

function readHelm(r: Reader): HelmOptions {
  const valuesObject = r.raw('valuesObject');
  const values =
    valuesObject !== undefined && valuesObject !== null ? stringify(valuesObject) : (r.str('values') ?? '');
  const releaseName = r.str('releaseName');
  const namespace = r.str('namespace');
  const kubeVersion = r.str('kubeVersion');
  const version = r.str('version');
  return {
    valueFiles: r.strings('valueFiles'),
    values,
    parameters: r.list('parameters').map((p) => ({
      name: p.str('name') ?? '',
      value: p.str('value') ?? '',
      forceString: p.bool('forceString'),
    })),
    fileParameters: r
      .list('fileParameters')
      .map((p) => ({ name: p.str('name') ?? '', path: p.str('path') ?? '' })),
    ...(releaseName ? { releaseName } : {}),
    ...(namespace ? { namespace } : {}),
    skipCrds: r.bool('skipCrds'),
    skipTests: r.bool('skipTests'),
    ignoreMissingValueFiles: r.bool('ignoreMissingValueFiles'),
    ...(kubeVersion ? { kubeVersion } : {}),
    apiVersions: r.strings('apiVersions'),
    ...(version ? { version } : {}),
    passCredentials: r.bool('passCredentials'),
    skipSchemaValidation: r.bool('skipSchemaValidation'),
  };
}

function readSyncPolicy(r: Reader | undefined, fail: (why: string) => never): SyncPolicy {
  const policy: SyncPolicy = { syncOptions: [], options: {} };
  if (!r) return policy;
  const auto = r.child('automated');
  // `automated: {}` turns auto-sync on; `enabled: false` turns it off (nil = on).
  if (auto && auto.raw('enabled') !== false) {
    policy.automated = {
      prune: auto.bool('prune'),
      selfHeal: auto.bool('selfHeal'),
      allowEmpty: auto.bool('allowEmpty'),
    };
  }
  policy.syncOptions = r.strings('syncOptions');
  for (const option of policy.syncOptions) {
    const eq = option.indexOf('=');
    const key = eq < 0 ? option : option.slice(0, eq);
    const value = eq < 0 ? '' : option.slice(eq + 1);
    const allowed = SYNC_OPTIONS[key];
    if (!allowed) fail(`spec.syncPolicy.syncOptions: unknown sync option "${option}"`);
    if (!allowed.includes(value)) {
      fail(`spec.syncPolicy.syncOptions: "${option}" must be ${key}=${allowed.join('|')}`);
    }
    policy.options[key] = value;
  }
  const retry = r.child('retry');
  if (retry) policy.retry = readRetry(retry, fail);
  const mnm = r.child('managedNamespaceMetadata');
  if (mnm)
    policy.managedNamespaceMetadata = { labels: mnm.map('labels'), annotations: mnm.map('annotations') };
  return policy;
}

/** The backoff fields set (Go's omitempty: empty strings and a nil factor dropped); undefined when none. */
export function writtenBackoff(b: {
  duration?: unknown;
  factor?: unknown;
  maxDuration?: unknown;
}): RetryStrategy['written'] {
  const out: NonNullable<RetryStrategy['written']> = {};
  if (typeof b.duration === 'string' && b.duration) out.duration = b.duration;
  if (typeof b.factor === 'number') out.factor = b.factor;
  if (typeof b.maxDuration === 'string' && b.maxDuration) out.maxDuration = b.maxDuration;
  return Object.keys(out).length > 0 ? out : undefined;
}

function readRetry(r: Reader, fail: (why: string) => never): RetryStrategy {
  const b = r.child('backoff');
  const duration = (key: string, fallback: number): number => {
    const text = b?.str(key);
    if (text === undefined || text === '') return fallback;
    const ms = parseDuration(text);
    if (ms === undefined || ms < 0) {
      fail(`spec.syncPolicy.retry.backoff.${key} "${text}" is not a duration (e.g. 5s, 1m30s, 2h)`);
    }
    return ms;
  };
  const factor = b?.int('factor') ?? RETRY_DEFAULTS.factor;
  if (factor < 1) fail('spec.syncPolicy.retry.backoff.factor must be >= 1');
  const limit = r.int('limit');
  const written = writtenBackoff({
    duration: b?.str('duration'),
    factor: b?.int('factor'),
    maxDuration: b?.str('maxDuration'),
  });
  return {
    ...(limit !== undefined ? { limit } : {}),
    ...(written ? { written } : {}),
    backoff: {
      durationMs: duration('duration', RETRY_DEFAULTS.durationMs),
      factor,
      maxDurationMs: duration('maxDuration', RETRY_DEFAULTS.maxDurationMs),
    },
    refresh: r.bool('refresh'),
  };
}

function readIgnoreDifference(r: Reader): IgnoreDifference {
  const name = r.str('name');
  const namespace = r.str('namespace');
  return {
    group: r.str('group') ?? '',
    kind: r.str('kind') ?? '',
    ...(name ? { name } : {}),
    ...(namespace ? { namespace } : {}),
    jsonPointers: r.strings('jsonPointers'),
    jqPathExpressions: r.strings('jqPathExpressions'),
    managedFieldsManagers: r.strings('managedFieldsManagers'),
  };
}
