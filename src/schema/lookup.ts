/**
 * Schema facts by object path: the small typed door through which the diff (and anything else that holds
 * objects, not schemas) asks "how does the list at `spec.ports` merge?" of one kind. A `SchemaLookup`
 * answers per kind with a `KindSchema`; `schemaLookup(catalog, knownTypeFields)` builds one over a
 * cluster's `SchemaCatalog` (built-in definitions plus the CRDs the cluster serves), with Argo CD's
 * `knownTypeFields` laid over custom kinds: a field declared to hold a built-in type (a Rollout's
 * `spec.template.spec` is a `core/v1/PodSpec`) is read with that type's definition, so its lists merge as
 * the built-in type's do.
 *
 * Paths are dotted field names from the object root; a list step is written `name[]` (the list's items)
 * or `[]`; `spec.ports` is the list, `spec.ports[]` its items.
 */
import { parseApiVersion } from '../common/index.js';
import type { Json, JsonMap } from '../common/index.js';
import { applyDefaults as applySchemaDefaults, refName, rulesFor } from './defaults.js';
import type { FieldFacts, Schema, SchemaCatalog } from './catalog.js';
import { validateObject } from './validate.js';
import type { SchemaViolation } from './violation.js';

/** How server-side apply identifies the items of a list (structured-merge-diff's schema reading). */
export type ListShape =
  | { kind: 'map'; keys: readonly string[]; keyDefaults?: Readonly<Record<string, Json>> }
  | { kind: 'set' }
  | { kind: 'atomic' };

const ATOMIC: ListShape = Object.freeze({ kind: 'atomic' });

/**
 * The server-side-apply shape of a list from its facts: `x-kubernetes-list-type` map with its
 * `x-kubernetes-list-map-keys`, set, or atomic; a list with only a strategic-merge key is a map by that
 * key (a merge strategy without key: a set), as structured-merge-diff converts the published OpenAPI.
 */
export function listShapeOf(f: FieldFacts): ListShape {
  if (f.listType === 'atomic') return ATOMIC;
  if (f.listType === 'map' && f.listMapKeys?.length) return { kind: 'map', keys: f.listMapKeys };
  if (f.listType === 'set') return { kind: 'set' };
  if (f.patchStrategies.includes('merge'))
    return f.patchMergeKey ? { kind: 'map', keys: [f.patchMergeKey] } : { kind: 'set' };
  return ATOMIC;
}

function isMap(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The identity of a map-list item: its keys sorted, an omitted key at its default (`shape.keyDefaults`);
 * undefined when a key without default is missing. */
export function listItemKey(
  item: Json,
  shape: { keys: readonly string[]; keyDefaults?: Readonly<Record<string, Json>> | undefined },
): string | undefined {
  if (!isMap(item)) return undefined;
  const id: JsonMap = {};
  for (const k of [...shape.keys].sort()) {
    const v = item[k] ?? shape.keyDefaults?.[k];
    if (v === undefined || v === null) return undefined;
    id[k] = v;
  }
  return JSON.stringify(id);
}

const shapes = new WeakMap<object, ListShape>();

/**
 * The server-side-apply shape of a list field (`listShapeOf` its facts), with the defaults of its map
 * keys, which structured-merge-diff fills in for items that omit a key: from the defaults table for
 * built-in item types (`ContainerPort.protocol`, `ServicePort.protocol`: TCP; Kubernetes publishes them as
 * OpenAPI v3 `default`s from 1.27 only), else the item schema's own `default` (CRD schemas).
 */
export function listShapeAt(catalog: SchemaCatalog, field: Schema | undefined): ListShape {
  if (!field) return ATOMIC;
  const cached = shapes.get(field);
  if (cached) return cached;
  let shape = listShapeOf(catalog.factsOf(field));
  if (shape.kind === 'map') {
    const items = catalog.items(field);
    const name = refName(catalog, items);
    const rules = name ? rulesFor(catalog, name) : [];
    const props = catalog.resolve(items)?.['properties'];
    const keyDefaults: Record<string, Json> = {};
    for (const k of shape.keys) {
      const rule = rules.find(
        (r) => r.at === '' && r.field === k && !r.when && typeof r.value !== 'function',
      );
      const own = isMap(props) && isMap(props[k]) ? (props[k] as JsonMap)['default'] : undefined;
      const v = rule ? (rule.value as Json) : own;
      if (v !== undefined && v !== null) keyDefaults[k] = v;
    }
    if (Object.keys(keyDefaults).length) shape = { ...shape, keyDefaults };
  }
  shapes.set(field, shape);
  return shape;
}

/** One argocd-cm `resource.customizations.knownTypeFields.<group_kind>` entry. */
export interface KnownTypeField {
  group: string;
  kind: string;
  /** Dotted field path; a list on the way applies to each of its items (Argo CD's `normalize`). */
  field: string;
  /** Argo CD's type name: `core/v1/<Type>` (a k8s.io/api/core/v1 type), `core/Quantity`, `meta/v1/Duration`. */
  type: string;
}

/**
 * The schema of an Argo CD known type (util/argo/normalizers/knowntypes_normalizer.go: the generated
 * `core/v1/*` table of k8s.io/api/core/v1 types plus `core/Quantity` and `meta/v1/Duration`), or
 * undefined for a type Argo CD does not know (it logs and skips the field; so do we, see settings).
 */
export function knownTypeSchema(catalog: SchemaCatalog, type: string): Schema | undefined {
  if (type === 'core/Quantity')
    return { $ref: '#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity' };
  if (type === 'meta/v1/Duration') return { type: 'string' };
  const m = /^core\/v1\/([A-Za-z0-9]+)$/.exec(type);
  if (!m) return undefined;
  const name = `io.k8s.api.core.v1.${m[1]}`;
  return catalog.definition(name) ? { $ref: `#/definitions/${name}` } : undefined;
}

/** The schema facts of one kind, by path. */
export interface KindSchema {
  /** The root definition's name; undefined when neither Kubernetes nor a CRD defines the kind. */
  readonly definitionName: string | undefined;
  /** The field schema at `path`, or undefined. */
  field(path: string): Schema | undefined;
  /** The facts of the field at `path` (none when the schema does not have it). */
  facts(path: string): FieldFacts;
  /** The server-side-apply shape of the list at `path` (atomic when the schema does not say). */
  listShape(path: string): ListShape;
  /**
   * Calls `fn(parent, key)` for every value of `obj` (an object of this kind) whose field is of the
   * definition `name` (e.g. `io.k8s.apimachinery.pkg.api.resource.Quantity`), known type fields included.
   */
  valuesOf(obj: JsonMap, name: string, fn: (parent: JsonMap | Json[], key: string | number) => void): void;
  /**
   * Fills in the API-server defaults of src/schema/defaults.ts the kind's definition has, in place, where
   * absent (`server`: also the rules only a server applies). Custom kinds get none.
   */
  applyDefaults(obj: JsonMap, server: boolean): void;
}

/** Schema facts per kind: what the diff asks of a cluster's schemas. */
export interface SchemaLookup {
  /** The kind's schema at `apiVersion` (else at the closest version: `SchemaCatalog.definitionNameNear`). */
  kindSchema(apiVersion: string, kind: string): KindSchema;
  /** What the API server would reject in `obj` (validate.ts `validateObject` over this catalog). */
  validate(obj: JsonMap): SchemaViolation[];
}

class CatalogKindSchema implements KindSchema {
  private readonly fields = new Map<string, Schema | null>();
  private readonly shapes = new Map<string, ListShape>();
  private readonly root: Schema | undefined;

  constructor(
    private readonly catalog: SchemaCatalog,
    readonly definitionName: string | undefined,
    /** Known type fields of this kind: plain dotted path -> the type's schema. */
    private readonly known: ReadonlyMap<string, Schema>,
  ) {
    this.root = definitionName ? catalog.definition(definitionName) : undefined;
  }

  field(path: string): Schema | undefined {
    const cached = this.fields.get(path);
    if (cached !== undefined) return cached ?? undefined;
    let cur = this.root;
    const plain: string[] = [];
    for (const raw of path.split('.')) {
      if (raw === '') continue;
      if (raw === '[]') {
        cur = this.catalog.items(cur);
        continue;
      }
      const list = raw.endsWith('[]');
      const name = list ? raw.slice(0, -2) : raw;
      cur = this.catalog.property(cur, name);
      plain.push(name);
      const typed = this.known.size ? this.known.get(plain.join('.')) : undefined;
      if (typed) {
        // A list on the known path holds the type in each item (Argo CD's normalize walks lists).
        if (list) {
          cur = typed;
          continue;
        }
        const resolved = this.catalog.resolve(cur);
        cur = resolved?.['type'] === 'array' ? { ...resolved, items: typed } : typed;
      }
      if (list) cur = this.catalog.items(cur);
    }
    this.fields.set(path, cur ?? null);
    return cur;
  }

  facts(path: string): FieldFacts {
    return this.catalog.factsOf(this.field(path));
  }

  /** Per definition reference: whether a value of a schema node can hold a field of that definition. */
  private readonly reach = new Map<string, Map<Schema, boolean>>();

  /**
   * Whether a value of schema `s` can hold, at any depth, a field whose schema is `ref`: lets `valuesOf` skip
   * whole subtrees (metadata, managedFields, a ConfigMap's data) that cannot. Memoized per schema node; a
   * node met again while it is being decided (a recursive definition) counts as "can".
   */
  private reaches(s: Schema | undefined, ref: string): boolean {
    if (!s) return false;
    if (s['$ref'] === ref) return true;
    let memo = this.reach.get(ref);
    if (!memo) this.reach.set(ref, (memo = new Map()));
    const known = memo.get(s);
    if (known !== undefined) return known;
    memo.set(s, true);
    const r = this.catalog.resolve(s);
    let result = false;
    if (r) {
      const props = r['properties'];
      const children: unknown[] = [
        ...(props && typeof props === 'object' ? Object.values(props) : []),
        r['additionalProperties'],
        r['items'],
      ];
      result = children.some(
        (c) => typeof c === 'object' && c !== null && !Array.isArray(c) && this.reaches(c as Schema, ref),
      );
    }
    memo.set(s, result);
    return result;
  }

  valuesOf(obj: JsonMap, name: string, fn: (parent: JsonMap | Json[], key: string | number) => void): void {
    const ref = `#/definitions/${name}`;
    const known = this.known;
    const catalog = this.catalog;
    // Subtrees whose schema cannot hold the definition are not walked (known type fields: always walked).
    const skip = (field: Schema | undefined): boolean => known.size === 0 && !this.reaches(field, ref);
    if (skip(this.root)) return;
    const visit = (value: Json, field: Schema | undefined, plain: string[]): void => {
      if (Array.isArray(value)) {
        const items = catalog.items(field);
        value.forEach((el, i) => {
          if (items?.['$ref'] === ref) fn(value, i);
          else if (items && (isMap(el) || Array.isArray(el)) && !skip(items)) visit(el, items, plain);
        });
        return;
      }
      if (!isMap(value)) return;
      for (const [k, v] of Object.entries(value)) {
        let sub = catalog.property(field, k);
        const path = known.size ? [...plain, k] : plain;
        const typed = known.size ? known.get(path.join('.')) : undefined;
        // A list on the known path holds the type in each item (Argo CD's normalize walks lists).
        if (typed) sub = Array.isArray(v) ? { ...catalog.resolve(sub), type: 'array', items: typed } : typed;
        if (!sub) continue;
        if (sub['$ref'] === ref) fn(value, k);
        else if ((isMap(v) || Array.isArray(v)) && !skip(sub)) visit(v, sub, path);
      }
    };
    visit(obj, this.root, []);
  }

  applyDefaults(obj: JsonMap, server: boolean): void {
    if (this.definitionName) applySchemaDefaults(obj, this.catalog, this.definitionName, server);
  }

  listShape(path: string): ListShape {
    let shape = this.shapes.get(path);
    if (!shape) {
      const field = this.field(path);
      shape = listShapeAt(this.catalog, field);
      this.shapes.set(path, shape);
    }
    return shape;
  }
}

/**
 * A lookup over `catalog` (its CRDs as they are when asked: kinds are re-read after the catalog's
 * `generation` changes) with `knownTypeFields` laid over the kinds they name.
 */
export function schemaLookup(
  catalog: SchemaCatalog,
  knownTypeFields: readonly KnownTypeField[] = [],
): SchemaLookup {
  let generation = -1;
  let kinds = new Map<string, KindSchema>();
  const known = new Map<string, Map<string, Schema>>();
  // Argo CD's ensureDefaultCRDsConfigured: a Rollout's pod template is a PodSpec unless configured.
  const fields = knownTypeFields.some((f) => f.group === 'argoproj.io' && f.kind === 'Rollout')
    ? knownTypeFields
    : [
        ...knownTypeFields,
        { group: 'argoproj.io', kind: 'Rollout', field: 'spec.template.spec', type: 'core/v1/PodSpec' },
      ];
  for (const f of fields) {
    const schema = knownTypeSchema(catalog, f.type);
    if (!schema) continue;
    const gk = `${f.group}/${f.kind}`;
    if (!known.has(gk)) known.set(gk, new Map());
    known.get(gk)!.set(f.field, schema);
  }
  return {
    validate: (obj) => validateObject(catalog, obj),
    kindSchema(apiVersion: string, kind: string): KindSchema {
      if (generation !== catalog.generation) {
        generation = catalog.generation;
        kinds = new Map();
      }
      const key = `${apiVersion}/${kind}`;
      let k = kinds.get(key);
      if (!k) {
        const { group, version } = parseApiVersion(apiVersion);
        const name = catalog.definitionNameNear({ group, version, kind });
        k = new CatalogKindSchema(catalog, name, known.get(`${group}/${kind}`) ?? new Map());
        kinds.set(key, k);
      }
      return k;
    },
  };
}
