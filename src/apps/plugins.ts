/**
 * Config management plugins' configurations (Argo CD's `ConfigManagementPlugin`, the `plugin.yaml` of a
 * cmp-server sidecar; rules in docs/plugins.md), and where they come from:
 * - `--plugin-config PATH` (repeatable): a file or a folder (its `*.yaml`, `*.yml`, `*.json` files, read
 *   recursively in path order). Each document is a `ConfigManagementPlugin`, or a ConfigMap whose data
 *   values ending in `.yaml`/`.yml` hold one (the `argocd-cmp-cm` of the Argo CD Helm chart, or any
 *   ConfigMap mounted into a sidecar). A path holding none is an error naming it.
 * - the live Argo CD namespace (`--from-cluster`), as the sidecars of the repo-server get it: every container
 *   of a Deployment labelled `app.kubernetes.io/component=repo-server` that runs `argocd-cmp-server` is a
 *   plugin; its `plugin.yaml` is read from the ConfigMap mounted at `<config dir>/plugin.yaml` (subPath) or
 *   at `<config dir>` (`/home/argocd/cmp-server/config`, or the sidecar's `--config-dir-path`). A sidecar
 *   whose file is baked into its image cannot be read: it is named in `notes`. When no such Deployment can
 *   be read (absent, or forbidden), the ConfigMap `argocd-cmp-cm` is read instead (every key holding a
 *   ConfigManagementPlugin).
 * Validation is Argo CD's `ValidatePluginConfig` (cmpserver/plugin/config.go): metadata.name non-empty,
 * kind ConfigManagementPlugin, spec.generate.command non-empty; fields have the Go types of `PluginConfig`.
 * A plugin's identity is its socket name: `<metadata.name>-<spec.version>`, or `<metadata.name>` without a
 * version (`PluginConfig.Address`); two configurations with one identity: the first wins (files before the
 * live namespace), the second is named in `notes`.
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { GitopsError, oneLine, UsageError } from '../common/index.js';
import { describeSource, readKubeObjects, type KubeObject } from '../util/yaml-docs.js';
import { withLiveConnection } from './cluster.js';

export const PLUGIN_CONFIG_KIND = 'ConfigManagementPlugin';
/** Where a cmp-server reads its configuration (common.DefaultPluginConfigFilePath) and the file's name. */
export const PLUGIN_CONFIG_DIR = '/home/argocd/cmp-server/config';
export const PLUGIN_CONFIG_FILE = 'plugin.yaml';
/** The ConfigMap the Argo CD Helm chart writes plugin configurations to (`configs.cmp`). */
export const CMP_CONFIGMAP = 'argocd-cmp-cm';

/** A command: `command[0]` run with `command[1:]` then `args` (cmpserver/plugin/plugin.go runCommand). */
export interface PluginCommand {
  command: string[];
  args: string[];
}

/** One static parameter announcement (reposerver/apiclient ParameterAnnouncement): UI information only. */
export interface ParameterAnnouncement {
  name: string;
  title?: string;
  tooltip?: string;
  required?: boolean;
  itemType?: string;
  collectionType?: string;
  string?: string;
  array?: string[];
  map?: Record<string, string>;
}

export interface PluginConfig {
  name: string;
  version: string;
  /** `<name>-<version>`, or `<name>` without a version: what `spec.source.plugin.name` must say. */
  id: string;
  init?: PluginCommand;
  generate: PluginCommand;
  discover: { fileName: string; glob: string; command?: PluginCommand };
  parameters: { static: ParameterAnnouncement[]; dynamic?: PluginCommand };
  preserveFileMode: boolean;
  provideGitCreds: boolean;
  /** Where it was read ("plugins/kh.yaml (document 1)", "configmap argocd/argocd-cmp-cm key kh.yaml"). */
  origin: string;
  /** sha256 of everything above that changes what the plugin renders (a manifest cache key part). */
  digest: string;
}

export interface PluginConfigSet {
  plugins: PluginConfig[];
  /** What could not be read and why (a baked-in sidecar, a forbidden read, a duplicate): said in errors. */
  notes: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Field readers with Go's JSON types: a wrong type fails naming the field, unknown fields are ignored. */
function fields(fail: (why: string) => never) {
  const str = (o: Obj, key: string, path: string): string => {
    const v = o[key];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') fail(`${path}.${key} must be a string`);
    return v;
  };
  const strings = (o: Obj, key: string, path: string): string[] => {
    const v = o[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
      fail(`${path}.${key} must be a list of strings`);
    return v as string[];
  };
  const obj = (o: Obj, key: string, path: string): Obj => {
    const v = o[key];
    if (v === undefined || v === null) return {};
    if (!isObj(v)) fail(`${path}.${key} must be an object`);
    return v;
  };
  const bool = (o: Obj, key: string, path: string): boolean => {
    const v = o[key];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') fail(`${path}.${key} must be true or false`);
    return v;
  };
  const command = (o: Obj, path: string): PluginCommand | undefined => {
    const c = { command: strings(o, 'command', path), args: strings(o, 'args', path) };
    return c.command.length > 0 ? c : undefined;
  };
  return { str, strings, obj, bool, command };
}

function announcement(v: unknown, path: string, fail: (why: string) => never): ParameterAnnouncement {
  if (!isObj(v)) fail(`${path} must be an object`);
  const f = fields(fail);
  const out: ParameterAnnouncement = { name: f.str(v, 'name', path) };
  for (const key of ['title', 'tooltip', 'itemType', 'collectionType', 'string'] as const) {
    if (v[key] !== undefined && v[key] !== null) out[key] = f.str(v, key, path);
  }
  if (v['required'] !== undefined && v['required'] !== null) out.required = f.bool(v, 'required', path);
  if (v['array'] !== undefined && v['array'] !== null) out.array = f.strings(v, 'array', path);
  if (v['map'] !== undefined && v['map'] !== null) {
    const m = f.obj(v, 'map', path);
    out.map = Object.fromEntries(Object.keys(m).map((k) => [k, f.str(m, k, `${path}.map`)]));
  }
  return out;
}

/** A validated plugin configuration from one parsed document; a UsageError with `origin` as subject. */
export function parsePluginConfig(doc: unknown, origin: string): PluginConfig {
  const fail = (why: string): never => {
    throw new UsageError(`failed to read plugin configuration: ${why}`, { subject: origin });
  };
  if (!isObj(doc)) return fail('not a ConfigManagementPlugin (expected a mapping)');
  const f = fields(fail);
  const metadata = f.obj(doc, 'metadata', '');
  const name = f.str(metadata, 'name', 'metadata');
  // ValidatePluginConfig's checks, in its order and words.
  if (!name) fail('invalid plugin configuration file. metadata.name should be non-empty');
  const kind = f.str(doc, 'kind', '');
  if (kind !== PLUGIN_CONFIG_KIND)
    fail(`invalid plugin configuration file. kind should be ${PLUGIN_CONFIG_KIND}, found ${kind}`);
  const spec = f.obj(doc, 'spec', '');
  const generate = f.command(f.obj(spec, 'generate', 'spec'), 'spec.generate');
  if (!generate) return fail('invalid plugin configuration file. spec.generate command should be non-empty');
  const version = f.str(spec, 'version', 'spec');
  const init = f.command(f.obj(spec, 'init', 'spec'), 'spec.init');
  const discover = f.obj(spec, 'discover', 'spec');
  const find = f.obj(discover, 'find', 'spec.discover');
  const findCommand = f.command(find, 'spec.discover.find');
  const params = f.obj(spec, 'parameters', 'spec');
  const staticList = params['static'];
  if (staticList !== undefined && staticList !== null && !Array.isArray(staticList))
    fail('spec.parameters.static must be a list');
  const dynamic = f.command(f.obj(params, 'dynamic', 'spec.parameters'), 'spec.parameters.dynamic');
  const config: Omit<PluginConfig, 'origin' | 'digest'> = {
    name,
    version,
    id: version ? `${name}-${version}` : name,
    ...(init ? { init } : {}),
    generate,
    discover: {
      fileName: f.str(discover, 'fileName', 'spec.discover'),
      glob: f.str(find, 'glob', 'spec.discover.find'),
      ...(findCommand ? { command: findCommand } : {}),
    },
    parameters: {
      static: ((staticList as unknown[] | undefined) ?? []).map((a, i) =>
        announcement(a, `spec.parameters.static[${i}]`, fail),
      ),
      ...(dynamic ? { dynamic } : {}),
    },
    preserveFileMode: f.bool(spec, 'preserveFileMode', 'spec'),
    provideGitCreds: f.bool(spec, 'provideGitCreds', 'spec'),
  };
  const digest = createHash('sha256').update(JSON.stringify(config)).digest('hex');
  return { ...config, origin, digest };
}

/** Whether discovery is configured (cmpserver `isDiscoveryConfigured`): fileName, find.glob or find.command. */
export function discoveryConfigured(p: PluginConfig): boolean {
  return p.discover.fileName !== '' || p.discover.glob !== '' || p.discover.command !== undefined;
}

/** The plugin configuration in a plugin.yaml text (the first document, as Go's yaml reads it), if any. */
function configFromText(text: string, where: string): PluginConfig | undefined {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new UsageError(`failed to read plugin configuration: invalid YAML: ${oneLine(err)}`, {
      subject: where,
    });
  }
  return isObj(doc) && doc['kind'] === PLUGIN_CONFIG_KIND ? parsePluginConfig(doc, where) : undefined;
}

/** The plugin configurations held by one object: a ConfigManagementPlugin, or a ConfigMap's yaml values. */
function configsOf(object: KubeObject, subject: string): PluginConfig[] {
  if (object.kind === PLUGIN_CONFIG_KIND) return [parsePluginConfig(object, subject)];
  if (object.kind !== 'ConfigMap') return [];
  const data = isObj(object['data']) ? object['data'] : {};
  const out: PluginConfig[] = [];
  for (const key of Object.keys(data).sort()) {
    const text = data[key];
    if (!/\.ya?ml$/.test(key) || typeof text !== 'string') continue;
    const config = configFromText(text, `${subject} key ${key}`);
    if (config) out.push(config);
  }
  return out;
}

async function yamlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await yamlFiles(path)));
    else if (/\.(ya?ml|json)$/.test(e.name)) out.push(path);
  }
  return out;
}

/** The plugin configurations of `paths` (files or folders), in order. */
export async function loadPluginConfigFiles(paths: readonly string[]): Promise<PluginConfig[]> {
  const out: PluginConfig[] = [];
  for (const path of paths) {
    let files: string[];
    try {
      files = (await stat(path)).isDirectory() ? await yamlFiles(path) : [path];
    } catch (err) {
      throw new UsageError(`failed to read plugin configuration: ${oneLine(err)}`, { subject: path });
    }
    const found: PluginConfig[] = [];
    for (const file of files) {
      for (const s of await readKubeObjects(file)) {
        found.push(...configsOf(s.object, describeSource(s)));
      }
    }
    if (found.length === 0)
      throw new UsageError(
        `failed to read plugin configuration: no ${PLUGIN_CONFIG_KIND}, and no ConfigMap holding one`,
        { subject: path },
      );
    out.push(...found);
  }
  return out;
}

/** `sets` merged in order: the first configuration of an identity wins, later ones are noted. */
export function mergePluginConfigs(...sets: PluginConfigSet[]): PluginConfigSet {
  const plugins: PluginConfig[] = [];
  const notes: string[] = [];
  for (const set of sets) {
    notes.push(...set.notes);
    for (const p of set.plugins) {
      const first = plugins.find((q) => q.id === p.id);
      if (first)
        notes.push(`${p.origin}: plugin "${p.id}" is also defined by ${first.origin}, which is used`);
      else plugins.push(p);
    }
  }
  return { plugins, notes };
}

export interface LivePluginsOptions {
  namespace: string;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  requestTimeoutMs?: number | undefined;
}

interface Container {
  name?: string;
  command?: string[];
  args?: string[];
  volumeMounts?: { name?: string; mountPath?: string; subPath?: string }[];
}
interface Volume {
  name?: string;
  configMap?: { name?: string; items?: { key?: string; path?: string }[] };
}

/** The config directory of a cmp-server container (`--config-dir-path`), or undefined when it is not one. */
export function cmpServerConfigDir(c: Container): string | undefined {
  const words = [...(c.command ?? []), ...(c.args ?? [])];
  if (!words.some((w) => /(^|[/\s])argocd-cmp-server(\s|$)/.test(w))) return undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === '--config-dir-path' && i + 1 < words.length) return words[i + 1]!.replace(/\/+$/, '');
    const eq = /^--config-dir-path=(.*)$/.exec(w);
    if (eq) return eq[1]!.replace(/\/+$/, '');
  }
  return PLUGIN_CONFIG_DIR;
}

/**
 * Where a sidecar's plugin.yaml comes from: a ConfigMap and key, or undefined (baked into the image, or a
 * volume of another kind).
 */
export function sidecarConfigMap(
  c: Container,
  volumes: readonly Volume[],
  configDir: string,
): { configMap: string; key: string } | undefined {
  const file = `${configDir}/${PLUGIN_CONFIG_FILE}`;
  for (const m of c.volumeMounts ?? []) {
    const path = (m.mountPath ?? '').replace(/\/+$/, '');
    const v = volumes.find((x) => x.name === m.name);
    if (!v?.configMap?.name) continue;
    // The file inside the volume that lands on plugin.yaml, then the ConfigMap key that file holds.
    let inVolume: string | undefined;
    if (path === file && m.subPath) inVolume = m.subPath;
    else if (path === configDir && !m.subPath) inVolume = PLUGIN_CONFIG_FILE;
    if (inVolume === undefined) continue;
    const items = v.configMap.items;
    const key = items ? items.find((i) => i.path === inVolume)?.key : inVolume;
    if (key) return { configMap: v.configMap.name, key };
  }
  return undefined;
}

/** The plugin configurations of the live Argo CD namespace (see the header). */
export async function readLivePluginConfigs(options: LivePluginsOptions): Promise<PluginConfigSet> {
  const ns = options.namespace;
  const deployments = {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    plural: 'deployments',
    namespaced: true,
    verbs: ['list'],
  };
  const configMaps = { ...deployments, group: '', kind: 'ConfigMap', plural: 'configmaps', verbs: ['get'] };
  const notes: string[] = [];
  const plugins: PluginConfig[] = [];
  try {
    return await withLiveConnection(options, async (conn, cluster) => {
      const forbidden = (err: unknown) => err instanceof cluster.ApiError && err.code === 403;
      const maps = new Map<string, Promise<KubeObject | undefined>>();
      const configMap = (name: string) => {
        let m = maps.get(name);
        if (!m) {
          m = conn.client.get(configMaps, ns, name).then(
            (o) => o,
            (err: unknown) => {
              if (cluster.isNotFound(err)) return undefined;
              if (forbidden(err)) {
                notes.push(`configmap ${ns}/${name} could not be read (forbidden)`);
                return undefined;
              }
              throw err;
            },
          );
          maps.set(name, m);
        }
        return m;
      };
      let repoServers: KubeObject[] | undefined;
      try {
        repoServers = await conn.client.listAll(deployments, {
          namespace: ns,
          labelSelector: 'app.kubernetes.io/component=repo-server',
        });
      } catch (err) {
        if (!forbidden(err)) throw err;
        notes.push(`the repo-server Deployments of namespace ${ns} could not be read (forbidden)`);
      }
      for (const d of repoServers ?? []) {
        const pod = ((d['spec'] as Obj | undefined)?.['template'] as Obj | undefined)?.['spec'] as
          { containers?: Container[]; volumes?: Volume[] } | undefined;
        for (const c of pod?.containers ?? []) {
          const dir = cmpServerConfigDir(c);
          if (!dir) continue;
          const where = `deployment ${ns}/${d.metadata?.name ?? '?'} container ${c.name ?? '?'}`;
          const source = sidecarConfigMap(c, pod?.volumes ?? [], dir);
          if (!source) {
            notes.push(`${where}: its ${PLUGIN_CONFIG_FILE} is not mounted from a ConfigMap (in its image?)`);
            continue;
          }
          const cm = await configMap(source.configMap);
          const text = (cm?.['data'] as Obj | undefined)?.[source.key];
          const subject = `configmap ${ns}/${source.configMap} key ${source.key}`;
          if (typeof text !== 'string') {
            notes.push(`${where}: ${subject} not found`);
            continue;
          }
          const config = configFromText(text, subject);
          if (config) plugins.push(config);
          else notes.push(`${where}: ${subject} holds no ${PLUGIN_CONFIG_KIND}`);
        }
      }
      // No repo-server to read the sidecars of: the Helm chart's ConfigMap, as a best guess.
      if (!repoServers || repoServers.length === 0) {
        const cm = await configMap(CMP_CONFIGMAP);
        if (cm) plugins.push(...configsOf({ ...cm, kind: 'ConfigMap' }, `configmap ${ns}/${CMP_CONFIGMAP}`));
      }
      return mergePluginConfigs({ plugins, notes });
    });
  } catch (err) {
    if (err instanceof GitopsError) throw err;
    throw new GitopsError(`failed to read config management plugins: ${oneLine(err)}`, {
      subject: `namespace ${ns}`,
      cause: err,
    });
  }
}
