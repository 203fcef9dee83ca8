/**
 * `SchemaCatalog`: the published Kubernetes OpenAPI definitions plus the CRD schemas a cluster serves, and
 * the facts read from them (the door, index.ts, is the manual of src/schema/).
 */
import { gunzipSync } from 'node:zlib';
import { modelOfDefinition, newerFieldSchema } from './declared.js';
import {
  DEFINITIONS_GZIP_BASE64,
  KUBERNETES_VERSION,
  SOURCE_PACKAGE,
} from './generated/kubernetes-openapi.js';

/** An OpenAPI schema object (v2 `definitions` entry or a nested property). Never mutated. */
export type Schema = { readonly [key: string]: unknown };

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** What the schema says about how one field merges and what it holds. */
export interface FieldFacts {
  /** `x-kubernetes-patch-strategy` split on ",": "merge", "replace", "retainKeys". */
  patchStrategies: readonly string[];
  /** `x-kubernetes-patch-merge-key`: the key of a list merged element by element. */
  patchMergeKey?: string;
  /** `x-kubernetes-list-type` (server-side apply): atomic, set or map. */
  listType?: 'atomic' | 'set' | 'map';
  /** `x-kubernetes-list-map-keys` of a map list. */
  listMapKeys?: readonly string[];
  /** `x-kubernetes-map-type`: atomic or granular. */
  mapType?: 'atomic' | 'granular';
  /** An int-or-string field (format int-or-string or `x-kubernetes-int-or-string`). */
  intOrString: boolean;
}

/** The Kubernetes release whose published OpenAPI this module carries, and the package it came from. */
export const PUBLISHED_OPENAPI = { kubernetesVersion: KUBERNETES_VERSION, source: SOURCE_PACKAGE };

let published: Readonly<Record<string, Schema>> | undefined;

/** The published definitions, decoded on first use (about 30 ms) and shared. */
export function publishedDefinitions(): Readonly<Record<string, Schema>> {
  if (!published) {
    const json = gunzipSync(Buffer.from(DEFINITIONS_GZIP_BASE64, 'base64')).toString('utf8');
    const doc = JSON.parse(json) as { definitions: Record<string, Schema> };
    published = Object.freeze(doc.definitions);
  }
  return published;
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';
const NO_FACTS: FieldFacts = Object.freeze({ patchStrategies: [], intOrString: false });

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function gvkKey(g: GroupVersionKind): string {
  return `${g.group}/${g.version}/${g.kind}`;
}

/** The GVKs a definition declares in `x-kubernetes-group-version-kind`. */
export function groupVersionKindsOf(schema: Schema): GroupVersionKind[] {
  const v = schema['x-kubernetes-group-version-kind'];
  if (!Array.isArray(v)) return [];
  return v.filter(isObject).map((g) => ({
    group: String(g['group'] ?? ''),
    version: String(g['version'] ?? ''),
    kind: String(g['kind'] ?? ''),
  }));
}

/** Version preference of Kubernetes' discovery: GA over beta over alpha, higher numbers first. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number, string] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0, v];
    const stage = m[2] === 'alpha' ? 2 : m[2] === 'beta' ? 1 : 0;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0), v];
  };
  const pa = parse(a);
  const pb = parse(b);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pa[i] as number) - (pb[i] as number);
  return pa[3] < pb[3] ? -1 : pa[3] > pb[3] ? 1 : 0;
}

/** The definition name the real server gives a CRD's kind: reversed group, version, kind. */
export function customResourceDefinitionName(gvk: GroupVersionKind): string {
  return [...gvk.group.split('.').reverse(), gvk.version, gvk.kind].join('.');
}

interface CrdEntry {
  definitions: Record<string, Schema>;
}

export class SchemaCatalog {
  private readonly base: Readonly<Record<string, Schema>>;
  private readonly crds = new Map<string, CrdEntry>();
  private crdDefinitions: Record<string, Schema> = {};
  private index?: Map<string, string>;
  private baseNames?: WeakMap<object, string>;
  private readonly factsCache = new WeakMap<object, FieldFacts>();
  /** Bumped whenever CRD schemas are added or removed (callers cache documents per generation). */
  generation = 0;

  constructor(base?: Readonly<Record<string, Schema>>) {
    this.base = base ?? publishedDefinitions();
  }

  /** A definition by name (CRD schemas shadow nothing: their names never collide with built-ins). */
  definition(name: string): Schema | undefined {
    return this.crdDefinitions[name] ?? this.base[name];
  }

  /** Whether a definition comes from a CRD (validated as apiextensions does) rather than Kubernetes' own. */
  isCustom(name: string): boolean {
    return Object.hasOwn(this.crdDefinitions, name);
  }

  /** Every definition name, built-in first. */
  definitionNames(): string[] {
    return [...Object.keys(this.base), ...Object.keys(this.crdDefinitions)];
  }

  /** Follows `$ref` chains (and a lone `allOf: [{$ref}]`, OpenAPI v3's way to annotate a reference). */
  resolve(schema: Schema | undefined): Schema | undefined {
    let cur = schema;
    for (let hops = 0; cur && hops < 32; hops++) {
      const ref = cur['$ref'];
      if (typeof ref === 'string') {
        cur = this.definition(ref.slice(ref.lastIndexOf('/') + 1));
        continue;
      }
      const all = cur['allOf'];
      if (Array.isArray(all) && all.length === 1 && isObject(all[0]) && typeof all[0]['$ref'] === 'string') {
        cur = all[0] as Schema;
        continue;
      }
      return cur;
    }
    return cur;
  }

  private gvkIndex(): Map<string, string> {
    if (!this.index) {
      const index = new Map<string, string>();
      for (const defs of [this.base, this.crdDefinitions]) {
        for (const [name, schema] of Object.entries(defs)) {
          const gvks = groupVersionKindsOf(schema);
          // Shared meta types (DeleteOptions, WatchEvent) list every group: they are no kind's root.
          if (gvks.length !== 1) continue;
          index.set(gvkKey(gvks[0]!), name);
        }
      }
      this.index = index;
    }
    return this.index;
  }

  /** The definition name of a kind's root schema. */
  definitionNameFor(gvk: GroupVersionKind): string | undefined {
    return this.gvkIndex().get(gvkKey(gvk));
  }

  /**
   * The definition of a kind at `gvk.version`, else at the version the catalog has that is closest: same
   * major number first (autoscaling/v2 -> v2beta2 in a 1.22 catalog), then the preferred one (GA, beta,
   * alpha). Undefined when no version of the kind is defined.
   */
  definitionNameNear(gvk: GroupVersionKind): string | undefined {
    const exact = this.definitionNameFor(gvk);
    if (exact) return exact;
    const versions: string[] = [];
    for (const k of this.gvkIndex().keys()) {
      const [g, v, kd] = k.split('/');
      if (g === gvk.group && kd === gvk.kind) versions.push(v!);
    }
    if (!versions.length) return undefined;
    const major = (v: string): string => /^v(\d+)/.exec(v)?.[1] ?? '';
    const same = (v: string): number => Number(major(v) === major(gvk.version));
    versions.sort((a, b) => same(b) - same(a) || compareVersions(a, b));
    return this.definitionNameFor({ ...gvk, version: versions[0]! });
  }

  /** A kind's root schema, or undefined when neither Kubernetes nor a CRD defines it. */
  schemaFor(gvk: GroupVersionKind): Schema | undefined {
    const name = this.definitionNameFor(gvk);
    return name ? this.definition(name) : undefined;
  }

  /** The kinds with a root schema, as GVKs. */
  kinds(): GroupVersionKind[] {
    return [...this.gvkIndex().keys()].map((k) => {
      const [group, version, kind] = k.split('/') as [string, string, string];
      return { group, version, kind };
    });
  }

  /** A kind's schema at its preferred version (GA, then beta, then alpha) when the version is unknown. */
  schemaForGroupKind(group: string, kind: string): Schema | undefined {
    const versions: string[] = [];
    for (const k of this.gvkIndex().keys()) {
      const [g, v, kd] = k.split('/');
      if (g === group && kd === kind) versions.push(v!);
    }
    if (!versions.length) return undefined;
    versions.sort(compareVersions);
    return this.schemaFor({ group, version: versions[0]!, kind });
  }

  /**
   * Field `name` of a resolved built-in definition as Kubernetes 1.34 declares it, when the 1.22 schema
   * does not (declared.ts): undefined for CRD schemas, definitions without a 1.34 model and undeclared
   * fields. The embedded server's field checks ask it after `properties`.
   */
  newerProperty(parent: Schema, name: string): Schema | undefined {
    const model = parent['x-kubectl-gitops-model'];
    if (typeof model === 'string') return undefined; // built from the models: already complete
    if (!this.baseNames) {
      this.baseNames = new WeakMap();
      for (const [n, d] of Object.entries(this.base)) this.baseNames.set(d, n);
    }
    const def = this.baseNames.get(parent);
    const m = def === undefined ? undefined : modelOfDefinition(def);
    return m === undefined ? undefined : newerFieldSchema(m, name);
  }

  /** The schema of field `name` of an object schema (its own extensions kept), or undefined. */
  property(parent: Schema | undefined, name: string): Schema | undefined {
    const p = this.resolve(parent);
    if (!p) return undefined;
    const props = p['properties'];
    if (isObject(props) && isObject(props[name])) return props[name] as Schema;
    const extra = p['additionalProperties'];
    return isObject(extra) ? (extra as Schema) : undefined;
  }

  /** The item schema of a list schema. */
  items(list: Schema | undefined): Schema | undefined {
    const l = this.resolve(list);
    const items = l?.['items'];
    return isObject(items) ? (items as Schema) : undefined;
  }

  /**
   * The field schema at `path` under `root`: each step is a field name, `[]` steps into list items
   * (`containers[]` is the same as `containers`, `[]`).
   */
  fieldAt(root: Schema | undefined, path: readonly string[]): Schema | undefined {
    let cur = root;
    for (const raw of path) {
      if (!cur) return undefined;
      if (raw === '[]') {
        cur = this.items(cur);
        continue;
      }
      const list = raw.endsWith('[]');
      cur = this.property(cur, list ? raw.slice(0, -2) : raw);
      if (list) cur = this.items(cur);
    }
    return cur;
  }

  /** The merge and list facts of a field schema (as found by `property`, before `resolve`). */
  factsOf(field: Schema | undefined): FieldFacts {
    if (!field) return NO_FACTS;
    const cached = this.factsCache.get(field);
    if (cached) return cached;
    const strategy = field['x-kubernetes-patch-strategy'];
    const key = field['x-kubernetes-patch-merge-key'];
    const listType = field['x-kubernetes-list-type'];
    const mapKeys = field['x-kubernetes-list-map-keys'];
    const mapType = field['x-kubernetes-map-type'];
    const resolved = this.resolve(field);
    const facts: FieldFacts = {
      patchStrategies: typeof strategy === 'string' ? strategy.split(',').map((s) => s.trim()) : [],
      ...(typeof key === 'string' ? { patchMergeKey: key } : {}),
      ...(listType === 'atomic' || listType === 'set' || listType === 'map' ? { listType } : {}),
      ...(Array.isArray(mapKeys) ? { listMapKeys: mapKeys.map(String) } : {}),
      ...(mapType === 'atomic' || mapType === 'granular' ? { mapType } : {}),
      intOrString:
        field['x-kubernetes-int-or-string'] === true ||
        resolved?.['format'] === 'int-or-string' ||
        resolved?.['x-kubernetes-int-or-string'] === true,
    };
    this.factsCache.set(field, facts);
    return facts;
  }

  /**
   * Adds (or replaces) the schemas of a CustomResourceDefinition (apiextensions.k8s.io/v1 object): one
   * definition per version that has `schema.openAPIV3Schema`, named as the real server names them, with
   * apiVersion/kind/metadata filled in as the real server's published OpenAPI does, plus its List kind.
   */
  addCustomResourceDefinition(crd: unknown): void {
    if (!isObject(crd) || !isObject(crd['spec']) || !isObject(crd['metadata'])) return;
    const spec = crd['spec'];
    const name = String(crd['metadata']['name'] ?? '');
    const group = String(spec['group'] ?? '');
    const names = isObject(spec['names']) ? spec['names'] : {};
    const kind = String(names['kind'] ?? '');
    const listKind = String(names['listKind'] ?? `${kind}List`);
    const definitions: Record<string, Schema> = {};
    for (const v of Array.isArray(spec['versions']) ? spec['versions'] : []) {
      if (!isObject(v) || v['served'] === false) continue;
      const version = String(v['name'] ?? '');
      const schema = isObject(v['schema']) ? v['schema']['openAPIV3Schema'] : undefined;
      const gvk = { group, version, kind };
      const defName = customResourceDefinitionName(gvk);
      // No schema (only apiextensions v1beta1 allowed that): nothing is pruned.
      definitions[defName] = customResourceSchema(
        isObject(schema) ? schema : { 'x-kubernetes-preserve-unknown-fields': true },
        gvk,
      );
      definitions[customResourceDefinitionName({ group, version, kind: listKind })] = {
        description: `${listKind} is a list of ${kind}`,
        type: 'object',
        required: ['items'],
        properties: {
          apiVersion: { type: 'string' },
          items: { type: 'array', items: { $ref: `#/definitions/${defName}` } },
          kind: { type: 'string' },
          metadata: { $ref: `#/definitions/${LIST_META}` },
        },
        'x-kubernetes-group-version-kind': [{ group, version, kind: listKind }],
      };
    }
    this.crds.set(name, { definitions });
    this.rebuildCrdDefinitions();
  }

  /** Drops the schemas a CRD added. */
  removeCustomResourceDefinition(name: string): void {
    if (this.crds.delete(name)) this.rebuildCrdDefinitions();
  }

  private rebuildCrdDefinitions(): void {
    this.crdDefinitions = {};
    for (const e of this.crds.values()) Object.assign(this.crdDefinitions, e.definitions);
    this.index = undefined;
    this.generation++;
  }
}

/** A CRD version's schema as the real server publishes it: the standard fields typed, its GVK declared. */
function customResourceSchema(schema: Record<string, unknown>, gvk: GroupVersionKind): Schema {
  const props = isObject(schema['properties']) ? schema['properties'] : {};
  return {
    ...schema,
    type: 'object',
    properties: {
      ...props,
      apiVersion: {
        description:
          'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.',
        type: 'string',
      },
      kind: {
        description:
          'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase.',
        type: 'string',
      },
      metadata: {
        $ref: `#/definitions/${OBJECT_META}`,
        description: "Standard object's metadata.",
      },
    },
    'x-kubernetes-group-version-kind': [{ ...gvk }],
  };
}

let shared: SchemaCatalog | undefined;

/** A shared catalog of the published built-in schemas only (never add CRDs to it). */
export function builtinCatalog(): SchemaCatalog {
  return (shared ??= new SchemaCatalog());
}
