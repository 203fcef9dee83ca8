/**
 * A cluster Secret's `config` read as Argo CD reads it: Go's `json.Unmarshal` into `ClusterConfig`
 * (argo-cd pkg/apis/application/v1alpha1/types.go; util/settings/cluster_informer.go `secretToCluster`).
 * Whether it fails decides whether Argo CD keeps the cluster at all (and so every shard), so the rules are
 * Go's, not JSON Schema's (docs/clusters.md "Malformed cluster Secrets"):
 *
 * - empty (or no `config`): the zero config; `null`: the zero config; any other non-object: an error.
 * - Keys match fields exactly, else case-insensitively ("BearerToken" is `bearerToken`), as Go matches;
 *   unknown keys are ignored. Two keys for one field are decoded in order: the later value wins, objects
 *   merge field by field, `null` leaves a string or bool as it was and clears a list, a map or a pointer
 *   struct (`awsAuthConfig`, `execProviderConfig`).
 * - A value of the wrong type anywhere is an error (Go returns the first one after decoding the rest).
 *   `[]byte` fields (`certData`, `keyData`, `caData`) are standard base64 with padding (newlines ignored).
 *   `null` inside `args` is "", a `null` value in `env` is "".
 * - `execProviderConfig.config` is a RawExtension: any JSON.
 *
 * Not modelled: two keys that are byte-for-byte the same (JSON.parse keeps only the last; Go would also
 * type-check the earlier one). Errors name the field, never its value.
 */

/** Argo CD's ClusterConfig as read. */
export interface ClusterConfig {
  username?: string;
  password?: string;
  bearerToken?: string;
  tlsClientConfig: {
    insecure: boolean;
    serverName?: string;
    certData?: string;
    keyData?: string;
    caData?: string;
  };
  awsAuthConfig?: { clusterName?: string; roleARN?: string; profile?: string };
  execProviderConfig?: {
    command?: string;
    args?: string[];
    env?: Record<string, string>;
    apiVersion?: string;
    installHint?: string;
    provideClusterInfo?: boolean;
    config?: unknown;
  };
  disableCompression?: boolean;
  proxyUrl?: string;
}

type Json = Record<string, unknown>;
type Entries = readonly (readonly [string, unknown])[];

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Go's key folding for field matching: each character by simple case folding (ASCII and the like). */
function fold(s: string): string {
  let out = '';
  for (const c of s) {
    const f = c.toLowerCase().toUpperCase();
    out += f.length === 1 ? f : c;
  }
  return out;
}

/** The values `entries` give field `name` of a Go struct with `fields`, in document order. */
function valuesOf(entries: Entries, name: string, fields: readonly string[]): unknown[] {
  const folded = fold(name);
  return entries.filter(([k]) => k === name || (!fields.includes(k) && fold(k) === folded)).map(([, v]) => v);
}

/** Go's []byte in JSON: base64.StdEncoding (padding required; \r and \n ignored). */
function isGoBase64(s: string): boolean {
  const t = s.replace(/[\r\n]/g, '');
  return t.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(t);
}

class Decoder {
  readonly #entries: Entries;
  readonly #fields: readonly string[];
  readonly #path: string;

  constructor(entries: Entries, fields: readonly string[], path: string) {
    this.#entries = entries;
    this.#fields = fields;
    this.#path = path;
  }

  #values(name: string): unknown[] {
    return valuesOf(this.#entries, name, this.#fields);
  }

  string(name: string): string | undefined {
    let out: string | undefined;
    for (const v of this.#values(name)) {
      if (v === null) continue;
      if (typeof v !== 'string') throw new Error(`config.${this.#path}${name} is not a string`);
      out = v;
    }
    return out;
  }

  bool(name: string): boolean | undefined {
    let out: boolean | undefined;
    for (const v of this.#values(name)) {
      if (v === null) continue;
      if (typeof v !== 'boolean') throw new Error(`config.${this.#path}${name} is not a boolean`);
      out = v;
    }
    return out;
  }

  bytes(name: string): string | undefined {
    let out: string | undefined;
    for (const v of this.#values(name)) {
      if (v === null) {
        out = undefined; // a nil []byte
        continue;
      }
      if (typeof v !== 'string') throw new Error(`config.${this.#path}${name} is not a string`);
      if (!isGoBase64(v)) throw new Error(`config.${this.#path}${name} is not base64`);
      out = v.replace(/[\r\n]/g, '');
    }
    return out || undefined;
  }

  strings(name: string): string[] | undefined {
    let out: string[] | undefined;
    for (const v of this.#values(name)) {
      if (v === null) {
        out = undefined;
        continue;
      }
      if (!Array.isArray(v) || v.some((a) => a !== null && typeof a !== 'string'))
        throw new Error(`config.${this.#path}${name} is not a list of strings`);
      out = v.map((a) => (a === null ? '' : (a as string)));
    }
    return out;
  }

  stringMap(name: string): Record<string, string> | undefined {
    let out: Record<string, string> | undefined;
    for (const v of this.#values(name)) {
      if (v === null) {
        out = undefined;
        continue;
      }
      if (!isObject(v) || Object.values(v).some((e) => e !== null && typeof e !== 'string'))
        throw new Error(`config.${this.#path}${name} is not a map of strings`);
      out ??= {};
      for (const [k, e] of Object.entries(v)) out[k] = e === null ? '' : (e as string);
    }
    return out;
  }

  /**
   * A struct field: the entries of every object given for it, merged; `pointer`: null clears it. `check`
   * reads each object alone first: a type error in an object a later null cleared is still Go's error.
   */
  struct(
    name: string,
    fields: readonly string[],
    pointer: boolean,
    check: (d: Decoder) => unknown,
  ): Decoder | undefined {
    const path = `${this.#path}${name}.`;
    let entries: (readonly [string, unknown])[] | undefined;
    for (const v of this.#values(name)) {
      if (v === null) {
        if (pointer) entries = undefined;
        continue;
      }
      if (!isObject(v)) throw new Error(`config.${this.#path}${name} is not an object`);
      entries = [...(entries ?? []), ...Object.entries(v)];
    }
    for (const v of this.#values(name)) if (isObject(v)) check(new Decoder(Object.entries(v), fields, path));
    return entries ? new Decoder(entries, fields, path) : undefined;
  }

  /** Any JSON: the last non-null value (a RawExtension). */
  raw(name: string): unknown {
    let out: unknown;
    for (const v of this.#values(name)) out = v === null ? undefined : v;
    return out;
  }
}

const TLS_FIELDS = ['insecure', 'serverName', 'certData', 'keyData', 'caData'] as const;
const AWS_FIELDS = ['clusterName', 'roleARN', 'profile'] as const;
const EXEC_FIELDS = [
  'command',
  'args',
  'env',
  'apiVersion',
  'installHint',
  'provideClusterInfo',
  'config',
] as const;
const CONFIG_FIELDS = [
  'username',
  'password',
  'bearerToken',
  'tlsClientConfig',
  'awsAuthConfig',
  'execProviderConfig',
  'disableCompression',
  'proxyUrl',
] as const;

function readTls(d: Decoder): ClusterConfig['tlsClientConfig'] {
  const t: ClusterConfig['tlsClientConfig'] = { insecure: d.bool('insecure') ?? false };
  const serverName = d.string('serverName');
  if (serverName) t.serverName = serverName;
  for (const key of ['certData', 'keyData', 'caData'] as const) {
    const v = d.bytes(key);
    if (v) t[key] = v;
  }
  return t;
}

function readAws(d: Decoder): NonNullable<ClusterConfig['awsAuthConfig']> {
  const a: NonNullable<ClusterConfig['awsAuthConfig']> = {};
  for (const key of AWS_FIELDS) {
    const v = d.string(key);
    if (v) a[key] = v;
  }
  return a;
}

function readExec(d: Decoder): NonNullable<ClusterConfig['execProviderConfig']> {
  const e: NonNullable<ClusterConfig['execProviderConfig']> = {};
  for (const key of ['command', 'apiVersion', 'installHint'] as const) {
    const v = d.string(key);
    if (v !== undefined) e[key] = v;
  }
  const args = d.strings('args');
  if (args) e.args = args;
  const env = d.stringMap('env');
  if (env) e.env = env;
  const provide = d.bool('provideClusterInfo');
  if (provide !== undefined) e.provideClusterInfo = provide;
  const config = d.raw('config');
  if (config !== undefined) e.config = config;
  return e;
}

/** `config` as Go's json.Unmarshal reads it into ClusterConfig; throws an Error naming the bad field. */
export function parseClusterConfig(text: string | undefined): ClusterConfig {
  if (text === undefined || text === '') return { tlsClientConfig: { insecure: false } };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error('config is not valid JSON');
  }
  if (raw === null) return { tlsClientConfig: { insecure: false } };
  if (!isObject(raw)) throw new Error('config is not a JSON object');
  const d = new Decoder(Object.entries(raw), CONFIG_FIELDS, '');
  const config: ClusterConfig = { tlsClientConfig: { insecure: false } };
  const set = <K extends keyof ClusterConfig>(key: K, value: ClusterConfig[K] | undefined): void => {
    if (value !== undefined) config[key] = value;
  };
  set('username', d.string('username'));
  set('password', d.string('password'));
  set('bearerToken', d.string('bearerToken'));
  set('disableCompression', d.bool('disableCompression'));
  set('proxyUrl', d.string('proxyUrl') || undefined);
  const tls = d.struct('tlsClientConfig', TLS_FIELDS, false, readTls);
  if (tls) config.tlsClientConfig = readTls(tls);
  const aws = d.struct('awsAuthConfig', AWS_FIELDS, true, readAws);
  if (aws) config.awsAuthConfig = readAws(aws);
  const exec = d.struct('execProviderConfig', EXEC_FIELDS, true, readExec);
  if (exec) config.execProviderConfig = readExec(exec);
  return config;
}
